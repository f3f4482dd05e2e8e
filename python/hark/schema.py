"""JSON Schemas from pydantic, as Hark's core reads them: no generated titles (a title tells the
model nothing a property name does not), everything else as pydantic writes it. The core then
normalises the schema (null branches, formats in words, ``$ref``s inlined)."""

from __future__ import annotations

from typing import Any, Literal

import pydantic
from pydantic.json_schema import GenerateJsonSchema

__all__ = ["json_schema"]


class _NoTitles(GenerateJsonSchema):
    def field_title_should_be_set(self, schema: Any) -> bool:  # noqa: D102
        return False


def _drop_titles(node: Any, *, in_properties: bool = False) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "title" and not in_properties and isinstance(value, str):
                continue
            out[key] = _drop_titles(value, in_properties=key in ("properties", "$defs"))
        return out
    if isinstance(node, list):
        return [_drop_titles(item) for item in node]
    return node


def json_schema(
    source: type[pydantic.BaseModel] | pydantic.TypeAdapter[Any],
    *,
    mode: Literal["validation", "serialization"] = "validation",
) -> dict[str, Any]:
    """The JSON Schema of a pydantic model class or a ``TypeAdapter``, without titles."""
    if isinstance(source, pydantic.TypeAdapter):
        schema = source.json_schema(mode=mode, schema_generator=_NoTitles)
    else:
        schema = source.model_json_schema(mode=mode, schema_generator=_NoTitles)
    return _drop_titles(schema)
