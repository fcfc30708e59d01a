"""Every file of ../shared/corpora/pdf-dev ends as a Document or a typed error.

Skipped when the corpus is not there (it is data beside the repository, not in it).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.errors import ErrorKind, SheafError

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "pdf-dev"
ENTRIES = (json.loads((CORPUS / "manifest.json").read_text())["entries"]
           if (CORPUS / "manifest.json").exists() else [])
BUDGET = 120.0
# A sweep of the whole corpus: `make test-slow` (and .ci/run), not `make test`.
pytestmark = [pytest.mark.skipif(not ENTRIES, reason="pdf-dev corpus not present"),
              pytest.mark.slow]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_every_file_is_a_document_or_a_typed_error(entry: dict[str, object]) -> None:
    data = (CORPUS / str(entry["file"])).read_bytes()
    password = entry.get("password")
    started = time.monotonic()
    try:
        document = PdfminerExtractor(time_budget=BUDGET).extract_sync(
            data, str(password) if password else None)
    except SheafError as exc:
        assert exc.message
        if str(entry["id"]).startswith("A"):
            pytest.fail(f"a paper failed: {exc}")
    else:
        assert document.page_count
        for block in document.blocks:
            assert document.text[block.start:block.end] == block.markdown
    assert time.monotonic() - started < BUDGET + 10


PROTECTED = [e for e in ENTRIES if e.get("password")]


@pytest.mark.parametrize("entry", PROTECTED, ids=[e["id"] for e in PROTECTED])
def test_protected_files_need_their_password(entry: dict[str, object]) -> None:
    data = (CORPUS / str(entry["file"])).read_bytes()
    extractor = PdfminerExtractor()
    # A file whose owner password is empty opens through it, as poppler opens it too.
    empty_owner = "empty owner password" in str(entry.get("special", "")).lower()
    try:
        extractor.extract_sync(data)
    except SheafError as exc:
        assert exc.kind is ErrorKind.ENCRYPTED
    else:
        assert empty_owner, "opened without its password"
    try:
        extractor.extract_sync(data, str(entry["password"]))
    except SheafError as exc:  # opened; a scan inside may still hold no text
        assert exc.kind is ErrorKind.NO_TEXT_LAYER


_DIGESTS = """
import hashlib, json, sys
from pathlib import Path
from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from sheaf.domain.errors import SheafError
corpus = Path(sys.argv[1])
out = {}
for entry in json.loads((corpus / "manifest.json").read_text())["entries"]:
    data = (corpus / entry["file"]).read_bytes()
    try:
        document = PdfminerExtractor().extract_sync(data, entry.get("password"))
    except SheafError as exc:
        out[entry["id"]] = exc.kind.value
        continue
    spans = [(b.start, b.end, b.draft.kind.value, b.draft.pages) for b in document.blocks]
    body = json.dumps([document.text, spans, list(document.notes)], default=str)
    out[entry["id"]] = hashlib.sha256(body.encode()).hexdigest()
print(json.dumps(out))
"""


@pytest.mark.slow
def test_every_file_gives_identical_output_in_five_runs() -> None:
    """Five processes, each with its own hash seed (set and dict orders differ between
    them, as do memory addresses), give byte-identical text, offsets and notes."""
    import os
    import subprocess
    import sys

    runs = []
    for seed in range(5):
        env = {**os.environ, "PYTHONHASHSEED": str(seed * 7919 + 1)}
        done = subprocess.run([sys.executable, "-c", _DIGESTS, str(CORPUS)], env=env,
                              capture_output=True, text=True, timeout=900, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    differing = sorted(name for name in runs[0] if len({run[name] for run in runs}) > 1)
    assert not differing, f"different output between runs: {differing}"
