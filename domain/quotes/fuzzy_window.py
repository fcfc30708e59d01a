"""The passage of a text most similar to a query, in near-linear time.

Both are cut into word units (`sheaf.domain.analysis.word_tokens`). Rare query words found in the
text vote for an alignment diagonal (text unit index minus query unit index); the best
few diagonals are aligned piece by piece, each piece of the query against a bounded
region of the text, so the work grows with the lengths of text and query, not with their
product. A passage always starts and ends on a unit, hence on a word (or grapheme)
boundary.

The score is the usual similarity ratio, 2M / (|query| + |passage|), over the letters of
the units (spaces and punctuation are not counted): M counts the letters of the units
aligned whole, plus the letters shared by misspelled units aligned in between.
"""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher

import attrs

from ..analysis.word_tokens import word_units

PIECE_UNITS = 200
"""Query units aligned at a time: small enough that an alignment costs a bounded time."""
MAX_VOTES = 200_000
CANDIDATE_DIAGONALS = 3
MAX_GAP_CHARACTERS = 64
"""Misspelled stretches up to this long are compared letter by letter."""


@attrs.frozen
class Window:
    start: int
    end: int
    score: float


def best_window(text: str, query: str) -> Window | None:
    """The span of `text` most similar to `query`, or None when no word is shared."""
    text_spans, query_spans = word_units(text), word_units(query)
    if not text_spans or not query_spans:
        return None
    text_units = [text[a:b] for a, b in text_spans]
    query_units = [query[a:b] for a, b in query_spans]
    best: Window | None = None
    votes = _votes(text_units, query_units)
    for diagonal in _diagonals(votes, len(query_units)):
        pieces = _piece_diagonals(votes, diagonal, len(query_units))
        blocks = _align(text_units, query_units, diagonal, pieces)
        window = _scored(text_spans, text_units, query_units, blocks)
        if window is not None and (best is None or window.score > best.score):
            best = window
    return best


def _votes(text_units: list[str], query_units: list[str]) -> list[tuple[int, int]]:
    """(query index, diagonal) for occurrences in the text of the rarest shared query
    units, at most `MAX_VOTES` of them."""
    in_text = Counter(text_units)
    positions: dict[str, list[int]] = {}
    for index, unit in enumerate(query_units):
        if unit in in_text:
            positions.setdefault(unit, []).append(index)
    if not positions:
        return []
    occurrences: dict[str, list[int]] = {unit: [] for unit in positions}
    for index, unit in enumerate(text_units):
        if unit in occurrences:
            occurrences[unit].append(index)
    votes: list[tuple[int, int]] = []
    budget = MAX_VOTES
    # The rarest units first: a frequent word votes everywhere and says little.
    for unit in sorted(positions, key=lambda u: in_text[u] * len(positions[u])):
        cost = in_text[unit] * len(positions[unit])
        if cost > budget and votes:
            break
        budget -= cost
        query_indices = positions[unit]
        votes.extend((query_index, text_index - query_index)
                     for text_index in occurrences[unit] for query_index in query_indices)
    return votes


