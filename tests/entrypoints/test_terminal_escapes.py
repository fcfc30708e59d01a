"""Escape sequences and bidirectional controls from documents never reach a terminal, a
field's newline never forges a row, and JSON printed to a terminal still parses to the
same values (issue 30, item 8)."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from sheaf import Knowledge
from sheaf.entrypoints.cli.console_listing import listing_lines
from sheaf.entrypoints.cli.terminal_text import TerminalSafeStream, one_line, terminal_safe

SHEAF = Path(sys.executable).with_name("sheaf")
HOSTILE = ("Body with \x1b]52;c;SGVsbG8=\x07 clipboard, \x1b]8;;http://evil.example\x1b\\"
           "a link\x1b]8;;\x1b\\, \x1b[2J\x1b[H cursor, \u202eevil\u202c reversed, \x9b31m "
           "and a bell\x07.")
TITLE = "Title \x1b]0;pwned\x07 here"
# What a terminal acts on: ESC, BEL, CSI as one C1 byte, bidirectional overrides.
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\r")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_safe_keeps_lines_and_tabs_and_escapes_every_other_control() -> None:
    shown = terminal_safe("a\tb\nc" + HOSTILE)
    assert "a\tb\nc" in shown and not any(c in shown for c in RAW_CONTROLS)
    assert "\\u001b]52;c;" in shown and "\\u202e" in shown
    assert one_line("two\nlines\tand\r") == "two\\nlines\\tand\\r"


def test_the_stream_escapes_what_it_writes_and_json_through_it_parses_the_same() -> None:
    terminal = _Terminal()
    stream = TerminalSafeStream(terminal)  # type: ignore[arg-type]
    value = {"title": TITLE, "text": HOSTILE + "\u2067isolate\u2069 \u0085"}
    stream.write(json.dumps(value, ensure_ascii=False) + "\n")
    printed = terminal.getvalue()
    assert not any(c in printed for c in (*RAW_CONTROLS, "\u2067", "\x85"))
    assert json.loads(printed) == value
    with pytest.raises(TypeError):
        stream.write(b"\x1b]52;c;x\x07")  # type: ignore[arg-type]


def test_a_listing_row_is_one_line_whatever_its_fields_hold() -> None:
    summary = {"id": "doc_1", "content": "raw", "title": "A\nforged row\x1b[2K",
               "sources": [{"original": "/tmp/two\nlines.txt"}]}
    [row] = list(listing_lines([summary], as_json=False))
    assert "\n" not in row and "\x1b" not in row and "two\\nlines.txt" in row
    [as_json] = list(listing_lines([summary], as_json=True))
    assert json.loads(as_json) == summary


def _on_a_terminal(arguments: list[str], store: Path) -> str:
    """What `sheaf ARGUMENTS` writes to a pseudo-terminal (stdout and stderr)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([str(SHEAF), *arguments], stdin=subprocess.DEVNULL,
                               stdout=follower, stderr=follower,
                               env={**os.environ, "SHEAF_STORE": str(store),
                                    "COLUMNS": "200"})
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            process.kill()
            break
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal's other side closed
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", errors="replace")


@pytest.mark.integration
@pytest.mark.anyio
async def test_show_quote_search_and_list_print_no_control_to_a_terminal(
        tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.md"
    hostile.write_text(f"# {TITLE}\n\n{HOSTILE}\n")
    forged = tmp_path / "two\nlines.txt"
    forged.write_text("A file whose name holds a newline.")
    store = tmp_path / "kb.duckdb"
    async with Knowledge.open(store, embedder="hashing") as kb:
        document = (await kb.ingest(str(hostile))).document_id
        assert (await kb.ingest(str(forged))).status.value == "new"
    assert document is not None
    for arguments in (["show", document, "--markdown"], ["show", document],
                      ["quote", document, "clipboard"],
                      ["search", "clipboard cursor"], ["list"], ["search", "clipboard", "--json"]):
        printed = _on_a_terminal(arguments, store)
        assert "pwned" in printed or "clipboard" in printed, (arguments, printed)
        # (a terminal ends lines with "\r\n" itself)
        leaked = [c for c in RAW_CONTROLS if c in printed.replace("\r\n", "\n")]
        assert not leaked, (arguments, leaked, printed)
    rows = [line for line in _on_a_terminal(["list"], store).splitlines() if line.strip()]
    assert len(rows) == 2 and any("two\\nlines.txt" in row for row in rows)
    listed = [json.loads(line) for line in
              _on_a_terminal(["list", "--json"], store).splitlines() if line.strip()]
    assert {d["location"]["file_name"] for d in listed} == {"hostile.md", "two\nlines.txt"}
