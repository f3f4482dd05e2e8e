"""The reference's "Webhooks" sections, against a real HTTP server on loopback: the URL checks,
auth, timeout, wait_for_response, allow_private_network, body=, error answers, and background
webhooks finishing when the call ends."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import BaseModel

from hark import Accepted, ToolRegistry, WebhookAuth, WebhookOptions, webhook_tool
from recording_speech import RecordingSpeech


class Hooks:
    """A loopback HTTP server: each path answers as `routes` says and records every request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.routes: dict[str, tuple[int, str, float]] = {}
        hooks = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode()
                hooks.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                status, answer, delay = hooks.routes.get(self.path, (200, "{}", 0.0))
                if delay:
                    time.sleep(delay)
                data = answer.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hooks():
    server = Hooks()
    yield server
    server.close()


class OrderQuery(BaseModel):
    order_id: str


class Order(BaseModel):
    order_id: str
    status: str


class BookingNote(BaseModel):
    note: str


async def call(tool, arguments, **start):
    speech = RecordingSpeech()
    live = ToolRegistry([tool]).start_call(speech, **start)
    result = await live.run(tool.name, arguments, live.generation())
    return result, live


async def test_a_webhook_sends_the_arguments_and_its_answer_is_checked(hooks):
    hooks.routes["/orders"] = (200, '{"order_id": "A-1", "status": "held", "secret": "x"}', 0)
    tool = webhook_tool(
        "lookup_order", "Look up an order by its id.", hooks.url("/orders"),
        input=OrderQuery, output=Order, allow_private_network=True,
    )
    assert tool.parameters["properties"] == {"order_id": {"type": "string"}}
    result, _ = await call(tool, {"order_id": "A-1"})
    assert result.model_result == {"order_id": "A-1", "status": "held"}
    assert json.loads(hooks.requests[0]["body"]) == {"order_id": "A-1"}


async def test_an_error_answer_reads_the_status_and_an_excerpt(hooks):
    hooks.routes["/orders"] = (503, '{"error": "maintenance", "detail": "long"}', 0)
    tool = webhook_tool("lookup_order", "Look up.", hooks.url("/orders"), input=OrderQuery, output=Order,
                        allow_private_network=True)
    result, _ = await call(tool, {"order_id": "A-1"})
    assert result.status == "failed"
    assert result.model_result["error"].startswith("lookup_order failed: the webhook answered HTTP 503: ")
    assert "maintenance" in result.model_result["error"]


async def test_the_url_is_checked_when_the_tool_is_built(hooks):
    with pytest.raises(ValueError, match="The scheme must be https, or http with allow_private_network"):
        webhook_tool("notify", "Tell.", "http://crm.example.com/hooks", input=BookingNote, output=Accepted,
                     wait_for_response=False)
    with pytest.raises(ValueError, match="fragment"):
        webhook_tool("notify", "Tell.", "https://crm.example.com/hooks#x", input=BookingNote, output=Accepted,
                     wait_for_response=False)


async def test_private_addresses_are_refused_unless_allowed(hooks):
    for host in ("127.0.0.1", "localhost"):
        with pytest.raises(ValueError, match=f"the URL host {host} is loopback"):
            webhook_tool("notify_crm", "Tell.", f"https://{host}:9/hooks", input=BookingNote, output=Order)
    hooks.routes["/hooks"] = (200, '{"order_id": "1", "status": "ok"}', 0)
    port = hooks.server.server_address[1]
    allowed = webhook_tool("notify_crm", "Tell.", f"http://localhost:{port}/hooks", input=BookingNote,
                           output=Order, allow_private_network=True)
    result, _ = await call(allowed, {"note": "x"})
    assert result.succeeded and len(hooks.requests) == 1


async def test_timeout_is_one_deadline(hooks):
    hooks.routes["/slow"] = (200, "{}", 2.0)
    tool = webhook_tool("slow", "Slow.", hooks.url("/slow"), input=BookingNote, output=Order,
                        allow_private_network=True, timeout=0.3)
    started = time.monotonic()
    result, _ = await call(tool, {"note": "x"})
    assert time.monotonic() - started < 1.5
    assert result.model_result == {
        "error": "slow failed: the webhook did not answer within 0.3 seconds. Do not claim success."
    }


