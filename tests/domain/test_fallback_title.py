"""Every document gets a title: its own, else its first heading, else its file name,
and the notes say which fallback was taken."""

from __future__ import annotations

import pytest

from sheaf.domain.document.document import BlockDraft, BlockKind
from sheaf.domain.document.fallback_title import (
    FILE_NAME_NOTE,
    HEADING_NOTE,
    file_name_title,
    with_fallback_title,
)
from sheaf.domain.document.markdown_rendering import assemble_document
from sheaf.domain.document.metadata import DocumentMetadata

PARAGRAPH = BlockDraft(BlockKind.PARAGRAPH, text="Some words.")


def test_a_title_of_its_own_is_kept() -> None:
    document = assemble_document([PARAGRAPH], metadata=DocumentMetadata(title="Own"))
    assert with_fallback_title(document, "/tmp/x.docx") is document


def test_the_first_heading_comes_next() -> None:
    document = assemble_document([PARAGRAPH, BlockDraft(BlockKind.HEADING, text="Findings",
                                                        level=2)])
    titled = with_fallback_title(document, "/tmp/x.docx")
    assert titled.title == "Findings" and titled.notes[-1] == HEADING_NOTE


def test_a_spreadsheet_goes_from_its_own_title_to_its_file_name() -> None:
    document = assemble_document([BlockDraft(BlockKind.HEADING, text="Sheet1", level=1),
                                  PARAGRAPH])
    titled = with_fallback_title(document, "/tmp/book.xlsx", first_heading=False)
    assert titled.title == "book" and titled.notes[-1] == FILE_NAME_NOTE


def test_the_file_name_comes_last_and_is_marked() -> None:
    titled = with_fallback_title(assemble_document([PARAGRAPH]), "/data/Q3 budget.xlsx")
    assert titled.title == "Q3 budget" and titled.notes[-1] == FILE_NAME_NOTE


@pytest.mark.parametrize(("location", "title"), [
    ("/tmp/report.docx", "report"), ("notes.txt.gz", "notes"),
    ("https://example.org/files/annual%20report.pdf?x=1", "annual report"),
    ("mail.eml#attachment=minutes.odt", "minutes"), ("/tmp/a.html#part", "a"),
    ("/tmp/README", "README"),
    ("/tmp/v1.2.final", "v1.2"), ("", None), ("https://example.org/", None),
])
def test_file_name_titles(location: str, title: str | None) -> None:
    assert file_name_title(location) == title
