"""Heading-aware chunks at two levels, each an exact span of the canonical text.

Section chunks (about 1,200 tokens, at most 1,800) never cross a top-level section;
snippet chunks (about 300, at most 450) tile each section chunk. Blocks are kept whole
when they fit, else split at sentences, a sentence longer than the limit at word windows,
and a word longer than it (a URL, a run of CJK text) at characters. Tokens are counted
with the embedder's own counter when one is given (ADR-0015), and snippets are then
kept, retrieval prefix included, within the model's input limit; without one, the
estimate is one token per four characters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import attrs

from .sections import Section
from .sentences import sentence_spans
from .word_tokens import is_unit_boundary

SECTION_TARGET, SECTION_MAX = 1200, 1800
SNIPPET_TARGET, SNIPPET_MAX = 300, 450


@attrs.frozen
class ChunkSizes:
    """Token targets and limits of the two chunk levels."""

    snippet_target: int = SNIPPET_TARGET
    snippet_max: int = SNIPPET_MAX
    section_target: int = SECTION_TARGET
    section_max: int = SECTION_MAX

    def __attrs_post_init__(self) -> None:
        if not 0 < self.snippet_target <= self.snippet_max <= self.section_max or \
                not self.snippet_target <= self.section_target <= self.section_max:
            raise ValueError(f"inconsistent chunk sizes: {self}")

    @classmethod
    def for_snippets(cls, target: int, limit: int | None = None) -> ChunkSizes:
        """Snippets of about `target` tokens (at most `limit`, 1.5 x target by default),
        section chunks at least as large as the defaults."""
        limit = limit or target * 3 // 2
        return cls(target, limit, max(SECTION_TARGET, limit), max(SECTION_MAX, limit))

    def within(self, limit: int) -> ChunkSizes:
        """These sizes with snippets of at most `limit` tokens (a model's input limit
        less the retrieval prefix), aiming at five eighths of it when that is smaller."""
        if self.snippet_max <= limit:
            return self
        target = min(self.snippet_target, max(1, limit * 5 // 8))
        return attrs.evolve(self, snippet_target=target, snippet_max=limit)

    def __str__(self) -> str:
        return f"{self.snippet_target}/{self.snippet_max}"


DEFAULT_SIZES = ChunkSizes()
FURNITURE = "furniture"
"""The block kind of a paginated source's running headers and footers."""
_WORD = re.compile(r"\S+")


def estimate_tokens(text: str) -> int:
    """About one token per four characters (at least one for any text)."""
    return max(1, math.ceil(len(text) / 4)) if text.strip() else 0


@attrs.frozen
class BlockSpan:
    """What chunking needs of a block."""

    kind: str
    start: int
    end: int
    pages: tuple[int, ...] = ()


@attrs.frozen
class Chunk:
    """A chunk: `text == canonical_text[start:end]`, with its place and its neighbours."""

    id: str
    level: str
    index: int
    start: int
    end: int
    text: str
    tokens: int
    heading_path: tuple[str, ...]
    section_label: str | None
    pages: tuple[int, ...]
    parent_id: str | None
    prev_id: str | None
    next_id: str | None
    retrieval_text: str
    context: str | None = None
    """A generated sentence or two situating the chunk in its document (enrichment);
    already part of `retrieval_text`, never of `text`."""


@attrs.frozen
class _Atom:
    start: int
    end: int
    heading: bool
    pages: tuple[int, ...]
    furniture: bool = False
    """Part of a page's running header or footer: in the chunk's text (chunks are exact
    spans), out of its retrieval text, and never where a chunk breaks for size."""


def chunk_document(text: str, blocks: list[BlockSpan], sections: tuple[Section, ...], *,
                   version_id: str, title: str | None,
                   count: Callable[[str], int] = estimate_tokens,
                   retrieval_prefix: bool = True,
                   sizes: ChunkSizes = DEFAULT_SIZES,
                   input_limit: int | None = None) -> tuple[Chunk, ...]:
    """Section chunks, then the snippet chunks of each, in document order. With an
    `input_limit` (in `count`'s unit), every snippet's retrieval text fits in it."""
    shorten = "full"
    if input_limit is not None:
        places = [((), None), *((s.path, s.label) for s in sections)]

        def reserve_of(style: str) -> int:
            return max(count(_retrieval_text(title, path, label, "", style))
                       for path, label in places) if retrieval_prefix else 0

        shorten = "short"
        reserve = reserve_of(shorten)
        if reserve > input_limit // 2:  # long CJK headings: the label alone leads
            shorten = "minimal"
            reserve = reserve_of(shorten)
        sizes = sizes.within(max(1, input_limit - reserve))
    atoms = _atoms(text, blocks, count, sizes)
    groups = _section_groups(text, atoms, sections, count, sizes)
    section_chunks: list[tuple[int, int, list[_Atom]]] = [
        (g[0].start, g[-1].end, g) for g in groups]
    chunks: list[Chunk] = []
    snippet_index = 0
    for s_index, (start, end, group) in enumerate(section_chunks):
        parent_id = f"{version_id}:section:{s_index}"
        chunks.append(_chunk(text, parent_id, "section", s_index, start, end, group, sections,
                             None, title, count, retrieval_prefix, shorten))
        for snippet in _snippet_groups(text, group, count, sizes):
            chunks.append(_chunk(text, f"{version_id}:snippet:{snippet_index}", "snippet",
                                 snippet_index, snippet[0].start, snippet[-1].end, snippet,
                                 sections, parent_id, title, count, retrieval_prefix,
                                 shorten))
            snippet_index += 1
    return _link(chunks)


