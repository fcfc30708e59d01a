"""The store as the use cases see it: small ports, each with one concern."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import attrs

from ...domain.store.knowledge_records import StoreCompaction
from ..ports.answer_cache import AnswerCache
from ..ports.catalogue import Catalogue
from ..ports.held_blobs import HeldBlobs
from ..ports.search_index import SearchIndex
from ..ports.space_policies import SpacePolicies
from ..ports.unit_of_work import UnitOfWork


@attrs.frozen
class Storage:
    """One store's ports. An adapter may implement several with one object."""

    unit_of_work: Callable[[], UnitOfWork]
    """A new unit of work for each batch of writes."""
    catalogue: Catalogue
    index: SearchIndex
    policies: SpacePolicies
    answers: AnswerCache
    close: Callable[[], Awaitable[None]]
    compact: Callable[[], Awaitable[StoreCompaction]] | None = None
    """Rewrite the store with only its live data, after work that rewrote much of it
    (None: the store needs no such thing)."""
    held_blobs: HeldBlobs | None = None
    """The small blobs the store keeps itself (None: it keeps none)."""
    held_blob_bytes: int = 0
    """Blobs up to this size are kept by the store itself, written with the version
    that references them in its transaction (`VersionBundle.blobs`) and read through
    `held_blobs` (ADR-0047); 0: every blob is put in the blob store before the commit."""
