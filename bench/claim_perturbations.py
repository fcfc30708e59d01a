"""Claims made from a real sentence: variants that change what it says (a quote check must
never verify them) and variants that only change how it is written (it must always).

`perturb(sentence, language, rng)` gives, per class, the claim, or nothing where the class
does not apply to that sentence (no number to change, no negation to drop). Benign
classes may also change the document (`Perturbation.document_edit`): a citation marker
is inserted into the document, and the claim is the sentence without it.

Shared by `bench/quote_perturbations.py`, `bench/claim_checks.py` and the hypothesis
properties of `tests/domain/test_quote_verification.py`, so the benchmark and the tests
mean the same thing by each class.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable

import attrs

MEANING_CHANGING = ("number_changed", "digits_transposed", "negation_added",
                    "negation_dropped", "antonym_swapped", "entity_swapped",
                    "word_swapped", "unit_changed", "qualifier_dropped",
                    "qualifier_clause_dropped")
BENIGN = ("whitespace", "line_breaks", "hyphenation", "ligatures", "quotes_and_dashes",
          "citation_marker_removed", "superscript_marker_removed", "nfd", "nfkc",
          "leading_case", "closing_stop_dropped")


@attrs.frozen
class Perturbation:
    kind: str
    claim: str
    document_edit: tuple[int, str] | None = None
    """(offset in the sentence, text inserted there in the document), for the classes
    whose document differs from the original."""

    @property
    def benign(self) -> bool:
        return self.kind in BENIGN


NEGATION_WORD = {"en": "not", "de": "nicht", "fr": "pas", "es": "no", "it": "non",
                 "pt": "não", "nl": "niet", "ru": "не"}
_EXISTING_NEGATIONS = re.compile(
    r"\b(?:not|never|no|nicht|kein|keine|nie|pas|jamais|nunca|non|não|niet|geen|не)\b\s*",
    re.IGNORECASE)
_AUXILIARIES = re.compile(
    r"\b(is|are|was|were|has|have|had|can|could|will|would|should|may|might|must|does|do|"
    r"did)\b(?! not)")
_ANTONYMS = {
    "increase": "decrease", "increased": "decreased", "increases": "decreases",
    "increasing": "decreasing", "higher": "lower", "high": "low", "more": "less",
    "larger": "smaller", "large": "small", "before": "after", "positive": "negative",
    "significant": "insignificant", "first": "last", "early": "late", "strong": "weak",
    "major": "minor", "maximum": "maximum", "above": "below", "inside": "outside",
    "rise": "fall", "rose": "fell", "gain": "loss", "success": "failure", "true": "false",
    "always": "never", "better": "worse", "best": "worst", "old": "new", "long": "short",
    "many": "few", "most": "least", "open": "closed", "public": "private", "up": "down",
    "mehr": "weniger", "hoch": "niedrig", "groß": "klein", "neue": "alte", "neuen": "alten",
    "plus": "moins", "grand": "petit", "grande": "petite", "nouveau": "ancien",
    "más": "menos", "mayor": "menor", "nuevo": "viejo", "primero": "último",
    "больше": "меньше", "новый": "старый",
}
_ANTONYMS.update({v: k for k, v in list(_ANTONYMS.items()) if v not in _ANTONYMS})
_ANTONYMS.pop("maximum", None)
_UNITS = {"%": "‰", "percent": "per mille", "mg": "g", "g": "kg", "kg": "g",
          "km": "m", "m": "km", "cm": "mm", "mm": "cm", "ml": "l", "hours": "days",
          "days": "weeks", "weeks": "months", "months": "years", "years": "months",
          "minutes": "hours", "seconds": "minutes", "million": "billion",
          "billion": "million", "miles": "kilometres", "dollars": "euros", "euros": "dollars",
          "°C": "°F", "Jahre": "Monate", "Prozent": "Promille", "ans": "mois",
          "años": "meses"}
_NUMBER_UNIT = re.compile(r"(?<=\d)(\s?)(%|°C|[A-Za-zÀ-ÿ]+)")
_QUALIFIERS = re.compile(
    r"\b(?:only|solely|exclusively|at least|at most|no more than|no less than|"
    r"less than|more than|nur|mindestens|höchstens|seulement|uniquement|au moins|"
    r"solo|sólo|solamente|al menos|только)\s+", re.IGNORECASE)
_CLAUSE_QUALIFIER = re.compile(
    r",?\s+(?:(?:but|and|yet)\s+)?(?:only|except|unless|if|not)\b[^.;:!?]*")
"""A clause inside the sentence (lower case: "Not just the Sensex" after a stop opens
the next sentence, which the splitter may have left joined)."""
_CAPITALISED = re.compile(r"(?<=\s)[A-ZÀ-Ý][a-zà-ÿ]{3,}\b")
_WORD = re.compile(r"\b[^\W\d_]{5,}\b")
_LIGATURE_PAIRS = (("ffi", "\ufb03"), ("ffl", "\ufb04"), ("fi", "\ufb01"), ("fl", "\ufb02"),
                   ("ff", "\ufb00"))
_TYPOGRAPHIC = {"'": "’", '"': "“", "-": "–", "’": "'", "‘": "'", "“": '"', "”": '"',
                "–": "-", "—": "-"}
_MARKED_WORD = re.compile(r"(?<![\w'’])[^\W\d_]{4,}(?=[\s,.;:!?)])")
"""A word a reference marker may follow: whole (not part of `didn't`), before a space or
a stop."""
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


RARE = re.compile(
    r"\d\s?(?:%|percent|mg|kg|km|cm|mm|hours|days|weeks|months|years|million|billion)\b|"
    r"\b(?:only|at least|at most|no more than|less than|more than|not|never|no|nicht|kein|"
    r"pas|jamais|nunca|nur|seulement|solo|sólo)\b", re.IGNORECASE)
"""Sentences the rarer classes apply to: a number with a unit, a qualifier, a negation."""


def perturb(sentence: str, language: str, rng: random.Random,
            other_words: list[str] | None = None) -> list[Perturbation]:
    """Every class that applies to `sentence`, one claim each."""
    found: list[Perturbation] = []
    for kind, make in _MAKERS.items():
        made = make(sentence, language, rng, other_words or [])
        if made is None:
            continue
        claim, edit = made if isinstance(made, tuple) else (made, None)
        if claim.strip() and (claim != sentence or edit is not None):
            found.append(Perturbation(kind, claim, edit))
    return found


Maker = Callable[[str, str, random.Random, list[str]], "str | tuple[str, tuple[int, str]] | None"]


def _number_changed(s: str, language: str, rng: random.Random, _: list[str]) -> str | None:
    numbers = list(re.finditer(r"\d+", s))
    if not numbers:
        return None
    m = rng.choice(numbers)
    value = m.group(0)
    position = rng.randrange(len(value))
    digit = str((int(value[position]) + rng.randint(1, 8)) % 10)
    if position == 0 and digit == "0" and len(value) > 1:
        digit = "1" if value[0] != "1" else "2"
    return s[:m.start() + position] + digit + s[m.start() + position + 1:]


def _digits_transposed(s: str, language: str, rng: random.Random, _: list[str]
                       ) -> str | None:
    spots = [m.start() + i for m in re.finditer(r"\d{2,}", s)
             for i in range(len(m.group(0)) - 1) if m.group(0)[i] != m.group(0)[i + 1]]
    if not spots:
        return None
    at = rng.choice(spots)
    return s[:at] + s[at + 1] + s[at] + s[at + 2:]


def _negation_added(s: str, language: str, rng: random.Random, _: list[str]
                    ) -> str | None:
    if language == "en":
        auxiliaries = list(_AUXILIARIES.finditer(s))
        if auxiliaries:
            m = rng.choice(auxiliaries)
            return s[:m.end()] + " not" + s[m.end():]
    word = NEGATION_WORD.get(language)
    spaces = [m.start() for m in re.finditer(r" ", s)]
    if word is None or len(spaces) < 3:
        return None
    at = rng.choice(spaces[1:-1])
    return s[:at] + f" {word}" + s[at:]


def _negation_dropped(s: str, language: str, rng: random.Random, _: list[str]
                      ) -> str | None:
    found = list(_EXISTING_NEGATIONS.finditer(s))
    if not found:
        return None
    m = rng.choice(found)
    return s[:m.start()] + s[m.end():]


def _antonym_swapped(s: str, language: str, rng: random.Random, _: list[str]
                     ) -> str | None:
    found = [m for m in re.finditer(r"\b\w+\b", s) if m.group(0).lower() in _ANTONYMS]
    if not found:
        return None
    m = rng.choice(found)
    word = m.group(0)
    other = _ANTONYMS[word.lower()]
    other = other.capitalize() if word[0].isupper() else other
    return s[:m.start()] + other + s[m.end():]


def _entity_swapped(s: str, language: str, rng: random.Random, others: list[str]
                    ) -> str | None:
    names = list(_CAPITALISED.finditer(s))
    candidates = [w for w in others if w[:1].isupper() and len(w) > 3 and w not in s]
    if not names or not candidates:
        return None
    m = rng.choice(names)
    return s[:m.start()] + rng.choice(candidates) + s[m.end():]


def _word_swapped(s: str, language: str, rng: random.Random, others: list[str]
                  ) -> str | None:
    words = list(_WORD.finditer(s))
    candidates = [w for w in others if w.islower() and len(w) >= 5 and w not in s]
    if not words or not candidates:
        return None
    m = rng.choice(words)
    replacement = rng.choice(candidates)
    if m.group(0)[0].isupper():
        replacement = replacement.capitalize()
    return s[:m.start()] + replacement + s[m.end():]


def _unit_changed(s: str, language: str, rng: random.Random, _: list[str]) -> str | None:
    found = [m for m in _NUMBER_UNIT.finditer(s) if m.group(2) in _UNITS]
    if not found:
        return None
    m = rng.choice(found)
    return s[:m.start()] + m.group(1) + _UNITS[m.group(2)] + s[m.end():]


def _qualifier_dropped(s: str, language: str, rng: random.Random, _: list[str]
                       ) -> str | None:
    found = list(_QUALIFIERS.finditer(s))
    if not found:
        return None
    m = rng.choice(found)
    return s[:m.start()] + s[m.end():]


def _qualifier_clause_dropped(s: str, language: str, rng: random.Random, _: list[str]
                              ) -> str | None:
    found = [m for m in _CLAUSE_QUALIFIER.finditer(s) if m.start() > 10]
    if not found:
        return None
    m = rng.choice(found)
    return s[:m.start()] + s[m.end():]


def _whitespace(s: str, language: str, rng: random.Random, _: list[str]) -> str | None:
    spaces = [m.start() for m in re.finditer(" ", s)]
    if not spaces:
        return None
    chosen = set(rng.sample(spaces, max(1, len(spaces) // 3)))
    return "".join(rng.choice(["  ", "\t", "\u00a0", " \u2009"]) if i in chosen else c
                   for i, c in enumerate(s))


def _line_breaks(s: str, language: str, rng: random.Random, _: list[str]) -> str | None:
    spaces = [m.start() for m in re.finditer(" ", s)]
    if not spaces:
        return None
    chosen = set(rng.sample(spaces, max(1, len(spaces) // 4)))
    return "".join("\n" if i in chosen else c for i, c in enumerate(s))


def _hyphenation(s: str, language: str, rng: random.Random, _: list[str]) -> str | None:
    words = [m for m in re.finditer(r"\b[a-zà-ÿ]{8,}\b", s)]
    if not words:
        return None
    m = rng.choice(words)
    cut = m.start() + rng.randint(3, len(m.group(0)) - 3)
    return s[:cut] + "-\n" + s[cut:]


def _ligatures(s: str, language: str, rng: random.Random, _: list[str]) -> str | None:
    changed = s
    for letters, ligature in _LIGATURE_PAIRS:
        changed = changed.replace(letters, ligature)
    return changed if changed != s else None


def _quotes_and_dashes(s: str, language: str, rng: random.Random, _: list[str]
                       ) -> str | None:
    changed = "".join(_TYPOGRAPHIC.get(c, c) if c in "'\"’‘“”–—" or (
        c == "-" and 0 < i < len(s) - 1 and s[i - 1].isdigit() and s[i + 1].isdigit())
        else c for i, c in enumerate(s))
    return changed if changed != s else None


def _citation_marker_removed(s: str, language: str, rng: random.Random, _: list[str]
                             ) -> tuple[str, tuple[int, str]] | None:
    """The document cites a reference after a word; the claim leaves the marker out."""
    words = [m.end() for m in _MARKED_WORD.finditer(s)]
    if not words:
        return None
    number = rng.randint(1, 120)
    marker = rng.choice([f" [{number}]", f"[{number}]", f" [{number}, {number + 2}]",
                         f" [{number}–{number + 3}]"])
    return s, (rng.choice(words), marker)


def _superscript_marker_removed(s: str, language: str, rng: random.Random, _: list[str]
                                ) -> tuple[str, tuple[int, str]] | None:
    words = [m.end() for m in _MARKED_WORD.finditer(s)]
    if not words:
        return None
    marker = str(rng.randint(1, 99)).translate(_SUPERSCRIPT)
    return s, (rng.choice(words), marker)


def _nfd(s: str, language: str, rng: random.Random, _: list[str]) -> str | None:
    changed = unicodedata.normalize("NFD", s)
    return changed if changed != s else None


def _nfkc(s: str, language: str, rng: random.Random, _: list[str]) -> str | None:
    """One word in full-width letters, as East Asian input methods type Latin text."""
    words = list(re.finditer(r"\b[A-Za-z]{3,}\b", s))
    if not words:
        return None
    m = rng.choice(words)
    wide = "".join(chr(ord(c) + 0xFEE0) for c in m.group(0))
    return s[:m.start()] + wide + s[m.end():]


def _leading_case(s: str, language: str, rng: random.Random, _: list[str]) -> str | None:
    if not s[:1].isalpha() or s[:1].lower() == s[:1].upper():
        return None
    return s[:1].swapcase() + s[1:]


def _closing_stop_dropped(s: str, language: str, rng: random.Random, _: list[str]
                          ) -> str | None:
    return s[:-1] if s.endswith(".") else None


_MAKERS: dict[str, Maker] = {
    "number_changed": _number_changed, "digits_transposed": _digits_transposed,
    "negation_added": _negation_added, "negation_dropped": _negation_dropped,
    "antonym_swapped": _antonym_swapped, "entity_swapped": _entity_swapped,
    "word_swapped": _word_swapped, "unit_changed": _unit_changed,
    "qualifier_dropped": _qualifier_dropped,
    "qualifier_clause_dropped": _qualifier_clause_dropped,
    "whitespace": _whitespace, "line_breaks": _line_breaks, "hyphenation": _hyphenation,
    "ligatures": _ligatures, "quotes_and_dashes": _quotes_and_dashes,
    "citation_marker_removed": _citation_marker_removed,
    "superscript_marker_removed": _superscript_marker_removed, "nfd": _nfd,
    "nfkc": _nfkc, "leading_case": _leading_case,
    "closing_stop_dropped": _closing_stop_dropped,
}
