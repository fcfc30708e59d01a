"""Text from documents made safe to print on a terminal.

A document's title, text or file name is the author's, and a terminal obeys what it is
sent: OSC 52 writes the clipboard, OSC 8 makes links, OSC 0 sets the window title, CSI
moves the cursor and rewrites what is on screen, bidirectional overrides reorder a
line so it reads as something else, and a newline in a file name forges a row of
`sheaf list`. So everything the CLI writes to a terminal goes through
`TerminalSafeStream`, which writes each control character (C0 but newline and tab,
DEL, C1) and each bidirectional embedding, override and isolate as a visible `\\uXXXX`:
an escape sequence arrives as inert text. The same escape is a JSON string escape, and
JSON output holds such characters only inside strings, so JSON printed to a terminal
still parses to exactly the same values. Rows (one line per record) also go through
`one_line`, on a terminal or not, so a field's newline or tab never makes a new row or
column.
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u202a-\u202e\u2066-\u2069]")
_UNSAFE_IN_A_ROW = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u202a-\u202e\u2066-\u2069"
                              "\u2028\u2029]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def terminal_safe(text: str) -> str:
    """`text` with every control character but newline and tab, and every bidirectional
    control, written as `\\uXXXX`."""
    return _UNSAFE.sub(_escaped, text)


def one_line(text: str) -> str:
    """`text` as one field of a one-line row: newline, tab and carriage return as `\\n`,
    `\\t` and `\\r`, every other control as `terminal_safe` writes it."""
    return _UNSAFE_IN_A_ROW.sub(lambda m: _NAMED.get(m.group()) or _escaped(m), text)


class TerminalSafeStream:
    """A text stream writing through another with `terminal_safe` applied to all of it."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    @property
    def wrapped(self) -> TextIO:
        return self._stream

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # bytes would pass unsafe; click then writes text
            raise TypeError(f"write() takes text, not {type(text).__name__}")
        self._stream.write(terminal_safe(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        # encoding, errors, isatty, fileno, flush...: the terminal's. Not its binary
        # buffer, which would let a writer (click, for a stream it thinks misconfigured)
        # go around the escaping.
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self._stream, name)


def guard_terminal_streams() -> None:
    """Route stdout and stderr through `TerminalSafeStream` where they are terminals."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or isinstance(stream, TerminalSafeStream):
            continue
        try:
            interactive = stream.isatty()
        except (AttributeError, ValueError):
            continue
        if interactive:
            setattr(sys, name, TerminalSafeStream(stream))
