"""What the Rust core (``hark._core``) calls back into: JSON in and out, awaiting a coroutine so
that dropping the Rust future cancels the Python task, reading a tool's exception, and reading the
objects an author hands over (executors, outputs, replies, State models). Not a public API."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import enum
import inspect
import json
import logging
import re
import sys
import types
from typing import Any, Literal

import pydantic
import pydantic_core

from hark.errors import ArgumentsMissing, InvalidArguments, ToolError, ToolRefused

log = logging.getLogger("hark")

loads = json.loads


def _default(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, enum.Enum):
        return value.value
    return pydantic_core.to_jsonable_python(value)


def dumps(value: Any) -> str:
    """A Python value as JSON text (pydantic models, dates, enums and dataclasses as JSON)."""
    return json.dumps(value, default=_default, ensure_ascii=False, allow_nan=False)


_SURROGATE = re.compile("[\ud800-\udfff]")


def arguments_text(value: Any, tool: str = "") -> str:
    """The model's arguments (a dict, or text holding a lone surrogate) as the JSON text
    the model wrote: ``NaN`` stays ``NaN`` and a lone surrogate its ``\\uXXXX`` escape, so the
    core reads them and refuses them in its own words.

    A dict holding a value JSON has no form for (an ``object()``, a socket…) is the caller's
    mistake, not the model's: ``TypeError`` naming the tool and the type."""
    if isinstance(value, str):
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", value)
    try:
        return json.dumps(value, default=_default, ensure_ascii=True, allow_nan=True)
    except (TypeError, ValueError, pydantic_core.PydanticSerializationError) as error:
        raise TypeError(
            f"run: the arguments of {tool or 'the tool'} hold a value JSON cannot carry "
            f"({error}). Pass the model's JSON text, or a dict of JSON values (str, int, float, "
            "bool, None, lists and dicts of them; pydantic models, dates and enums are "
            "converted)."
        ) from None


class Handle:
    """The task a Rust future awaits, so that the Rust side can cancel it from any thread."""

    __slots__ = ("task", "loop", "cancelled")

    def __init__(self) -> None:
        self.task: asyncio.Task[Any] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.cancelled = False

    def cancel(self) -> None:
        """Called by Rust when its future is dropped before the task finished."""
        self.cancelled = True
        task, loop = self.task, self.loop
        if task is not None and loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed meanwhile
                pass


