"""The end of an extraction: box titles and label lines left behind after the article.

When the chrome rules drop a read-next box, a share bar or a tag list, what they cannot
recognise stays behind at the end of the root: the box's heading ("Mehr zum Thema",
"Weiterführende Informationen", "Related Coverage") and one-line labels ("Themen:",
"Seite teilen", "Filed under ...", "Kategorie: News"). A heading with nothing after it
heads nothing of the article, and a run of short unpunctuated lines after the last
sentence is the page's furniture, in any language.
"""

from __future__ import annotations

import re

from sheaf.domain.document import BlockDraft, BlockKind

TRAILING_LINE = 60
"""Characters up to which a line after the article's last sentence is a label."""
_SENTENCE_END = re.compile(r"[.!?…。！？\"'“”»«)」』]\s*$")
_POSTED_IN = re.compile(
    r"^(?:this entry was posted|posted in|filed under|categor(?:y|ies|ie|ía|ia)|kategorie|"
    r"tags?|schlagw[oö]rter|themen|etiquetas|mots-clés)\b", re.IGNORECASE)
"""Filing lines that end in a full stop or a list and are still the page's, not the
article's ("This entry was posted in News. Bookmark the permalink.")."""


def without_trailing_chrome(drafts: list[BlockDraft]) -> list[BlockDraft]:
    """`drafts` without the headings and label lines that follow the article's last
    sentence; unchanged when nothing but such lines is there (a page of one label is
    still that page)."""
    end = len(drafts)
    while end > 0 and _is_trailing_chrome(drafts[end - 1]):
        end -= 1
    if end == 0 or not any(d.kind is not BlockKind.HEADING for d in drafts[:end]):
        return drafts
    return drafts[:end]


def _is_trailing_chrome(draft: BlockDraft) -> bool:
    if draft.kind is BlockKind.HEADING:
        return True
    if draft.kind is not BlockKind.PARAGRAPH:
        return False
    text = draft.text.strip()
    if len(text) > TRAILING_LINE:
        return False
    if _POSTED_IN.match(text):
        return True
    # A comma makes a phrase ("Euer Hans, die Redaktion": the article's signature);
    # labels and box titles are one phrase.
    return "," not in text and not _SENTENCE_END.search(text)
