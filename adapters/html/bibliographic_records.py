"""A publication's bibliographic record set as a definition list: metadata, not body
(issue 29).

Abstract and landing pages list the paper's fields as `<dl>` terms and values ("Volume:",
"Year:", "Editors:", "Venue:", "Pages:", "DOI:", "Cite:", "Bibkey:"). The reader came for
the article; the fields are what the page's `citation_*` metadata already carries, and
the list's controls ("Copy citation:") are the site's. A shop's product details have the
same shape ("Publisher:", "Pages:", "Language:", "Year:"), and a glossary of publishing
terms the same words, so a list is a record only when all of this holds:

- at least `MIN_TERMS` terms, and `FIELD_SHARE` of them name bibliographic fields;
- at least `MIN_RECORD_FIELDS` of them name fields only a citable publication has (a
  DOI, a volume or issue, a venue, journal or proceedings, a citation or bib key): a
  book on sale has a title, author, publisher, year, pages and ISBN, but none of these;
- no term of commerce (price, availability, shipping, weight, condition, …);
- the values are fields, not definitions: at most `SENTENCE_SHARE` of them end as a
  sentence does.

The builder asks this on publisher pages only (the extractor knows them by their
citation metadata), so a shop or a wiki page keeps every definition list it has.
"""

from __future__ import annotations

import re

MIN_TERMS = 4
FIELD_SHARE = 2 / 3
MIN_RECORD_FIELDS = 2
SENTENCE_SHARE = 1 / 3

_FIELD = re.compile(
    r"^(?:title|(?:sub)?titles?|authors?|author\(s\)|editors?|editor\(s\)|creators?|"
    r"contributors?|venue|year|month|day|date|dates?|published(?: in| on| online)?|"
    r"publication(?: date| year| type)?|journal(?: title)?|volume|issue|number|no|pages?|"
    r"page range|publisher|place|address|location|doi|url|uri|link|permalink|pdf|"
    r"isbn|issn|e-?issn|language|note|notes|keywords?|subjects?|conference|"
    r"proceedings|series|edition|book ?title|abstract|received|accepted|revised|"
    r"handle|pmid|pmcid|arxiv|type|citation|cite(?: as)?|bib(?:tex|key)?|"
    r"(?:copy|export) citation|(?:\w+ )?(?:id|identifier))$", re.IGNORECASE)
_RECORD_ONLY = re.compile(
    r"^(?:doi|volume|issue|venue|journal(?: title)?|conference|proceedings|book ?title|"
    r"e-?issn|issn|pmid|pmcid|arxiv|citation|cite(?: as)?|bib(?:tex|key)?|"
    r"(?:copy|export) citation|published in)$", re.IGNORECASE)
_COMMERCE = re.compile(
    r"\b(?:price|prices|sku|availability|in stock|stock|shipping|delivery|weight|dimensions|"
    r"size|colou?r|condition|binding|brand|model|warranty|seller|sold by|rating|reviews?|"
    r"quantity|returns?)\b", re.IGNORECASE)
_PARENTHESIS = re.compile(r"\s*\([^)]*\)")
_SENTENCE_END = re.compile(r"[.!?]['\"”’)]?$")


def is_bibliographic_record(terms: list[str], values: list[str]) -> bool:
    """The `<dl>` with these term and value texts is a publication's bibliographic
    record (see the module's docstring)."""
    names = [_term_name(t) for t in terms if t.strip()]
    if len(names) < MIN_TERMS or any(_COMMERCE.search(n) for n in names):
        return False
    fields = sum(1 for n in names if _FIELD.match(n))
    record = sum(1 for n in names if _RECORD_ONLY.match(n))
    if fields < FIELD_SHARE * len(names) or record < MIN_RECORD_FIELDS:
        return False
    filled = [v.strip() for v in values if v.strip()]
    sentences = sum(1 for v in filled if _SENTENCE_END.search(v))
    return sentences <= SENTENCE_SHARE * len(filled)


def _term_name(term: str) -> str:
    """'Cite (ACL):' → 'cite': the field a term names, without its colon or qualifier."""
    return " ".join(_PARENTHESIS.sub("", term).strip().rstrip(":：").split()).lower()
