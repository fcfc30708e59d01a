"""Ingestion end to end through the CLI, against a publisher served on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.entrypoints.cli_runner import (
    SAMPLES,
    Completed,
    json_lines,
    run_async,
    sheaf_on,
)
from tests.local_server import LocalServer
from tests.pdf_writer import write_pdf

pytestmark = pytest.mark.anyio
ABSTRACT_PAGE = (b"<html><head><meta name='citation_title' content='Tidal Rhythms'>"
                 b"<meta name='citation_doi' content='10.5555/tide'>"
                 b"<meta name='citation_pdf_url' content='/content/tide-pdf'></head><body>"
                 b"<article><h1>Tidal Rhythms</h1><h2>Abstract</h2><p>"
                 + b"Seagrass grows with the tides. " * 12 + b"</p></article></body></html>")


async def sheaf(store: Path, *args: str | Path) -> Completed:
    return await sheaf_on(store, *args, env={"LOG_LEVEL": "info"})


async def test_publisher_page_whose_pdf_link_is_a_login_page(local_server: LocalServer,
                                                              tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    article = (SAMPLES / "article.html").read_bytes().replace(b'content="paper.pdf"',
                                                              b'content="/pdf/fox"')
    local_server.add("/articles/fox", article, content_type="text/html; charset=utf-8")
    local_server.add("/pdf/fox", b"<html>Please sign in</html>", content_type="text/html")
    url = local_server.url("/articles/fox")

    first = await sheaf(store, "ingest", url, "--allow-private", "--prefer", "pdf", "--json")
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    assert result["status"] == "new"
    shown = json.loads((await sheaf(store, "show", url, "--json")).stdout)
    assert shown["content"] == "html"
    markdown = (await sheaf(store, "show", url, "--markdown")).stdout.decode()
    assert "## 2. Methods" in markdown and "1. Baker PJ, Harris S." in markdown
    diagnostics = (await sheaf(store, "show", url, "--diagnostics")).stdout.decode()
    assert "PDF link returned 200 text/html: not a PDF (paywall?)" in diagnostics

    again = await sheaf(store, "ingest", url, "--allow-private", "--prefer", "pdf", "--json")
    assert json.loads(again.stdout)["status"] == "unchanged"
    assert b"stage=extract" not in again.stderr and b"stage=dedup outcome=unchanged" in \
        again.stderr


async def test_abstract_page_with_a_real_pdf_stores_the_pdf(local_server: LocalServer,
                                                            tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    local_server.add("/articles/tide", ABSTRACT_PAGE, content_type="text/html")
    local_server.add("/content/tide-pdf", write_pdf([("h1", "Tidal Rhythms"), (
        "p", "The full paper says that growth follows the spring-neap cycle.")]),
        content_type="application/pdf")
    url = local_server.url("/articles/tide")
    done = await sheaf(store, "ingest", url, "--allow-private")
    assert done.returncode == 0, done.stderr
    shown = json.loads((await sheaf(store, "show", url, "--json")).stdout)
    assert shown["content"] == "pdf" and shown["metadata"]["doi"] == "10.5555/tide"
    markdown = (await sheaf(store, "show", shown["id"], "--markdown")).stdout.decode()
    assert "growth follows the spring-neap cycle" in markdown


async def test_batch_directory_list_remove_and_status(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    folder = tmp_path / "notes"
    (folder / "deep").mkdir(parents=True)
    for i in range(3):
        (folder / f"n{i}.md").write_text(f"# Note {i}\n\nBody {i}.\n")
    (folder / "deep" / "d.txt").write_text("deep text")
    (folder / "copy.md").write_text("# Note 0\n\nBody 0.\n")
    batch = tmp_path / "batch.txt"
    batch.write_text(f"# my sources\n{folder}\n\n{tmp_path / 'missing.md'}  # gone\n")
    done = await sheaf(store, "ingest", "--batch", str(batch), "--recursive", "--json")
    assert done.returncode == 1  # one source failed
    statuses = sorted(json.loads(line)["status"] for line in done.stdout.splitlines())
    assert statuses == ["duplicate", "failed", "new", "new", "new", "new"]
    assert b"summary: 4 new, 0 unchanged, 0 changed, 1 duplicate, 1 failed" in done.stderr
    listed = (await sheaf(store, "list", "--json")).stdout.splitlines()
    assert len(listed) == 4
    removed = await sheaf(store, "remove", str(folder / "n1.md"))
    assert removed.returncode == 0
    status = json.loads((await sheaf(store, "status", "--json")).stdout)
    assert status["spaces"] == [{"space": "default", "documents": 3, "versions": 3,
                                 "sources": 4}]
    missing = await sheaf(store, "show", str(folder / "n1.md"))
    assert missing.returncode == 1 and b"document_not_found" in missing.stderr


async def test_a_26_mib_source_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    big = tmp_path / "big.txt"
    big.write_bytes(b"word " * (26 * 1024 * 1024 // 5 + 1))
    done = await sheaf(store, "ingest", str(big), "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error_kind"] == "too_large"
    status = json.loads((await sheaf(store, "status", "--json")).stdout)
    assert status["spaces"] == []
    blobs = tmp_path / "kb.blobs"
    assert not blobs.exists() or not any(p.is_file() for p in blobs.rglob("*"))


async def test_reconcile_reports_present_stale_and_missing(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    kept, changed, absent = (tmp_path / n for n in ("kept.md", "changed.md", "absent.md"))
    kept.write_text("# Kept\n\nSame.\n")
    changed.write_text("# Changed\n\nBefore.\n")
    await sheaf(store, "ingest", str(kept), str(changed))
    changed.write_text("# Changed\n\nAfter.\n")
    absent.write_text("# Never ingested\n")
    batch = tmp_path / "batch.txt"
    batch.write_text("\n".join(map(str, (kept, changed, absent))))
    done = await sheaf(store, "reconcile", "--batch", str(batch), "--json")
    assert done.returncode == 1
    states = {json.loads(line)["source"]: json.loads(line)["state"]
              for line in done.stdout.splitlines()}
    assert states == {str(kept): "present", str(changed): "stale", str(absent): "missing"}
    status = json.loads((await sheaf(store, "status", "--json")).stdout)
    assert status["spaces"][0]["versions"] == 2  # reconcile stored nothing


async def test_space_policies_refuse_with_typed_errors(tmp_path: Path) -> None:
    store = tmp_path / "kb.duckdb"
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nText.\n")
    shown = json.loads((await sheaf(store, "space", "locked", "--disable", "--json")).stdout)
    assert shown["ingestion_enabled"] is False
    done = await sheaf(store, "ingest", str(note), "--space", "locked", "--json")
    assert json.loads(done.stdout)["error_kind"] == "ingestion_disabled"
    await sheaf(store, "space", "pdfs", "--kinds", "pdf")
    refused = await sheaf(store, "ingest", str(note), "--space", "pdfs", "--json")
    assert json.loads(refused.stdout)["error_kind"] == "unsupported_content"
    await sheaf(store, "space", "tiny", "--max-bytes", "5")
    small = await sheaf(store, "ingest", str(note), "--space", "tiny", "--json")
    assert json.loads(small.stdout)["error_kind"] == "too_large"
    ok = await sheaf(store, "ingest", str(note), "--json")
    assert json.loads(ok.stdout)["status"] == "new"


async def test_stages_print_each_stage_and_where_the_time_went(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(3):
        (folder / f"n{n}.md").write_text(f"# Note {n}\n\nThe heron came back on day {n}.\n")
    result = await run_async("ingest", folder, "--store", tmp_path / "kb.duckdb", "--json",
                             "--stages")
    lines = json_lines(result)
    results = [line for line in lines if "status" in line]
    stages = [line for line in lines if "stage" in line]
    profile = lines[-1]["stage_profile"]
    assert [r["status"] for r in results] == ["new"] * 3
    sources = {str(folder / f"n{n}.md") for n in range(3)}
    for name in ("fetch", "extract", "chunk", "embed", "near-duplicates", "store"):
        assert {s["source"] for s in stages if s["stage"] == name} == sources, name
        assert profile["stages"][name]["count"] == 3
    assert all(s["ms"] >= 0 and s["outcome"] for s in stages)
    total = sum(s["ms"] for s in stages if s["stage"] == "store")
    assert profile["stages"]["store"]["total_ms"] == pytest.approx(total, abs=0.5)
    assert profile["wall_ms"] > 0 and profile["cpu_ms"] > 0
