"""What every embeddings server client shares: batching, retries, adaptive halving.

Servers fail in three ways that matter. Overload (429, 502-504, dropped connections)
passes: retry with backoff. An input over the model's context (a table-heavy chunk over a
2,048-token limit, say) never passes: a batch is split in halves until the culprit stands
alone, then that text is cut in half until the server takes it; a prefix of an over-long
snippet embeds better than no vector at all. Anything else is an `embedding_failed`
error naming the server's answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import aiohttp
import anyio

from sheaf.domain.embeddings import EmbeddingModel, unit_vector
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.retry_after import retry_after_seconds

_RETRIED_STATUSES = frozenset({429, 502, 503, 504})
_TOO_LONG = re.compile(r"too long|too large|maximum context|context length|exceed|"
                       r"too many tokens|input length", re.IGNORECASE)
MIN_TEXT_CHARACTERS = 16


class RemoteEmbedder:
    """A base for HTTP embedders: subclasses say where to post and how to read the
    answer. The dimension is asked of the server once when it was not configured."""

    def __init__(self, base_url: str, model: str, *, dimension: int | None = None,
                 api_key: str | None = None, batch_size: int = 32, retries: int = 4,
                 timeout: float = 60.0, backoff: float = 0.5,
                 concurrency: int = 2) -> None:
        self.base_url = base_url.rstrip("/")
        self.model_name = model
        self._dimension = dimension
        self._api_key = api_key
        self.batch_size = batch_size
        self.retries = retries
        self.backoff = backoff
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._limit = anyio.Semaphore(concurrency)
        self._session: aiohttp.ClientSession | None = None
        self.truncated = 0
        """How many texts were cut to fit the server's limit (a diagnostic)."""

    # -- what a protocol defines -------------------------------------------------------
    endpoint = ""

    def request_body(self, texts: Sequence[str]) -> dict[str, Any]:
        raise NotImplementedError

    def vectors_of(self, answer: Any) -> list[list[float]]:
        raise NotImplementedError

    # -- the port ------------------------------------------------------------------------
    async def model(self) -> EmbeddingModel:
        if self._dimension is None:
            (probe,) = await self._post_batch(["dimension probe"])
            self._dimension = len(probe)
        return EmbeddingModel(self.model_name, self._dimension)

    async def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        batches = [list(texts[i:i + self.batch_size])
                   for i in range(0, len(texts), self.batch_size)]
        results: list[list[tuple[float, ...]]] = [[] for _ in batches]

        async def run(index: int) -> None:
            async with self._limit:
                results[index] = await self._embed_fitting(batches[index])

        try:
            async with anyio.create_task_group() as group:
                for index in range(len(batches)):
                    group.start_soon(run, index)
        except BaseExceptionGroup as failures:  # one typed error, not a group, to callers
            raise _first_leaf(failures) from None
        vectors = [v for batch in results for v in batch]
        expected = (await self.model()).dimension
        if any(len(v) != expected for v in vectors):
            raise SheafError(ErrorKind.EMBEDDING_FAILED,
                             f"{self.model_name} answered vectors of another dimension than "
                             f"{expected}", url=self.base_url)
        return vectors

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    # -- batching and halving --------------------------------------------------------------
    async def _embed_fitting(self, texts: list[str]) -> list[tuple[float, ...]]:
        try:
            return [unit_vector(v) for v in await self._post_batch(texts)]
        except _TooLong:
            if len(texts) > 1:
                middle = len(texts) // 2
                return (await self._embed_fitting(texts[:middle])
                        + await self._embed_fitting(texts[middle:]))
            text = texts[0]
            if len(text) <= MIN_TEXT_CHARACTERS:
                raise SheafError(ErrorKind.EMBEDDING_FAILED,
                                 f"{self.model_name} refuses even {len(text)} characters as "
                                 "too long", url=self.base_url) from None
            self.truncated += 1
            return await self._embed_fitting([text[:len(text) // 2]])

    async def _post_batch(self, texts: list[str]) -> list[list[float]]:
        url = f"{self.base_url}{self.endpoint}"
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                session = self._session_now()
                async with session.post(url, json=self.request_body(texts),
                                        headers=headers) as response:
                    if response.status == 200:
                        answer = await response.json(content_type=None)
                        vectors = self.vectors_of(answer)
                        if len(vectors) != len(texts):
                            raise SheafError(ErrorKind.EMBEDDING_FAILED,
                                             f"{len(vectors)} vectors for {len(texts)} texts",
                                             url=url)
                        return vectors
                    body = (await response.text())[:500]
                    if response.status in (400, 413, 422, 500) and _TOO_LONG.search(body):
                        raise _TooLong(body)
                    if response.status not in _RETRIED_STATUSES or last:
                        kind = (ErrorKind.RATE_LIMITED if response.status == 429
                                else ErrorKind.EMBEDDING_FAILED)
                        raise SheafError(kind, f"the embeddings server answered "
                                               f"{response.status}: {body.strip()[:200]}",
                                         url=url)
                    wait = retry_after_seconds(response.headers.get("Retry-After"),
                                                datetime.now(UTC))
            except (TimeoutError, aiohttp.ClientError) as exc:
                if last:
                    raise SheafError(ErrorKind.EMBEDDING_FAILED,
                                     f"cannot reach the embeddings server: "
                                     f"{type(exc).__name__}: {exc}", url=url) from None
                wait = None
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                raise SheafError(ErrorKind.EMBEDDING_FAILED,
                                 f"unreadable answer from the embeddings server: {exc}",
                                 url=url) from None
            await anyio.sleep(min(wait if wait is not None else self.backoff * 2 ** attempt,
                                  30.0))
        raise AssertionError("unreachable")

    def _session_now(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        return self._session


class _TooLong(Exception):
    pass


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first
