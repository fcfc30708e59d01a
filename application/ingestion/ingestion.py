"""Ingestion: a source (URL or file) fetched or read, deduplicated, extracted and stored."""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime

import anyio
import attrs

from ...domain.analysis.chunking import DEFAULT_SIZES, Chunk, ChunkSizes
from ...domain.analysis.token_counting import ESTIMATED_TOKENS
from ...domain.document.content_source import ContentSource
from ...domain.document.extraction_confidence import confidence_of
from ...domain.enrichment.enrichment import EnrichmentKind
from ...domain.errors import ErrorKind, SheafError
from ...domain.fetching.url_normalisation import is_url, normalise_url
from ...domain.queue.ingest_jobs import QueuedFile
from ...domain.rendering.render_need import RenderMode
from ...domain.routing.directory_listing import DirectoryListing, SkippedFile
from ...domain.store.document_analysis import StoredStructure, analyse_version
from ...domain.store.ingestion import (
    DEFAULT_SPACE,
    IngestResult,
    IngestStatus,
    SourceKind,
    SourceRef,
    SpacePolicy,
)
from ...domain.store.knowledge_records import VersionRecord
from ...domain.store.staged_version import StagedVersion
from ...domain.store.version_bundle import VersionBundle
from ...domain.store.version_decision import decide
from ...domain.text.undecodable_names import storable_name
from ...domain.values.frozen_mapping import frozen_mapping
from ..concurrency.worker_pool import WorkerPool
from ..enrichment.enrichment import Enrichment
from ..extraction.content_resolver import ContentResolver, FetchedPage, Preference
from ..extraction.document_extraction import DocumentExtraction
from ..ports.artifact_store import ArtifactStore
from ..ports.blob_store import BlobStore
from ..ports.embedder import Embedder
from ..ports.file_reader import FileReader
from ..ports.unit_of_work import UnitOfWork
from ..search.snippet_embedding import embed_snippets
from ..store.blob_guard import blob_guard
from ..store.held_first_blobs import blobs_of
from ..store.staging import stage_key
from ..store.storage import Storage
from .commit_group import CommitGroup, Write
from .keyed_locks import KeyedLocks
from .rehearsal import Rehearsal
from .stage_events import StageRecorder, failed_outcome
from .version_preparation import (
    Extracted,
    Preparation,
    PreparationRequest,
    PreparedVersion,
    prepare_version,
    snippet_fingerprint,
    staged_files,
)


@attrs.frozen
class IngestOptions:
    """How one source is ingested."""

    space: str = DEFAULT_SPACE
    metadata: Mapping[str, str] = attrs.field(factory=dict, converter=frozen_mapping)
    force: bool = False
    dry_run: bool = False
    password: str | None = None
    prefer: Preference = "auto"
    resume: bool = False
    """Use a complete set of staged artifacts instead of extracting again."""
    source_id: str | None = None
    """The caller's own id for the source, kept and searchable."""
    version_id: str | None = None
    enrich: frozenset[EnrichmentKind] | None = None
    """LLM enrichments for new and changed versions; None follows the space's policy."""
    upload_name: str | None = None
    """For a file a client uploaded: the file name it gave, which citations show."""
    confined_to: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    """Folders a local file must be read from (the MCP server's allowed folders):
    checked on the file opened, links not followed (ADR-0029)."""
    queued_file: QueuedFile | None = None
    """A file read on the machine that enqueued it, its bytes waiting in the blob store:
    ingested from there, keyed by its path as a local ingest of it would be."""
    rehearsal: Rehearsal | None = attrs.field(default=None, eq=False)
    """With `dry_run`, over a batch: what its earlier sources would have stored."""
    render: RenderMode = "auto"
    """Whether a URL's page is rendered in a browser: `auto` when its served markup is
    thin and built by script; `always`; `never`."""
    fetched: FetchedPage | None = None
    """The URL's answer, already fetched by the caller (a crawl reads its links first):
    ingested as it is, not fetched again."""
    limiter: anyio.CapacityLimiter | None = attrs.field(default=None, eq=False)
    """Over a batch: how many of its sources are at work at once. Sources waiting for
    their group's commit do not count, so more may be in flight (ADR-0041)."""


