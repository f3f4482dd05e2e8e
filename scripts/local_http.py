"""The HTTP side the local speech servers share (`scripts/stt-server.py`,
`scripts/tts-server.py`): OpenAI's error shape, `/health` and `/v1/models`, a refusal for the
base class's own errors, and the listening loop that prints the line the tests wait for.

Not run on its own: each server imports it from this folder (a script's folder is first on
`sys.path`; `bench/stt/wer.py` puts it there before it loads the STT server).
"""

from __future__ import annotations

import json
import socket
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class BadRequest(Exception):
    """A client error: its HTTP status and the message the client reads."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class OpenAiHandler(BaseHTTPRequestHandler):
    """A handler that answers as OpenAI's API does: JSON errors `{"error": {message, type}}`,
    `GET /health`, `GET /v1/models` (one local model) and a 405 for `GET` of its `route`.
    Subclasses set `name` (the log prefix), `route` (their one POST path), `model_id` and
    `routes` (the sentence that lists what the server has), and write `do_POST`."""

    protocol_version = "HTTP/1.1"
    timeout = 60  # a client that stops sending loses its thread after this
    name = "local-server"
    route = "/"
    model_id = "local"
    routes = ""

    def log_message(self, format: str, *args: Any) -> None:
        log(self.name, f"{self.address_string()} {format % args}")

    # -- replies

    def reply(self, status: int, body: bytes, content_type: str, close: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def reply_json(self, status: int, value: Any, close: bool = False) -> None:
        self.reply(status, json.dumps(value).encode(), "application/json", close)

    def reply_error(self, status: int, message: str, close: bool = False) -> None:
        kind = "invalid_request_error" if status < 500 else "server_error"
        self.reply_json(status, {"error": {"message": message, "type": kind}}, close)

    # -- routes

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/health":
            self.reply(200, b"ok", "text/plain; charset=utf-8")
        elif path == "/v1/models":
            model = {"id": self.model_id, "object": "model", "created": 0, "owned_by": "local"}
            self.reply_json(200, {"object": "list", "data": [model]})
        elif path == self.route:
            self.reply_error(405, f"Use POST for {self.route}")
        else:
            self.not_found()

    def posted_to_route(self) -> bool:
        """Whether this POST is for `route`; answers a 404 (and closes) when not."""
        if self.path.split("?", 1)[0] != self.route:
            self.not_found(close=True)
            return False
        return True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's own refusals (a malformed request line, an unknown method) in
        OpenAI's error shape too, not as an HTML page; an unknown method is a 405."""
        if code == HTTPStatus.NOT_IMPLEMENTED:
            self.reply_error(405, f"{message}: {self.routes}", close=True)
        else:
            self.reply_error(code, message or HTTPStatus(code).phrase, close=True)

    def not_found(self, close: bool = False) -> None:
        self.reply_error(404, f"Invalid URL ({self.command} {self.path}): {self.routes}", close)


def log(name: str, text: str) -> None:
    print(f"{name}: {text}", file=sys.stderr, flush=True)


class Server(ThreadingHTTPServer):
    daemon_threads = True


class Server6(Server):
    address_family = socket.AF_INET6


def serve(handler: type[OpenAiHandler], host: str, port: int) -> None:
    """Listens on `host`:`port` (0: a free one), prints `NAME: listening on http://HOST:PORT/v1`
    (the line the tests and scripts/demo.sh wait for) and serves until interrupted."""
    server_class = Server6 if ":" in host else Server
    try:
        server = server_class((host, port), handler)
    except OSError as e:
        sys.exit(f"{handler.name}: cannot listen on {host}:{port}: {e}")
    port = server.server_address[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"{handler.name}: listening on http://{shown}:{port}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
