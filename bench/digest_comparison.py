"""Output digests for the benches that hold a speed change to identical output
(`html_output_identity`, `pdf_output_identity`), and two runs' digests compared."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from sheaf.domain.document.document import Document
from sheaf.domain.errors import SheafError
from sheaf.entrypoints.cli.rendering import render


def rendered_digest(extract: Callable[[], Document]) -> str:
    """The sha256 of what `sheaf extract --format json` writes for `extract()`'s document,
    or of its typed error."""
    try:
        output = render(extract(), "json")
    except SheafError as exc:
        output = f"error {exc.kind.value}: {exc}"
    return hashlib.sha256(output.encode("utf-8", "surrogatepass")).hexdigest()


def compare_digests(before: Path, after: Path, unit: str) -> int:
    """Print each key whose digest differs and a count; 1 if any differs, else 0."""
    old, new = (json.loads(p.read_text()) for p in (before, after))
    differ = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    for key in differ:
        print(f"differs: {key}")
    print(f"{len(old)} {unit} before, {len(new)} after, {len(differ)} differ")
    return 1 if differ else 0
