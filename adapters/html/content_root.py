"""Choosing the element that holds the article: publisher markup, semantics, then a score."""

from __future__ import annotations

import re
from collections.abc import Callable
from xml.etree.ElementTree import Element

import attrs

from .collapsed_parts import out_of_collapsed_panel
from .cut_short_bodies import continuing_sections
from .element_rules import (
    is_junk,
    is_misjudgeable,
    is_skipped,
    mark_rescued,
    tokens,
)
from .folded_patterns import FoldedPattern
from .page_metadata import TITLE_SEPARATORS as _TITLE_SEPARATORS
from .reference_roots import past_reference_list
from .titled_column import names_the_page, title_heading, titled_column_root

# Known article bodies, most specific first: (tag or None, class/id token).
PUBLISHER_ROOTS: tuple[tuple[str | None, str], ...] = (
    (None, "c-article-body"),            # Springer, Nature, BMC, SpringerOpen, Sci. Reports
    (None, "article-text"),              # PLOS
    (None, "ltx_document"),              # arXiv / ar5iv
    (None, "ltx_page_main"),
    (None, "article-details"),           # older PMC
    (None, "jig-ncbiinpagenav"),         # PMC
    (None, "main-article-body"),         # PMC 2024
    (None, "JournalFullText"),           # Frontiers
    (None, "html-body"),                 # MDPI
    (None, "article__body"),             # Wiley
    (None, "Body"),                      # ScienceDirect
    (None, "widget-ArticleFulltext"),    # OUP
    (None, "fulltext-view"),             # bioRxiv / medRxiv
    (None, "article-fulltext"),
    (None, "article-body"),              # eLife, PeerJ and many CMSs
    (None, "articleBody"),
)
POSITIVE = re.compile(r"article|body|content|entry|main|page|post|text|blog|story|abstract",
                      re.IGNORECASE)
NEGATIVE = re.compile(r"comment|meta|footer|footnote|masthead|media|outbrain|promo|related|"
                      r"scroll|shoutbox|sidebar|sponsor|shopping|tags|widget|menu|nav",
                      re.IGNORECASE)
CANDIDATE_TAGS = frozenset({"div", "section", "article", "main", "td", "body", "form"})


SEMANTIC_ROOTS: tuple[tuple[str, Callable[[Element], bool]], ...] = (
    ("[itemprop=articleBody]", lambda e: e.get("itemprop") == "articleBody"),
    ("<article>", lambda e: e.tag == "article"),
    ("[role=main]", lambda e: e.get("role") == "main"),
    ("<main>", lambda e: e.tag == "main"),
)
_SEMANTIC_TAGS = frozenset({"article", "main"})
"""The tags SEMANTIC_ROOTS name; its other predicates read the itemprop and role
attributes (the index tests only elements with one of the three)."""
_PUBLISHER_TOKENS = frozenset(token for _tag, token in PUBLISHER_ROOTS)


@attrs.frozen
class _TreeIndex:
    """What root finding asks of the tree, gathered in one pass."""

    parents: dict[Element, Element]
    by_token: dict[str, list[Element]]
    semantic: dict[str, list[Element]]

    @classmethod
    def build(cls, body: Element) -> _TreeIndex:
        parents: dict[Element, Element] = {}
        by_token: dict[str, list[Element]] = {}
        semantic: dict[str, list[Element]] = {label: [] for label, _ in SEMANTIC_ROOTS}
        for element in body.iter():
            if not isinstance(element.tag, str):
                continue
            if len(element):  # leaves are most elements: no children to map
                parents.update(dict.fromkeys(element, element))
            attributes = element.attrib
            if attributes:  # most elements carry no attribute: nothing to index
                for token in tokens(element):
                    if token in _PUBLISHER_TOKENS:
                        by_token.setdefault(token, []).append(element)
                if element.tag in _SEMANTIC_TAGS or "itemprop" in attributes \
                        or "role" in attributes:
                    for label, predicate in SEMANTIC_ROOTS:
                        if predicate(element):
                            semantic[label].append(element)
            elif element.tag in _SEMANTIC_TAGS:  # no attribute: only the tag can match
                for label, predicate in SEMANTIC_ROOTS:
                    if predicate(element):
                        semantic[label].append(element)
        return cls(parents, by_token, semantic)


