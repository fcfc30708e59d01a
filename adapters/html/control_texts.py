"""Lines that are a site's controls and navigation, not an article's text (issue 29).

Two classes, recognised by wording rather than by any site's markup:

- **action controls**: a short imperative line offering the reader an action on the
  page or the article ("Sign in", "Email to a colleague", "Download to reference
  manager", "Add article to favorites", "Copy citation:", "Sign up for new issue
  notifications"). A verb of site interaction, alone or followed by a few words that
  name what a site acts on (the article, its citation, an account, an alert);
- **journal navigation**: the labels of a journal site's own menus and boxes ("Recent
  issues", "Most downloaded articles", "Submission guidelines", "Editorial board") and of
  an article's list of jump links ("Contents", "In this article").

Both stay short and do not read as a sentence, so prose that happens to begin with
"Download" or "Register" is kept.
"""

from __future__ import annotations

import re

MAX_CONTROL_CHARS = 60
MAX_CONTROL_WORDS = 8

_VERB = (r"(?:sign[ -]?in|sign[ -]?up|sign[ -]?out|log[ -]?in|log[ -]?out|register|e-?mail|share|"
         r"download|export|print|cite|copy|add|save|subscribe|request|send|track|bookmark|"
         r"follow|set up|view|get|alert me|recommend)")
_OBJECT = (r"(?:article|articles|paper|chapter|citations?|references?|reference manager|pdf|"
           r"colleague|friend|favou?rites|alerts?|notifications?|rss|permissions|reprints|"
           r"bibtex|ris|endnote|refworks|mendeley|zotero|account|link|metrics|this page|"
           r"slides|video|citation manager|library|reading list|updates|toc|table of contents|"
           r"e-?mail alerts?|issue|journal)")
_ACTION = re.compile(r"^" + _VERB + r"(?:\s*:|(?:\s+\S+){0,6}?\s+" + _OBJECT + r"\b.*)?\s*:?$",
                     re.IGNORECASE)
_NAVIGATION = re.compile(
    r"^(?:most (?:downloaded|read|cited|viewed|popular|shared|emailed)(?: articles| papers)?|"
    r"(?:recent|current|past|all|back|latest|forthcoming|previous|next) issues?|"
    r"(?:submission|author|authors') guidelines|guide for authors|instructions (?:for|to) authors|"
    r"for (?:authors|reviewers|librarians|advertisers)|editorial board|aims (?:and|&) scope|"
    r"about (?:the|this) journal|journal (?:menu|information|home|metrics|navigation)|"
    r"(?:open access )?media|abstracting and indexing|browse (?:issues|articles|journals)|"
    r"articles? (?:in press|online first|alerts?)|early view|online first|"
    # An article's own table of contents, a list of jump links.
    r"(?:table of )?contents|in this (?:article|paper|page)|on this page|jump to(?: section)?)$",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[.!?]\s+\S|[.!]$")


def is_control_text(text: str) -> bool:
    """`text` (one whole line, link or block) is an action control or a journal's
    navigation label."""
    if len(text) > MAX_CONTROL_CHARS or len(text.split()) > MAX_CONTROL_WORDS \
            or _SENTENCE.search(text):
        return False
    return bool(_ACTION.match(text) or _NAVIGATION.match(text))
