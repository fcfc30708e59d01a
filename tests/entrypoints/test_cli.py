"""The CLI as a user runs it: a subprocess, real adapters, a loopback server."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.local_server import LocalServer
from tests.pdf_writer import write_pdf

SHEAF = shutil.which("sheaf", path=str(Path(sys.executable).parent)) or "sheaf"
SAMPLES = Path(__file__).resolve().parents[2] / "entrypoints" / "samples"


async def _sheaf(*args: str) -> subprocess.CompletedProcess[bytes]:
    return await anyio.run_process([SHEAF, *args], check=False)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHEAF, *args], capture_output=True, text=True, check=False,
                          timeout=120)


def test_version_names_where_the_code_came_from() -> None:
    done = _run("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("sheaf ") and "source checkout" in done.stdout
    info = json.loads(_run("version", "--json").stdout)
    assert info["origin"] == "source checkout" and info["commit"]


def test_usage_errors_exit_2() -> None:
    assert _run().returncode == 2
    assert _run("resolve").returncode == 2
    assert _run("resolve", "https://x.org", "--prefer", "word").returncode == 2


def test_extract_local_html_pdf_and_text(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("one\n\ntwo\n")
    done = _run("extract", str(SAMPLES / "article.html"), str(SAMPLES / "paper.pdf"),
                str(notes), "--output-dir", str(tmp_path / "out"), "--format", "json")
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == ["article.json", "notes.json", "paper.json"]
    article = json.loads((tmp_path / "out" / "article.json").read_text())
    assert article["metadata"]["doi"] == "10.5555/fieldnotes.2026.014"
    for block in article["blocks"]:
        assert article["text"][block["start"]:block["end"]].strip()
    paper = json.loads((tmp_path / "out" / "paper.json").read_text())
    assert paper["source"] == "pdf" and paper["blocks"][0]["pages"] == [1]


def test_text_format_has_no_markup() -> None:
    done = _run("extract", str(SAMPLES / "article.html"), "--format", "text")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert not any(line.startswith(("#", "|", ">", "```", "- ")) for line in lines)
    assert "|---" not in done.stdout and "](" not in done.stdout and "**" not in done.stdout
    # The page's own pipe character stays, unescaped, inside its cell.
    assert "Industrial | port\t9\t4.0" in done.stdout


def test_a_pdf_that_is_text_is_refused_with_exit_4(tmp_path: Path) -> None:
    fake = tmp_path / "paper.pdf"
    fake.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:abc\n")
    done = _run("extract", str(fake))
    assert done.returncode == 4
    assert done.stderr.startswith("sheaf: error: not_a_pdf:") and done.stderr.count("\n") == 1


def test_missing_input_exits_3() -> None:
    done = _run("extract", "/no/such/file.html")
    assert done.returncode == 3 and "input_not_found" in done.stderr


@pytest.mark.anyio
async def test_resolve_json_against_a_local_server(local_server: LocalServer) -> None:
    page = (SAMPLES / "article.html").read_bytes()
    local_server.add("/articles/fox", page, content_type="text/html; charset=utf-8")
    local_server.add("/articles/paper.pdf", b"<html>Sign in</html>", content_type="text/html")
    done = await _sheaf("resolve", local_server.url("/articles/fox"), "--json",
                        "--allow-private", "--prefer", "pdf")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["source"] == "html"
    assert any("not a PDF (paywall?)" in d for d in result["diagnostics"])


@pytest.mark.anyio
async def test_resolve_uses_the_pdf_of_an_abstract_page(local_server: LocalServer) -> None:
    local_server.add("/abs", b"<html><head><meta name='citation_pdf_url' content='/pdf'>"
                     b"<meta name='citation_doi' content='10.1/x'></head><body><article>"
                     b"<h1>T</h1><p>" + b"Short abstract words. " * 20 + b"</p></article>"
                     b"</body></html>", content_type="text/html")
    local_server.add("/pdf", write_pdf([("h1", "Paper"), ("p", "Body text of the paper.")]),
                     content_type="application/pdf")
    done = await _sheaf("resolve", local_server.url("/abs"), "--allow-private")
    assert done.returncode == 0, done.stderr
    assert b"Body text of the paper." in done.stdout


@pytest.mark.anyio
async def test_fetch_errors_exit_3_with_one_line(local_server: LocalServer) -> None:
    done = await _sheaf("resolve", local_server.url("/missing"), "--allow-private")
    assert done.returncode == 3
    assert done.stderr.decode().startswith("sheaf: error: not_found:")
    blocked = await _sheaf("resolve", local_server.url("/missing"))
    assert blocked.returncode == 3 and b"blocked_address" in blocked.stderr


def test_debug_log_shows_routing_decisions(tmp_path: Path) -> None:
    done = subprocess.run([SHEAF, "demo"], capture_output=True, text=True, check=False,
                          timeout=120, env={"LOG_LEVEL": "debug", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "route: declared text/html" in done.stderr
    assert "pdf: using the PDF from" in done.stdout


def test_demo_runs_the_whole_knowledge_job(tmp_path: Path) -> None:
    done = subprocess.run([SHEAF, "demo"], capture_output=True, text=True, check=False,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "first pass: new, new, duplicate, duplicate" in out
    assert "second pass: unchanged, unchanged, unchanged, unchanged" in out
    assert "results        3 Results" in out
    assert "=== 6. Search" in out and "1. Tidal Rhythms in Coastal Seagrass Growth" in out
    assert '"Leaf growth rose by 23 percent in the four days after spring tides' in out
    assert "re-found from a disguised copy: tolerant match" in out