@attrs.frozen
class RootCandidate:
    """An element that may hold the article, why it was proposed, and the paragraph text
    scoring credited to it (what extraction from it should roughly give back)."""

    element: Element
    why: str
    prose: int
    siblings: tuple[Element, ...] = ()
    """Siblings of `element` that continue the article, in document order around it."""

    @property
    def parts(self) -> list[Element]:
        """`element` with its continuing siblings, in document order."""
        return list(self.siblings) if self.siblings else [self.element]


DECLARED_BODY_SHARE = 0.15
DECLARED_BODY_PROSE = 1000
"""Paragraph text an [itemprop=articleBody] needs to be taken over the best-scoring
container: this share of that container's, or this many characters."""
FALLBACKS = 4
"""Highest-scoring containers tried after the first choice, before <body>."""


def content_root_candidates(html: Element) -> list[RootCandidate]:
    """Where the article may be, best first: the first choice (publisher markup, semantic
    containers, the highest content score), then the next highest scores, then <body>.
    The extractor takes the first whose extraction is plausible."""
    body = _first(html, "body") or html
    scored = _score_candidates(body)
    index = _TreeIndex.build(body)
    titles = page_titles(html)
    first, why = _first_choice(body, scored, index, titles)
    if not why.startswith(("publisher", "semantic")):
        first, why = _reconsidered(first, why, body, scored, index, titles)
    # A publisher's body is whole; a story titled after the page is one of several.
    whole = why.startswith("publisher") or why.endswith(TITLED)
    siblings = () if whole else _continuing(first, body, scored, index)
    if why.startswith("publisher"):
        siblings = continuing_sections(first, index.parents)
    if siblings:
        why += f"; with {len(siblings) - 1} sibling(s) that continue it"
    out = [RootCandidate(first, why, _text_len(first, scored), siblings)]
    ranked = sorted((kv for kv in scored.items() if kv[1][0] > 0), key=lambda kv: -kv[1][0])
    by_id = {id(e): e for e in body.iter()} if ranked else {}
    for key, (score, prose) in ranked:
        if len(out) > FALLBACKS:
            break
        element = by_id.get(key)
        if element is None or any(c.element is element for c in out):
            continue
        out.append(RootCandidate(element, f"content score {score:.0f}", prose))
    if not any(c.element is body for c in out):
        out.append(RootCandidate(body, "the whole <body>", _text_len(body, scored)))
    return out


def _reconsidered(first: Element, why: str, body: Element,
                  scored: dict[int, tuple[float, int]], index: _TreeIndex, titles: set[str]
                  ) -> tuple[Element, str]:
    """A scored first choice that is one folded part of an article, or a box beside the
    column the page's title heads, gives way to the article around or beside it."""
    def prose(element: Element) -> int:
        return _text_len(element, scored)

    parts = out_of_collapsed_panel(first, index.parents, body, prose, _link_density)
    if parts is not None:
        return parts, why + "; widened out of a collapsed panel to the article's parts"
    heading = title_heading(body, titles) if titles else None
    if heading is not None:
        column = titled_column_root(first, heading, index.parents, body,
                                    lambda a, b: _holds(a, b, index),
                                    lambda e: scored.get(id(e), (0.0, 0))[0], prose,
                                    _link_density)
        if column is not None:
            return column, "the best content score in the column the page's title heads"
    return first, why


SIBLING_SCORE_SHARE = 0.2
SIBLING_MIN_SCORE = 10.0
SIBLING_MAX_LINK_DENSITY = 0.25


