"""What the model reads when a tool fails in ways an author did not mean: a ToolError with no
words or with a message that is not text, a result larger than the model may read, and
SystemExit or KeyboardInterrupt raised inside a tool."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import textwrap

import pytest
from pydantic import BaseModel

from hark import Done, ToolError, ToolRefused, ToolRegistry, local_tool
from recording_speech import run_once


class Text(BaseModel):
    text: str


async def test_a_tool_error_with_no_words_reads_as_a_failure_never_a_success():
    def book() -> Done:
        raise ToolError("")

    def hold() -> Done:
        raise ToolRefused("   ")

    registry = ToolRegistry([local_tool(book), local_tool(hold)])
    result, _ = await run_once(registry, "book", {})
    assert result.status == "failed"
    assert result.model_result == {"error": "book failed before completing. Do not claim success."}
    refused, _ = await run_once(registry, "hold", {})
    assert refused.status == "refused"
    assert refused.model_result == {"refused": "hold failed before completing. Do not claim success."}


def test_a_tool_error_takes_words_not_another_value():
    with pytest.raises(TypeError) as refused:
        ToolError(12345)  # type: ignore[arg-type]
    assert str(refused.value) == (
        "ToolError(message): message is the words the model reads, a str; got int 12345. "
        'Write the words, like ToolError("No table is free that day. Offer another day.").'
    )
    with pytest.raises(TypeError, match=r"^ToolRefused\(message\): .* got NoneType None"):
        ToolRefused(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"event_text is the text logs and sinks get"):
        ToolError("No table.", event_text=404)  # type: ignore[arg-type]


async def test_a_tool_raising_tool_error_of_a_number_fails_with_the_reference_text(caplog):
    def book() -> Done:
        raise ToolError(12345)  # type: ignore[arg-type]

    with caplog.at_level(logging.ERROR, logger="hark"):
        result, _ = await run_once(ToolRegistry([local_tool(book)]), "book", {})
    assert result.model_result == {"error": "book failed before completing. Do not claim success."}
    # The author finds why in the log, with the traceback.
    assert "book raised TypeError" in caplog.text
    assert "message is the words the model reads" in caplog.text


async def test_a_result_larger_than_the_cap_fails_and_is_logged(caplog):
    def dump() -> Text:
        return Text(text="x" * (64 * 1024))

    def fits() -> Text:
        return Text(text="x" * 60_000)

    registry = ToolRegistry([local_tool(dump), local_tool(fits)])
    with caplog.at_level(logging.WARNING, logger="hark"):
        result, _ = await run_once(registry, "dump", {})
    assert result.status == "failed"
    assert result.model_result == {
        "error": "dump returned a result larger than the 64 KiB the model may read, so it failed. "
        "Do not claim success."
    }
    assert [r.getMessage() for r in caplog.records if r.name == "hark"] == [
        "dump tool.failed: result larger than 64 KiB"
    ]
    assert (await run_once(registry, "fits", {}))[0].succeeded


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_system_exit_in_a_tool_fails_the_call_and_the_process_goes_on(kind, caplog):
    def leave() -> Done:
        sys.exit(3)

    async def leave_async() -> Done:
        raise SystemExit(3)

    tool = local_tool(leave if kind == "sync" else leave_async, name="leave")
    with caplog.at_level(logging.ERROR, logger="hark"):
        result, _ = await run_once(ToolRegistry([tool]), "leave", {})
    assert result.status == "failed"
    assert result.model_result == {"error": "leave failed before completing. Do not claim success."}
    records = [r for r in caplog.records if r.name == "hark"]
    assert [r.getMessage() for r in records] == [
        "a tool call raised SystemExit; it failed, not ending the process"
    ]
    assert records[0].exc_info and records[0].exc_info[0] is SystemExit
    # The loop still runs other work.
    await asyncio.sleep(0)


def test_keyboard_interrupt_in_a_tool_fails_the_call_then_stops_the_program():
    """KeyboardInterrupt is the person at the keyboard asking the program to stop: the call gets
    its failure (logged with the traceback), then the interrupt is raised again on the loop."""
    program = textwrap.dedent(
        """
        import asyncio, logging, sys
        sys.path.insert(0, sys.argv[1])
        from hark import Done, ToolRegistry, local_tool
        from hark.tools import CallResult
        from recording_speech import RecordingSpeech

        logging.basicConfig(level=logging.ERROR, format="%(name)s: %(message)s")

        async def stop() -> Done:
            raise KeyboardInterrupt

        async def main():
            live = ToolRegistry([local_tool(stop)]).start_call(RecordingSpeech())
            await live.run("stop", {}, live.generation())
            print("not reached")

        try:
            asyncio.run(main())
        except KeyboardInterrupt:
            print("interrupted")
        """
    )
    tests = str(__import__("pathlib").Path(__file__).parent)
    done = subprocess.run(
        [sys.executable, "-c", program, tests], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "interrupted", done.stdout + done.stderr
    assert "hark: a tool call raised KeyboardInterrupt; it failed, and the interrupt is raised again" in done.stderr
    assert "Traceback" in done.stderr


class Loose(BaseModel):
    model_config = {"extra": "allow"}
    a: int


async def test_a_result_holding_a_value_json_cannot_hold_fails_and_the_log_says_why(caplog):
    """A new user's tool returned {"a": 1, "when": object()}: the call failed with nothing in
    the log. The model reads the usual failure; the log names the tool and the type."""

    def report() -> Loose:
        return {"a": 1, "when": object()}

    with caplog.at_level(logging.WARNING, logger="hark"):
        result, _ = await run_once(ToolRegistry([local_tool(report)]), "report", {})
    assert result.model_result == {"error": "report failed before completing. Do not claim success."}
    assert "report: the tool returned a value that is not JSON" in caplog.text
    assert "object" in caplog.text


def test_arguments_missing_takes_one_name_as_a_name_and_refuses_other_values():
    from hark import ArgumentsMissing

    assert ArgumentsMissing("Ask for the birth date.", "birth_date").missing == ["birth_date"]
    assert ArgumentsMissing("Ask.", ("day", "time")).missing == ["day", "time"]
    with pytest.raises(TypeError, match=r"^ArgumentsMissing\(message, missing\): missing is the names"):
        ArgumentsMissing("Ask.", [5])
    with pytest.raises(TypeError, match=r"a list of str; got 5\."):
        ArgumentsMissing("Ask.", 5)


def test_an_empty_tool_name_is_refused_with_the_fix():
    def book() -> Done:
        return None

    with pytest.raises(ValueError, match=r"^local_tool\(name=\): the name the model calls the tool by is empty"):
        local_tool(book, name="")
    with pytest.raises(ValueError, match="is empty"):
        local_tool(book, name="  ")
