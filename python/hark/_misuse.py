"""Wrong-type and wrong-shape arguments to the public API, refused in one text.

``ToolRegistry: tools must be a list of tools, not the tool book_table (a ToolSpec). Pass it like
ToolRegistry([local_tool(book_table)]).`` The text is the core's (``hark._core.misuse``, from
``crates/hark-py/src/misuse.rs``), so a check in Python and one in Rust read the same.

- :func:`misuse`: the ``TypeError`` for one argument.
- :func:`expect`: checks one argument's type.
- :func:`items`: the items of a list or tuple argument (never a text, a dict or one object).
- :func:`checked`: a function of the core with its arguments' types checked first, by name.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from hark import _core

__all__ = ["checked", "expect", "items", "misuse"]


def misuse(call: str, param: str, value: Any, wants: str, example: str) -> TypeError:
    """The ``TypeError``: ``{call}: {param} must be {wants}, not {value}. Pass it like
    {example}.``"""
    return _core.misuse(call, param, value, wants, example)


def expect(
    call: str,
    param: str,
    value: Any,
    kinds: type | tuple[type, ...],
    wants: str,
    example: str,
    *,
    optional: bool = False,
) -> Any:
    """``value`` when it is one of ``kinds`` (or ``None`` when ``optional``); a ``bool`` is not
    taken for a number. Raises :func:`misuse`'s ``TypeError`` otherwise."""
    if value is None and optional:
        return value
    accepted = kinds if isinstance(kinds, tuple) else (kinds,)
    a_number = int in accepted or float in accepted
    if isinstance(value, bool) and a_number and bool not in accepted:
        raise misuse(call, param, value, wants, example)
    if not isinstance(value, accepted):
        raise misuse(call, param, value, wants, example)
    return value


def items(call: str, param: str, value: Any, wants: str, example: str) -> list[Any]:
    """The items of ``value``, a list, tuple or other iterable that is neither a text, bytes nor
    a dict; else :func:`misuse`'s ``TypeError``."""
    if isinstance(value, (str, bytes, Mapping)):
        raise misuse(call, param, value, wants, example)
    try:
        return list(value)
    except TypeError:
        raise misuse(call, param, value, wants, example) from None


Rule = tuple[type | tuple[type, ...], str]


def checked(function: Callable[..., Any], call: str, example: str, **rules: Rule) -> Callable[..., Any]:
    """``function`` with each argument named in ``rules`` (``name=(kinds, wants)``) checked by
    :func:`expect` before it runs; ``None`` passes for an argument whose default is ``None``."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return function(*args, **kwargs)
        for name, value in bound.arguments.items():
            rule = rules.get(name)
            if rule is None:
                continue
            default = signature.parameters[name].default
            expect(call, name, value, rule[0], rule[1], example, optional=default is None)
        return function(*args, **kwargs)

    return run
