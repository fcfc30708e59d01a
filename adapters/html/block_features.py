"""What the block classifier reads about each text block: a fixed vector of numbers.

The features describe the block (length, links, sentence shape), its place (tag, the
semantic containers and class/id words above it, position on the page, distance to the
page's title heading), its neighbours and container, and what the rule cascade thinks
of it (inside the root the cascade chose, left out by the class rules, inside the body a
page declares in microdata or JSON-LD). `FEATURES` names them in vector order; the
trained weights (block_weights.py) follow the same order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any
from xml.etree.ElementTree import Element

from .folded_patterns import FoldedPattern
from .page_blocks import PATH_WORDS, SEMANTIC_PATH, PageBlocks, TextBlock

_TAG_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("tag_p", frozenset({"p"})),
    ("tag_li", frozenset({"li", "dd", "dt"})),
    ("tag_heading", frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})),
    ("tag_cell", frozenset({"td", "th", "caption"})),
    ("tag_div", frozenset({"div", "section", "article", "main", "center", "body"})),
    ("tag_quote", frozenset({"blockquote", "pre", "figcaption"})),
)
_SENTENCE_END = re.compile(r"[.!?…。！？](?:[\"'”’»)\]]*)(?:\s|$)")
_CHROME_WORDS = re.compile(
    r"copyright|©|all rights reserved|cookie|privacy|terms of|log ?in|sign ?in|sign up|"
    r"subscribe|newsletter|follow us|share (?:this|on)|read more|weiterlesen|mehr lesen|"
    r"leer más|lire la suite|comments?\b|kommentar|impressum|datenschutz|"
    r"advertis|anzeige|werbung|back to top|skip to|menu\b|related|tags?:",
    re.IGNORECASE)
_DATE_LIKE = re.compile(r"\b(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2}|"
                        r"(?:19|20)\d{2})\b")

FEATURES: tuple[str, ...] = (
    "log_length", "words", "link_density", "linked_block", "sentence_ends", "ends_sentence",
    "comma_rate", "digit_share", "capitalised_share", "mean_word_length", "short", "medium",
    "chrome_words", "date_like",
    *(name for name, _ in _TAG_GROUPS),
    *(f"path_{name}" for name, _ in PATH_WORDS),
    *(f"in_{tag}" for tag in SEMANTIC_PATH),
    "rule_skipped", "position", "position_squared", "after_title", "before_title",
    "title_distance", "is_title",
    "in_cascade_root", "cascade_root_is_body", "in_article_body", "in_structured_body",
    "container_share", "container_link_density", "container_blocks",
    "previous_length", "next_length", "previous_link_density", "next_link_density",
    "depth", "length_share",
    "prose_in_root", "links_in_root", "prose_skipped",
)
_PATH_BITS = len(PATH_WORDS)


def block_features(page: PageBlocks, *, cascade_root: Element | None,
                   cascade_parts: Sequence[Element] = (), title_texts: set[str] = frozenset(),
                   structured_body: str | None = None) -> list[list[float]]:
    """One feature vector per block of `page`, in `FEATURES` order."""
    blocks = page.blocks
    total = max(page.total, 1)
    roots = {id(e) for e in cascade_parts} or ({id(cascade_root)} if cascade_root is not None
                                               else set())
    root_is_body = cascade_root is not None and cascade_root.tag == "body"
    title_at = _title_position(blocks, title_texts)
    structured = " ".join(structured_body.split()).lower() if structured_body else ""
    # Each block's nearest container that holds several blocks: its prose and links.
    container_of = _grouping_containers(blocks)
    container_chars: dict[int, int] = {}
    container_links: dict[int, int] = {}
    container_count: dict[int, int] = {}
    for block, key in zip(blocks, container_of, strict=True):
        container_chars[key] = container_chars.get(key, 0) + block.length
        container_links[key] = container_links.get(key, 0) + block.link_chars
        container_count[key] = container_count.get(key, 0) + 1
    vectors: list[list[float]] = []
    for i, block in enumerate(blocks):
        text = block.text
        length = block.length
        words = max(block.words, 1)
        density = min(block.link_chars / length, 1.0) if length else 0.0
        prev_block = blocks[i - 1] if i else None
        next_block = blocks[i + 1] if i + 1 < len(blocks) else None
        in_root = bool(roots) and not roots.isdisjoint(map(id, block.containers))
        key = container_of[i]
        share = container_chars[key] / total
        vector = [
            math.log1p(length) / 8,
            min(words, 300) / 300,
            density,
            1.0 if density >= 0.7 else 0.0,
            min(len(_SENTENCE_END.findall(text)) / max(words / 15, 1), 2.0) / 2,
            1.0 if _SENTENCE_END.search(text[-3:] + " ") else 0.0,
            min(text.count(",") / words * 10, 2.0) / 2,
            _digits(text) / length if length else 0.0,
            _capitalised(text) / words,
            min(length / words, 15) / 15,
            1.0 if length < 30 else 0.0,
            1.0 if 30 <= length < 100 else 0.0,
            1.0 if length < 200 and _CHROME_WORDS.search(text) else 0.0,
            1.0 if length < 80 and _DATE_LIKE.search(text) else 0.0,
            *_tag_bits(block.element.tag),
            *_flag_bits(block.flags),
            1.0 if block.skipped else 0.0,
            block.offset / total,
            (block.offset / total) ** 2,
            1.0 if title_at is not None and i > title_at else 0.0,
            1.0 if title_at is not None and i < title_at else 0.0,
            (min(abs(i - title_at), 50) / 50) if title_at is not None else 1.0,
            1.0 if title_at == i else 0.0,
            1.0 if in_root else 0.0,
            1.0 if root_is_body else 0.0,
            1.0 if block.in_article_body else 0.0,
            1.0 if structured and length >= 20 and _opening(text) in structured else 0.0,
            share,
            container_links[key] / container_chars[key] if container_chars[key] else 0.0,
            math.log1p(container_count[key]) / 6,
            math.log1p(prev_block.length) / 8 if prev_block else 0.0,
            math.log1p(next_block.length) / 8 if next_block else 0.0,
            _density(prev_block),
            _density(next_block),
            min(len(block.containers), 60) / 60,
            length / total,
            # Interactions a linear model cannot form itself.
            (math.log1p(length) / 8) * (1.0 - density) * (1.0 if in_root else 0.0),
            density * (1.0 if in_root else 0.0),
            (math.log1p(length) / 8) * (1.0 if block.skipped else 0.0),
        ]
        vectors.append(vector)
    return vectors


def _capitalised(text: str) -> int:
    """Words of `text` (as `str.split` cuts them) that begin with a capital."""
    if text.isascii():  # then a capital is A-Z, and the words are found in one search
        return len(_ASCII_CAPITALISED.findall(text))
    return len([w for w in text.split() if w[:1].isupper()])


_ASCII_CAPITALISED = re.compile(r"(?<!\S)[A-Z]")
r"""A capital at the start of a word: after the start or whitespace (`\s` is what
`str.split` splits at)."""


def _digits(text: str) -> int:
    """Characters of `text` that are digits (`str.isdigit`)."""
    if text.isascii():  # then the digits are 0-9, counted without a call per character
        return sum(map(text.count, "0123456789"))
    return sum(map(str.isdigit, text))


def _tag_bits(tag: str) -> tuple[float, ...]:
    """The tag-group features of a block's tag (one per `_TAG_GROUPS` entry)."""
    bits = _TAG_BITS.get(tag)
    if bits is None:
        bits = tuple(1.0 if tag in tags else 0.0 for _name, tags in _TAG_GROUPS)
        _remember(_TAG_BITS, tag, bits)
    return bits


