"""Webhook tools: ``webhook_tool`` (built and run by Hark's core: URL checks, the network guard,
one deadline, size caps), ``WebhookAuth`` and ``WebhookOptions``."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import TypedDict

from hark._core import webhook_tool

__all__ = ["WebhookAuth", "WebhookOptions", "webhook_tool"]

Token = str | Callable[[], Awaitable[str]]


@dataclasses.dataclass(frozen=True)
class WebhookAuth:
    """How a webhook authenticates. ``source`` is an environment variable's name (read at each
    call) or an async function returning the token."""

    kind: str
    source: Token
    header: str | None = None

    @classmethod
    def api_key(cls, env: str | None = None, *, header: str, token: Callable[[], Awaitable[str]] | None = None) -> WebhookAuth:
        """The key in ``header``: ``WebhookAuth.api_key("CRM_KEY", header="X-API-Key")``."""
        return cls("api_key", _source(env, token), header)

    @classmethod
    def bearer(cls, env: str | None = None, *, token: Callable[[], Awaitable[str]] | None = None) -> WebhookAuth:
        """``Authorization: Bearer <token>``: ``WebhookAuth.bearer(token=fetch_token)``."""
        return cls("bearer", _source(env, token))


def _source(env: str | None, token: Callable[[], Awaitable[str]] | None) -> Token:
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
