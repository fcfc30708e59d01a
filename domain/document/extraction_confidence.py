"""How far an extractor trusts its own choice of a page's main content."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

LOW_CONFIDENCE = 0.5
"""Below this score a document says it may not hold its page's main content."""


@attrs.frozen
class ExtractionConfidence:
    """A score in [0, 1] and the reason for it, in words an agent can pass on.

    `reason` names the chosen root, the share of the page's content-like text the
    extraction holds (coverage), the share of the extraction that reads as content
    (purity) and the competing candidates passed over."""

    score: float = attrs.field()
    reason: str = ""

    @score.validator
    def _in_unit_range(self, _attribute: object, value: float) -> None:
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"extraction confidence must be within [0, 1], not {value}")

    @property
    def low(self) -> bool:
        return self.score < LOW_CONFIDENCE

    @property
    def level(self) -> str:
        return "low" if self.low else "high"

    def as_dict(self) -> dict[str, object]:
        return {"score": round(self.score, 3), "level": self.level, "reason": self.reason}

    @property
    def note(self) -> str:
        """The line the document's notes carry."""
        return f"extraction confidence {self.score:.2f} ({self.level}): {self.reason}"


CONFIDENCE_KEY = "extraction_confidence"
"""The key under which a stored version's metadata keeps the confidence."""


def confidence_of(metadata: Mapping[str, object]) -> ExtractionConfidence | None:
    """The confidence a stored version's metadata records; None when it records none
    (PDFs, files, versions stored before confidences existed) or a malformed one."""
    entry = metadata.get(CONFIDENCE_KEY)
    if not isinstance(entry, Mapping):
        return None
    score, reason = entry.get("score"), entry.get("reason")
    if not isinstance(score, int | float) or isinstance(score, bool) or not 0 <= score <= 1:
        return None
    return ExtractionConfidence(float(score), reason if isinstance(reason, str) else "")
