"""The tool layer: ``local_tool`` (a tool from a typed Python function), ``ToolSpec`` (a tool from
a JSON Schema and your own executor), ``ToolRegistry``, and the rows and outputs they take.

Arguments are checked, refused, templated and spoken in Hark's Rust core, with the same texts as
the Rust API; a Python function gets real Python values, validated by pydantic from the checked
JSON (a ``date``, an ``int``, a clean ``Phone``)."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import inspect
import re
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hark import _bridge, _core, _decode
from hark._misuse import expect, items, misuse
from hark._core import (
    CallHooks,
    CallResult,
    Generation,
    LiveCall,
    ToolRegistry,
    ToolSpec,
    current_datetime_tool,
    user_phone_number_tool,
)
from hark.errors import ArgumentsMissing, InvalidArguments, ToolError, ToolRefused
from hark.schema import json_schema
from hark.webhooks import WebhookAuth, WebhookOptions, webhook_tool

__all__ = [
    "Accepted",
    "ArgumentsMissing",
    "Assign",
    "CallHooks",
    "CallResult",
    "Done",
    "Generation",
    "LiveCall",
    "ToolError",
    "ToolRefused",
    "ToolRegistry",
    "ToolReply",
    "ToolSpec",
    "Transcript",
    "WebhookAuth",
    "WebhookOptions",
    "current_datetime_tool",
    "local_tool",
    "replies_to",
    "user_phone_number_tool",
    "webhook_tool",
]


class Done(BaseModel):
    """The output of a tool that only runs: ``{"ok": true}``."""

    ok: Literal[True] = True


class Accepted(BaseModel):
    """The output of a webhook that does not wait for its answer: ``{"ok": true, "accepted":
    true}``."""

    ok: Literal[True] = True
    accepted: Literal[True] = True


@dataclasses.dataclass(frozen=True)
class Assign:
    """Save the result value at ``path`` (field names; ``()`` is the whole result) into the State
    value ``variable``."""

    variable: str
    path: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        example = 'Assign("order", ("order",))'
        expect("Assign", "variable", self.variable, str, "the State value's name (str)", example)
        path = items("Assign", "path", self.path, "a tuple of field names (str)", example)
        for i, field in enumerate(path):
            expect("Assign", f"path[{i}]", field, str, "a field name (str)", example)
        object.__setattr__(self, "path", tuple(path))


@dataclasses.dataclass(frozen=True)
class ToolReply:
    """A line code says for a result instead of asking the model for a reply.

    ``when`` maps a result field to the values that call for the line, ``state`` a State value to
    its values; ``say`` holds alternatives said in turn; ``say_in`` lines by language. On a
    registry a reply names its ``tool``; on the tool itself it leaves it out."""

    tool: str | None = None
    when: Mapping[str, Sequence[Any]] | None = None
    state: Mapping[str, Sequence[Any]] | None = None
    say: Sequence[str] = ()
    say_in: Mapping[str, Sequence[str]] | None = None

    def __post_init__(self) -> None:
        example = 'ToolReply(tool="book_table", when={"status": ["booked"]}, say=["You are booked."])'
        expect("ToolReply", "tool", self.tool, str, "a tool's name (str)", example, optional=True)
        for field in ("when", "state"):
            value = getattr(self, field)
            expect("ToolReply", field, value, Mapping, "a dict of name → values", example, optional=True)
        if isinstance(self.say, str):
            object.__setattr__(self, "say", (self.say,))
        for i, line in enumerate(items("ToolReply", "say", self.say, "a list of lines (str)", example)):
            expect("ToolReply", f"say[{i}]", line, str, "a line (str)", example)
        expect("ToolReply", "say_in", self.say_in, Mapping, "a dict of language → lines", example, optional=True)


@dataclasses.dataclass(frozen=True)
class Transcript:
    """A locked value: the call's last ``max_messages`` transcript messages."""

    max_messages: int = 50

    def __post_init__(self) -> None:
        expect(
            "Transcript", "max_messages", self.max_messages, int, "a number of messages (int)",
            "Transcript(max_messages=20)",
        )


def replies_to(result: Any, *, spoke: bool) -> bool:
    """Whether the model replies to ``result``: False for an ``ArgumentsMissing`` refusal after a
    reply that already spoke (that reply asked the caller, so the caller answers next)."""
    expect("replies_to", "spoke", spoke, bool, "True or False", "replies_to(result, spoke=True)")
    return _core.replies_to(result, spoke=spoke)


# ------------------------------------------------------------------------------ local_tool

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")
_SECTION = re.compile(r"^\s*[A-Z][A-Za-z ]*:\s*$")