def _continuing(root: Element, body: Element, scored: dict[int, tuple[float, int]],
                index: _TreeIndex) -> tuple[Element, ...]:
    """Siblings that carry on the article beside `root` (CMSs that set a story as several
    text modules or <article>s in a row), as Readability gathers them: a sibling scoring
    at least a fifth of the root, or of the root's tag and class with prose of its own and
    few links. Empty when there is none (the root stands alone)."""
    parent = index.parents.get(root)
    if parent is None or root is body:
        return ()
    own_score = scored.get(id(root), (0.0, 0))[0]
    threshold = max(SIBLING_MIN_SCORE, SIBLING_SCORE_SHARE * own_score)
    root_classes = set((root.get("class") or "").split())
    kept: list[Element] = []
    for sibling in parent:
        if sibling is root:
            kept.append(sibling)
            continue
        if not isinstance(sibling.tag, str) or is_skipped(sibling, inside_root=False):
            continue
        score, prose = scored.get(id(sibling), (0.0, 0))
        alike = sibling.tag == root.tag and bool(
            root_classes & set((sibling.get("class") or "").split()))
        if (score >= threshold or (alike and prose >= MIN_PARAGRAPH * 4)) \
                and _link_density(sibling) <= SIBLING_MAX_LINK_DENSITY:
            kept.append(sibling)
    return tuple(kept) if len(kept) > 1 else ()


TITLED = "headed by the page's title"
TITLED_MIN_PROSE = 300
"""Paragraph text an <article> headed by the page's title needs to be taken as the story."""
_HEADINGS = ("h1", "h2", "h3")


def page_titles(html: Element) -> set[str]:
    """What the page calls itself, compared case- and space-folded: its <title> whole and
    split at separators ("Site | Story"), and its og:/twitter: titles."""
    found: list[str] = []
    for element in html.iter():
        if element.tag == "title":
            text = "".join(element.itertext())
            found.extend([text, *_TITLE_SEPARATORS.split(text)])
        elif element.tag == "meta" and (element.get("property") or element.get("name") or ""
                                        ).lower() in ("og:title", "twitter:title"):
            found.append(element.get("content") or "")
        elif element.tag == "body":
            break
    return {_folded(t) for t in found if len(t.strip()) >= 10}


def _folded(text: str) -> str:
    return " ".join(text.lower().split())


def _titled(articles: list[Element], titles: set[str], scored: dict[int, tuple[float, int]]
            ) -> Element | None:
    """The innermost <article> whose first heading is the page's title, with prose of its
    own: on pages that load the next stories below the first (or list teasers of the
    same story beside it), the page's story is the one it is titled after."""
    if not titles:
        return None
    titled = []
    for article in articles:
        heading = next((e for e in article.iter() if e.tag in _HEADINGS), None)
        if heading is not None and _folded("".join(heading.itertext())) in titles \
                and _text_len(article, scored) >= TITLED_MIN_PROSE:
            titled.append(article)
    return min(titled, key=lambda e: _text_len(e, scored)) if titled else None


OPENING = "holding the page's first <h1>"


def _opening_article(body: Element, articles: list[Element],
                     scored: dict[int, tuple[float, int]]) -> Element | None:
    """The innermost <article> holding the page's first <h1>, with prose of its own: of
    several, the one that opens the page under its headline is the page's story; the
    others further down are teasers and blurbs."""
    first = next(body.iter("h1"), None)
    if first is None:
        return None
    holding = [a for a in articles if _text_len(a, scored) >= TITLED_MIN_PROSE
               and any(e is first for e in a.iter("h1"))]
    return min(holding, key=lambda e: _text_len(e, scored)) if holding else None