class Stopped(Exception):
    """A ``SystemExit`` or ``KeyboardInterrupt`` raised inside a tool (or any piece a call
    awaits), carried as an ordinary failure so it neither ends the process from inside a call nor
    vanishes: the call fails and the log keeps the traceback."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(type(error).__name__)
        self.error = error


def _interrupt(error: BaseException) -> None:
    raise error


def _stopped(error: BaseException, loop: asyncio.AbstractEventLoop) -> Stopped:
    """The call's failure for a ``SystemExit`` or ``KeyboardInterrupt`` a tool raised, logged
    here with its traceback (after a KeyboardInterrupt the loop stops before the core reads the
    failure). A ``KeyboardInterrupt`` is raised again on the loop two hops later, so the call's
    failure (the task's done callback) is delivered first and Ctrl-C still stops the program."""
    if isinstance(error, KeyboardInterrupt):
        log.error(
            "a tool call raised KeyboardInterrupt; it failed, and the interrupt is raised again",
            exc_info=error,
        )
        loop.call_soon(loop.call_soon, _interrupt, error)
    else:
        log.error("a tool call raised SystemExit; it failed, not ending the process", exc_info=error)
    return Stopped(error)


async def guarded(awaitable: Any, handle: Handle) -> Any:
    """Runs ``awaitable`` (or returns a plain value) as the task ``handle`` can cancel.

    A ``SystemExit`` inside it fails the call (a tool must not end the process). A
    ``KeyboardInterrupt`` fails the call too, and is raised again on the loop once the call has
    its failure, so Ctrl-C still stops the program."""
    handle.task = asyncio.current_task()
    handle.loop = asyncio.get_running_loop()
    if handle.cancelled:
        if inspect.iscoroutine(awaitable):
            awaitable.close()
        raise asyncio.CancelledError
    if not inspect.isawaitable(awaitable):
        return awaitable
    try:
        return await awaitable
    except (SystemExit, KeyboardInterrupt) as error:
        raise _stopped(error, handle.loop) from error


async def _guarding(coroutine: Any) -> Any:
    """``coroutine`` with ``guarded``'s rule for ``SystemExit`` and ``KeyboardInterrupt``."""
    try:
        return await coroutine
    except (SystemExit, KeyboardInterrupt) as error:
        raise _stopped(error, asyncio.get_running_loop()) from error


class _Started:
    """A coroutine started eagerly: how its first step ended."""

    __slots__ = ("coroutine", "finished", "yielded")

    def __init__(self, coroutine: Any) -> None:
        self.coroutine = coroutine
        self.finished = False
        self.yielded: Any = None


@types.coroutine
def _rest(started: _Started) -> Any:
    """The rest of a coroutine whose first step ran eagerly, as its task runs it: hands the task
    what the coroutine yielded, then sends and throws what the task gives it on to the coroutine
    (what ``await`` does). Returns at once when it finished in its first step (its outcome went
    to the caller then)."""
    if started.finished:
        return None
    coroutine, yielded = started.coroutine, started.yielded
    while True:
        try:
            sent = yield yielded
        except GeneratorExit:
            coroutine.close()
            raise
        except BaseException as error:  # noqa: BLE001 - the task's cancellation, passed on
            try:
                yielded = coroutine.throw(error)
            except StopIteration as stop:
                return stop.value
            except (SystemExit, KeyboardInterrupt) as stopping:
                raise _stopped(stopping, asyncio.get_running_loop()) from stopping
        else:
            try:
                yielded = coroutine.send(sent)
            except StopIteration as stop:
                return stop.value
            except (SystemExit, KeyboardInterrupt) as stopping:
                raise _stopped(stopping, asyncio.get_running_loop()) from stopping


def _interrupting(error: BaseException | None) -> bool:
    """True for the failure of a call whose tool raised ``KeyboardInterrupt``."""
    return isinstance(error, Stopped) and isinstance(error.error, KeyboardInterrupt)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


_EAGER_START = sys.version_info >= (3, 12)
_COROUTINE = types.CoroutineType


def eager(awaitable: Any) -> tuple[bool, Any]:
    """Starts ``awaitable`` on the running loop's thread and runs it until it first waits, like
    Python 3.12's eager tasks: ``(True, value)`` when it finished without waiting (its
    exception is raised here), else ``(False, task)`` with the task that runs the rest.

    It runs as that task (``asyncio.current_task()`` is it, so ``asyncio.timeout`` and
    cancellation work) in a copy of the current context, as a task started the usual way."""
    if type(awaitable) is not _COROUTINE and not inspect.iscoroutine(awaitable):
        if not inspect.isawaitable(awaitable):
            return (True, awaitable)
        awaitable = _awaited(awaitable)
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    if _EAGER_START:
        task = asyncio.Task(_guarding(awaitable), loop=loop, context=context, eager_start=True)  # type: ignore[call-arg]
        if task.done() and not _interrupting(task.exception()):
            return (True, task.result())
        return (False, task)
    started = _Started(awaitable)
    task = loop.create_task(_rest(started), context=context)
    current = asyncio.current_task(loop)
    if current is not None:
        asyncio.tasks._leave_task(loop, current)
    asyncio.tasks._enter_task(loop, task)
    try:
        started.yielded = context.run(awaitable.send, None)
    except StopIteration as stop:
        started.finished = True
        return (True, stop.value)
    except (SystemExit, KeyboardInterrupt) as error:
        started.finished = True
        stopped = _stopped(error, loop)
        stopped.__cause__ = error
        if not _interrupting(stopped):
            raise stopped from error
        # The call must not finish before the loop turns, or the program would go on before the
        # interrupt is raised again: its failure comes through a future, as a task's does.
        failed = loop.create_future()
        failed.set_exception(stopped)
        return (False, failed)
    except BaseException:
        started.finished = True
        raise
    finally:
        asyncio.tasks._leave_task(loop, task)
        if current is not None:
            asyncio.tasks._enter_task(loop, current)
    return (False, task)


def handle_of(task: Any) -> Handle:
    """A :class:`Handle` of a task that is running already."""
    handle = Handle()
    handle.task = task
    handle.loop = task.get_loop()
    return handle


def start(coroutine: Any, done: Any) -> None:
    """Runs ``coroutine`` as a task of the running loop; ``done`` gets the finished task."""
    asyncio.ensure_future(coroutine).add_done_callback(done)


async def awaited(future: Any) -> Any:
    """The core's future as a coroutine."""
    return await future


async def deferred(start: Any, arguments: tuple[Any, ...]) -> Any:
    """Starts the core's work once the coroutine runs (``live.run`` and ``live.close`` return
    one), so it may be made before the event loop runs. ``start`` gives the core's future, or
    the result itself when the work finished at once."""
    started = start(*arguments)
    if isinstance(started, asyncio.Future):
        return await started
    return started


def tool_error_parts(error: BaseException, tool: str = "") -> tuple[str, str, str | None, list[str]]:
    """(kind, text the model reads, event text, missing names or argument lines). The log line
    of an unexpected exception names ``tool`` (the tool, or "the precheck of <tool>")."""
    if isinstance(error, InvalidArguments):
        return ("invalid", str(error), error.event_text, list(error.lines))
    if isinstance(error, ArgumentsMissing):
        return ("missing", error.message, error.event_text, list(error.missing))
    if isinstance(error, ToolRefused):
        return ("refused", error.message, error.event_text, [])
    if isinstance(error, ToolError):
        return ("failed", error.message, error.event_text, [])
    if isinstance(error, asyncio.CancelledError):
        return ("cancelled", "cancelled", None, [])
    if isinstance(error, Stopped):  # logged with its traceback when it was caught
        return ("internal", f"the tool raised {type(error.error).__name__}", None, [])
    # The details go to the log only: the model reads "failed before completing".
    log.error("%s raised %s", tool or "a tool", type(error).__name__, exc_info=error)
    return ("internal", f"the tool raised {type(error).__name__}", None, [])


def executor_flags(tool: str, executor: Any) -> tuple[str, bool, bool, bool, bool]:
    """(label, run takes context=, run reads its state, has validate, checks_extra_arguments);
    TypeError without an async run."""
    run = getattr(executor, "run", None)
    if run is None or not inspect.iscoroutinefunction(run):
        raise TypeError(
            f"{tool}: the executor {type(executor).__name__} has no async run method. "
            "Give it `async def run(self, arguments, state, *, context=None)`."
        )
    parameters = inspect.signature(run).parameters
    takes_context = "context" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )
    validate = getattr(executor, "validate", None)
    return (
        type(executor).__name__,
        takes_context,
        bool(getattr(executor, "takes_state", True)),
        callable(validate),
        bool(getattr(executor, "checks_extra_arguments", False)),
    )


