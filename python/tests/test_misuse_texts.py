"""Wrong-type and wrong-shape arguments to the public API of ``hark``, ``hark.pipecat`` and
``hark.livekit``: each is a ``TypeError`` that names the call and the parameter, what it got,
and what to pass with a short example (one text, ``crates/hark-py/src/misuse.rs``), never a raw
"'X' object is not iterable" or PyO3's "cannot be converted to 'PyString'"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

import hark
from hark import (
    Assign,
    CallState,
    Phone,
    ToolRegistry,
    ToolReply,
    ToolSpec,
    Transcript,
    WebhookAuth,
    current_datetime_tool,
    local_tool,
    replies_to,
    user_phone_number_tool,
    webhook_tool,
)
from recording_speech import RecordingSpeech


class Booking(BaseModel):
    reference: str


def book_table(day: str) -> Booking:
    """Book a table."""
    return Booking(reference="B-12")


TOOL = local_tool(book_table)
URL = "https://api.example.com/orders"
WEBHOOK = 'webhook_tool("find_order", "Find an order.", "https://api.example.com/orders", input=OrderQuery, output=Order)'
REGISTRY = "ToolRegistry([local_tool(book_table)])"
TOOLSPEC = 'ToolSpec("find_order", "Find an order.", {"type": "object", "properties": {}}, Order, executor)'
REPLY = 'ToolReply(tool="book_table", when={"status": ["booked"]}, say=["You are booked."])'


def llm() -> Any:
    from pipecat.services.openai.llm import OpenAILLMService

    return OpenAILLMService(api_key="sk-scripted", settings=OpenAILLMService.Settings(model="m"))


def pipecat(name: str) -> Any:
    import hark.pipecat

    return getattr(hark.pipecat, name)


def livekit(name: str) -> Any:
    import hark.livekit

    return getattr(hark.livekit, name)


CASES: list[tuple[str, Callable[[], Any], str]] = [
    (
        "ToolRegistry-one-tool",
        lambda: ToolRegistry(TOOL),
        "ToolRegistry: tools must be a list of tools, not the tool book_table (a ToolSpec). "
        f"Pass it like {REGISTRY}.",
    ),
    (
        "ToolRegistry-a-function",
        lambda: ToolRegistry([book_table]),
        "ToolRegistry: tools[0] must be a tool (from local_tool, webhook_tool, ToolSpec…), not the "
        f"function book_table. Pass it like {REGISTRY}.",
    ),
    (
        "ToolRegistry-a-name",
        lambda: ToolRegistry("book_table"),
        f"ToolRegistry: tools must be a list of tools, not 'book_table' (a str). Pass it like {REGISTRY}.",
    ),
    (
        "ToolRegistry-assign-list",
        lambda: ToolRegistry([TOOL], assign=[Assign("order")]),
        "ToolRegistry: assign must be a dict of tool name → list of Assign, not "
        "[Assign(variable='order', path=())] (a list). Pass it like "
        'ToolRegistry(assign={"find_order": [Assign("order")]}).',
    ),
    (
        "ToolRegistry-assign-row",
        lambda: ToolRegistry([TOOL], assign={"book_table": Assign("order")}),
        "ToolRegistry: assign[\"book_table\"] must be a list of Assign, not "
        "Assign(variable='order', path=()) (an Assign). Pass it like "
        'ToolRegistry(assign={"find_order": [Assign("order")]}).',
    ),
    (
        "ToolRegistry-replies-one",
        lambda: ToolRegistry([TOOL], replies=ToolReply(tool="book_table", say=["Booked."])),
        "ToolRegistry: replies must be a list of ToolReply, not ToolReply(tool='book_table', "
        "when=None, … (a ToolReply). Pass it like "
        'replies=[ToolReply(tool="book_table", say=["You are booked."])].',
    ),
    (
        "ToolRegistry-state-dict",
        lambda: ToolRegistry([TOOL], state={"order": None}),
        "ToolRegistry: state must be a pydantic model class, not {'order': None} (a dict). "
        "Pass it like ToolRegistry(tools, state=CallValues).",
    ),
    (
        "ToolRegistry.only-a-list",
        lambda: ToolRegistry([TOOL]).only(["book_table"]),
        "ToolRegistry.only: names[0] must be a str, not ['book_table'] (a list). Pass it like "
        'registry.only("book_table", "find_order").',
    ),
    (
        "ToolRegistry.with_tools-a-list",
        lambda: ToolRegistry([]).with_tools([TOOL]),
        "ToolRegistry.with_tools: tools[0] must be a tool (from local_tool, webhook_tool, "
        "ToolSpec…), not [ToolSpec(\"book_table\")] (a list). Pass it like "
        "registry.with_tools(local_tool(book_table), local_tool(find_order)).",
    ),
    (
        "ToolRegistry.definitions-dialect",
        lambda: ToolRegistry([TOOL]).definitions(dialect=1),
        "ToolRegistry.definitions: dialect must be a str, not 1 (an int). Pass it like "
        'registry.definitions(dialect="anthropic").',
    ),
    (
        "start_call-language",
        lambda: ToolRegistry([TOOL]).start_call(RecordingSpeech(), language=1),
        'start_call: language must be a str, not 1 (an int). Pass it like language="en-US".',
    ),
    (
        "start_call-hooks",
        lambda: ToolRegistry([TOOL]).start_call(RecordingSpeech(), hooks=[]),
        "start_call: hooks must be a CallHooks, not [] (a list). Pass it like hooks=CallHooks().",
    ),
    (
        "CallState-timezone",
        lambda: CallState(timezone=1),
        'CallState: timezone must be a str, not 1 (an int). Pass it like CallState(timezone="Europe/Madrid").',
    ),
    (
        "ToolSpec-name",
        lambda: ToolSpec(5, "Find an order.", {}, Booking, object()),
        f"ToolSpec: name must be a str, not 5 (an int). Pass it like {TOOLSPEC}.",
    ),
    (
        "ToolSpec-parameters",
        lambda: ToolSpec("find_order", "Find an order.", "order_id", Booking, object()),
        f"ToolSpec: parameters must be a JSON Schema dict, not 'order_id' (a str). Pass it like {TOOLSPEC}.",
    ),
    (
        "local_tool-not-a-function",
        lambda: local_tool("book_table"),
        "local_tool: function must be a typed function, not 'book_table' (a str). Pass it like "
        "local_tool(book_table).",
    ),
    (
        "local_tool-name",
        lambda: local_tool(book_table, name=5),
        'local_tool: name must be a str, not 5 (an int). Pass it like local_tool(book_table, name="book").',
    ),
    (
        "local_tool-precheck",
        lambda: local_tool(book_table, precheck="check_day"),
        "local_tool: precheck must be a function, not 'check_day' (a str). Pass it like "
        "local_tool(book_table, precheck=check_day).",
    ),
    (
        "webhook_tool-url",
        lambda: webhook_tool("find_order", "Find an order.", 5),
        f"webhook_tool: url must be a URL (str), not 5 (an int). Pass it like {WEBHOOK}.",
    ),
    (
        "webhook_tool-timeout",
        lambda: webhook_tool("find_order", "Find an order.", URL, timeout="10"),
        f"webhook_tool: timeout must be a number of seconds, not '10' (a str). Pass it like {WEBHOOK}.",
    ),
    (
        "webhook_tool-auth",
        lambda: webhook_tool("find_order", "Find an order.", URL, auth="Bearer abc"),
        f"webhook_tool: auth must be a WebhookAuth, not 'Bearer abc' (a str). Pass it like {WEBHOOK}.",
    ),
    (
        "webhook_tool-wait_for_response",
        lambda: webhook_tool("find_order", "Find an order.", URL, wait_for_response="no"),
        f"webhook_tool: wait_for_response must be True or False, not 'no' (a str). Pass it like {WEBHOOK}.",
    ),
    (
        "WebhookAuth-env",
        lambda: WebhookAuth.bearer(5),
        "WebhookAuth: env must be an environment variable's name (str), not 5 (an int). Pass it like "
        'WebhookAuth.bearer("CRM_TOKEN") or WebhookAuth.bearer(token=fetch_token).',
    ),
    (
        "Assign-path-a-name",
        lambda: Assign("order", "order"),
        "Assign: path must be a tuple of field names (str), not 'order' (a str). Pass it like "
        'Assign("order", ("order",)).',
    ),
    (
        "Assign-variable",
        lambda: Assign(5),
        "Assign: variable must be the State value's name (str), not 5 (an int). Pass it like "
        'Assign("order", ("order",)).',
    ),
    (
        "ToolReply-say",
        lambda: ToolReply(say=5),
        f"ToolReply: say must be a list of lines (str), not 5 (an int). Pass it like {REPLY}.",
    ),
    (
        "ToolReply-when",
        lambda: ToolReply(when=["status"], say=["Booked."]),
        f"ToolReply: when must be a dict of name → values, not ['status'] (a list). Pass it like {REPLY}.",
    ),
    (
        "Transcript-max_messages",
        lambda: Transcript("20"),
        "Transcript: max_messages must be a number of messages (int), not '20' (a str). Pass it "
        "like Transcript(max_messages=20).",
    ),
    (
        "Phone.parse",
        lambda: Phone.parse(14155550123),
        "Phone.parse: text must be a phone number (str), not 14155550123 (an int). Pass it like "
        'Phone.parse("+1 415-555-0123").',
    ),
    (
        "current_datetime_tool-zone",
        lambda: current_datetime_tool(1),
        'current_datetime_tool: zone must be a str, not 1 (an int). Pass it like current_datetime_tool("Europe/Madrid").',
    ),
    (
        "user_phone_number_tool-name",
        lambda: user_phone_number_tool(name=1),
        'user_phone_number_tool: name must be a str, not 1 (an int). Pass it like user_phone_number_tool(name="what_time").',
    ),
    (
        "replies_to-spoke",
        lambda: replies_to({"ok": True}, spoke="yes"),
        "replies_to: spoke must be True or False, not 'yes' (a str). Pass it like replies_to(result, spoke=True).",
    ),
    (
        "tools_schema-a-tool",
        lambda: pipecat("tools_schema")(TOOL),
        "tools_schema: registry must be a ToolRegistry, not the tool book_table (a ToolSpec). Pass it "
        "like tools_schema(ToolRegistry([local_tool(book_table)])).",
    ),
    (
        "tools_schema-language",
        lambda: pipecat("tools_schema")(ToolRegistry([TOOL]), language=["en"]),
        "tools_schema: language must be a BCP 47 tag (str), not ['en'] (a list). Pass it like "
        'tools_schema(registry, language="en-US").',
    ),
    (
        "attach_call-a-registry",
        lambda: pipecat("attach_call")(ToolRegistry([TOOL]), llm=llm()),
        "attach_call: tools must be what tools_schema(registry) returned, not "
        "ToolRegistry([\"book_table\"]) (a ToolRegistry). Pass it like tools = tools_schema(registry); "
        "LLMContext(tools=tools); attach_call(tools, llm=llm).",
    ),
    (
        "end_call_tool-reply",
        lambda: pipecat("end_call_tool")("Call it when done.", "Goodbye!", "llm"),
        "end_call_tool: reply must be reply_text(llm), not 'llm' (a str). Pass it like "
        'end_call_tool("Call it when the caller is done.", "Goodbye!", reply_text(llm)).',
    ),
    (
        "end_call_tool-description",
        lambda: pipecat("end_call_tool")(5, "Goodbye!", "llm"),
        "end_call_tool: description must be a str, not 5 (an int). Pass it like "
        'end_call_tool("Call it when the caller is done.", "Goodbye!", reply_text(llm)).',
    ),
    (
        "user_mute_strategies-a-name",
        lambda: pipecat("user_mute_strategies")(protect="tool_calls"),
        "user_mute_strategies: protect must be a list of names, not 'tool_calls' (a str). Pass it "
        'like user_mute_strategies(protect=["tool_calls"]).',
    ),
    (
        "user_mute_strategies-not-a-list",
        lambda: pipecat("user_mute_strategies")(protect=1),
        "user_mute_strategies: protect must be a list of names, not 1 (an int). Pass it like "
        'user_mute_strategies(protect=["tool_calls"]).',
    ),
    (
        "LocalClassifier-fallback",
        lambda: pipecat("LocalClassifier")(fallback="llm"),
        "LocalClassifier: fallback must be a Pipecat classifier, not 'llm' (a str). Pass it like "
        "LocalClassifier(fallback=LLMClassifier(llm)).",
    ),
    (
        "LocalClassifier-model_dir",
        lambda: pipecat("LocalClassifier")(model_dir=5),
        "LocalClassifier: model_dir must be a folder (str or Path), not 5 (an int). Pass it like "
        'LocalClassifier(model_dir="~/.cache/hark/models").',
    ),
    (
        "function_tools-a-tool",
        lambda: livekit("function_tools")(TOOL),
        "function_tools: registry must be a ToolRegistry, not the tool book_table (a ToolSpec). Pass "
        "it like function_tools(ToolRegistry([local_tool(book_table)])).",
    ),
]


@pytest.mark.parametrize(("call", "text"), [(c, t) for _, c, t in CASES], ids=[i for i, _, _ in CASES])
def test_a_wrong_argument_names_the_parameter_what_it_got_and_what_to_pass(call, text) -> None:
    with pytest.raises(TypeError) as refused:
        call()
    assert str(refused.value) == text
    assert "not iterable" not in text and "cannot be converted" not in text


def test_every_public_callable_is_in_the_table() -> None:
    # A new public constructor or function joins the table above (or this list of those that
    # take no argument a caller can get wrong).
    import hark.livekit
    import hark.pipecat

    covered = {i.split("-")[0].split(".")[0] for i, _, _ in CASES}
    takes_nothing_to_get_wrong = {
        "Accepted", "Done", "ArgumentsMissing", "ToolError", "ToolRefused", "CallHooks",
        "CallResult", "Generation", "LiveCall", "WebhookOptions", "__version__",
        # Adapter classes the adapters build themselves.
        "HarkTools", "PipecatCall", "PipecatSpeech", "AnnounceLineUserMuteStrategy",
        "LocalClassifierError", "reply_text", "HarkFunctionTools", "LiveKitCall", "LiveKitSpeech",
    }
    public = set(hark.__all__) | set(hark.pipecat.__all__) | set(hark.livekit.__all__)
    assert public - covered - takes_nothing_to_get_wrong == set()


def test_a_precheck_without_types_is_blamed_not_the_tool() -> None:
    def check_day(day):  # type: ignore[no-untyped-def]
        return None

    with pytest.raises(TypeError) as refused:
        local_tool(book_table, precheck=check_day)
    assert str(refused.value) == (
        "book_table: the precheck's parameter day has no type. Give every parameter a type, like day: str."
    )


@pytest.mark.parametrize(
    ("options", "text"),
    [
        ({"timeout": -1}, "find_order: timeout is a number of seconds above 0, like timeout=5, not -1"),
        ({"body": "xml"}, 'find_order: body is "plain" or "envelope", not "xml"'),
    ],
    ids=["timeout", "body"],
)
def test_a_webhook_value_out_of_its_words_names_the_tool(options: dict[str, Any], text: str) -> None:
    with pytest.raises(ValueError) as refused:
        webhook_tool("find_order", "Find an order.", URL, **options)
    assert str(refused.value) == text