def _flag_bits(flags: int) -> tuple[float, ...]:
    """The path-word and semantic-container features that `TextBlock.flags` packs."""
    bits = _FLAG_BITS.get(flags)
    if bits is None:
        bits = tuple(1.0 if flags >> bit & 1 else 0.0
                     for bit in range(_PATH_BITS + len(SEMANTIC_PATH)))
        _remember(_FLAG_BITS, flags, bits)
    return bits


def _remember(cache: dict[Any, tuple[float, ...]], key: Any, bits: tuple[float, ...]) -> None:
    if len(cache) >= 4096:  # few tags and flag sets recur; custom elements are unbounded
        cache.clear()
    cache[key] = bits


# Pages repeat a handful of tags and flag sets over thousands of blocks.
_TAG_BITS: dict[str, tuple[float, ...]] = {}
_FLAG_BITS: dict[int, tuple[float, ...]] = {}


def _density(block: TextBlock | None) -> float:
    if block is None or not block.length:
        return 0.0
    return min(block.link_chars / block.length, 1.0)


def _opening(text: str) -> str:
    return " ".join(text.lower().split()[:8])


def _title_position(blocks: Sequence[TextBlock], titles: set[str]) -> int | None:
    """The block that is the page's title heading: an h1 (or h2) whose text is the
    title, else the first h1."""
    first_h1 = None
    for i, block in enumerate(blocks):
        tag = block.element.tag
        if tag in ("h1", "h2") and titles and " ".join(block.text.lower().split()) in titles:
            return i
        if tag == "h1" and first_h1 is None:
            first_h1 = i
    return first_h1


GROUPING_MIN_BLOCKS = 3


def _grouping_containers(blocks: Sequence[TextBlock]) -> list[int]:
    """For each block, id() of its nearest proper ancestor container holding at least
    three blocks (the block's section, list or column)."""
    counts: dict[int, int] = {}
    for block in blocks:
        for container in block.containers[:-1]:
            counts[id(container)] = counts.get(id(container), 0) + 1
    out: list[int] = []
    for block in blocks:
        chosen = id(block.containers[0]) if block.containers else 0
        for container in reversed(block.containers[:-1]):
            if counts.get(id(container), 0) >= GROUPING_MIN_BLOCKS:
                chosen = id(container)
                break
        out.append(chosen)
    return out


# Searched in every short block (folded_patterns).
_CHROME_WORDS = FoldedPattern(_CHROME_WORDS)
