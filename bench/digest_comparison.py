"""Two runs' output digests compared, for the benches that hold a speed change to
identical output (`html_output_identity`, `pdf_output_identity`)."""

from __future__ import annotations

import json
from pathlib import Path


def compare_digests(before: Path, after: Path, unit: str) -> int:
    """Print each key whose digest differs and a count; 1 if any differs, else 0."""
    old, new = (json.loads(p.read_text()) for p in (before, after))
    differ = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    for key in differ:
        print(f"differs: {key}")
    print(f"{len(old)} {unit} before, {len(new)} after, {len(differ)} differ")
    return 1 if differ else 0