def _first_choice(body: Element, scored: dict[int, tuple[float, int]], index: _TreeIndex,
                  titles: set[str]) -> tuple[Element, str]:
    best_scored = max(scored.items(), key=lambda kv: kv[1][0], default=None)
    best_text = best_scored[1][1] if best_scored else 0

    for _tag, token in PUBLISHER_ROOTS:
        found = _publisher_body(body, index.by_token.get(token, []), index, scored)
        if found is not None and _text_len(found, scored) >= 0.2 * best_text:
            # Publisher bodies often leave the abstract just outside: take the common parent
            # when it adds an abstract and little else.
            return _with_abstract(found, index), f"publisher body .{token}"
    best = (_element_by_id(body, best_scored[0])
            if best_scored is not None and best_scored[1][0] > 0 else None)
    if best is not None:
        best = past_reference_list(best, index.parents, body, lambda e: _text_len(e, scored))
    for label, _predicate in SEMANTIC_ROOTS:
        matches = index.semantic[label]
        if not matches:
            continue
        # A semantic container is trusted when it holds the densest prose; teaser
        # <article>s in a sidebar do not.
        if label == "<article>" and len(matches) > 1:
            titled = _titled(matches, titles, scored)
            if titled is not None:
                return titled, f"semantic container <article> {TITLED}"
            opening = _opening_article(body, matches, scored)
            if opening is not None:
                return opening, f"semantic container <article> {OPENING}"
        holding = [e for e in matches if best is not None and _holds(e, best, index)]
        if holding:
            return min(holding, key=lambda e: _text_len(e, scored)), f"semantic container {label}"
        largest = max(matches, key=lambda e: _text_len(e, scored))
        # Microdata naming the article's body is a declaration, like publisher markup;
        # the best-scoring paragraphs elsewhere are then as likely a comment thread.
        wanted = (min(DECLARED_BODY_SHARE * best_text, DECLARED_BODY_PROSE)
                  if label == "[itemprop=articleBody]" else 0.8 * best_text)
        if _text_len(largest, scored) >= wanted:
            return largest, f"semantic container {label}"
    if best is not None and best_scored is not None:
        shared = _shared_ancestor(best, best_scored[1][0], scored, index, body)
        if shared is not None:
            titled = _under_title(shared, titles, index, body)
            if titled is not None:
                return titled, "the container of several near-best scores, under the title"
            return shared, "the container of several near-best scores"
        wider = _wider_rival(best, best_scored[1], scored, index)
        if wider is not None:
            return wider, "near the highest content score with far more prose"
        enclosing = _enclosing_prose(best, scored, index, body)
        if enclosing is not None:
            return enclosing, "the highest content score's container, holding far more prose"
        return best, "highest content score"
    return body, "no better container than <body>"


TOP_CANDIDATES = 5
NEAR_BEST_SHARE = 0.75
NEAR_BEST_MIN = 3
SHARED_MAX_LINK_DENSITY = 0.2


def _shared_ancestor(best: Element, best_score: float, scored: dict[int, tuple[float, int]],
                     index: _TreeIndex, body: Element) -> Element | None:
    """The closest ancestor of `best` that holds at least three of the other top scores
    near it (Readability's rule), when few of its words are links: an article set as a
    run of like blocks (text modules in separate wrappers, recipe steps, text-and-picture
    rows) spreads its score over them."""
    top = sorted(scored.items(), key=lambda kv: -kv[1][0])[:TOP_CANDIDATES]
    by_id = {id(e): e for e in index.parents}
    near = [by_id[key] for key, (score, _text) in top
            if key != id(best) and key in by_id and score >= NEAR_BEST_SHARE * best_score]
    if len(near) < NEAR_BEST_MIN:
        return None
    node = index.parents.get(best)
    while node is not None and node is not body:
        if sum(1 for e in near if _holds(node, e, index)) >= NEAR_BEST_MIN:
            # Widgets of a sidebar score alike too; their column is mostly links.
            return node if _link_density(node) <= SHARED_MAX_LINK_DENSITY else None
        node = index.parents.get(node)
    return None


ENCLOSING_LEVELS = 3
ENCLOSING_PROSE_GAIN = 1.5
ENCLOSING_MAX_LINK_DENSITY = 0.05


