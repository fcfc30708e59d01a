"""Which elements are chrome and which are content, judged by tag, attributes and class tokens.

Class and id rules match whole tokens (or whole hyphen/underscore parts of a token for
words that are never content, like "cookie"): `l-with-sidebar` is a layout wrapper, not
a sidebar, and is kept.
"""

from __future__ import annotations

import functools
import re
from xml.etree.ElementTree import Element

from .folded_patterns import FoldedPattern

SKIP_TAGS = frozenset({
    "script", "style", "noscript", "template", "svg", "iframe", "form", "input",
    "select", "textarea", "object", "embed", "canvas", "nav", "link", "meta", "head", "map",
    "video", "audio", "source", "track", "dialog", "menu", "label",
    # Ruby annotations (furigana readings, their fallback parentheses) are set above the
    # text, not in its line: copied text and the article's own wording leave them out.
    "rt", "rp",
})
CHROME_TAGS = frozenset({"header", "footer", "aside"})
SVG_NAMESPACE = "{http://www.w3.org/2000/svg}"
"""html5lib names foreign elements with their namespace even when HTML ones have none."""

# Comment threads in other languages (plurals: a singular may name an opinion piece).
_COMMENT_THREADS = (r"kommentare|commentaires|comentarios|coment[aá]rios|commenti|reacties|"
                    r"komentarze|komment[aá]re|kommentarer")
