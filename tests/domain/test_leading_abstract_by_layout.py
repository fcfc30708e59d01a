"""The untitled opening of a paper's pages may be its abstract; the opening of a note, a
plain-text, Markdown, Word or slide file never is by its place alone: it is just its
first part, labelled by its heading or not at all (never `[Abstract]`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.analysis.sections import Heading, detect_sections
from sheaf.domain.document.content_source import ContentSource
from sheaf.domain.store.document_analysis import PAPER_LAYOUTS, infers_leading_abstract

WORDS = st.lists(st.sampled_from(["the", "heron", "waits", "by", "a", "cold", "lake"]),
                 min_size=40, max_size=300)


def text_with_opening(opening: list[str]) -> tuple[str, list[Heading]]:
    lead = " ".join(opening) + "."
    heading = "## Results"
    text = f"{lead}\n\n{heading}\n\nHerons nest in reeds.\n"
    start = len(lead) + 2
    return text, [Heading("Results", 2, start, start + len(heading))]


@given(WORDS, st.sampled_from(sorted(ContentSource, key=lambda s: s.value)))
def test_only_a_papers_layout_makes_its_opening_an_abstract(
        opening: list[str], source: ContentSource) -> None:
    text, headings = text_with_opening(opening)
    sections = detect_sections(text, headings,
                               leading_abstract=infers_leading_abstract(source))
    labels = [section.label for section in sections]
    if source in PAPER_LAYOUTS:
        assert labels == ["abstract", "results"]
    else:
        assert labels == ["results"]
        assert all(not section.inferred for section in sections)


def test_the_abstract_metadata_still_finds_one_anywhere() -> None:
    opening = "We counted herons at the lake every week for a whole year and found " \
              "that they nest earlier when the spring is warm."
    text, headings = text_with_opening(opening.split())
    (abstract, _) = detect_sections(text, headings, abstract=opening,
                                    leading_abstract=False)
    assert abstract.label == "abstract" and abstract.inferred
    assert text[abstract.start:abstract.end].startswith("We counted herons")


def test_a_kind_this_version_does_not_know_is_no_paper() -> None:
    assert not infers_leading_abstract("rtf")
    assert infers_leading_abstract(None) and infers_leading_abstract("pdf")
