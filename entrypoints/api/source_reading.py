"""Reading sources without a store, for `Knowledge.resolve` and `Knowledge.extract`:
the composition root's resolver and extraction, closed when the reading is done."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...domain.errors import SheafError
from .knowledge_results import ExtractedSource

if TYPE_CHECKING:
    from ...application.extraction.content_resolver import ContentResolver, Preference
    from ...application.extraction.document_extraction import Extraction
    from ...application.ports.file_reader import LocalFile
    from ...domain.document.resolved_content import ResolvedContent
    from ...domain.routing.routing import RoutingDecision
    from .settings import Settings


async def resolve_url(settings: Settings, url: str, *, prefer: Preference,
                      password: str | None) -> ResolvedContent:
    """`url` fetched with `settings.fetch` and extracted."""
    from .composition import build_resolver

    client, resolver = build_resolver(settings.fetch)
    async with client:
        return await resolver.resolve(url, prefer=prefer, password=password)


async def extract_sources(settings: Settings, inputs: Sequence[str], *,
                          base_url: str | None, password: str | None,
                          prefer: Preference) -> AsyncIterator[ExtractedSource]:
    """Each input extracted in turn by one extraction (and one HTTP client, made at the
    first URL), a failure as the input's `error`. Both are built in a worker thread:
    building imports the HTML extractor (and aiohttp), which would hold the event loop."""
    from contextlib import AsyncExitStack

    import anyio

    from ...adapters.files.filesystem_file_reader import FilesystemFileReader
    from ...domain.fetching.url_normalisation import is_url
    from .composition import build_extraction, build_resolver

    extraction = await anyio.to_thread.run_sync(build_extraction)
    files = FilesystemFileReader()
    resolver: ContentResolver | None = None

    def read_at_hand(source: str) -> tuple[LocalFile, str, RoutingDecision, Extraction | None]:
        # A local file is read, routed and (HTML or text) extracted in one worker-thread
        # call: each hand-off to a worker and back costs about what reading a page's
        # file does (ADR-0039).
        local = files.read_sync(source, settings.fetch.max_bytes)
        location = base_url or Path(local.path).as_uri()
        decision, extracted = extraction.extract_at_hand(
            local.data, declared_type=local.type_hint, location=location)
        return local, location, decision, extracted

    async with AsyncExitStack() as stack:
        for source in inputs:
            try:
                if is_url(source):
                    if resolver is None:
                        client, resolver = await anyio.to_thread.run_sync(functools.partial(
                            build_resolver, settings.fetch, extraction=extraction))
                        await stack.enter_async_context(client)
                    done = ExtractedSource(source, resolved=await resolver.resolve(
                        source, prefer=prefer, password=password))
                else:
                    local, location, decision, extracted = await anyio.to_thread.run_sync(
                        read_at_hand, source)
                    if extracted is None:
                        extracted = await extraction.extract_routed(
                            local.data, decision, location, password)
                    done = ExtractedSource(source, extracted=extracted)
            except SheafError as exc:
                done = ExtractedSource(source, error=exc)
            yield done
