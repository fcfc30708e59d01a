"""The page's blocks and their feature vectors, as the extractor and the training script
both see them (one function, so what is trained is what runs)."""

from __future__ import annotations

from collections.abc import Sequence
from xml.etree.ElementTree import Element

import attrs

from .block_features import block_features
from .page_blocks import PageBlocks, page_blocks


@attrs.frozen
class PageEvidence:
    """Every text block of a page with its feature vector."""

    blocks: PageBlocks
    vectors: list[list[float]]


def page_evidence(body: Element, *, cascade_root: Element | None,
                  cascade_parts: Sequence[Element] = (), titles: set[str] = frozenset(),
                  structured_body: str | None = None) -> PageEvidence:
    """Cut `body` into blocks and describe each, the cascade's first choice as a prior."""
    blocks = page_blocks(body)
    vectors = block_features(blocks, cascade_root=cascade_root, cascade_parts=cascade_parts,
                             title_texts=titles, structured_body=structured_body)
    return PageEvidence(blocks, vectors)
