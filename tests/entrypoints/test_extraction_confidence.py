"""An HTML page's extraction confidence, end to end: `extract --format json`, `sheaf
ingest` output, `show --diagnostics`, and search hits (CLI and the Knowledge facade)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sheaf import Knowledge
from tests.entrypoints.cli_runner import SAMPLES, run, sheaf_on

pytestmark = pytest.mark.anyio
PROSE = ("The council voted on Tuesday to rebuild the harbour wall, which storms breached "
         "twice last winter, and the work will start in May. ")


def _rival_stories(count: int) -> str:
    """The page's story and `count - 1` as long below it: whichever is kept, most of the
    page's prose is elsewhere, and the extraction says it may be the wrong one."""
    articles = "".join(f"<article><h1>Story {i} headline here</h1>"
                       + "".join(f"<p>Story{i} {PROSE}</p>" for _ in range(5)) + "</article>"
                       for i in range(count))
    return (f"<html><head><title>Story 0 headline here</title></head><body>{articles}"
            f"</body></html>")


def test_extract_json_carries_the_confidence_and_flags_a_low_one(tmp_path: Path) -> None:
    low = tmp_path / "rivals.html"
    low.write_text(_rival_stories(8))
    done = run("extract", SAMPLES / "article.html", low, "--output-dir", tmp_path / "out",
               "--format", "json")
    assert done.exit_code == 0, done.output
    article = json.loads((tmp_path / "out" / "article.json").read_text())
    rivals = json.loads((tmp_path / "out" / "rivals.json").read_text())
    assert article["extraction_confidence"]["level"] == "high"
    assert rivals["extraction_confidence"]["level"] == "low"
    assert 0 <= rivals["extraction_confidence"]["score"] < 0.5
    assert "root <article>" in rivals["extraction_confidence"]["reason"]
    assert any(n.startswith("extraction confidence") and "(low)" in n for n in rivals["notes"])


def test_a_pdf_has_no_extraction_confidence(tmp_path: Path) -> None:
    done = run("extract", SAMPLES / "paper.pdf", "--output-dir", tmp_path, "--format", "json")
    assert done.exit_code == 0, done.output
    assert json.loads((tmp_path / "paper.json").read_text())["extraction_confidence"] is None


async def test_ingest_show_and_search_report_a_low_confidence(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    page = tmp_path / "rivals.html"
    page.write_text(_rival_stories(8))
    ingested = await sheaf_on(store, "ingest", page)
    assert ingested.returncode == 0, ingested.stderr
    assert b"low extraction confidence 0." in ingested.stderr
    as_json = await sheaf_on(store, "ingest", tmp_path / "rivals.html", "--json")
    assert as_json.returncode == 0
    diagnostics = (await sheaf_on(store, "show", str(page), "--diagnostics")).stdout.decode()
    assert "extraction confidence" in diagnostics and "(low)" in diagnostics
    found = await sheaf_on(store, "search", "harbour wall storms", "--json")
    assert found.returncode == 0, found.stderr
    hits = [json.loads(line) for line in found.stdout.decode().splitlines() if line.strip()]
    assert hits and all(h["extraction_confidence"]["level"] == "low" for h in hits)


async def test_the_facade_gives_hits_and_results_their_confidence(tmp_path: Path) -> None:
    low, high = tmp_path / "rivals.html", tmp_path / "article.html"
    low.write_text(_rival_stories(8))
    high.write_bytes((SAMPLES / "article.html").read_bytes())
    async with Knowledge.open(tmp_path / "kb.duckdb", "papers") as kb:
        flagged = await kb.ingest(str(low))
        trusted = await kb.ingest(str(high))
        assert flagged.low_confidence and flagged.extraction_confidence is not None
        assert flagged.extraction_confidence < 0.5
        assert trusted.low_confidence is None and trusted.extraction_confidence is not None
        hits = await kb.search("harbour wall storms breached", 3)
        assert hits and hits[0].extraction_confidence is not None
        assert hits[0].extraction_confidence.low
        assert hits[0].as_dict()["extraction_confidence"]["level"] == "low"
