"""Python's cyclic garbage collector held off while a document is read.

Reading a PDF page or building an HTML page's tree makes tens of thousands of small
container objects (glyphs, boxes and lines; elements, their attribute dicts and child
lists) that live until the document is read: each few hundred allocations start a young
collection that finds nothing to free, and each so many a full one that walks the whole
heap, the larger the process the dearer. On the dev papers that was a quarter of both
PDF engines' CPU time (ADR-0042); on the dev web pages a sixth of the HTML extractor's
(ADR-0039). A PDF page's objects form no cycles and are freed by reference counting; an
HTML tree's parent links are cycles, collected once, when the collector runs again after
the last reading in the process ends.

The pause is counted across threads: the first reader to start turns the collector off
(if it was on), the last to end turns it back on; a collector the program had turned
off before stays off. Readers that overlap without end (a long batch with several
workers) would keep it off for good, and the rest of the process (the event loop, HTTP
clients, the store) does make cyclic garbage: so a reader that ends while others read,
once the pause has lasted `LONGEST_PAUSE`, collects once itself.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

LONGEST_PAUSE = 5.0
"""Seconds of pause after which an ending reader collects (a full collection of a large
heap costs tens of milliseconds: at most one each this often)."""

_LOCK = threading.Lock()
_readers = 0
_turned_off = False
_collected_at = 0.0


@contextmanager
def paused_collection() -> Iterator[None]:
    """Hold the cyclic collector off (if it is on) while the block runs."""
    global _readers, _turned_off, _collected_at
    with _LOCK:
        _readers += 1
        if _readers == 1 and gc.isenabled():
            gc.disable()
            _turned_off = True
            _collected_at = time.monotonic()
    try:
        yield
    finally:
        collect = False
        with _LOCK:
            _readers -= 1
            if _readers == 0 and _turned_off:
                _turned_off = False
                gc.enable()
            elif _turned_off and time.monotonic() - _collected_at >= LONGEST_PAUSE:
                _collected_at = time.monotonic()
                collect = True
        if collect:
            gc.collect()