# A part of a class token that is never content.
_JUNK_PART = re.compile(
    r"(?:^|[-_])(?:cookies?|consent|gdpr|cmp|share|sharing|sharethis|social|newsletter|"
    r"signup|sign-up|subscribe|subscription|advert|advertisement|ads?|adsbygoogle|promo|"
    r"sponsor(?:ed)?|related|recommend(?:ed|ations?)?|comments?|disqus|breadcrumbs?|pagination|"
    + _COMMENT_THREADS + r"|"
    r"pager|toolbar|skip|skiplink|outbrain|taboola|paywall|metrics|altmetric|sortby|sort-tabs|"
    r"print-?only|visually-hidden|sr-only|screen-reader-text|credits?|photo-?credit|downloads?)"
    r"(?:$|[-_])",
    re.IGNORECASE,
)
# Words that mark chrome wherever they sit in a token, camelCase included
# ("articleByline__bio", "wsj-snippet-login", "trending_now").
_JUNK_ANYWHERE = re.compile(
    r"byline|dateline|timestamp|newsletter|signup|cookie|consent|advert|outbrain|taboola|"
    r"trending|paywall|breadcrumb|off-?screen|snippet-login|resgallery|slideshow|carousel|"
    r"control-bar|control-panel|most-?popular|readnext|tags-container|topic-tags|"
    # The box about the post's author ("author-box", "mvp-author-box-wrap", "authorBox").
    r"author-?box|"
    # Links to the neighbouring posts ("next-post-thumbnails", "nextstory", "prev-article").
    r"(?:next|prev|previous)[-_]?(?:posts?|stor(?:y|ies)|articles?|entry|entries)",
    re.IGNORECASE,
)
# Whole tokens that are chrome on their own.
_JUNK_TOKEN = re.compile(
    r"sidebar|side-bar|navbar|nav|navigation|menu|site-header|site-footer|page-header|"
    r"page-footer|footer|masthead|topbar|top-bar|byline-social|tags|tag-list|author-bio|"
    r"c-article-metrics-bar|c-article-recommendations|c-bibliographic-information|"
    r"c-article-share-box|c-article-further-reading|c-article-subject|"
    r"article-tools|article-nav|jig-ncbiinpagenav|ref-nav|references-nav|"
    # State words only when they are the whole token: "modal-enabled" is not a modal.
    r"modal|modal-dialog|modal-content|popup|overlay|hidden|hide|is-hidden|d-none|invisible",
    re.IGNORECASE,
)
# Tokens that mark content that must survive every other rule.
_PROTECTED = re.compile(
    r"abstract|references?|bibliography|biblio|ref-list|reflist|citation-list|"
    r"acknowledge?ments?|methods?|article-body|articlebody|main-content|fulltext|full-text|"
    r"ltx_document|ltx_page_main|ltx_bibliography|body|^back$|^back-?matter$",
    re.IGNORECASE,
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def tokens(element: Element) -> list[str]:
    """The element's class tokens and its id."""
    found = (element.get("class") or "").split()
    ident = element.get("id")
    if ident:
        found.append(ident)
    return found


def is_hidden(element: Element) -> bool:
    if element.get("hidden") is not None or element.get("aria-hidden") == "true":
        return True
    style = element.get("style")
    return bool(style and _HIDDEN_STYLE.search(style))


def is_protected(element: Element) -> bool:
    return any(_PROTECTED.search(t) for t in tokens(element))


_TAXONOMY = re.compile(r"^(?:tag|tags|category|categories|cat|topic|format|type|status|"
                       r"post|postid|section|channel|vertical|keyword)[-_]", re.IGNORECASE)
_CHROME_ITEMPROPS = frozenset({"datepublished", "datemodified", "datecreated", "author",
                               "creator", "publisher"})


def is_junk(element: Element) -> bool:
    """Chrome by class/id, role or microdata, unless it carries a protected token."""
    classes, ident = element.get("class"), element.get("id")
    itemprop, role = element.get("itemprop"), element.get("role")
    if not (classes or ident or itemprop or role):
        return False
    role = (role or "").lower()
    tag = element.tag
    return _junk_marks(classes or "", ident or "", (itemprop or "").lower(), role,
                       tag == "article" or role == "article", tag in _CONTAINERS)


_SKIP_TARGET = re.compile(r"^skip[-_]?(?:to[-_]?)?(?:main|content|article|target)",
                          re.IGNORECASE)
_CONTAINERS = frozenset({"main", "div", "section", "article"})
# On the article itself a paywall word is its state ("has-paywall", "paywall-on"), not
# the subscription prompt that the same word marks elsewhere.
_ARTICLE_STATE = re.compile(r"(?:^|[-_])paywall(?:$|[-_])", re.IGNORECASE)


@functools.lru_cache(maxsize=65536)  # ids make many keys unique: a small cache churns
def _junk_marks(classes: str, ident: str, itemprop: str, role: str, article: bool,
                container: bool) -> bool:
    # Pages repeat the same class lists thousands of times: judged once each.
    found = classes.split() + ([ident] if ident else [])
    if container and any(_SKIP_TARGET.match(t) for t in found):
        return False  # where a skip link leads ("skip-main") is the content itself
    protected = any(_PROTECTED.search(t) for t in found)
    if itemprop in _CHROME_ITEMPROPS:
        return not protected
    if role in ("navigation", "banner", "contentinfo", "complementary", "search", "dialog",
                "alert", "menu", "menubar", "toolbar"):
        return not protected
    # Taxonomy classes ("category-advertising", "tag-cookies") name the topic, not a role.
    marks = [t for t in found if not _TAXONOMY.match(t)
             and not (article and _ARTICLE_STATE.search(t))]
    if not marks:
        return False
    if any(_PROTECTED.search(t) for t in marks):
        return False
    return any(_JUNK_TOKEN.fullmatch(t) or _JUNK_PART.search(t) or _JUNK_ANYWHERE.search(t)
               for t in marks)


RESCUED = "sheaf rescued"
"""An attribute no parser can produce (its name has a space), set on an element whose
class rules misjudged the page's prose (content_root._rescue_prose)."""


def mark_rescued(element: Element) -> None:
    element.set(RESCUED, "")


_CONTENT_ROLES = ("article", "main", "document", "region")


def is_misjudgeable(element: Element) -> bool:
    """Skipped by a rule that can misjudge prose: class/id/role words and <noscript>
    (pages that render their text only without scripts). Scripts, styles, hidden
    elements, forms and the page's header, footer and asides are never prose."""
    tag = element.tag
    if not isinstance(tag, str):
        return False
    if tag in ("noscript", "form"):  # ASP.NET and shop pages wrap everything in a <form>
        return True
    if tag in SKIP_TAGS or tag in CHROME_TAGS or tag.startswith(SVG_NAMESPACE):
        return False
    if is_hidden(element) or element.get("itemprop"):
        return False
    # Landmark roles are the page's own word for chrome; a content role ("article",
    # "main") is not, so its class words ("paywall-on") may misjudge it like any other.
    if (element.get("role") or "").lower() not in ("", *_CONTENT_ROLES):
        return False
    return is_junk(element) and not any(_NEVER_PROSE.search(t) for t in tokens(element)
                                        if not _TAXONOMY.match(t))


# Class words that are never the article whatever their size: comments are prose but
# not the article's, and menus, banners and dialogs are chrome.
_NEVER_PROSE = re.compile(
    r"(?:^|[-_])(?:comments?|commentlist|disqus|discussion|replies|" + _COMMENT_THREADS + r"|"
    r"nav|navbar|navigation|"
    r"menu|sidebar|side-bar|footer|header|breadcrumbs?|related|recommend(?:ed|ations)?|"
    r"cookies?|consent|gdpr|newsletter|modal|popup|overlay|dialog|hidden|hide|invisible|"
    r"d-none|sr-only|visually-hidden|screen-reader-text|teasers?|masthead|toolbar|"
    r"pager|pagination|author-bio|byline)(?:$|[-_])",
    re.IGNORECASE,
)


def is_skipped(element: Element, inside_root: bool, keep_hidden: bool = False) -> bool:
    """True when the element and everything in it stays out of the extracted text.

    `keep_hidden` keeps collapsed content (publishers fold reference lists into
    `display: none` accordions that a click opens)."""
    tag = element.tag
    if not isinstance(tag, str):
        return True
    if not element.attrib:
        # Most elements carry no attribute, and then only the tag can skip them.
        if tag in SKIP_TAGS or tag.startswith(SVG_NAMESPACE):
            return True
        return tag in CHROME_TAGS and not (inside_root and tag == "header")
    if element.get(RESCUED) is not None:
        return False
    if tag in SKIP_TAGS or tag.startswith(SVG_NAMESPACE):
        return True
    if is_hidden(element) and not keep_hidden:
        return True
    if tag in CHROME_TAGS and not is_protected(element):
        # A header inside the article holds its title; page-level ones hold the site's.
        return not (inside_root and tag == "header")
    return is_junk(element)


_REFERENCE_ENTRY = re.compile(
    r"(?:^|[-_])(?:reflink|ref-item|refitem|reference-item|references__item|bibitem|"
    r"bib-entry|ref-entry|citation-entry)$|^ref$|^citation$",
    re.IGNORECASE,
)
_REFERENCE_ID = re.compile(r"^(?:ref|bib|cr|b|r)-?\d+$", re.IGNORECASE)


def is_reference_entry(element: Element) -> bool:
    """One entry of a reference list, however the publisher marks it up."""
    if _REFERENCE_ID.match(element.get("id") or ""):
        return True
    return any(_REFERENCE_ENTRY.search(t) for t in (element.get("class") or "").split())


# These rules run over every new class token and id of every page: matched on lowered
# ASCII tokens where that is exact (folded_patterns), about three times faster.
(_JUNK_PART, _JUNK_ANYWHERE, _JUNK_TOKEN, _PROTECTED, _HIDDEN_STYLE, _TAXONOMY, _SKIP_TARGET,
 _ARTICLE_STATE, _NEVER_PROSE, _REFERENCE_ENTRY, _REFERENCE_ID) = map(FoldedPattern, (
    _JUNK_PART, _JUNK_ANYWHERE, _JUNK_TOKEN, _PROTECTED, _HIDDEN_STYLE, _TAXONOMY, _SKIP_TARGET,
    _ARTICLE_STATE, _NEVER_PROSE, _REFERENCE_ENTRY, _REFERENCE_ID))
