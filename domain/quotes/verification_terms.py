"""What `verified` means, in the words every interface shows (tool descriptions, the
OpenAPI document, `sheaf quote --help`), built from the tolerances themselves so the
list shown is the list applied."""

from __future__ import annotations

from .tolerances import TOLERANCES

TOLERATED = ", ".join(t.value.replace("_", " ") for t in TOLERANCES)

VERIFIED_MEANS = (
    "verified means the document contains the passage exactly, or with differences "
    f"only from this closed list, none of which changes meaning: {TOLERATED}. A changed "
    "number, unit, word, word order or negation, a missing or extra word, or a passage "
    "cut right before or after a negation or qualifier (not, only, except) is "
    "not_verified, with the closest passage (the document's own words, offsets, "
    "similarity) and each difference classified.")
