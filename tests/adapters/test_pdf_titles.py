"""The paper's own title, whole: not the masthead, not the article-type label, not cut.

Generated first pages vary the title's words and lines, the venue's masthead over it,
the type label, footnote marks and the document's metadata title."""

from __future__ import annotations

import io

import pikepdf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheaf.adapters.pdf.pdfminer_extractor import PdfminerExtractor
from tests.pdf_writer import write_raw_page_pdf
from tests.property_examples import examples

EXTRACTOR = PdfminerExtractor(time_budget=30)
BODY = "The body of the paper runs here in ordinary type and says what it found"
_WORDS = ("Learning", "Patient", "Experiences", "with", "Robust", "Models", "of", "Graph",
          "Structure", "in", "Scientific", "Literature", "Retrieval", "for", "Open",
          "Domain", "Questions", "Survival", "Analysis", "and", "the", "Software",
          "Estimation", "Dynamic", "Languages", "Bayesian", "Networks", "Care")
_TITLE_LINES = st.lists(st.lists(st.sampled_from(_WORDS), min_size=2, max_size=6).map(
    " ".join).filter(lambda line: line[0].isupper()), min_size=1, max_size=3)
_VENUE = st.sampled_from(["Journal of Statistical Software", "BMC Health Services Research",
                          "IEEE Transactions on Software Engineering",
                          "Proceedings of the Royal Society", "Physical Review Letters",
                          "Annals of Applied Statistics", "Journal of Cosmology"])
_LABEL = st.sampled_from(["Research Article", "RESEARCH ARTICLE", "Original Article",
                          "Review", "Research", "Short Communication", "Original Paper",
                          "Case Report"])


def _page(title_lines: list[str], *, title_size: int = 18, masthead: str | None = None,
          masthead_size: int = 24, label: str | None = None, mark: bool = False,
          metadata: str | None = None) -> bytes:
    commands = []
    y = 740
    if masthead:
        commands.append(f"BT /F1 {masthead_size} Tf 72 {y} Td ({masthead}) Tj ET")
        y -= masthead_size + 24
    if label:
        commands.append(f"BT /F2 {title_size} Tf 72 {y} Td ({label}) Tj ET")
        y -= int(title_size * 1.25)
    for i, line in enumerate(title_lines):
        commands.append(f"BT /F2 {title_size} Tf 72 {y} Td ({line}) Tj ET")
        if mark and i == 0:
            # A footnote mark after the first line, raised and small.
            right = 72 + int(0.6 * title_size * len(line))
            commands.append(f"BT /F1 8 Tf {right} {y + 8} Td (*) Tj ET")
        y -= int(title_size * 1.25)
    y -= 16
    commands.append(f"BT /F1 11 Tf 72 {y} Td (Ann Author and Bo Writer) Tj ET")
    y -= 30
    commands += [f"BT /F1 10 Tf 72 {y - 13 * i} Td ({BODY}, line {i}.) Tj ET"
                 for i in range(25)]
    data = write_raw_page_pdf(commands)
    if metadata is None:
        return data
    pdf = pikepdf.open(io.BytesIO(data))
    pdf.docinfo["/Title"] = metadata
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    return out.getvalue()


def _title(data: bytes) -> str | None:
    return EXTRACTOR.extract_sync(data).metadata.title


_SETTINGS = settings(max_examples=examples(25), deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(lines=_TITLE_LINES, venue=_VENUE)
def test_a_masthead_set_larger_than_the_title_is_not_the_title(
        lines: list[str], venue: str) -> None:
    assert _title(_page(lines, masthead=venue)) == " ".join(lines)


@_SETTINGS
@given(lines=_TITLE_LINES, label=_LABEL)
def test_an_article_type_label_over_the_title_is_not_part_of_it(
        lines: list[str], label: str) -> None:
    assert _title(_page(lines, label=label)) == " ".join(lines)


@_SETTINGS
@given(lines=_TITLE_LINES.filter(lambda lines: len(lines) >= 2), size=st.integers(14, 26))
def test_a_title_of_several_lines_is_whole_a_footnote_mark_aside(
        lines: list[str], size: int) -> None:
    assert _title(_page(lines, title_size=size, mark=True)) == " ".join(lines)


@_SETTINGS
@given(lines=_TITLE_LINES, masthead=st.sampled_from(["Computing Today", "Nature Medicine",
                                                     "Open Research Europe"]))
def test_the_metadata_title_picks_the_page_run_it_names(lines: list[str],
                                                         masthead: str) -> None:
    # A masthead no rule knows, set larger: the metadata title says which run is the
    # title; the title printed on the page is what is returned.
    data = _page(lines, masthead=masthead, metadata=" ".join(lines).upper())
    assert _title(data) == " ".join(lines)


@_SETTINGS
@given(lines=_TITLE_LINES)
def test_a_metadata_title_naming_no_run_on_the_page_does_not_override_it(
        lines: list[str]) -> None:
    data = _page(lines, metadata="Microsoft Office Template for Conference Submissions")
    assert _title(data) == " ".join(lines)


@_SETTINGS
@given(lines=_TITLE_LINES, masthead=st.sampled_from(["Computing Today", "Health Matters",
                                                     "Open Research Europe"]))
def test_a_masthead_the_metadata_subject_names_is_not_the_title(lines: list[str],
                                                                masthead: str) -> None:
    data = _page(lines, masthead=masthead)
    pdf = pikepdf.open(io.BytesIO(data))
    pdf.docinfo["/Subject"] = f"{masthead} 2019, 19:123. doi:10.1186/s12913-019-4000-1"
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    assert _title(out.getvalue()) == " ".join(lines)
