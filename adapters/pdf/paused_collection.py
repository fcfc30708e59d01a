"""Python's cyclic garbage collector held off while a PDF is read.

Reading a page makes tens of thousands of small objects (a glyph, its box and matrix
tuples, lines, boxes) that live until the page is read: each few hundred allocations
start a young collection that finds nothing to free, and each so many a full one that
walks the whole heap. On the dev papers that was a quarter of both engines' CPU time
(ADR-0042). What a page reads is freed by reference counting either way (its objects
form no cycles); the collector runs again once the last reading in the process ends.

The pause is counted across threads: the first reader to start turns the collector off
(if it was on), the last to end turns it back on; a collector the program had turned
off before stays off.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()
_readers = 0
_turned_off = False


@contextmanager
def paused_collection() -> Iterator[None]:
    global _readers, _turned_off
    with _LOCK:
        _readers += 1
        if _readers == 1 and gc.isenabled():
            gc.disable()
            _turned_off = True
    try:
        yield
    finally:
        with _LOCK:
            _readers -= 1
            if _readers == 0 and _turned_off:
                _turned_off = False
                gc.enable()
