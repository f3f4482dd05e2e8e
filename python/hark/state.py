"""Call state: ``CallState`` (one call's State values, what it carries, language, timezone,
transcript) and ``Phone``, a phone number argument normalised to E.164 by Hark's core."""

from __future__ import annotations

from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import core_schema

from hark import _core
from hark._core import CallState

__all__ = ["CallState", "Phone"]


class Phone(str):
    """A valid phone number in E.164 (``+14155550123``).

    Parsed from text in international format (``"+1 415-555-0123"``); as a tool's argument, text
    that is not a valid number is refused quoting it with what is wrong (``phone: "12" has no
    country code: give it starting with + and the country code, like +14155550123``). Its JSON Schema is ``{"type": "string", "format": "phone", ...}``.
    """

    __slots__ = ()

    @classmethod
    def parse(cls, text: str) -> Phone:
        """The number in E.164; ``ValueError`` with the core's words when it is not one."""
        from hark._misuse import expect

        expect("Phone.parse", "text", text, str, "a phone number (str)", 'Phone.parse("+1 415-555-0123")')
        return cls(_core.parse_phone(text))

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return core_schema.no_info_after_validator_function(
            cls.parse,
            core_schema.str_schema(),
            serialization=core_schema.plain_serializer_function_ser_schema(str),
        )

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return {"type": "string", "format": "phone", "description": _core.phone_description()}
