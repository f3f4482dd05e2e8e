"""Arguments as Python values without pydantic, for parameters whose types need nothing pydantic
adds once the core has checked the JSON against the tool's schema: ``int``, ``float``, ``str``,
``bool``, a ``Literal``, ``None``, ``date`` and ``Phone``, alone or ``X | None``, with the bounds
the schema carries (``ge``, ``le``, ``gt``, ``lt``, ``min_length``, ``max_length``).

The core checks types and bounds but not formats, so a ``date`` and a ``Phone`` are parsed here.
Whatever a plan does not take for certain (a value of another shape, a date not written
year-month-day, a number that does not parse) returns :data:`UNSURE`, and the caller decodes the
arguments with pydantic, whose values and refusal texts stay the reference. Not a public API."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable
from datetime import date
from typing import Any, Literal

import annotated_types
import pydantic

from hark.state import Phone

UNSURE: Any = object()
"""What a conversion returns when pydantic must decide."""

_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_BOUNDS = (annotated_types.Ge, annotated_types.Gt, annotated_types.Le, annotated_types.Lt)
_LENGTHS = (annotated_types.MinLen, annotated_types.MaxLen)
_PHONES: dict[str, Phone] = {}
"""Numbers already parsed (parsing is a pure function of the text), at most ``_PHONES_KEPT``."""
_PHONES_KEPT = 256

Convert = Callable[[Any], Any]


def _int(value: Any) -> Any:
    kind = type(value)
    if kind is int:
        return value
    if kind is float and value.is_integer():
        return int(value)
    return UNSURE


def _float(value: Any) -> Any:
    kind = type(value)
    if kind is float:
        return value
    if kind is int:
        return float(value)
    return UNSURE


def _str(value: Any) -> Any:
    return value if type(value) is str else UNSURE


def _bool(value: Any) -> Any:
    return value if type(value) is bool else UNSURE


def _none(value: Any) -> Any:
    return None if value is None else UNSURE


def _date(value: Any) -> Any:
    if type(value) is not str or not _DAY.fullmatch(value):
        return UNSURE
    try:
        return date.fromisoformat(value)
    except ValueError:
        return UNSURE


def _phone(value: Any) -> Any:
    if type(value) is not str:
        return UNSURE
    known = _PHONES.get(value)
    if known is not None:
        return known
    try:
        number = Phone.parse(value)
    except ValueError:
        return UNSURE
    if len(_PHONES) >= _PHONES_KEPT:
        _PHONES.clear()
    _PHONES[value] = number
    return number


def _literal(values: tuple[Any, ...]) -> Convert | None:
    if not all(type(v) in (str, int, bool) for v in values):
        return None
    allowed = {(type(v), v): v for v in values}

    def convert(value: Any) -> Any:
        return allowed.get((type(value), value), UNSURE)

    return convert


def _optional(convert: Convert) -> Convert:
    def optional(value: Any) -> Any:
        return None if value is None else convert(value)

    return optional


_PLAIN: dict[Any, Convert] = {
    int: _int,
    float: _float,
    str: _str,
    bool: _bool,
    type(None): _none,
    date: _date,
    Phone: _phone,
}


def _converter(annotation: Any) -> Convert | None:
    """How to convert a checked JSON value to ``annotation``, or None when pydantic must."""
    plain = _PLAIN.get(annotation)
    if plain is not None:
        return plain
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return _literal(typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        others = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(others) == 1 and len(typing.get_args(annotation)) == 2:
            inner = _converter(others[0])
            return _optional(inner) if inner is not None else None
    return None


def _plain_metadata(annotation: Any, metadata: list[Any]) -> bool:
    """True when every constraint is one the schema carries and the core checks."""
    for item in metadata:
        if isinstance(item, _BOUNDS):
            continue
        if isinstance(item, _LENGTHS) and annotation in (str, typing.Optional[str]):
            continue
        return False
    return True


class Plan:
    """How to build a function's keyword arguments from checked arguments, field by field."""

    __slots__ = ("fields", "defaults")

    def __init__(self, fields: dict[str, Convert], defaults: dict[str, Callable[[], Any]]) -> None:
        self.fields = fields
        self.defaults = defaults

    def values(self, arguments: dict[str, Any]) -> Any:
        """The keyword arguments, or :data:`UNSURE`."""
        fields = self.fields
        values: dict[str, Any] = {}
        for key, value in arguments.items():
            convert = fields.get(key)
            if convert is None:
                return UNSURE
            converted = convert(value)
            if converted is UNSURE:
                return UNSURE
            values[key] = converted
        if len(values) < len(fields):
            for key, default in self.defaults.items():
                if key not in values:
                    values[key] = default()
            if len(values) < len(fields):
                return UNSURE  # a required value is missing: pydantic names it
        return values


def plan_of(model: type[pydantic.BaseModel]) -> Plan | None:
    """The plan of ``model`` (one ``local_tool`` made from a function's parameters), or None
    when some field needs pydantic (another type, a validator, an alias, a custom constraint)."""
    if model.__pydantic_decorators__.model_validators or model.__pydantic_decorators__.field_validators:
        return None
    fields: dict[str, Convert] = {}
    defaults: dict[str, Callable[[], Any]] = {}
    for name, field in model.model_fields.items():
        if field.alias not in (None, name) or field.validation_alias not in (None, name):
            return None
        if field.discriminator is not None or not _plain_metadata(field.annotation, field.metadata):
            return None
        convert = _converter(field.annotation)
        if convert is None:
            return None
        fields[name] = convert
        if field.default_factory is not None:
            return None  # a factory may take the other values: pydantic calls it
        if not field.is_required():
            default = field.default
            if type(default) not in (int, float, str, bool, type(None), date, Phone):
                return None
            defaults[name] = lambda default=default: default
    return Plan(fields, defaults)