def _atoms(text: str, blocks: list[BlockSpan], count: Callable[[str], int],
           sizes: ChunkSizes) -> list[_Atom]:
    atoms: list[_Atom] = []
    for block in blocks:
        heading = block.kind == "heading"
        if block.kind == FURNITURE:
            atoms.extend(_Atom(a, b, False, block.pages, furniture=True)
                         for a, b in _word_windows(text, block.start, block.end, count,
                                                   sizes.snippet_target, sizes.snippet_max))
            continue
        if count(text[block.start:block.end]) <= sizes.snippet_max:
            atoms.append(_Atom(block.start, block.end, heading, block.pages))
            continue
        if heading:  # a paragraph marked up as a heading: its first window leads
            windows = _word_windows(text, block.start, block.end, count,
                                    sizes.snippet_target, sizes.snippet_max)
            atoms.extend(_Atom(a, b, i == 0, block.pages) for i, (a, b) in enumerate(windows))
            continue
        pieces = (_lines(text, block.start, block.end)
                  if block.kind in ("table", "code", "list")
                  else sentence_spans(text, block.start, block.end))
        for start, end in pieces:
            if count(text[start:end]) <= sizes.snippet_max:
                atoms.append(_Atom(start, end, False, block.pages))
            else:
                atoms.extend(_Atom(a, b, False, block.pages)
                             for a, b in _word_windows(text, start, end, count,
                                                       sizes.snippet_target,
                                                       sizes.snippet_max))
    return [a for a in atoms if a.end > a.start]


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans, cursor = [], start
    for match in re.finditer(r"\n", text[start:end]):
        spans.append((cursor, start + match.start()))
        cursor = start + match.end()
    spans.append((cursor, end))
    return [s for s in spans if text[s[0]:s[1]].strip()]


def _word_windows(text: str, start: int, end: int, count: Callable[[str], int],
                  target: int, limit: int) -> list[tuple[int, int]]:
    """Consecutive word runs, each within the snippet target (a sentence too long to
    keep); a single word over the limit is cut at characters."""
    windows: list[tuple[int, int]] = []
    window_start: int | None = None
    window_end = start
    for word in _WORD.finditer(text, start, end):
        if count(word.group()) > limit:
            if window_start is not None:
                windows.append((window_start, window_end))
                window_start = None
            windows.extend(_character_windows(text, word.start(), word.end(), count, limit))
            continue
        if window_start is None:
            window_start = word.start()
        elif count(text[window_start:word.end()]) > target:
            windows.append((window_start, window_end))
            window_start = word.start()
        window_end = word.end()
    if window_start is not None:
        windows.append((window_start, window_end))
    return windows


def _character_windows(text: str, start: int, end: int, count: Callable[[str], int],
                       limit: int) -> list[tuple[int, int]]:
    """A word longer than the limit, cut into the longest runs that fit (never between a
    character and its combining marks)."""
    windows: list[tuple[int, int]] = []
    while start < end:
        low, high = start + 1, end  # the longest fitting run, by bisection
        while low < high:
            middle = (low + high + 1) // 2
            if count(text[start:middle]) <= limit:
                low = middle
            else:
                high = middle - 1
        cut = low
        while start + 1 < cut < end and not is_unit_boundary(text, cut):
            cut -= 1
        windows.append((start, cut))
        start = cut
    return windows


def _top_level_starts(sections: tuple[Section, ...]) -> set[int]:
    top = min((s.level for s in sections), default=0)
    return {s.start for s in sections if s.level == top}


def _greedy_groups(atoms: list[_Atom], breaks_before: Callable[[list[_Atom], _Atom], bool],
                   fits: Callable[[list[_Atom]], bool]) -> list[list[_Atom]]:
    """Consecutive atoms in groups; a new group starts where `breaks_before` says so.
    A group of furniture alone joins the next group (the last, the one before) when the
    two fit together, so no chunk is only a running header."""
    groups: list[list[_Atom]] = []
    current: list[_Atom] = []
    for atom in atoms:
        if current and breaks_before(current, atom):
            groups.append(current)
            current = []
        current.append(atom)
    if current:
        groups.append(current)
    merged: list[list[_Atom]] = []
    for group in groups:
        if merged and all(a.furniture for a in merged[-1]) and fits(merged[-1] + group):
            merged[-1] = merged[-1] + group
        else:
            merged.append(group)
    if len(merged) > 1 and all(a.furniture for a in merged[-1]) \
            and fits(merged[-2] + merged[-1]):
        merged[-2:] = [merged[-2] + merged[-1]]
    return merged


