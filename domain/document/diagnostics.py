"""The ordered log of decisions taken while resolving one source."""

from __future__ import annotations

import attrs


@attrs.frozen
class Decision:
    """One step and what was decided there, in words a person can check."""

    step: str
    message: str

    def __str__(self) -> str:
        return f"{self.step}: {self.message}"


def _non_empty(instance: object, attribute: attrs.Attribute[object], value: object) -> None:
    if not value:
        raise ValueError("diagnostics must record at least one decision")


@attrs.frozen
class Diagnostics:
    """Every decision in the order it was taken; never empty."""

    decisions: tuple[Decision, ...] = attrs.field(validator=_non_empty)

    def messages(self) -> list[str]:
        return [str(d) for d in self.decisions]


class DecisionLog:
    """Collects decisions as a use case runs, then freezes them into `Diagnostics`."""

    def __init__(self) -> None:
        self._decisions: list[Decision] = []

    def add(self, step: str, message: str) -> Decision:
        decision = Decision(step, message)
        self._decisions.append(decision)
        return decision

    def freeze(self) -> Diagnostics:
        return Diagnostics(tuple(self._decisions))

    def __len__(self) -> int:
        return len(self._decisions)