def _diagonals(pairs: list[tuple[int, int]], query_length: int) -> list[int]:
    """The diagonals most voted for, in bands wide enough for the drift that split and
    merged words cause along a long query."""
    votes = Counter(diagonal for _, diagonal in pairs)
    band = max(2, query_length // 20)
    by_band: Counter[int] = Counter()
    for diagonal, count in votes.items():
        by_band[diagonal // band] += count
    chosen: list[int] = []
    for band_index, _ in by_band.most_common():
        if any(abs(band_index - other // band) <= 1 for other in chosen):
            continue
        near = [d for d in votes if abs(d // band - band_index) <= 1]
        chosen.append(max(near, key=lambda d: (votes[d], -d)))
        if len(chosen) == CANDIDATE_DIAGONALS:
            break
    return chosen


def _piece_diagonals(pairs: list[tuple[int, int]], diagonal: int, query_length: int
                     ) -> dict[int, int]:
    """Per query piece, the diagonal its own votes agree on (two votes at least), among
    those near `diagonal`."""
    near: dict[int, Counter[int]] = {}
    for query_index, other in pairs:
        if abs(other - diagonal) <= SLACK + query_length // 5:
            near.setdefault(query_index // PIECE_UNITS, Counter())[other] += 1
    found: dict[int, int] = {}
    for piece, counts in near.items():
        best, count = counts.most_common(1)[0]
        if count >= 2:
            found[piece] = best
    return found


SLACK = 8 + PIECE_UNITS // 4


def _align(text_units: list[str], query_units: list[str], diagonal: int,
           piece_diagonals: dict[int, int]) -> list[tuple[int, int, int]]:
    """Blocks (query index, text index, length) of units aligned along `diagonal`, piece
    by piece: each piece is looked for where its own votes point, else where the previous
    one ended."""
    blocks: list[tuple[int, int, int]] = []
    slack = SLACK
    offset = diagonal  # text index minus query index, re-anchored after every piece
    taken = 0  # text units before this are aligned already: blocks stay in order
    for piece_start in range(0, len(query_units), PIECE_UNITS):
        offset = piece_diagonals.get(piece_start // PIECE_UNITS, offset)
        piece = query_units[piece_start:piece_start + PIECE_UNITS]
        region_start = max(0, taken, piece_start + offset - slack)
        region_end = min(len(text_units), piece_start + offset + len(piece) + slack)
        if region_start >= region_end:
            continue
        region = text_units[region_start:region_end]
        matcher = SequenceMatcher(None, piece, region, autojunk=False)
        found = _closed_up(text_units, [(piece_start + a, region_start + b, size)
                                        for a, b, size in matcher.get_matching_blocks()
                                        if size])
        if found:
            last_query, last_text, size = found[-1]
            offset = last_text - last_query
            taken = last_text + size
            blocks.extend(found)
    return blocks


def _closed_up(text_units: list[str], blocks: list[tuple[int, int, int]]
               ) -> list[tuple[int, int, int]]:
    """The blocks, each moved as close to the next as the same words allow.

    The matcher takes the earliest of equal candidates, so a short block before a longer
    one ("the" before "aan aao the aap ...") may land on a far earlier "the"; the copy
    where the query's gap says it belongs is looked for near there."""
    result = list(blocks)
    for i in range(len(result) - 2, -1, -1):
        query_index, text_index, size = result[i]
        next_query, next_text, _ = result[i + 1]
        expected = next_text - (next_query - query_index)
        if text_index >= expected - 2:
            continue
        run = text_units[text_index:text_index + size]
        for candidate in range(min(expected + 2, next_text - size), text_index, -1):
            if candidate <= expected - 8:
                break
            if text_units[candidate:candidate + size] == run:
                result[i] = (query_index, candidate, size)
                break
    return result


def _scored(text_spans: list[tuple[int, int]], text_units: list[str],
            query_units: list[str], blocks: list[tuple[int, int, int]]) -> Window | None:
    """The best-scoring run of consecutive blocks, as a character span."""
    if not blocks:
        return None
    query_letters = sum(len(u) for u in query_units)
    # Prefix sums of text letters, to size any passage in constant time.
    first_text, last_text = blocks[0][1], blocks[-1][1] + blocks[-1][2]
    letters = [0]
    for unit in text_units[first_text:last_text]:
        letters.append(letters[-1] + len(unit))
    gains, between = [0], [0]  # prefix sums: letters of blocks, letters between them
    for i, block in enumerate(blocks):
        gains.append(gains[-1] + _block_letters(query_units, block))
        if i + 1 < len(blocks):
            between.append(between[-1] + _gap_letters(text_units, query_units, block,
                                                      blocks[i + 1]))

    def score(first: int, last: int) -> float:
        matched = gains[last + 1] - gains[first] + between[last] - between[first]
        start = blocks[first][1] - first_text
        end = blocks[last][1] + blocks[last][2] - first_text
        return 2 * matched / (query_letters + letters[end] - letters[start])

    # Stray blocks at either end lengthen the passage more than they match: trim them.
    first, last = 0, len(blocks) - 1
    current = score(first, last)
    while first < last:
        trimmed = [(score(first + 1, last), 1), (score(first, last - 1), -1)]
        candidate, side = max(trimmed)
        if candidate <= current:
            break
        current = candidate
        first, last = (first + 1, last) if side == 1 else (first, last - 1)
    start = text_spans[blocks[first][1]][0]
    end = text_spans[blocks[last][1] + blocks[last][2] - 1][1]
    return Window(start, end, min(1.0, current))


def _block_letters(query_units: list[str], block: tuple[int, int, int]) -> int:
    query_index, _, size = block
    return sum(len(u) for u in query_units[query_index:query_index + size])


def _gap_letters(text_units: list[str], query_units: list[str], before: tuple[int, int, int],
                 after: tuple[int, int, int]) -> int:
    """Letters shared by the units between two blocks ("algoritm" against "algorithm")."""
    query_gap = "".join(query_units[before[0] + before[2]:after[0]])
    text_gap = "".join(text_units[before[1] + before[2]:after[1]])
    if not query_gap or not text_gap or len(query_gap) + len(text_gap) > 2 * MAX_GAP_CHARACTERS:
        return 0
    return sum(b.size for b in SequenceMatcher(None, query_gap, text_gap,
                                               autojunk=False).get_matching_blocks())
