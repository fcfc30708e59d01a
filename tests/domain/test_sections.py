from __future__ import annotations

import re

import pytest

from sheaf.domain.analysis.sections import Heading, detect_sections, is_scientific
from sheaf.domain.document.document import BlockDraft, BlockKind
from sheaf.domain.document.markdown_rendering import assemble_document


def headings_of(drafts: list[BlockDraft]) -> tuple[str, list[Heading]]:
    document = assemble_document(drafts)
    return document.text, [Heading(b.draft.text, b.level, b.start, b.end)
                           for b in document.blocks if b.kind is BlockKind.HEADING]


H = BlockKind.HEADING
P = BlockKind.PARAGRAPH


def test_sections_nest_label_and_span_exactly() -> None:
    text, heads = headings_of([
        BlockDraft(H, text="Tide Study", level=1),
        BlockDraft(H, text="1 Introduction", level=2), BlockDraft(P, text="Why tides."),
        BlockDraft(H, text="2 Materials and Methods", level=2), BlockDraft(P, text="How."),
        BlockDraft(H, text="2.1 Study sites", level=3), BlockDraft(P, text="Four sites."),
        BlockDraft(H, text="3 Results", level=2), BlockDraft(P, text="Growth rose."),
        BlockDraft(H, text="References", level=2), BlockDraft(P, text="[1] A paper."),
        BlockDraft(H, text="Deep Learning for Tides", level=3), BlockDraft(P, text="cited"),
        BlockDraft(H, text="Appendix A", level=2), BlockDraft(P, text="Extra tables."),
    ])
    sections = detect_sections(text, heads, title="Tide Study")
    assert [(s.heading, s.label, s.level) for s in sections] == [
        ("1 Introduction", "introduction", 2), ("2 Materials and Methods", "methods", 2),
        ("2.1 Study sites", "methods", 3), ("3 Results", "results", 2),
        ("References", "references", 2), ("Appendix A", "appendix", 2)]
    sites = sections[2]
    assert sites.path == ("2 Materials and Methods", "2.1 Study sites")
    assert sites.parent == 1
    assert text[sites.start:sites.end].strip() == "### 2.1 Study sites\n\nFour sites."
    methods = sections[1]
    assert text[methods.start:methods.end].strip().endswith("Four sites.")
    references = sections[4]
    assert "Deep Learning for Tides" in text[references.start:references.end]
    assert sections[-1].end == len(text)
    assert is_scientific(sections)


def test_abstract_is_inferred_from_leading_text() -> None:
    lead = " ".join(["We measured seagrass growth at four sites."] * 8)
    text, heads = headings_of([BlockDraft(P, text=lead), BlockDraft(H, text="Introduction",
                                                                      level=2),
                               BlockDraft(P, text="Body.")])
    sections = detect_sections(text, heads)
    assert sections[0].label == "abstract" and sections[0].inferred
    assert text[sections[0].start:sections[0].end] == lead
    assert sections[1].parent is None and sections[1].index == 1


def test_abstract_from_metadata_when_the_lead_is_short() -> None:
    text, heads = headings_of([BlockDraft(H, text="Overview of things", level=2),
                               BlockDraft(P, text="Some words. The abstract text lives "
                                                  "here in the body of the page today.")])
    sections = detect_sections(text, heads,
                               abstract="The abstract text lives here in the body")
    inferred = sections[0]
    assert inferred.inferred and text[inferred.start:inferred.end].startswith("The abstract")


def test_not_scientific_without_core_labels_unless_scholarly_metadata() -> None:
    text, heads = headings_of([BlockDraft(H, text="Recipes", level=2),
                               BlockDraft(P, text="Soup.")])
    sections = detect_sections(text, heads)
    assert not is_scientific(sections)
    assert is_scientific(sections, doi="10.1/x", journal="J")


def _sections_of(markdown: str, title: str | None = None) -> list[tuple[str | None, str]]:
    headings = []
    for match in re.finditer(r"^(#+) (.*)$", markdown, re.M):
        headings.append(Heading(match.group(2), len(match.group(1)), match.start(),
                                match.end()))
    return [(s.heading, s.label) for s in detect_sections(markdown, headings, title=title)
            if not s.inferred]


@pytest.mark.parametrize("banner", ["Research Article", "Methodology article", "Open Access",
                                    "Original Research", "Methods", "Review"])
def test_banners_and_article_types_are_not_sections(banner: str) -> None:
    markdown = (f"## {banner}\n\n# A Study of Tides\n\n## Abstract\n\nWe measured.\n\n"
                "## Introduction\n\nTides matter.\n\n## Methods\n\nWe counted.\n")
    assert _sections_of(markdown, "A Study of Tides") == [
        ("Abstract", "abstract"), ("Introduction", "introduction"), ("Methods", "methods")]
    no_title = markdown.replace("# A Study of Tides\n\n", "")
    assert _sections_of(no_title) == [
        ("Abstract", "abstract"), ("Introduction", "introduction"), ("Methods", "methods")]


@pytest.mark.parametrize("flat", [False, True])
@pytest.mark.parametrize(("sub", "label"), [
    ("3.1 Overview", "methods"), ("3.2 Approach", "methods"), ("3.3 Evaluation", "methods"),
    ("3.4 Sampling design", "methods"), ("3.5 Results", "results"),
    ("3.6 Related work", "related_work")])
def test_numbered_subsections_inherit_unless_they_name_a_canonical_section(
        sub: str, label: str, flat: bool) -> None:
    level = "##" if flat else "###"
    markdown = (f"## 1 Introduction\n\nTides matter.\n\n## 3 Methods\n\nWe counted.\n\n"
                f"{level} {sub}\n\nText.\n\n## 4 Discussion\n\nIt holds.\n")
    found = dict(_sections_of(markdown))
    assert found[sub] == label
    assert found["1 Introduction"] == "introduction" and found["4 Discussion"] == "discussion"


def test_a_top_level_overview_is_still_an_introduction() -> None:
    assert dict(_sections_of("## Overview\n\nText.\n\n## Methods\n\nMore.\n"))["Overview"] == \
        "introduction"


def test_a_page_header_before_an_inferred_abstract_does_not_start_it() -> None:
    header = "Journal of Tests 12 (2024) 758"
    prose = " ".join(["Seagrass meadows store carbon in their sediments."] * 12)
    text = f"{header}\n\n{prose}\n\n## 1 Introduction\n\nText."
    at = text.index("## 1")
    headings = [Heading("1 Introduction", 2, at, at + len("## 1 Introduction"))]
    plain = detect_sections(text, headings)
    assert plain[0].label == "abstract" and plain[0].start == 0
    sections = detect_sections(text, headings, furniture=[(0, len(header))])
    assert sections[0].label == "abstract" and sections[0].start == text.index("Seagrass")