async def test_wait_for_response_false_answers_at_once_and_close_lets_it_finish(hooks):
    hooks.routes["/crm"] = (200, "{}", 0.4)
    options: WebhookOptions = {"timeout": 5, "wait_for_response": False}
    tool = webhook_tool("notify_crm", "Tell the CRM.", hooks.url("/crm"), input=BookingNote, output=Accepted,
                        allow_private_network=True, body="envelope", **options)
    result, live = await call(tool, {"note": "booked"}, call={"session_id": "s-1"})
    assert result.model_result == {"ok": True, "accepted": True}
    unfinished = await live.close()
    assert unfinished == 0
    (request,) = hooks.requests
    body = json.loads(request["body"])
    assert body["tool"] == "notify_crm"
    assert body["arguments"] == {"note": "booked"}
    assert body["call"]["session_id"] == "s-1"


async def test_auth_from_an_environment_variable_and_from_a_token_function(hooks, monkeypatch):
    monkeypatch.setenv("CRM_KEY", "k-123")
    keyed = webhook_tool("notify", "Tell.", hooks.url("/a"), input=BookingNote, output=Order,
                         allow_private_network=True,
                         auth=WebhookAuth.api_key("CRM_KEY", header="X-API-Key"))
    hooks.routes["/a"] = (200, '{"order_id": "1", "status": "ok"}', 0)
    await call(keyed, {"note": "x"})
    assert hooks.requests[-1]["headers"]["x-api-key"] == "k-123"

    async def fetch_token() -> str:
        await asyncio.sleep(0)
        return "t-456"

    hooks.routes["/b"] = (200, '{"order_id": "1", "status": "ok"}', 0)
    bearer = webhook_tool("notify", "Tell.", hooks.url("/b"), input=BookingNote, output=Order,
                          allow_private_network=True, auth=WebhookAuth.bearer(token=fetch_token))
    result, _ = await call(bearer, {"note": "x"})
    assert result.succeeded
    assert hooks.requests[-1]["headers"]["authorization"] == "Bearer t-456"

    monkeypatch.delenv("CRM_KEY")
    result, _ = await call(keyed, {"note": "x"})
    assert result.model_result == {
        "error": "notify could not authenticate: the environment variable CRM_KEY is not set. Do not claim success."
    }


async def test_an_answer_over_64_kib_fails_the_call(hooks):
    hooks.routes["/big"] = (200, '{"order_id": "' + "x" * 70_000 + '", "status": "ok"}', 0)
    tool = webhook_tool("lookup_order", "Look up.", hooks.url("/big"), input=OrderQuery, output=Order,
                        allow_private_network=True)
    result, _ = await call(tool, {"order_id": "A"})
    assert result.model_result == {
        "error": "lookup_order failed: the webhook's answer is larger than the 64 KiB it may be. Do not claim success."
    }


async def test_the_calls_hooks_own_background_webhooks_until_the_call_ends(hooks):
    from hark import CallHooks

    hooks.routes["/crm"] = (200, "{}", 0.5)
    tool = webhook_tool("notify_crm", "Tell the CRM.", hooks.url("/crm"), input=BookingNote, output=Accepted,
                        allow_private_network=True, wait_for_response=False)
    call_hooks = CallHooks()
    live = ToolRegistry([tool]).start_call(RecordingSpeech(), hooks=call_hooks)
    result = await live.run("notify_crm", {"note": "x"}, live.generation())
    assert result.model_result == {"ok": True, "accepted": True}
    assert call_hooks.background == 1
    assert await live.close() == 0
    assert call_hooks.background == 0 and len(hooks.requests) == 1


async def test_a_webhook_sends_locked_values_and_the_transcript(hooks):
    from hark import CallState, Transcript

    class CrmState(BaseModel):
        customer: dict | None = None

    hooks.routes["/end"] = (200, "{}", 0)
    tool = webhook_tool(
        "call_ended", "Tell the CRM the call ended.", hooks.url("/end"), input=BookingNote, output=Accepted,
        allow_private_network=True,
        locked={"customer_id": "{{customer.id}}", "transcript": Transcript(max_messages=50),
                "reason": "{{call.end_reason}}"},
    )
    assert list(tool.parameters["properties"]) == ["note"]
    state = CallState({"customer": {"id": "C-1"}}, call={"session_id": "s-1", "end_reason": "hangup"})
    state.push_message("user", "Book me a table.")
    state.push_message("assistant", "Done.")
    live = ToolRegistry([tool]).start_call(RecordingSpeech(), state=state)
    result = await live.run("call_ended", {"note": "bye"}, live.generation())
    assert result.succeeded, result.model_text
    assert json.loads(hooks.requests[-1]["body"]) == {
        "note": "bye",
        "customer_id": "C-1",
        "transcript": [{"role": "user", "text": "Book me a table."}, {"role": "assistant", "text": "Done."}],
        "reason": "hangup",
    }
