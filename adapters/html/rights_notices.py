"""Copyright and licence notices: the page's statement of its own rights, not the
article's text (issue 29).

A notice is a short block that opens with a statement of the work's rights, every other
sentence of it about those rights too:

- a copyright line: "Copyright ©2010 Ann Kibbey.", "© 2020 Vox Media, LLC.",
  "Copyright: © 2013 Smith et al.", "Copyright 2019 by the authors.", "(c) 2019 X.";
- a reservation: "All Rights Reserved Worldwide." (and the same in a few languages);
- a licence whose subject is the work itself: "This paper is licensed under a Creative
  Commons Attribution 4.0 International License.", "Open Access This article is
  distributed under the terms of ...", "This is an open-access article distributed
  under ...", "Licensed under CC BY 4.0.".

Where it stands does not matter (under the abstract, between the references and a
"how to cite" line, in a table layout's footer cell): as its own paragraph or list entry
it is never a sentence of the article. The subject matters: "The data are available
under a CC BY licence" is the article's data statement, not a notice. A list item, a
quotation or code showing a notice is the article's; and an article about rights (other
blocks of its prose speak of copyright or licences) keeps every notice it holds.
"""

from __future__ import annotations

import re

from ...domain.document.document import BlockDraft, BlockKind

MAX_NOTICE_CHARS = 800
"""A notice, reuse terms and all, is at most this long; longer blocks are prose."""
MAX_COPYRIGHT_LINE = 160
"""A copyright line names a year and a holder; longer sentences are about copyright."""
DISCUSSION_BLOCKS = 2
"""Other prose blocks naming copyright or licences from which the article is about them."""

_WORK = (r"(?:article|paper|work|chapter|book|thesis|dissertation|report|page|post|site|"
         r"website|document|item|version|preprint|manuscript|publication|entry|content|"
         r"text|issue|journal|material|edition|review|letter|abstract)s?")
_COPYRIGHT = re.compile(
    r"^(?:copyright\s*:?\s*)?©|^(?:copyright\s*:?\s*)?\(c\)\s*\d{4}|"
    r"^copyright\s*:?\s*(?:\d{4}|by\b)", re.IGNORECASE)
"""A bare "(c)" opens the third item of a list in prose; as a copyright sign it has a year."""
_RESERVED = re.compile(
    r"^(?:all|some) rights reserved(?: worldwide)?[.!]?$|^alle rechte vorbehalten\.?$|"
    r"^tous droits réservés\.?$|^todos los derechos reservados\.?$|^все права защищены\.?$",
    re.IGNORECASE)
_TERMS = r"(?:licen[cs]e|creative commons|\bcc[- ]?by\b|\bcc0\b|public domain)"
"""A licence statement names its terms; "published with the support of …" is a funder's."""
_RELEASED = (r"(?:licen[cs]ed|distributed|published|released|made available|available|shared|"
             r"provided|offered)\b.{0,60}?\b(?:under|through|with)\b.*?" + _TERMS)
_LICENCE = re.compile(
    r"^(?:open access[.:]?\s*)?(?:"
    r"(?:(?:this|the present|the) " + _WORK + r"(?: (?:on|of) this (?:site|page|website))?|it)"
    r" (?:is|are|has been|have been|was)(?: (?:hereby|freely|openly|also))? " + _RELEASED
    + r"|this is an? (?:open[- ]access )?" + _WORK + r"(?: (?:that|which) is)? " + _RELEASED
    + r"|licen[cs]ed under\b)", re.IGNORECASE)
_RIGHTS_WORDS = ("licen", "copyright", "creative commons", "©", "permission")
_NOTICE_WORDS = ("©", "(c)", "copyright", "licen", "creative commons", "cc by", "cc-by", "cc0",
                 "public domain", "rights reserved", "rechte vorbehalten", "droits réservés",
                 "derechos reservados", "права защищены")
"""What every notice holds: a substring test tells most blocks apart before any regex."""
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[^\W\d_]|©|\()")


def without_rights_notices(drafts: list[BlockDraft]) -> list[BlockDraft]:
    """`drafts` without the paragraphs and entries that are rights notices (see the
    module's docstring), unless the rest of the prose is about rights or there is no
    rest (a page that is only its notice is still that page)."""
    notices = [i for i, d in enumerate(drafts) if _standalone(d) and is_rights_notice(d.text)]
    if not notices:
        return drafts
    marked = set(notices)
    discussing = sum(1 for i, d in enumerate(drafts) if i not in marked
                     and d.kind is not BlockKind.REFERENCE and _names_rights(_text(d)))
    kept = [d for i, d in enumerate(drafts) if i not in marked]
    if discussing >= DISCUSSION_BLOCKS or all(d.kind is BlockKind.HEADING for d in kept):
        return drafts
    return kept


def is_rights_notice(text: str) -> bool:
    """`text` (one block's whole text) is a copyright or licence notice of the work."""
    if len(text) > 2 * MAX_NOTICE_CHARS:
        return False
    lowered = text.lower()
    if not any(word in lowered for word in _NOTICE_WORDS):
        return False
    text = " ".join(text.split())
    if len(text) > MAX_NOTICE_CHARS:
        return False
    first, *rest = _SENTENCE_BREAK.split(text)
    if not _is_notice_sentence(first):
        return False
    return all(_is_notice_sentence(s) or _names_rights(s) for s in rest)


def _is_notice_sentence(sentence: str) -> bool:
    return bool((len(sentence) <= MAX_COPYRIGHT_LINE and _COPYRIGHT.search(sentence))
                or _RESERVED.match(sentence) or _LICENCE.match(sentence))


def _names_rights(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in _RIGHTS_WORDS)


def _standalone(draft: BlockDraft) -> bool:
    return draft.kind in (BlockKind.PARAGRAPH, BlockKind.REFERENCE)


def _text(draft: BlockDraft) -> str:
    return " ".join([draft.text, *(i.text for i in draft.items),
                     *(" ".join(row) for row in draft.rows)])
