"""Webhook tools: ``webhook_tool`` (built and run by Hark's core: URL checks, the network guard,
one deadline, size caps), ``WebhookAuth`` and ``WebhookOptions``."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import TypedDict

from hark import _core
from hark._misuse import checked, expect

__all__ = ["WebhookAuth", "WebhookOptions", "webhook_tool"]


Token = str | Callable[[], Awaitable[str]]


@dataclasses.dataclass(frozen=True)
class WebhookAuth:
    """How a webhook authenticates. ``source`` is an environment variable's name (read at each
    call) or an async function returning the token."""

    kind: str
    source: Token
    header: str | None = None

    def __post_init__(self) -> None:
        example = 'WebhookAuth.bearer("CRM_TOKEN") or WebhookAuth.api_key("CRM_KEY", header="X-API-Key")'
        expect("WebhookAuth", "kind", self.kind, str, '"bearer" or "api_key"', example)
        if not isinstance(self.source, str) and not callable(self.source):
            expect("WebhookAuth", "source", self.source, str, "an environment variable's name (str) or an async function", example)
        expect("WebhookAuth", "header", self.header, str, "a header name (str)", example, optional=True)

    @classmethod
    def api_key(cls, env: str | None = None, *, header: str, token: Callable[[], Awaitable[str]] | None = None) -> WebhookAuth:
        """The key in ``header``: ``WebhookAuth.api_key("CRM_KEY", header="X-API-Key")``."""
        return cls("api_key", _source(env, token), header)

    @classmethod
    def bearer(cls, env: str | None = None, *, token: Callable[[], Awaitable[str]] | None = None) -> WebhookAuth:
        """``Authorization: Bearer <token>``: ``WebhookAuth.bearer(token=fetch_token)``."""
        return cls("bearer", _source(env, token))


def _source(env: str | None, token: Callable[[], Awaitable[str]] | None) -> Token:
    example = 'WebhookAuth.bearer("CRM_TOKEN") or WebhookAuth.bearer(token=fetch_token)'
    expect("WebhookAuth", "env", env, str, "an environment variable's name (str)", example, optional=True)
    if token is not None and not callable(token):
        expect("WebhookAuth", "token", token, type(None), "an async function returning the token", example)
    if (env is None) == (token is None):
        raise TypeError("give the credential once: an environment variable's name, or token=an async function")
    return env if env is not None else token  # type: ignore[return-value]


class WebhookOptions(TypedDict, total=False):
    """Settings several webhook tools share: ``webhook_tool(..., **options)``."""

    timeout: float
    wait_for_response: bool
    allow_private_network: bool
    auth: WebhookAuth
    body: str
    headers: dict[str, str]


_WEBHOOK = 'webhook_tool("find_order", "Find an order.", "https://api.example.com/orders", input=OrderQuery, output=Order)'

webhook_tool = checked(
    _core.webhook_tool,
    "webhook_tool",
    _WEBHOOK,
    name=(str, "a str"),
    description=(str, "a str"),
    url=(str, "a URL (str)"),
    method=(str, 'a method name (str) like "GET"'),
    locked=(dict, "a dict of parameter → value"),
    auth=(WebhookAuth, "a WebhookAuth"),
    body=(str, 'a body kind (str) like "plain"'),
    timeout=((int, float), "a number of seconds"),
    wait_for_response=(bool, "True or False"),
    allow_private_network=(bool, "True or False"),
    headers=(dict, "a dict of header → value"),
)
