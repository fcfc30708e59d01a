"""Root choice weighed by the block classifier, and the extraction's confidence.

Every text block gets P(content) from the classifier. A container's *gain* is the text
of its blocks weighed by how far each is from even odds, `(p - 1/2) * length`, over
the blocks the class rules would keep: a container of content gains, one of chrome
loses. The cascade's first choice is the prior: the container with the highest gain
replaces it only when it gains a clear share (`OVERRIDE_SHARE`) of the page's positive
mass more, so the classifier corrects the cascade where it is plainly wrong rather
than where the two disagree by a paragraph, and only when the cascade's choice holds under
`CASCADE_DOUBT` of that mass.

Confidence compares what was extracted with the blocks: the share of the page's
content-scored text the extraction holds (coverage) and the share of the extraction's
text scored as content (purity), combined as their harmonic mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.etree.ElementTree import Element

import attrs

from ...domain.document.document import BlockDraft, BlockKind
from .page_blocks import PageBlocks, TextBlock

CONTAINER_TAGS = frozenset({"div", "section", "article", "main", "td", "form", "body",
                            "center", "font"})
OVERRIDE_SHARE = 0.15
"""Share of the page's positive mass the best container must gain over the cascade's."""
CASCADE_DOUBT = 0.75
"""The cascade's choice is reconsidered only when it gains less than this share of the
page's positive mass: where it already holds most content, a wider container mostly
adds the chrome around it."""
MIN_POSITIVE = 150.0
"""Positive mass (characters weighed by odds) below which the classifier has too little
to go on to overrule anything."""
EVEN_ODDS = 0.5
WIDENING_PROPOSALS = False
"""Whether a container around the cascade's choice may be proposed (see propose_root)."""
MEASURED_BLOCK = 25
"""Blocks shorter than this (labels, counters) are left out of coverage and purity: as
substrings they are found anywhere."""


@attrs.frozen
class RootProposal:
    """A container the classifier prefers to the cascade's first choice."""

    element: Element
    gain: float
    cascade_gain: float
    positive_mass: float

    @property
    def why(self) -> str:
        return (f"block classifier: gains {self.gain:.0f} against the cascade's "
                f"{self.cascade_gain:.0f} of {self.positive_mass:.0f} positive")


def propose_root(page: PageBlocks, probabilities: Sequence[float],
                 cascade_parts: Sequence[Element], body: Element) -> RootProposal | None:
    """The container to try before the cascade's first choice, or None to keep it."""
    gains: dict[int, float] = {}
    elements: dict[int, Element] = {}
    parts = {id(e) for e in cascade_parts}
    cascade_gain = 0.0
    positive = 0.0
    for block, p in zip(page.blocks, probabilities, strict=True):
        if block.skipped:
            continue
        gain = (p - EVEN_ODDS) * block.length
        if gain > 0:
            positive += gain
        if any(id(c) in parts for c in block.containers):
            cascade_gain += gain
        for container in block.containers:
            if container.tag in CONTAINER_TAGS:
                key = id(container)
                gains[key] = gains.get(key, 0.0) + gain
                elements[key] = container
    if not gains or positive < MIN_POSITIVE or cascade_gain >= CASCADE_DOUBT * positive:
        return None
    key = max(gains, key=lambda k: gains[k])
    best = elements[key]
    if best is body or best.tag == "html" or id(best) in parts:
        return None
    if gains[key] - cascade_gain < OVERRIDE_SHARE * positive:
        return None
    if WIDENING_PROPOSALS is False and any(
            any(c is best for c in b.containers) and any(id(c) in parts for c in b.containers)
            for b in page.blocks):
        # Around the cascade's choice the extra gain is what sits beside the story: a
        # ticker of other stories' ledes reads as prose too. Widening is left to
        # `continuing_parts`, which refuses parts with a headline of their own.
        return None
    return RootProposal(best, gains[key], cascade_gain, positive)


@attrs.frozen
class ExtractionEvidence:
    """How much of what the classifier calls content the extraction holds, and how
    clean it is."""

    coverage: float
    purity: float

    @property
    def confidence(self) -> float:
        total = self.coverage + self.purity
        return 2 * self.coverage * self.purity / total if total else 0.0


def extraction_evidence(page: PageBlocks, probabilities: Sequence[float], extracted: str
                        ) -> ExtractionEvidence:
    """Coverage and purity of `extracted` (the document's text, whitespace collapsed)
    against the page's blocks."""
    content = found_content = found = 0.0
    for block, p in zip(page.blocks, probabilities, strict=True):
        if block.length < MEASURED_BLOCK or (block.skipped and p < EVEN_ODDS):
            continue
        content += p * block.length
        if _holds(extracted, block):
            found_content += p * block.length
            found += block.length
    coverage = found_content / content if content else 0.0
    purity = found_content / found if found else 0.0
    return ExtractionEvidence(min(coverage, 1.0), min(purity, 1.0))