@attrs.frozen
class _Prepared:
    """What an ingest decided before its commit: its result, and the writes (with the
    bytes of text they hold) that commit it; None when nothing is written."""

    result: IngestResult
    write: Write | None = None
    size: int = 0
    stage: str = "store"
    outcome: str = "ok"


logger = logging.getLogger("sheaf.ingestion")

INLINE_BYTES = 64 * 1024
"""Up to this size, hashing and encoding run on the event loop (tens of microseconds)."""
STAGE_AFTER = 0.25
"""Seconds of extraction from which a version's artifacts are staged for `resume`
(`PreparationRequest.stage_after`)."""
NEAR_DUPLICATE_THRESHOLD = 0.95
"""Cosine of shingle fingerprints at or above which a new document is flagged."""


@attrs.frozen
class IngestionPorts:
    """What ingestion reads from and writes to."""

    resolver: ContentResolver
    extraction: DocumentExtraction
    files: FileReader
    storage: Storage
    blobs: BlobStore
    artifacts: ArtifactStore


class Ingestion:
    """Stores what a source holds. Same source and bytes: `unchanged`, nothing re-extracted;
    new bytes: `changed`, a new version replaces the old; bytes already stored under
    another source: `duplicate`, recorded as an alias. A new version is analysed once,
    enriched before it is embedded, and committed as one bundle. Bytes in hand are
    prepared (extracted, analysed, encoded) by `preparation`: `prepare_version` in the
    worker pool by default, a child process for a server (ADR-0037)."""

    def __init__(self, ports: IngestionPorts, *,
                 embedder: Embedder | None = None,
                 enrichment: Enrichment | None = None,
                 chunk_sizes: ChunkSizes = DEFAULT_SIZES,
                 recorder: StageRecorder | None = None,
                 pool: WorkerPool | None = None,
                 preparation: Preparation | None = None,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._resolver = ports.resolver
        self._extraction = ports.extraction
        self._files = ports.files
        self._storage = ports.storage
        self._blobs = blobs_of(ports.storage, ports.blobs)
        self._artifacts = ports.artifacts
        self.recorder = recorder or StageRecorder()
        self.embedder = embedder
        self.near_duplicate_threshold = NEAR_DUPLICATE_THRESHOLD
        self._pool = pool or WorkerPool()
        self._preparation: Preparation = preparation or functools.partial(
            prepare_version, extraction=self._extraction, pool=self._pool)
        self.enrichment = enrichment
        self.chunk_sizes = chunk_sizes
        self._clock = clock
        self._locks = KeyedLocks()
        self._group = CommitGroup(ports.storage)
        self.stage_after = STAGE_AFTER

    @property
    def resolver(self) -> ContentResolver:
        """The resolver URLs are fetched and routed with."""
        return self._resolver

    async def expand(self, sources: list[str], recursive: bool = False) -> list[str]:
        """URLs and files as given; each directory replaced by the files under it that
        sheaf can ingest."""
        return list((await self.expand_listing(sources, recursive)).files)

    async def expand_listing(self, sources: list[str], recursive: bool = False
                             ) -> DirectoryListing:
        """Like `expand`, with every file a directory holds that is left out, and why."""
        return await expand_listing(self._files, sources, recursive)

    async def ingest(self, source: str, options: IngestOptions | None = None) -> IngestResult:
        """Ingest one source; failures come back as a `failed` result naming their kind.

        An unexpected exception (a defect, not bad input) is logged in full and becomes
        this source's `internal` failure, so one source never ends a batch."""
        options = options or IngestOptions()
        try:
            return await self._ingest(source, options)
        except SheafError as exc:
            return IngestResult(source, IngestStatus.FAILED, error_kind=exc.kind.value,
                                message=str(exc))
        except Exception as exc:  # isolation is the point: a defect fails one source
            logger.exception("ingesting %s failed unexpectedly", source)
            first_line = (str(exc).strip().splitlines() or [""])[0][:200]
            return IngestResult(source, IngestStatus.FAILED,
                                error_kind=ErrorKind.INTERNAL.value,
                                message=f"{type(exc).__name__}: {first_line}".rstrip(": "))

    async def _ingest(self, source: str, options: IngestOptions) -> IngestResult:
        space = options.space
        policy = await self._storage.policies.policy(space)
        policy.check_enabled(source)
        async with self._group.working(options.limiter):
            source, ref, page, body, type_hint = await self._read(source, options, policy)
            policy.check_size(len(body), source)
            # A small body is hashed at once: handing it to a worker costs more.
            fetched_sha = (sha256_hex(body) if len(body) <= INLINE_BYTES
                           else await self._pool.run(sha256_hex, body))
        # Concurrent ingests of the same bytes or the same source take turns, so the
        # second one sees the first one's document (duplicate or unchanged, not new twice).
        async with self._locks.hold(f"sha:{space}:{fetched_sha}"), \
                self._locks.hold(f"key:{space}:{ref.key}"), \
                blob_guard(self._blobs).writing(), self._storage.unit_of_work() as work:
            async with self._group.working(options.limiter):
                prepared = await self._prepare(work, source, ref, page, body, type_hint,
                                               fetched_sha, options, policy)
            if prepared.write is not None:
                # Committed with the other ingests ready at the same moment (ADR-0041).
                result = prepared.result
                with self.recorder.stage(source, prepared.stage,
                                         result.document_id) as state:
                    await self._group.commit(prepared.write, prepared.size)
                    state["outcome"] = prepared.outcome
            return prepared.result

    async def _read(self, source: str, options: IngestOptions, policy: SpacePolicy
                    ) -> tuple[str, SourceRef, FetchedPage | None, bytes, str | None]:
        """The source's name as stored, its reference, the page fetched (for a URL), its
        bytes and the type they were given."""
        page: FetchedPage | None = None
        with self.recorder.stage(source, "fetch"):
            if is_url(source):
                ref = SourceRef(SourceKind.URL, normalise_url(source), source)
                page = options.fetched or await self._resolver.fetch(
                    source, options.prefer, render=options.render)
                body = page.response.body
                type_hint: str | None = page.response.content_type
            elif options.queued_file is not None:
                queued = options.queued_file
                ref = SourceRef(SourceKind.FILE, queued.path, source)
                body, type_hint = await self._queued_bytes(queued, source), queued.type_hint
            else:
                local = await self._files.read(source, policy.max_bytes,
                                               confined_to=options.confined_to)
                # The name was needed as given to open the file; from here on it is
                # stored and printed, which a name that is not UTF-8 cannot be.
                source = storable_name(source)
                path = storable_name(local.path)
                ref = (SourceRef(SourceKind.UPLOAD, path, storable_name(options.upload_name))
                       if options.upload_name else
                       SourceRef(SourceKind.FILE, path, source))
                body, type_hint = local.data, local.type_hint
        return source, ref, page, body, type_hint

    async def _queued_bytes(self, queued: QueuedFile, source: str) -> bytes:
        try:
            body = await self._blobs.get(queued.sha256)
        except SheafError as exc:
            if exc.kind is not ErrorKind.DOCUMENT_NOT_FOUND:
                raise
            raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"the queued bytes of {source} "
                             f"({queued.sha256[:12]}) are no longer in the blob store: "
                             "enqueue it again") from None
        if hashlib.sha256(body).hexdigest() != queued.sha256:  # a store that cannot check
            raise SheafError(ErrorKind.CORRUPT, f"the queued bytes of {source} do not "
                             f"match their sha256 {queued.sha256[:12]}")
        return body

    async def _prepare(self, work: UnitOfWork, source: str, ref: SourceRef,
                       page: FetchedPage | None, body: bytes, type_hint: str | None,
                       fetched_sha: str, options: IngestOptions,
                       policy: SpacePolicy) -> _Prepared:
        """Decide what the new bytes are and do all the work before their commit."""
        space = options.space
        record = self.recorder
        known = await work.sources.get(space, ref.key)
        twin = await work.sources.holding(space, fetched_sha) if known is None else None
        if twin is None and known is None and options.dry_run and options.rehearsal:
            twin = options.rehearsal.holding(space, fetched_sha)
        latest = (await work.versions.latest_number(space, known.document_id)
                  if known is not None else 0)
        decision = decide(space, ref.key, known, latest, twin, fetched_sha, options.force)
        document_id = decision.document_id
        if decision.outcome in (IngestStatus.UNCHANGED, IngestStatus.DUPLICATE):
            found = IngestResult(source, decision.outcome, document_id)
            if options.dry_run:
                with record.stage(source, "dedup", document_id) as state:
                    state["outcome"] = decision.outcome.value
                return _Prepared(found)
            final_url = _final_url(page)

            def seen(w: UnitOfWork) -> None:
                if decision.outcome is IngestStatus.UNCHANGED:
                    w.sources.touch(space, ref.key)
                else:
                    w.sources.add(space, document_id, ref, fetched_sha, final_url)

            return _Prepared(found, seen, stage="dedup", outcome=decision.outcome.value)
        status = decision.outcome
        if options.dry_run:
            # Extracted as a real run would, so what it would refuse (empty, unsupported,
            # spoofed, corrupt, an image without OCR, a kind the space refuses) fails
            # here too; nothing is staged or written.
            if page is not None:
                with record.stage(source, "extract", document_id):
                    content_source = (await self._extract_page(page, options)).source
            else:
                content_source = (await self._prepare_bytes(
                    body, type_hint, source, options, fetched_sha, None, document_id)).source
            policy.check_kind(content_source, source)
            if options.rehearsal is not None:
                options.rehearsal.would_store(space, fetched_sha, document_id)
            return _Prepared(IngestResult(source, status,
                                          known.document_id if known else None))

        number, version_id = decision.number, decision.version_id
        assert number is not None and version_id is not None  # new or changed: stored
        staging_key = stage_key(space, ref.key, fetched_sha)
        prepared = (await self._staged(staging_key, version_id) if options.resume else None)
        made: PreparedVersion | None = None
        held: tuple[tuple[str, bytes], ...] = ()
        if prepared is not None:
            with record.stage(source, "extract", document_id) as state:
                state["outcome"] = "resumed"
            held = await self._keep(((body, fetched_sha),))
        elif page is not None:
            made = await self._prepare_page(page, body, fetched_sha, version_id, source,
                                            options, policy, document_id)
        else:
            made = await self._prepare_bytes(body, type_hint, source, options, fetched_sha,
                                             version_id, document_id)
            policy.check_kind(made.source, source)  # before anything is written
            record.add(source, "chunk", made.chunk_ms, document_id)
        if made is not None:
            with record.stage(source, "stage", document_id):
                prepared, held = await self._stage(staging_key, body, fetched_sha, made)
        assert prepared is not None  # resumed or just staged
        policy.check_kind(ContentSource(prepared.content_source), source)
        kinds = options.enrich if options.enrich is not None else frozenset(
            EnrichmentKind(k) for k in policy.enrich)
        chunks, summary, enriched = prepared.chunks, None, None
        notes: tuple[str, ...] = ()
        if kinds:
            with record.stage(source, "enrich", document_id) as state:
                markdown = made.markdown if made is not None else \
                    await self._blobs.get(prepared.markdown_sha)
                chunks, summary, notes, enriched = await self._enrich(
                    prepared, markdown.decode("utf-8"), kinds)
                state["outcome"] = enriched
        with record.stage(source, "embed", document_id):
            vectors = await embed_snippets(self.embedder, self._storage.index, space, chunks)
        with record.stage(source, "near-duplicates", document_id) as state:
            # Taken while preparing, unless enrichment gave the snippets new text.
            fingerprint = made.fingerprint if made is not None and \
                chunks is prepared.chunks else await self._pool.run(snippet_fingerprint,
                                                                     chunks)
            near, similarity = await self._near_duplicate(space, document_id, fingerprint)
            state["outcome"] = near or "none"
        version = VersionRecord(
            id=version_id, document_id=document_id, space=space, number=number,
            fetched_sha=fetched_sha, content_sha=prepared.content_sha,
            markdown_sha=prepared.markdown_sha, content_source=prepared.content_source,
            content_type=prepared.content_type, title=prepared.title,
            created_at=self._clock(), metadata=prepared.metadata,
            caller_metadata=options.metadata, caller_version_id=options.version_id,
            diagnostics=(*prepared.diagnostics, *notes), blocks=prepared.blocks,
            characters=prepared.characters, near_duplicate_of=near,
            near_duplicate_similarity=similarity, enrichment=summary)
        structure = (StoredStructure(prepared.sections, prepared.profile,
                                     self.chunk_sizes)
                     if prepared.profile is not None else None)
        bundle = VersionBundle(version, ref, structure, chunks, vectors, fingerprint,
                               prepared.final_url, options.source_id, held)
        confidence = confidence_of(prepared.metadata)
        return _Prepared(
            IngestResult(source, status, document_id, version.id, title=prepared.title,
                         near_duplicate_of=near, enrichment=enriched,
                         extraction_confidence=confidence.score if confidence else None,
                         low_confidence=confidence.reason if confidence and confidence.low
                         else None),
            lambda w: w.versions.add(bundle),
            size=sum(len(c.text) for c in chunks) + prepared.characters)

    async def _enrich(self, prepared: StagedVersion, text: str,
                      kinds: frozenset[EnrichmentKind]
                      ) -> tuple[tuple[Chunk, ...], dict[str, object] | None,
                                 tuple[str, ...], str]:
        """The chunks with their contexts, the summary, diagnostics and outcome. A failure
        leaves the version to be stored unenriched, with a diagnostic saying why."""
        if self.enrichment is None:
            note = "enrich: skipped, no language model is configured (SHEAF_LLM_BASE_URL)"
            return prepared.chunks, None, (note,), "skipped"
        try:
            done = await self.enrichment.prepare(prepared.title, text, prepared.markdown_sha,
                                                 prepared.chunks, kinds)
        except SheafError as exc:
            note = (f"enrich: failed, stored without enrichment: {exc.kind.value}: "
                    f"{exc.message}")
            return prepared.chunks, None, (note,), "failed"
        return (done.chunks, done.summary.as_dict() if done.summary else None,
                done.diagnostics, "partial" if done.diagnostics else "enriched")

    async def _near_duplicate(self, space: str, document_id: str,
                              fingerprint: tuple[float, ...]
                              ) -> tuple[str | None, float | None]:
        if not any(fingerprint):
            return None, None
        for other, similarity in await self._storage.index.similar_documents(
                space, fingerprint, self.near_duplicate_threshold):
            if other != document_id:
                return other, similarity
        return None, None

    async def _stage(self, key: str, body: bytes, fetched_sha: str, made: PreparedVersion
                     ) -> tuple[StagedVersion, tuple[tuple[str, bytes], ...]]:
        """Keep the bytes and write the version's artifacts: document.md, chunks.jsonl, then
        meta.json, whose presence marks the set complete (what `resume` looks for). They
        were encoded and hashed while preparing: a large document's artifacts take seconds
        to serialise, and the event loop must keep answering meanwhile. A document
        extracted faster than `stage_after` has none (it is extracted again on resume).
        Returns the blobs the version's own write is to hold (`_keep`)."""
        assert made.staged is not None  # prepared with a version id
        held = await self._keep(((body, fetched_sha), (made.markdown, made.markdown_sha)))
        if not made.meta_json:
            return made.staged, held
        await self._artifacts.write(key, "document.md", made.markdown)
        await self._artifacts.write(key, "chunks.jsonl", made.chunks_jsonl)
        await self._artifacts.write(key, "meta.json", made.meta_json)
        return made.staged, held

    async def _keep(self, blobs: tuple[tuple[bytes, str], ...]
                    ) -> tuple[tuple[str, bytes], ...]:
        """Put each (bytes, sha256) in the blob store, except those small enough for the
        store to hold in the version's own transaction: those are returned, to travel in
        its bundle. A small document then costs no file and no fsync (7–8 ms each on
        this machine, on every ingest's path: ADR-0047)."""
        limit = self._storage.held_blob_bytes
        held: dict[str, bytes] = {}
        for data, sha in blobs:
            if len(data) <= limit:
                held[sha] = data
            else:
                await self._blobs.put(data, sha)
        return tuple(held.items())

    async def _staged(self, key: str, version_id: str) -> StagedVersion | None:
        meta = await self._artifacts.read(key, "meta.json")
        chunks = await self._artifacts.read(key, "chunks.jsonl")
        if meta is None or chunks is None:
            return None
        staged = await self._pool.run(StagedVersion.from_artifacts, meta, chunks)
        if staged is None or staged.profile is None or staged.version_id != version_id \
                or not await self._blobs.has(staged.markdown_sha):
            return None  # staged for another version number, or its blobs are gone
        return staged

    async def _prepare_bytes(self, body: bytes, type_hint: str | None, source: str,
                             options: IngestOptions, fetched_sha: str,
                             version_id: str | None, document_id: str | None
                             ) -> PreparedVersion:
        """Bytes in hand prepared by `preparation` (in a child process for a server), the
        steps it took recorded as stages: extracted, and with a version id analysed."""
        counting = (await self.embedder.token_counting() if self.embedder and version_id
                    else ESTIMATED_TOKENS)
        request = PreparationRequest(body, type_hint, source, options.password,
                                     fetched_sha, version_id, self.chunk_sizes, counting,
                                     self.stage_after)
        started = time.perf_counter()
        try:
            made = await self._preparation(request)
        except BaseException as exc:
            self.recorder.add(source, "extract", (time.perf_counter() - started) * 1000,
                              document_id, outcome=failed_outcome(exc))
            raise
        self.recorder.add(source, "extract", made.extract_ms, document_id)
        return made

    async def _prepare_page(self, page: FetchedPage, body: bytes, fetched_sha: str,
                            version_id: str, source: str, options: IngestOptions,
                            policy: SpacePolicy, document_id: str) -> PreparedVersion:
        """A fetched page extracted through the resolver (which may follow it to a linked
        PDF), analysed and encoded in this process's worker threads."""
        record = self.recorder
        started = time.perf_counter()
        with record.stage(source, "extract", document_id):
            extracted = await self._extract_page(page, options)
        worth_staging = time.perf_counter() - started >= self.stage_after
        policy.check_kind(extracted.source, source)  # before anything is written
        content_sha = fetched_sha
        if extracted.content is not body:  # a linked PDF: keep its bytes too
            content_sha = await self._blobs.put(extracted.content)
        with record.stage(source, "chunk", document_id):
            counting = (await self.embedder.token_counting() if self.embedder
                        else ESTIMATED_TOKENS)
            analysis = await self._pool.run(analyse_version, extracted.document,
                                            version_id, self.chunk_sizes, counting,
                                            extracted.source)
            return await self._pool.run(staged_files, version_id, extracted, analysis,
                                        content_sha, worth_staging)

    async def _extract_page(self, page: FetchedPage, options: IngestOptions) -> Extracted:
        resolved = await self._resolver.extract(page, options.password)
        return Extracted(resolved.document, resolved.source, resolved.content_type,
                         resolved.raw or page.response.body, resolved.final_url,
                         tuple(resolved.diagnostics.messages()))


async def expand_listing(files: FileReader, sources: list[str], recursive: bool = False
                         ) -> DirectoryListing:
    """URLs and files as given, each directory replaced by the files under it that sheaf
    can ingest, with every file left out and why."""
    expanded: list[str] = []
    skipped: list[SkippedFile] = []
    for source in sources:
        if not is_url(source) and await files.is_directory(source):
            listing = await files.list_directory(source, recursive)
            expanded += listing.files
            skipped += listing.skipped
        else:
            expanded.append(source)
    return DirectoryListing(tuple(expanded), tuple(skipped))


def sha256_hex(data: bytes) -> str:
    """The sha256 of `data` in hex: a worker's job for large bodies."""
    return hashlib.sha256(data).hexdigest()


def _final_url(page: FetchedPage | None) -> str | None:
    return page.response.url if page is not None else None