def _name_of(function: Any) -> str:
    return getattr(function, "__qualname__", None) or type(function).__name__


def check_sink(sink: Any) -> None:
    """TypeError for what ``listen`` cannot call: not callable, or an ``async def`` (a sink is
    called as the call goes and never awaited)."""
    if not callable(sink):
        raise TypeError(
            f"listen(sink): sink is a function sink(stage: str, data: dict); got {type(sink).__name__} {sink!r:.60}."
        )
    if is_async_function(sink):
        raise TypeError(
            f"listen(sink): {_name_of(sink)} is an async def, but a sink is called as the call goes and "
            "never awaited. Give a plain def sink(stage, data); for async work, start a task from it "
            "with asyncio.get_running_loop().create_task(...)."
        )


def call_sink(sink: Any, stage: str, data: dict[str, Any]) -> None:
    """Calls a sink; what it raises is logged and never breaks the call. An awaitable it returns
    anyway is closed unrun, and logged."""
    try:
        returned = sink(stage, data)
    except Exception as error:  # noqa: BLE001 - a sink never breaks the call
        log.warning(
            "the sink %s raised %s on %s; the call goes on",
            _name_of(sink),
            type(error).__name__,
            stage,
            exc_info=error,
        )
        return
    if inspect.isawaitable(returned):
        if inspect.iscoroutine(returned):
            returned.close()
        log.warning(
            "the sink %s returned an awaitable on %s, which is never awaited: a sink is a plain def.",
            _name_of(sink),
            stage,
        )


def tool_event_logged(stage: str, tool: str, error: str) -> None:
    """A failure Hark judged (a result that does not fit, one too large) or a save the State
    refused: names the tool and the field, never a value."""
    log.warning("%s %s: %s", tool, stage, error)


def is_async_function(function: Any) -> bool:
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)
    )


