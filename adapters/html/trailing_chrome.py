"""The end of an extraction: box titles, label lines and teaser boxes left after the article.

When the chrome rules drop a read-next box, a share bar or a tag list, what they cannot
recognise stays behind at the end of the root: the box's heading ("Mehr zum Thema",
"Weiterführende Informationen", "Related Coverage"), one-line labels ("Themen:", "Seite
teilen", "Filed under ...", "Kategorie: News"), a contact or author box, a copyright
line. The rules below read only the shape of the tail, so they hold in any language:
a heading with nothing after it heads nothing of the article; a section of short lines
without a sentence is furniture; two headings in a row with a teaser's worth of text
after them are a box of other stories; a run of short unpunctuated lines after the last
sentence is the page's.
"""

from __future__ import annotations

import re

from ...domain.document.document import BlockDraft, BlockKind

TRAILING_LINE = 60
"""Characters up to which a line after the article's last sentence is a label."""
TEASER_TAIL = 400
"""Characters of text after two headings in a row, up to which they are a teaser box."""
NOTICE_LINE = 400
"""Characters up to which a filing or copyright line at the end is the page's."""
_SENTENCE_END = re.compile(r"[.!?…。！？\"'“”»«)」』]\s*$")
_NOTICE = re.compile(
    r"^(?:(?:tags?|schlagw[oö]rter|themen|etiquetas|mots-clés|kategorien?|"
    r"categor(?:y|ies|ie|ía|ia))\s*:|filed under\b|posted in\b|"
    r"this (?:entry|post|article) was (?:posted|published)\b|"
    r"(?:der|dieser|die|diese) (?:beitrag|eintrag|text|artikel|meldung) wurde\b|©|\(c\)\s|"
    r"copyright\b)|(?:all rights reserved|alle rechte vorbehalten|tous droits réservés|"
    r"todos los derechos reservados)\.?$", re.IGNORECASE)
"""Filing and copyright lines, which end in a full stop or a list and are still the
page's, not the article's ("This entry was posted in News. Bookmark the permalink.")."""


def without_trailing_chrome(drafts: list[BlockDraft]) -> list[BlockDraft]:
    """`drafts` without what follows the article's last sentence (see the module's
    docstring); unchanged when that would leave nothing but headings (a page of one
    label is still that page)."""
    end = len(drafts)
    while True:
        cut = _tail_start(drafts, end)
        if cut == end:
            break
        end = cut
    if not any(d.kind is not BlockKind.HEADING for d in drafts[:end]):
        return drafts
    return drafts[:end]


def _tail_start(drafts: list[BlockDraft], end: int) -> int:
    """Where the chrome at the end of `drafts[:end]` starts (`end` when there is none)."""
    start = end
    while start > 0 and _is_trailing_chrome(drafts[start - 1]):
        start -= 1
    if start < end:
        return start
    # A section of short lines (a contact box, an author's name and role), commas and all.
    short = end
    while short > 0 and (drafts[short - 1].kind is BlockKind.HEADING
                         or _is_short_line(drafts[short - 1])):
        short -= 1
    heading = next((i for i in range(short, end) if drafts[i].kind is BlockKind.HEADING), None)
    if heading is not None:
        return heading
    return _teaser_box(drafts, end)


def _teaser_box(drafts: list[BlockDraft], end: int) -> int:
    """The start of a box of other stories at the end: two headings in a row (the box's
    title, a teaser's) with little text after them and much more before."""
    after = 0
    for i in range(end - 1, 0, -1):
        draft = drafts[i]
        if draft.kind is not BlockKind.HEADING:
            after += _length(draft)
            if after > TEASER_TAIL:
                return end
            continue
        if drafts[i - 1].kind is BlockKind.HEADING:
            before = sum(_length(d) for d in drafts[:i - 1])
            return i - 1 if before > 2 * after else end
    return end


def _length(draft: BlockDraft) -> int:
    return len(draft.text) + sum(len(i.text) for i in draft.items)


def _is_short_line(draft: BlockDraft) -> bool:
    return draft.kind is BlockKind.PARAGRAPH and len(draft.text.strip()) <= TRAILING_LINE \
        and not _SENTENCE_END.search(draft.text.strip())


def _is_trailing_chrome(draft: BlockDraft) -> bool:
    if draft.kind is BlockKind.HEADING:
        return True
    if draft.kind is not BlockKind.PARAGRAPH:
        return False
    text = draft.text.strip()
    if len(text) <= NOTICE_LINE and _NOTICE.search(text):
        return True
    # A comma makes a phrase ("Euer Hans, die Redaktion": the article's signature);
    # labels and box titles are one phrase.
    return _is_short_line(draft) and "," not in text
