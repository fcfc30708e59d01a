"""Frozen records to JSON-ready values and back, by their attrs fields and type hints:
one rule for every artifact, stored structure and record a store's holder sends,
instead of a mapping per record."""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar

import attrs

from .frozen_mapping import freeze

T = TypeVar("T")


def to_plain(value: object) -> Any:
    """Records as dicts of their fields, tuples as lists, enums as their values, times
    in ISO 8601."""
    if attrs.has(type(value)):
        return {f.name: to_plain(getattr(value, f.name))
                for f in attrs.fields(type(value))}  # type: ignore[arg-type]
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | frozenset):
        return [to_plain(v) for v in value]
    return value


def from_plain(kind: type[T], data: Any) -> T:
    """A `kind` rebuilt from what `to_plain` made of one. Fields missing from `data` take
    their defaults (artifacts written before a field existed)."""
    return _decode(kind, data)  # type: ignore[no-any-return]


def _decode(kind: Any, data: Any) -> Any:
    if data is None:
        return None
    if isinstance(kind, type) and attrs.has(kind):
        hints = _field_types(kind)
        return kind(**{name: _decode(hint, data[name]) for name, hint in hints.items()
                       if name in data})
    origin = typing.get_origin(kind)
    arguments = typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        chosen = [a for a in arguments if a is not type(None)]
        return _decode(chosen[0], data) if len(chosen) == 1 else freeze(data)
    if origin is tuple:
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return tuple(_decode(arguments[0], v) for v in data)
        return tuple(_decode(a, v) for a, v in zip(arguments, data, strict=True))
    if origin is frozenset:
        return frozenset(_decode(arguments[0], v) for v in data)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(data)
    if kind in (int, float, str, bool):
        return kind(data)
    if kind is datetime:
        return datetime.fromisoformat(data)
    return freeze(data)  # mappings and anything typed `object`


_TYPES: dict[type, dict[str, Any]] = {}


def _field_types(kind: type) -> dict[str, Any]:
    if kind not in _TYPES:
        _TYPES[kind] = typing.get_type_hints(kind)
        _TYPES[kind] = {f.name: _TYPES[kind][f.name] for f in attrs.fields(kind)}
    return _TYPES[kind]