def _docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """(the description: the docstring up to its Args: section; each argument's description)."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    arguments: dict[str, str] = {}
    i = 0
    while i < len(lines) and not _ARGS_HEADER.match(lines[i]):
        description.append(lines[i])
        i += 1
    current: str | None = None
    indent: int | None = None
    for line in lines[i + 1 :]:
        if not line.strip():
            current = None
            continue
        if _SECTION.match(line) and (indent is None or len(line) - len(line.lstrip()) < indent):
            break
        match = _ARG_LINE.match(line)
        this_indent = len(line) - len(line.lstrip())
        if match and (indent is None or this_indent <= indent):
            indent = this_indent
            current = match.group(1).lstrip("*")
            arguments[current] = match.group(3).strip()
        elif current is not None:
            arguments[current] = (arguments[current] + " " + line.strip()).strip()
    return "\n".join(description).strip(), arguments


def _has_description(annotation: Any) -> bool:
    if typing.get_origin(annotation) is typing.Annotated:
        for extra in typing.get_args(annotation)[1:]:
            if isinstance(extra, pydantic.fields.FieldInfo) and extra.description:
                return True
    return False


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _output_of(tool: str, hints: dict[str, Any], output: Any) -> Any:
    if output is not None:
        return output
    if "return" not in hints:
        raise TypeError(
            f"{tool} has no return type, so name its output: annotate the return type "
            "(-> YourModel) or pass output=YourModel."
        )
    returned = hints["return"]
    if returned is None or returned is type(None):
        return Done
    bare = typing.get_origin(returned) or returned
    if bare in (dict, Mapping, typing.Any, object) or returned is typing.Any:
        raise TypeError(
            f"{tool} returns a dict, so name its output: pass output=YourModel "
            "(a pydantic model the result is checked against)."
        )
    return returned


def _format_at(schema: dict[str, Any], path: Sequence[Any]) -> str | None:
    """The `format` of the value at `path` in `schema` (following `$ref`s and `anyOf`)."""
    defs = schema.get("$defs", {})

    def resolve(node: Any) -> Any:
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 32:
            node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
            seen += 1
        return node

    def find(node: Any, rest: Sequence[Any]) -> str | None:
        node = resolve(node)
        if not isinstance(node, dict):
            return None
        for branch in node.get("anyOf", []) + node.get("oneOf", []):
            found = find(branch, rest)
            if found:
                return found
        if not rest:
            return node.get("format")
        head, tail = rest[0], rest[1:]
        if isinstance(head, int):
            return find(node.get("items", {}), tail)
        properties = node.get("properties", {})
        if head in properties:
            return find(properties[head], tail)
        return None

    return find(schema, list(path))


def _aware(annotation: Any) -> Any:
    """A ``datetime`` parameter (alone, optional or annotated) as pydantic's ``AwareDatetime``:
    the model is told to write the UTC offset ("with its UTC offset, like
    2026-10-16T09:30:00+02:00"), so a value without one is refused in those words rather than
    handed to the tool as a naive time nobody placed in a zone."""
    if annotation is datetime.datetime:
        return pydantic.AwareDatetime
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        base, *meta = typing.get_args(annotation)
        aware = _aware(base)
        return annotation if aware is base else typing.Annotated.__class_getitem__((aware, *meta))  # type: ignore[attr-defined]
    if origin in (typing.Union, types.UnionType):
        members = typing.get_args(annotation)
        aware_members = tuple(_aware(member) for member in members)
        if aware_members != members:
            return typing.Union[aware_members]  # type: ignore[return-value]
    return annotation


def invalid_arguments(error: ValidationError, schema: dict[str, Any]) -> InvalidArguments:
    """A pydantic refusal of checked arguments in the core's words: a value of a format Hark
    knows is quoted with what is wrong with it (`day: "2026-02-30" is not a day on the calendar:
    February 2026 has days 01 to 28`), any other reads the reason pydantic gives. The event text
    names fields only, never a value."""
    lines: list[str] = []
    fields: list[str] = []
    for item in error.errors(include_url=False):
        location = [part for part in item["loc"] if not (isinstance(part, str) and "[" in part)]
        path = ".".join(str(part) for part in location)
        form = _format_at(schema, location)
        reason = _core.format_refused(form, item.get("input")) if form else None
        if reason is None:
            reason = item["msg"]
            fields.append(f"{path or '(arguments)'} (type)")
        else:
            fields.append(f"{path or '(arguments)'} (format)")
        line = f"{path}: {reason}" if path else reason
        if line not in lines:
            lines.append(line)
    return InvalidArguments(lines, event_text="invalid arguments: " + ", ".join(fields))


class FunctionExecutor:
    """Runs a Python function with checked arguments as Python values, and dumps its result to
    JSON for the core's output check.

    Parameters of plain types (``int``, ``str``, ``Literal``, ``date``, ``Phone``, ... see
    ``hark._decode``) are built straight from the checked JSON; any other type, and any value a
    plan is not sure of, goes through pydantic, whose values and refusals are the same."""

    checks_extra_arguments = False
    takes_state = False  # the core passes None for the state: no snapshot is made

    def __init__(
        self,
        function: Callable[..., Any],
        model: type[BaseModel],
        names: list[str] | None,
        output: Any,
        schema: dict[str, Any],
    ) -> None:
        self.function = function
        self.model = model
        self.names = names  # None: the function takes the whole input model
        self.schema = schema
        self.output = output
        self.is_async = _bridge.is_async_function(function)
        self.plan = _decode.plan_of(model) if names is not None else None
        # The values `validate` decoded, for the `run` of the same arguments that follows it.
        self._validated: tuple[dict[str, Any], Any] | None = None
        self._dump_adapter: pydantic.TypeAdapter[Any] | None = None
        if not _is_model(output) and output not in (Done, None):
            try:
                self._dump_adapter = pydantic.TypeAdapter(output)
            except Exception:  # noqa: BLE001 - a type pydantic cannot dump is sent as it is
                self._dump_adapter = None

    def decode(self, arguments: dict[str, Any]) -> Any:
        """The function's keyword arguments (a dict), or the input model it takes whole."""
        if self.plan is not None:
            values = self.plan.values(arguments)
            if values is not _decode.UNSURE:
                return values
        try:
            decoded = self.model.model_validate(arguments)
        except ValidationError as error:
            raise invalid_arguments(error, self.schema) from None
        if self.names is None:
            return decoded
        return {name: getattr(decoded, name) for name in self.names}

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self._validated = (arguments, self.decode(arguments))
        return arguments

    def decoded(self, arguments: dict[str, Any]) -> Any:
        """The values of ``arguments``: those ``validate`` decoded just before, when they were
        the same arguments (each handed out once), else decoded now."""
        validated, self._validated = self._validated, None
        if (
            validated is not None
            and validated[0] == arguments
            and list(map(type, validated[0].values())) == list(map(type, arguments.values()))
        ):
            return validated[1]
        return self.decode(arguments)

    def call_with(self, function: Callable[..., Any], values: Any, names: list[str] | None) -> Any:
        if names is None:
            return function(values)
        if names is self.names:
            return function(**values)
        return function(**{name: values[name] for name in names})

    def dump(self, result: Any) -> Any:
        if isinstance(result, BaseModel):
            return result.model_dump(mode="json")
        if result is None or isinstance(result, (dict, list, str, int, float, bool)):
            return result
        if self._dump_adapter is not None:
            return self._dump_adapter.dump_python(result, mode="json")
        return pydantic.TypeAdapter(type(result)).dump_python(result, mode="json")

    async def run(self, arguments: dict[str, Any], state: Any) -> Any:
        """Runs the function: an ``async def`` on the event loop, a plain ``def`` in a worker
        thread (``asyncio.to_thread``), so a blocking call in it never stalls the call's audio.
        A cancelled call stops waiting for the thread; the thread itself runs to its end."""
        values = self.decoded(arguments)
        if self.is_async:
            result = self.call_with(self.function, values, self.names)
        else:
            result = await asyncio.to_thread(self.call_with, self.function, values, self.names)
        if type(result) is types.CoroutineType or inspect.isawaitable(result):
            result = await result
        return self.dump(result)


def _parameters(
    tool: str,
    function: Callable[..., Any],
    local_names: dict[str, Any] | None = None,
    whose: str = "",
) -> tuple[list[inspect.Parameter], dict[str, Any]]:
    """The typed parameters of ``function``; ``whose`` names a function other than the tool's
    own in the errors (``"the precheck's "``), so the error points at the function to fix."""
    signature = inspect.signature(function)
    try:
        # `local_names` are the caller's: a model defined in a function, under
        # `from __future__ import annotations`, is found there.
        hints = typing.get_type_hints(function, localns=local_names, include_extras=True)
    except NameError as error:
        of = " of " + whose.removesuffix("'s ") if whose else ""
        raise TypeError(f"{tool}: a type hint{of} could not be read: {error}") from None
    parameters = []
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            raise TypeError(
                f"{tool}: {whose}*{parameter.name} is not allowed. Give each argument its own typed parameter."
            )
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            raise TypeError(
                f"{tool}: {whose}**{parameter.name} is not allowed. Give each argument its own typed parameter."
            )
        if parameter.name not in hints:
            raise TypeError(
                f"{tool}: {whose or 'the '}parameter {parameter.name} has no type. Give every parameter a type, "
                f"like {parameter.name}: str."
            )
        parameters.append(parameter)
    return parameters, hints


def _precheck(
    tool: str,
    precheck: Callable[..., Any],
    executor: FunctionExecutor,
    tool_hints: dict[str, Any],
    local_names: dict[str, Any] | None = None,
) -> Callable[[dict[str, Any]], Any]:
    """The precheck as the core calls it: checked arguments in, the outcome as JSON (or None)."""
    if inspect.iscoroutinefunction(precheck):
        raise TypeError(f"{tool}: the precheck must be a plain function, not async.")
    parameters, hints = _parameters(tool, precheck, local_names, whose="the precheck's ")
    names: list[str] | None = [p.name for p in parameters]
    if executor.names is None:
        if len(parameters) == 1 and hints[parameters[0].name] is executor.model:
            names = None
        else:
            raise TypeError(
                f"{tool}: the precheck takes the tool's input model {executor.model.__name__} as its one parameter."
            )
    else:
        for parameter in parameters:
            if parameter.name not in executor.names or hints[parameter.name] != tool_hints[parameter.name]:
                raise TypeError(
                    f"{tool}: the precheck's parameter {parameter.name} is not a parameter of the tool "
                    "with the same type. Take the tool's parameters by name, with their types."
                )
    output = executor.output

    def run(arguments: dict[str, Any]) -> Any:
        values = executor.decode(arguments)
        outcome = executor.call_with(precheck, values, names)
        if outcome is None:
            return None
        if _is_model(output) and not isinstance(outcome, output):
            raise ToolError(
                f"{tool}'s precheck returned a {type(outcome).__name__}, not its output "
                f"{output.__name__}. Do not claim success."
            )
        return executor.dump(outcome)

    return run


def local_tool(
    function: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    output: Any = None,
    precheck: Callable[..., Any] | None = None,
    **options: Any,
) -> ToolSpec:
    """A tool from a typed Python function (sync or async).

    The type hints become a pydantic model whose JSON Schema the model reads; the tool's name is
    the function's name and its description the docstring up to its ``Args:`` section, whose
    lines describe the parameters. A function taking one pydantic model takes it whole. The output
    is the return annotation, or ``output=``. Options: ``announce``, ``announce_wait``,
    ``interruption``, ``show_result``, ``result_instructions``, ``hidden``, ``effect``,
    ``locked``, ``replies``, ``precheck``, ``announce_in``."""
    example = "local_tool(book_table)"
    if not callable(function) or isinstance(function, type):
        raise misuse("local_tool", "function", function, "a typed function", example)
    expect("local_tool", "name", name, str, "a str", 'local_tool(book_table, name="book")', optional=True)
    expect(
        "local_tool", "description", description, str, "a str",
        'local_tool(book_table, description="Book a table.")', optional=True,
    )
    if precheck is not None and not callable(precheck):
        raise misuse("local_tool", "precheck", precheck, "a function", "local_tool(book_table, precheck=check_day)")
    if name is not None and not name.strip():
        raise ValueError(
            'local_tool(name=): the name the model calls the tool by is empty. Give it one, like '
            'local_tool(book_table, name="book"), or leave name out for the function\'s own.'
        )
    tool = name or getattr(function, "__name__", None) or type(function).__name__
    caller = sys._getframe(1)
    local_names = dict(caller.f_locals) if caller.f_locals is not caller.f_globals else None
    del caller
    parameters, hints = _parameters(tool, function, local_names)
    doc_description, argument_docs = _docstring(inspect.getdoc(function))
    chosen_output = _output_of(tool, hints, output)

    if len(parameters) == 1 and _is_model(hints[parameters[0].name]):
        model: type[BaseModel] = hints[parameters[0].name]
        names: list[str] | None = None
    else:
        fields: dict[str, Any] = {}
        for parameter in parameters:
            annotation = _aware(hints[parameter.name])
            text = argument_docs.get(parameter.name)
            if text and not _has_description(annotation):
                annotation = typing.Annotated[annotation, Field(description=text)]
            default = ... if parameter.default is inspect.Parameter.empty else parameter.default
            fields[parameter.name] = (annotation, default)
        model = pydantic.create_model(  # type: ignore[call-overload]
            f"{tool}_arguments", __config__=ConfigDict(extra="forbid"), **fields
        )
        names = [p.name for p in parameters]
    schema = json_schema(model)
    executor = FunctionExecutor(function, model, names, chosen_output, schema)
    if precheck is not None:
        options["precheck"] = _precheck(tool, precheck, executor, hints, local_names)
    return ToolSpec(
        tool,
        description if description is not None else doc_description,
        schema,
        chosen_output,
        executor,
        **options,
    )
