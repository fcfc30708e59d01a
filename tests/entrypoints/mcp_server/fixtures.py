"""Documents the MCP tests ingest: a short paper-like note and a long report whose
sentences are all different, so any cut can be checked against the stored Markdown."""

from __future__ import annotations

from pathlib import Path

NOTE = ("# Tidal Rhythms\n\n## Methods\n\nWe counted seagrass shoots at low tide every week "
        "for a year. Plots were fixed with steel pegs.\n\n## Results\n\nSeagrass grew with "
        "the tides. Shoot density doubled in spring. Growth stopped in the winter storms.\n")


def long_report(sections: int = 6, sentences: int = 60) -> str:
    """A Markdown report of `sections` sections of `sentences` distinct sentences each."""
    parts = ["# Harbour survey"]
    for section in range(1, sections + 1):
        parts.append(f"## Part {section}")
        body = " ".join(f"Buoy {section}-{n} drifted {n * 7 % 97} metres east of the pier "
                        f"during survey week {n} of the season." for n in range(1, sentences + 1))
        parts.append(body)
    return "\n\n".join(parts) + "\n"


def write_library(folder: Path) -> Path:
    """The allowed folder the tests serve: two documents and a subfolder."""
    library = folder / "library"
    (library / "reports").mkdir(parents=True)
    (library / "tides.md").write_text(NOTE)
    (library / "reports" / "harbour.md").write_text(long_report())
    return library