def _enclosing_prose(best: Element, scored: dict[int, tuple[float, int]], index: _TreeIndex,
                     body: Element) -> Element | None:
    """A close ancestor of `best` (at most three levels up) that holds half as much
    paragraph text again and almost no links: a story set as text modules, some wrapped
    deeper than others or carrying a class that scoring penalises ("media"), keeps its
    score in one module while the modules together are the article."""
    own = _text_len(best, scored)
    node = index.parents.get(best)
    for _level in range(ENCLOSING_LEVELS):
        if node is None or node is body:
            return None
        if _text_len(node, scored) >= ENCLOSING_PROSE_GAIN * own:
            return node if _link_density(node) <= ENCLOSING_MAX_LINK_DENSITY else None
        node = index.parents.get(node)
    return None


TITLE_LEVELS = 4
TITLE_MAX_LINK_DENSITY = 0.05


def _under_title(root: Element, titles: set[str], index: _TreeIndex, body: Element
                 ) -> Element | None:
    """The closest ancestor of `root` (at most four levels up, almost no links) whose
    first heading is the page's title, when `root` holds no such heading itself: a run
    of like blocks that score best (an FAQ, a price table) is one section of what the
    page is about, and the content runs from the title down. Taken for the container of
    near-best scores only: a single best-scoring container under the title is already
    the story, and widening it brings in the standfirst and dateline (articles-dev)."""
    if not titles or _titled_heading(root, titles):
        return None
    node = index.parents.get(root)
    for _level in range(TITLE_LEVELS):
        if node is None or node is body:
            return None
        if _titled_heading(node, titles):
            return node if _link_density(node) <= TITLE_MAX_LINK_DENSITY else None
        node = index.parents.get(node)
    return None


def _titled_heading(element: Element, titles: set[str]) -> bool:
    """The element's first h1/h2 is the page's title, or how the title begins ("Villa
    Sol" in "Villa Sol (4711) - Holiday homes")."""
    heading = next((e for e in element.iter() if e.tag in ("h1", "h2")), None)
    if heading is None:
        return False
    return names_the_page(_folded("".join(heading.itertext())), titles)


RIVAL_SCORE_SHARE = 0.75
RIVAL_PROSE_GAIN = 2.0


def _wider_rival(best: Element, best_entry: tuple[float, int],
                 scored: dict[int, tuple[float, int]], index: _TreeIndex) -> Element | None:
    """A container apart from `best` (neither holds the other) that scores nearly as high
    and holds far more paragraph text: a short dense box (an offer, a quote card) can
    outscore the article by its commas, not by its length."""
    best_score, best_text = best_entry
    rivals = [(key, text) for key, (score, text) in scored.items()
              if score >= RIVAL_SCORE_SHARE * best_score
              and text >= RIVAL_PROSE_GAIN * best_text and key != id(best)]
    if not rivals:
        return None
    by_id = {id(e): e for e in index.parents}
    found = [(by_id[key], text) for key, text in rivals if key in by_id]
    apart = [(e, text) for e, text in found
             if not _holds(e, best, index) and not _holds(best, e, index)]
    return max(apart, key=lambda et: et[1])[0] if apart else None


def _publisher_body(body: Element, matches: list[Element], index: _TreeIndex,
                    scored: dict[int, tuple[float, int]]) -> Element | None:
    """The element carrying a publisher's body token; when a site splits its body into
    several such elements (between ads), their closest common ancestor."""
    if not matches:
        return None
    outermost = [e for e in matches
                 if not any(o is not e and _holds(o, e, index) for o in matches)]
    if len(outermost) == 1:
        return outermost[0]
    common = _common_ancestor(outermost, index.parents)
    total = sum(_text_len(e, scored) for e in outermost)
    if common is not None and common is not body and _text_len(common, scored) <= 1.5 * total:
        return common
    return max(outermost, key=lambda e: _text_len(e, scored))


