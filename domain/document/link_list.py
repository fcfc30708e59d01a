"""The targets of a document's links, listed after its content.

A link's text stays in the prose as the document prints it, so a quote of the prose
matches it character for character and every block keeps its offsets. Its target
("https://github.com/DS4SD/docling") is no less part of what the document holds: a
reader asking for the repository a report points to needs it, and so does search. So
an authored document (Office, OpenDocument, RTF, EPUB, email) ends with one `LINKS`
block, one line per link in reading order, in Markdown's own link syntax:

    - [hyperlink](https://github.com/DS4SD/docling)

Links that only jump within the document ("#section-2") add nothing and are not listed.
Web pages do not get the list: their links are the site's navigation fabric, hundreds on
an article, kept in `Document.links` for crawling rather than in the text (ADR-0035).
"""

from __future__ import annotations

from collections.abc import Iterable

from .document import BlockDraft, BlockKind, Link
from .extraction_budget import ExtractionBudget


def listed_links(links: Iterable[Link]) -> tuple[tuple[str, str], ...]:
    """The (text, target) of each link worth listing, in order; a link met twice is
    listed twice, as the document shows it twice."""
    return tuple((" ".join(link.text.split()), link.url.strip()) for link in links
                 if link.url.strip() and not link.url.strip().startswith("#"))


def with_link_list(drafts: Iterable[BlockDraft], links: Iterable[Link],
                   budget: ExtractionBudget | None = None) -> list[BlockDraft]:
    """`drafts` without any link list they carry (a child document's), then one link list
    of `links` at the end when there is a link to list; its characters are spent from
    `budget` when one is given."""
    kept = [d for d in drafts if d.kind is not BlockKind.LINKS]
    rows = listed_links(links)
    if not rows:
        return kept
    if budget is not None:
        budget.spend_characters(sum(len(text) + len(url) for text, url in rows),
                                "the document's link list")
    return [*kept, BlockDraft(BlockKind.LINKS, rows=rows)]


def link_list_markdown(rows: tuple[tuple[str, ...], ...]) -> str:
    """One Markdown list line per link: `- [text](target)`, or `- <target>` for a link
    without text."""
    return "\n".join(_markdown_line(text, url) for text, url in rows)


def link_list_plain(rows: tuple[tuple[str, ...], ...]) -> str:
    """One line per link: `text: target`."""
    return "\n".join(f"{text}: {url}" if text else url for text, url in rows)


def _markdown_line(text: str, url: str) -> str:
    target = _target(url)
    if not text:
        return f"- <{url.replace('<', '%3C').replace('>', '%3E').replace(' ', '%20')}>"
    label = text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return f"- [{label}]({target})"


def _target(url: str) -> str:
    # A destination with spaces, parentheses or angle brackets is written in `<...>`,
    # the form CommonMark keeps whole.
    if any(c in url for c in " ()<>"):
        return "<" + url.replace("<", "%3C").replace(">", "%3E") + ">"
    return url