MATCHED_PREFIX = 60
"""Characters of a block's opening looked for in the extraction: the builder drops
controls inside a paragraph ("Download PDF"), so the whole text may not be there."""


def _holds(extracted: str, block: TextBlock) -> bool:
    return block.text[:MATCHED_PREFIX] in extracted


PRUNE_BELOW = 0.25
"""A paragraph the classifier scores below this is dropped from the chosen root."""
PRUNED_KINDS = frozenset({BlockKind.PARAGRAPH, BlockKind.LIST, BlockKind.QUOTE})


def pruned_drafts(drafts: list[BlockDraft], page: PageBlocks, probabilities: Sequence[float]
                  ) -> tuple[list[BlockDraft], int]:
    """`drafts` without the paragraphs, lists and quotes whose text is a block the
    classifier is sure is boilerplate (a byline box, a share line, a teaser inside the
    root), and how many were dropped. A draft is matched to a block by its whole text;
    one that matches none (text the builder joined or split) is kept."""
    score: dict[str, float] = {}
    for block, p in zip(page.blocks, probabilities, strict=True):
        # The same text twice on a page (a teaser repeating a lede) counts as content
        # if either copy does.
        score[block.text] = max(p, score.get(block.text, 0.0))
    kept = []
    for draft in drafts:
        if draft.kind in PRUNED_KINDS:
            text = (" ".join(i.text for i in draft.items) if draft.kind is BlockKind.LIST
                    else draft.text)
            p = score.get(text)
            if p is not None and p < PRUNE_BELOW:
                continue
        kept.append(draft)
    return kept, len(drafts) - len(kept)


CONTINUATION_LEVELS = 3
"""Ancestors of the root whose other children may continue the article."""
CONTINUATION_PURITY = 0.75
"""Share of a continuing part's text the classifier must score as content."""
CONTINUATION_SHARE = 0.1
"""Share of the page's positive mass a continuing part must bring."""
MAX_CONTINUING_LINKS = 0.2


def continuing_parts(root: Element, page: PageBlocks, probabilities: Sequence[float]
                     ) -> list[Element]:
    """Containers beside `root` (children of its three closest block-level ancestors)
    that the classifier reads as more of the same article: an article a CMS sets in
    several sibling boxes (lede, body modules, quote boxes) whose classes the cascade
    does not tie together. A part must be mostly content, bring a tenth of the page's
    content mass, have few links and no h1/h2 of its own (a story with its own headline
    is a different story). Returned in document order; empty when nothing continues."""
    chain = _ancestors(root, page)
    if not chain:
        return []
    on_chain = {id(e) for e in chain} | {id(root)}
    wanted: dict[int, Element] = {id(child): child for ancestor in chain for child in ancestor
                                  if id(child) not in on_chain}
    wanted[id(root)] = root
    stats: dict[int, list[float]] = {}  # id -> [gain, content, length, links, first order]
    headed: set[int] = set()
    positive = 0.0
    for block, p in zip(page.blocks, probabilities, strict=True):
        if block.skipped:
            continue
        gain = (p - EVEN_ODDS) * block.length
        positive += max(gain, 0.0)
        for container in block.containers:
            key = id(container)
            if key not in wanted:
                continue
            entry = stats.get(key)
            if entry is None:
                entry = stats[key] = [0.0, 0.0, 0.0, 0.0, float(block.order)]
            entry[0] += gain
            entry[1] += p * block.length
            entry[2] += block.length
            entry[3] += block.link_chars
            if block.element.tag in ("h1", "h2"):
                headed.add(key)
    if positive <= 0:
        return []
    found = [child for key, child in wanted.items() if key != id(root)
             and key in stats and key not in headed and stats[key][2]
             and stats[key][0] >= CONTINUATION_SHARE * positive
             and stats[key][1] >= CONTINUATION_PURITY * stats[key][2]
             and stats[key][3] <= MAX_CONTINUING_LINKS * stats[key][2]]
    if not found:
        return []
    first = {key: entry[4] for key, entry in stats.items()}
    return sorted([root, *found], key=lambda e: first.get(id(e), -1.0))


def _ancestors(root: Element, page: PageBlocks) -> list[Element]:
    """The closest `CONTINUATION_LEVELS` block-level ancestors of `root`, nearest first,
    short of <body>: read off the containers of a block inside it."""
    for block in page.blocks:
        containers = block.containers
        for i, container in enumerate(containers):
            if container is root:
                above = [c for c in reversed(containers[:i]) if c.tag not in ("body", "html")]
                return above[:CONTINUATION_LEVELS]
    return []
