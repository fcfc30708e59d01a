"""A cheap upper estimate of how deep a page's elements nest, read from its tags before
parsing.

html5lib's tree construction scans its stack of open elements on many start tags, so
its cost grows with the square of the nesting depth (20,000 nested `<div>` take seconds,
100,000 minutes). Real pages nest a few dozen levels; pages past the limit are refused
as `too_complex` before the parser sees them.
"""

from __future__ import annotations

import re

from ...domain.errors import ErrorKind, SheafError

MAX_NESTING = 1000
"""Levels beyond which a page is refused; the 568 development pages peak at 56."""

_TAG = re.compile(rb"<(/?)([A-Za-z][A-Za-z0-9:-]*)(?:\s[^>]*)?(/?)>")
# Elements that never hold children, and elements whose start closes an open one of the
# same kind (`<li>` after `<li>`): counting them would inflate a flat list or paragraph
# run into a deep one.
_NOT_NESTING = frozenset(
    b"area base br col embed hr img input link meta source track wbr param keygen frame "
    b"basefont bgsound p li dt dd option optgroup tr td th thead tbody tfoot colgroup rp rt "
    b"rb rtc html head body".split())


def estimated_depth(body: bytes, *, stop_at: int | None = None) -> int:
    """The deepest stack of open elements, modelled as the parser keeps it: an end tag
    closes its element and everything left open inside it; an end tag with no open
    element of its name is ignored. Counting stops past `stop_at`."""
    stack: list[bytes] = []
    # Open elements by name, so an end tag that closes nothing costs O(1) rather than a
    # scan of the whole stack (a deep stack plus a flood of stray end tags would make
    # this check itself quadratic); each element is popped at most once.
    open_count: dict[bytes, int] = {}
    peak = 0
    # Tag names lowered with the page at once (the pattern's classes hold both cases,
    # so it finds the same tags in the lowered bytes).
    for closing, name, self_closing in map(re.Match.groups, _TAG.finditer(body.lower())):
        if name in _NOT_NESTING or self_closing:
            continue
        if not closing:
            stack.append(name)
            open_count[name] = open_count.get(name, 0) + 1
            if len(stack) > peak:
                peak = len(stack)
                if stop_at is not None and peak > stop_at:
                    break
        elif open_count.get(name):
            while True:
                popped = stack.pop()
                open_count[popped] -= 1
                if popped == name:
                    break
    return peak


def check_nesting(body: bytes, *, url: str | None = None) -> None:
    """Raise `too_complex` for a page nested deeper than `MAX_NESTING` levels."""
    depth = estimated_depth(body, stop_at=MAX_NESTING)
    if depth > MAX_NESTING:
        raise SheafError(ErrorKind.TOO_COMPLEX,
                         f"the page nests elements more than {MAX_NESTING} levels deep", url=url)