def _common_ancestor(elements: list[Element], parents: dict[Element, Element]
                     ) -> Element | None:
    def chain(element: Element) -> list[Element]:
        out = []
        node: Element | None = element
        while node is not None:
            out.append(node)
            node = parents.get(node)
        return out

    shared = chain(elements[0])
    for element in elements[1:]:
        ancestors = {id(a) for a in chain(element)}
        shared = [a for a in shared if id(a) in ancestors]
    return shared[0] if shared else None


def _holds(container: Element, element: Element, index: _TreeIndex) -> bool:
    node: Element | None = element
    while node is not None:
        if node is container:
            return True
        node = index.parents.get(node)
    return False


def _score_candidates(body: Element) -> dict[int, tuple[float, int]]:
    """Readability-style scores, after rescuing the page's prose from class rules that
    misjudge it (see `_rescue_prose`). Returns id(element) -> (score, paragraph text)."""
    for _attempt in range(_RESCUES):
        scored, rescued = _score_once(body)
        if not rescued:
            break
    return scored


_RESCUES = 3
"""Nested misjudged containers rescued at most (each rescue scores the page again)."""
_PARAGRAPH_TAGS = frozenset({"p", "pre", "td", "li", "dd", "blockquote"})
_TEXT_HOLDERS = frozenset({"div", "section", "article", "main", "font", "center"})
"""Containers whose own loose text (beside their children) counts as a paragraph: pages
that set prose straight into a <div> with <br> between lines."""
MIN_PARAGRAPH = 25