def _leads_with_heading(current: list[_Atom]) -> bool:
    """Whether the group's last atom other than furniture is a heading (or there is
    none): the text after it belongs with it."""
    return next((a.heading for a in reversed(current) if not a.furniture), True)


def _section_groups(text: str, atoms: list[_Atom], sections: tuple[Section, ...],
                    count: Callable[[str], int], sizes: ChunkSizes) -> list[list[_Atom]]:
    """Near the section target; a top-level section always starts a group, and a heading
    closes a group that already reached half the target."""
    boundaries = _top_level_starts(sections)

    def breaks_before(current: list[_Atom], atom: _Atom) -> bool:
        size = count(text[current[0].start:atom.end])
        if atom.furniture:
            return size > sizes.section_max
        natural_break = atom.heading and count(
            text[current[0].start:current[-1].end]) >= sizes.section_target // 2
        return (atom.start in boundaries or size > sizes.section_max or natural_break
                or (size > sizes.section_target and not _leads_with_heading(current)))

    def fits(group: list[_Atom]) -> bool:
        return count(text[group[0].start:group[-1].end]) <= sizes.section_max

    return _greedy_groups(atoms, breaks_before, fits)


def _snippet_groups(text: str, atoms: list[_Atom], count: Callable[[str], int],
                    sizes: ChunkSizes) -> list[list[_Atom]]:
    """Near the snippet target; a heading starts a new snippet (and stays with its text)."""

    def breaks_before(current: list[_Atom], atom: _Atom) -> bool:
        size = count(text[current[0].start:atom.end])
        if atom.furniture:
            return size > sizes.snippet_max
        leads = _leads_with_heading(current)
        return size > sizes.snippet_max or (atom.heading and not leads) or (
            size > sizes.snippet_target and not leads)

    def fits(group: list[_Atom]) -> bool:
        return count(text[group[0].start:group[-1].end]) <= sizes.snippet_max

    return _greedy_groups(atoms, breaks_before, fits)


def _chunk(text: str, chunk_id: str, level: str, index: int, start: int, end: int,
           atoms: list[_Atom], sections: tuple[Section, ...], parent_id: str | None,
           title: str | None, count: Callable[[str], int], prefix: bool,
           shorten: str = "full") -> Chunk:
    body = text[start:end]
    # Where its own text starts says its section: leading furniture is in none.
    anchor = next((a.start for a in atoms if not a.furniture), start)
    section = next((s for s in reversed(sections) if s.start <= anchor < s.end), None)
    path = section.path if section else ()
    label = section.label if section else None
    pages = sorted({p for atom in atoms for p in atom.pages})
    page_range = (pages[0], pages[-1]) if pages else ()
    searched = _without_furniture(text, atoms) if any(a.furniture for a in atoms) else body
    retrieval = _retrieval_text(title, path, label, searched, shorten) if prefix else searched
    return Chunk(chunk_id, level, index, start, end, body, count(body), path, label,
                 tuple(page_range), parent_id, None, None, retrieval)


def _without_furniture(text: str, atoms: list[_Atom]) -> str:
    """The chunk's text with its running headers and footers left out: each run of
    other atoms as printed, runs a blank line apart (what search and embedding see)."""
    runs: list[str] = []
    run_start: int | None = None
    run_end = 0
    for atom in atoms:
        if atom.furniture:
            if run_start is not None:
                runs.append(text[run_start:run_end])
                run_start = None
            continue
        if run_start is None:
            run_start = atom.start
        run_end = atom.end
    if run_start is not None:
        runs.append(text[run_start:run_end])
    return "\n\n".join(runs)


def _retrieval_text(title: str | None, path: tuple[str, ...], label: str | None,
                    body: str, style: str = "full") -> str:
    """The body after its title, heading path and label. A `short` prefix keeps the first
    `PREFIX_WORDS` words (at most `PREFIX_CHARACTERS` characters) of the title and of
    the last two headings, so that a paragraph-long heading cannot crowd the snippet out
    of a model's input; a `minimal` one keeps the label alone."""
    if style == "minimal":
        return f"[SECTION: {label or 'other'}]\n{body}"
    if style == "short":
        title = _first_words(title or "")
        path = tuple(_first_words(p) for p in path[-2:])
    return (f"[DOC: {title or ''}] [PATH: {' > '.join(path)}] "
            f"[SECTION: {label or 'other'}]\n{body}")


PREFIX_WORDS, PREFIX_CHARACTERS = 12, 80


def _first_words(text: str) -> str:
    kept = " ".join(text.split()[:PREFIX_WORDS])[:PREFIX_CHARACTERS]
    return kept + (" …" if kept != " ".join(text.split()) else "")


def _link(chunks: list[Chunk]) -> tuple[Chunk, ...]:
    linked: list[Chunk] = []
    for level in ("section", "snippet"):
        same = [c for c in chunks if c.level == level]
        for i, chunk in enumerate(same):
            linked.append(attrs.evolve(
                chunk, prev_id=same[i - 1].id if i else None,
                next_id=same[i + 1].id if i + 1 < len(same) else None))
    order = {c.id: i for i, c in enumerate(chunks)}
    return tuple(sorted(linked, key=lambda c: order[c.id]))
