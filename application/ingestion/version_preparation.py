"""Preparing a version from bytes in hand: extracted, analysed, its staged artifacts
encoded and its fingerprint taken. One function of picklable values, so the same steps
run in the caller's worker threads or in a child process (ADR-0037)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable, Sequence

import attrs

from ...domain.analysis.chunking import Chunk, ChunkSizes
from ...domain.analysis.token_counting import TokenCounting
from ...domain.document.content_source import ContentSource
from ...domain.document.document import Document
from ...domain.document.extraction_confidence import CONFIDENCE_KEY
from ...domain.errors import ErrorKind, SheafError
from ...domain.search.feature_hashing import shingle_fingerprint
from ...domain.store.document_analysis import VersionAnalysis, analyse_version
from ...domain.store.knowledge_records import BlockRow
from ...domain.store.staged_version import StagedVersion
from ..concurrency.worker_pool import WorkerPool
from ..extraction.document_extraction import DocumentExtraction


@attrs.frozen
class Extracted:
    """A document extracted for ingestion, with what its version records of how."""

    document: Document
    source: ContentSource
    content_type: str
    content: bytes
    final_url: str | None
    diagnostics: tuple[str, ...]


@attrs.frozen
class PreparationRequest:
    """Bytes to prepare a version from. Without `version_id` they are only extracted
    (a dry run: what a real run would refuse is refused, nothing is analysed)."""

    body: bytes
    declared_type: str | None
    location: str
    password: str | None
    fetched_sha: str
    version_id: str | None
    chunk_sizes: ChunkSizes
    counting: TokenCounting
    stage_after: float = 0.0
    """Seconds of extraction from which the staged artifacts are encoded, for `resume`:
    a document extracted faster is extracted again instead (its three files cost more
    than that, and 17x its Markdown on disk, ADR-0041)."""


@attrs.frozen
class PreparedVersion:
    """What storing a version needs from its bytes: its staged version and artifacts
    (`markdown` is document.md; `meta_json` and `chunks_jsonl` empty when not worth
    staging), its fingerprint, and how long each step took in ms."""

    source: ContentSource
    staged: StagedVersion | None = None
    markdown: bytes = b""
    markdown_sha: str = ""
    chunks_jsonl: bytes = b""
    meta_json: bytes = b""
    fingerprint: tuple[float, ...] = ()
    extract_ms: float = 0.0
    chunk_ms: float = 0.0
    stage_ms: float = 0.0


Preparation = Callable[[PreparationRequest], Awaitable[PreparedVersion]]
"""Prepares a version: `prepare_version` in this process's worker threads, or the same in
a child process."""


async def prepare_version(request: PreparationRequest, extraction: DocumentExtraction,
                          pool: WorkerPool) -> PreparedVersion:
    """Extract `request.body`, then (with a version id) analyse it, encode its staged
    artifacts and take its fingerprint; CPU-heavy steps in `pool`."""
    started = time.perf_counter()
    extracted = await extract_body(extraction, request.body, request.declared_type,
                                   request.location, request.password)
    extracted_at = time.perf_counter()
    if request.version_id is None:
        return PreparedVersion(extracted.source, extract_ms=_ms(started, extracted_at))
    worth_staging = extracted_at - started >= request.stage_after
    # Analysed and staged in one hand-over to a worker: each costs a thread's wake-up,
    # which on a loaded machine is most of a small document's preparation (ADR-0047).
    staged, chunked_at = await pool.run(_analysed_and_staged, request, extracted,
                                        worth_staging)
    return attrs.evolve(staged, extract_ms=_ms(started, extracted_at),
                        chunk_ms=_ms(extracted_at, chunked_at),
                        stage_ms=_ms(chunked_at, time.perf_counter()))


def _analysed_and_staged(request: PreparationRequest, extracted: Extracted,
                         worth_staging: bool) -> tuple[PreparedVersion, float]:
    """The version analysed, then staged; with the moment its analysis ended."""
    assert request.version_id is not None  # only asked for with one
    analysis = analyse_version(extracted.document, request.version_id, request.chunk_sizes,
                               request.counting, extracted.source)
    chunked_at = time.perf_counter()
    return staged_files(request.version_id, extracted, analysis, request.fetched_sha,
                        worth_staging), chunked_at


async def extract_body(extraction: DocumentExtraction, body: bytes,
                       declared_type: str | None, location: str, password: str | None
                       ) -> Extracted:
    """`body` extracted along its route; `empty` when it holds no text."""
    found = await extraction.extract(body, declared_type=declared_type, location=location,
                                     password=password)
    if not found.document.text.strip():
        raise SheafError(ErrorKind.EMPTY, "no text could be extracted", url=location)
    return Extracted(found.document, found.source,
                     found.content_type or found.decision.media_type.essence
                     or declared_type or "",
                     body, None, (f"route: {found.decision.reason}",
                                  *(f"extract: {n}" for n in found.document.report)))


def staged_files(version_id: str, extracted: Extracted, analysis: VersionAnalysis,
                 content_sha: str, serialised: bool = True) -> PreparedVersion:
    """The version staged from what was extracted and its analysis, its artifacts
    encoded when `serialised` (document.md always hashed) and its fingerprint taken."""
    document = extracted.document
    markdown = document.text.encode()
    markdown_sha = hashlib.sha256(markdown).hexdigest()
    staged = StagedVersion(
        version_id=version_id, title=document.title, content_source=extracted.source.value,
        content_type=extracted.content_type, metadata=version_metadata(document),
        diagnostics=extracted.diagnostics, blocks=_block_rows(document),
        characters=len(document.text), final_url=extracted.final_url,
        content_sha=content_sha, markdown_sha=markdown_sha, chunks=analysis.chunks,
        sections=analysis.sections, profile=analysis.profile)
    return PreparedVersion(extracted.source, staged, markdown, markdown_sha,
                           staged.chunks_jsonl() if serialised else b"",
                           staged.meta_json() if serialised else b"",
                           snippet_fingerprint(staged.chunks))


def snippet_fingerprint(chunks: Sequence[Chunk]) -> tuple[float, ...]:
    """The shingle fingerprint of a version's snippets, which near-duplicates compare."""
    return shingle_fingerprint(" ".join(c.text for c in chunks if c.level == "snippet"))


def version_metadata(document: Document) -> dict[str, object]:
    """What a stored version records of its document: the page's own metadata and, for
    pages whose main content was chosen, the extraction confidence."""
    recorded = document.metadata.as_dict()
    if document.confidence is not None:
        recorded[CONFIDENCE_KEY] = document.confidence.as_dict()
    return recorded


def _block_rows(document: Document) -> tuple[BlockRow, ...]:
    return tuple(BlockRow(kind=b.kind.value, start=b.start, end=b.end, level=b.level,
                          label=b.draft.label, pages=b.draft.pages) for b in document.blocks)


def _ms(start: float, end: float) -> float:
    return round((end - start) * 1000, 2)
