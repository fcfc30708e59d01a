"""The CLI with real adapters and a loopback server, in-process through click's runner;
the installed entry point itself is proved by the few subprocess tests at the end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.entrypoints.cli_runner import SAMPLES, SHEAF, run, run_async
from tests.local_server import LocalServer
from tests.pdf_writer import write_pdf


def test_usage_errors_exit_2() -> None:
    assert run().exit_code == 2
    assert run("resolve").exit_code == 2
    assert run("resolve", "https://x.org", "--prefer", "word").exit_code == 2


def test_extract_local_html_pdf_and_text(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("one\n\ntwo\n")
    done = run("extract", SAMPLES / "article.html", SAMPLES / "paper.pdf", notes,
               "--output-dir", tmp_path / "out", "--format", "json")
    assert done.exit_code == 0, done.output
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == ["article.json", "notes.json", "paper.json"]
    article = json.loads((tmp_path / "out" / "article.json").read_text())
    assert article["metadata"]["doi"] == "10.5555/fieldnotes.2026.014"
    for block in article["blocks"]:
        assert article["text"][block["start"]:block["end"]].strip()
    paper = json.loads((tmp_path / "out" / "paper.json").read_text())
    assert paper["source"] == "pdf" and paper["blocks"][0]["pages"] == [1]


def test_text_format_has_no_markup() -> None:
    done = run("extract", SAMPLES / "article.html", "--format", "text")
    assert done.exit_code == 0
    lines = done.stdout.splitlines()
    assert not any(line.startswith(("#", "|", ">", "```", "- ")) for line in lines)
    assert "|---" not in done.stdout and "](" not in done.stdout and "**" not in done.stdout
    # The page's own pipe character stays, unescaped, inside its cell.
    assert "Industrial | port\t9\t4.0" in done.stdout


def test_a_pdf_that_is_text_is_refused_with_exit_4(tmp_path: Path) -> None:
    fake = tmp_path / "paper.pdf"
    fake.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:abc\n")
    done = run("extract", fake)
    assert done.exit_code == 4
    assert done.stderr.startswith("sheaf: error: not_a_pdf:") and done.stderr.count("\n") == 1


def test_missing_input_exits_3() -> None:
    done = run("extract", "/no/such/file.html")
    assert done.exit_code == 3 and "input_not_found" in done.stderr


@pytest.mark.anyio
async def test_resolve_json_against_a_local_server(local_server: LocalServer) -> None:
    page = (SAMPLES / "article.html").read_bytes()
    local_server.add("/articles/fox", page, content_type="text/html; charset=utf-8")
    local_server.add("/articles/paper.pdf", b"<html>Sign in</html>", content_type="text/html")
    done = await run_async("resolve", local_server.url("/articles/fox"), "--json",
                           "--allow-private", "--prefer", "pdf")
    assert done.exit_code == 0, done.output
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
    done = await run_async("resolve", local_server.url("/abs"), "--allow-private")
    assert done.exit_code == 0, done.output
    assert "Body text of the paper." in done.stdout


@pytest.mark.anyio
async def test_fetch_errors_exit_3_with_one_line(local_server: LocalServer) -> None:
    done = await run_async("resolve", local_server.url("/missing"), "--allow-private")
    assert done.exit_code == 3
    assert done.stderr.startswith("sheaf: error: not_found:")
    blocked = await run_async("resolve", local_server.url("/missing"))
    assert blocked.exit_code == 3 and "blocked_address" in blocked.stderr
    allowed = await run_async("resolve", local_server.url("/missing"),
                              env={"SHEAF_ALLOW_PRIVATE_NETWORK": "1"})
    assert allowed.exit_code == 3 and "not_found" in allowed.stderr


# -- the installed entry point, in subprocesses ---------------------------------------------
def test_version_names_where_the_code_came_from() -> None:
    done = subprocess.run([SHEAF, "--version"], capture_output=True, text=True, check=False,
                          timeout=60)
    assert done.returncode == 0
    assert done.stdout.startswith("sheaf ") and "source checkout" in done.stdout
    info = json.loads(run("version", "--json").stdout)
    assert info["origin"] == "source checkout" and info["commit"]


HEAVY = ("aiohttp", "duckdb", "numpy", "pdfminer", "pikepdf", "html5lib")


def test_help_and_version_import_none_of_the_heavy_dependencies() -> None:
    probe = ("import sys\nfrom sheaf.entrypoints.cli.cli import main\n"
             "for argv in (['--help'], ['--version'], ['ingest', '--help']):\n"
             "    assert main(argv) == 0, argv\n"
             f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True,
                          text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.integration  # the whole job in a process of its own: `make test-integration`
def test_demo_runs_the_whole_knowledge_job_and_logs_its_decisions(tmp_path: Path) -> None:
    done = subprocess.run([SHEAF, "demo"], capture_output=True, text=True, check=False,
                          timeout=120, env={"LOG_LEVEL": "debug", "PATH": "/usr/bin:/bin",
                                            "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "route: declared text/html" in done.stderr
    out = done.stdout
    assert "pdf: using the PDF from" in out
    assert "first pass: new, new, duplicate, duplicate" in out
    assert "second pass: unchanged, unchanged, unchanged, unchanged" in out
    assert "results        3 Results" in out
    assert "=== 6. Search" in out and "1. Tidal Rhythms in Coastal Seagrass Growth" in out
    assert '"Leaf growth rose by 23 percent in the four days after spring tides' in out
    assert "a rewrapped copy: verified (tolerant match" in out
    assert "a copy with a word added: not_verified (negation_added 'not')" in out