def _score_once(body: Element) -> tuple[dict[int, tuple[float, int]], bool]:
    """Paragraphs credit their parent fully and grandparent half. Prose under an element
    that class rules skip is tallied apart, for `_rescue_prose`."""
    scores: dict[int, float] = {}
    text_len: dict[int, int] = {}
    elements: dict[int, Element] = {}
    skipped_prose: dict[int, int] = {}
    skipped_roots: dict[int, Element] = {}
    visible: list[tuple[int, Element | None]] = []
    """Paragraph lengths and the element whose links to subtract, weighed only when a
    rescue is in question."""
    stack: list[tuple[Element, list[Element], Element | None]] = [(body, [], None)]
    # Ancestors are kept for every element, so text length reaches publisher bodies many
    # levels up while the score still credits only three levels.
    while stack:
        element, ancestors, skipped_under = stack.pop()
        if element is not body and skipped_under is None and is_skipped(element, False):
            if not is_misjudgeable(element):
                continue
            skipped_under = element
            skipped_roots[id(element)] = element
        elif skipped_under is not None and is_skipped(element, False) \
                and not is_misjudgeable(element):
            continue
        tag = element.tag
        linked_in: Element | None = None
        if tag in _PARAGRAPH_TAGS and ancestors:
            texts = ["".join(element.itertext())]
            credited = ancestors
            linked_in = element
        elif tag in _TEXT_HOLDERS:
            # Only loose text: a <div> of inline elements is as often a teaser or widget.
            texts = _loose_paragraphs(element)
            credited = [*ancestors, element]
        else:
            texts = []
            credited = ancestors
        for text in texts:
            length = len(text.strip())
            if length < MIN_PARAGRAPH:
                continue
            if skipped_under is not None:
                key = id(skipped_under)
                skipped_prose[key] = skipped_prose.get(key, 0) + _unlinked(length, linked_in)
                continue
            visible.append((length, linked_in))
            score = 1 + text.count(",") + min(length // 100, 3)
            for weight, ancestor in zip((1.0, 0.5, 0.25), reversed(credited), strict=False):
                key = id(ancestor)
                elements[key] = ancestor
                scores[key] = scores.get(key, 0.0) + score * weight
            for ancestor in credited:
                text_len[id(ancestor)] = text_len.get(id(ancestor), 0) + length
        next_ancestors = [*ancestors, element] if tag in CANDIDATE_TAGS else ancestors
        stack.extend((child, next_ancestors, skipped_under) for child in element
                     if isinstance(child.tag, str))
    rescued = _rescue_prose(skipped_roots, skipped_prose, visible)
    result: dict[int, tuple[float, int]] = {key: (0.0, length) for key, length in text_len.items()}
    for key, raw in scores.items():
        element = elements[key]
        total = raw
        marks = " ".join(tokens(element))
        if marks:
            if POSITIVE.search(marks):
                total += 25
            if NEGATIVE.search(marks) or is_junk(element):
                total -= 25
        total *= 1 - _link_density(element)
        result[key] = (total, text_len[key])
    return result, rescued


def _loose_paragraphs(element: Element) -> list[str]:
    """The element's own loose text (beside its children), split where a <br> breaks it:
    prose set straight into a <div> with blank lines between paragraphs scores as those
    paragraphs, as it reads, not as one."""
    parts = [element.text or ""]
    for child in element:
        if child.tag == "br":
            parts.append("")
        parts[-1] += child.tail or ""
    return parts


RESCUE_MIN_PROSE = 200
RESCUE_SHARE = 1.0
"""Characters of unlinked paragraph text a skipped container needs to be rescued."""


def _unlinked(length: int, linked_in: Element | None) -> int:
    """Link text is not prose: a menu must not pass for an article, skipped or not."""
    if linked_in is None:
        return length
    return max(length - sum(len("".join(a.itertext()).strip())
                            for a in linked_in.iter("a")), 0)


def _rescue_prose(roots: dict[int, Element], prose: dict[int, int],
                  visible_parts: list[tuple[int, Element | None]]) -> bool:
    """A container that class rules skip ("entry-content no-share", "article isPaywall",
    <noscript>) but whose unlinked paragraph text outweighs all the prose the rules leave
    visible is where the article is: it is marked kept, and scoring inside it then picks
    the article as usual. Only the largest is rescued per pass, so a menu beside the
    article is weighed against it on the next. True when one was rescued."""
    if not prose:
        return False
    key, length = max(prose.items(), key=lambda kv: kv[1])
    if length < RESCUE_MIN_PROSE:
        return False
    visible = sum(_unlinked(size, linked_in) for size, linked_in in visible_parts)
    if length <= RESCUE_SHARE * visible:
        return False
    mark_rescued(roots[key])
    return True


def _link_density(element: Element) -> float:
    total = 0
    linked = 0
    for node in element.iter():
        if not isinstance(node.tag, str):
            continue
        size = len((node.text or "").strip())
        total += size
        if node.tag == "a":
            linked += len("".join(node.itertext()).strip())
    return min(linked / total, 1.0) if total else 0.0


def _text_len(element: Element, scored: dict[int, tuple[float, int]]) -> int:
    """Paragraph text credited to the element while scoring; 0 when it holds no paragraph
    (raw itertext would count script bodies and teaser chrome)."""
    entry = scored.get(id(element))
    return entry[1] if entry else 0


def _with_abstract(found: Element, index: _TreeIndex) -> Element:
    parent = index.parents.get(found)
    if parent is None:
        return found
    has_abstract = any(
        any("abstract" in t.lower() or t.lower().startswith("abs") for t in tokens(sibling))
        or (sibling.get("aria-labelledby") or "").lower().startswith("abs")
        for sibling in parent if isinstance(sibling.tag, str) and sibling is not found)
    return parent if has_abstract else found


def _first(root: Element, tag: str) -> Element | None:
    return next((e for e in root.iter(tag)), None)


def _element_by_id(root: Element, key: int) -> Element:
    return next(e for e in root.iter() if id(e) == key)


# Scored over the class marks of every scored container (folded_patterns).
POSITIVE, NEGATIVE = FoldedPattern(POSITIVE), FoldedPattern(NEGATIVE)