def speech_flags(speech: Any) -> bool:
    """True for a realtime model that speaks itself; TypeError when a method is missing."""
    missing = [m for m in ("say", "wait_playout", "reply_spoke") if not callable(getattr(speech, m, None))]
    if missing:
        raise TypeError(
            f"speech needs async say(line), async wait_playout() and reply_spoke(); "
            f"{type(speech).__name__} has no {', '.join(missing)}"
        )
    return bool(getattr(speech, "speaks_itself", False))


def speech_failed(method: str, error: BaseException) -> None:
    log.warning("speech.%s raised %s; the call goes on", method, type(error).__name__, exc_info=error)


def warn(text: str) -> None:
    log.warning("%s", text)


def output_of(output: Any) -> tuple[str, dict[str, Any] | None]:
    """(name, JSON Schema) of an output: a pydantic model class, `Done`, `Accepted`, or a type
    pydantic can describe."""
    from hark.tools import Accepted, Done
    from hark.schema import json_schema

    if output is Done or output is None or output is type(None):
        return ("Done", None)
    if output is Accepted:
        return ("Accepted", None)
    if isinstance(output, tuple) and len(output) == 2 and isinstance(output[0], str):
        return output  # (name, schema) as given
    if isinstance(output, type) and issubclass(output, pydantic.BaseModel):
        return (output.__name__, json_schema(output, mode="serialization"))
    adapter = pydantic.TypeAdapter(output)
    name = getattr(output, "__name__", None) or str(output)
    return (name, json_schema(adapter, mode="serialization"))


def reply_dict(reply: Any) -> dict[str, Any]:
    """A ToolReply (or a dict of its fields) as a dict."""
    if isinstance(reply, dict):
        row = dict(reply)
    elif dataclasses.is_dataclass(reply):
        row = {f.name: getattr(reply, f.name) for f in dataclasses.fields(reply)}
    else:
        from hark._misuse import misuse

        raise misuse(
            "replies", "each row", reply, "a ToolReply",
            'replies=[ToolReply(tool="book_table", say=["You are booked."])]',
        )
    for key in row:
        if key not in ("tool", "when", "state", "say", "say_in"):
            raise TypeError(f"{key} is not a field of ToolReply: use tool, when, state, say, say_in")
    return {
        "tool": row.get("tool"),
        "when": row.get("when") or {},
        "state": row.get("state") or {},
        "say": row.get("say") or [],
        "say_in": row.get("say_in") or {},
    }


def state_model_of(state: Any) -> tuple[str, dict[str, Any]]:
    """(name, JSON Schema) of a State model class, each value accepting null (unset)."""
    from hark.schema import json_schema

    if not (isinstance(state, type) and issubclass(state, pydantic.BaseModel)):
        from hark._misuse import misuse

        raise misuse(
            "ToolRegistry", "state", state, "a pydantic model class", "ToolRegistry(tools, state=CallValues)"
        )
    return (state.__name__, json_schema(state, mode="validation"))


def input_schema_of(source: Any) -> dict[str, Any]:
    """The parameters schema of a webhook's input: a pydantic model class, or a schema dict."""
    from hark.schema import json_schema

    if isinstance(source, dict):
        return source
    if isinstance(source, type) and issubclass(source, pydantic.BaseModel):
        return json_schema(source)
    raise TypeError(f"input= takes a pydantic model class or a JSON Schema dict, not {source!r}")


class _Words(pydantic.BaseModel):
    """The options of a tool that take one of a few words."""

    model_config = pydantic.ConfigDict(extra="ignore")
    interruption: Literal["provider_default", "continue", "cancel"] | None = None
    effect: Literal["ends_conversation"] | None = None
    announce_wait: bool | None = None
    show_result: bool | None = None


_TAKES = {
    "interruption": '"provider_default", "continue" or "cancel"',
    "effect": '"ends_conversation" (or None)',
    "announce_wait": "True or False",
    "show_result": "True or False",
}


def check_options(options: dict[str, Any], tool: str = "the tool") -> None:
    """A word a tool option does not take raises ValueError naming the tool, the option, what
    was given and the words it takes."""
    try:
        _Words.model_validate(options)
    except pydantic.ValidationError as error:
        option = str(error.errors()[0]["loc"][0])
        raise ValueError(
            f"{tool}: {option} takes {_TAKES.get(option, 'another value')}, not {options.get(option)!r}."
        ) from None
