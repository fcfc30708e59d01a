"""An immutable, hashable mapping for frozen records: metadata, summaries, profiles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn


class FrozenMapping(dict[str, Any]):
    """A dict that refuses every change and hashes by its items, so a frozen record that
    holds one is a value. Still a dict to `json.dumps` and to equality with plain dicts."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("a FrozenMapping cannot be changed; build a new one")

    __setitem__ = __delitem__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[type[FrozenMapping], tuple[dict[str, Any]]]:
        return (FrozenMapping, (dict(self),))

    def __copy__(self) -> FrozenMapping:
        return self

    def __deepcopy__(self, memo: object) -> FrozenMapping:
        return self


def freeze(value: object) -> Any:
    """`value` with every mapping made a FrozenMapping and every list a tuple, deeply."""
    if isinstance(value, FrozenMapping):
        return value
    if isinstance(value, Mapping):
        return FrozenMapping({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def frozen_mapping(value: Mapping[str, object] | None) -> FrozenMapping:
    """An attrs converter: any mapping (or None, for empty) as a FrozenMapping."""
    return freeze(value or {})  # type: ignore[no-any-return]


def optional_frozen_mapping(value: Mapping[str, object] | None) -> FrozenMapping | None:
    return None if value is None else frozen_mapping(value)
