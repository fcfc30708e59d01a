"""What every embeddings server client shares: batching, retries, adaptive halving.

Retries are the JSON client's. An input over the model's context (a table-heavy chunk
over a 2,048-token limit, say) never passes: a batch is split in halves until the culprit
stands alone, then that text is cut in half until the server takes it; a prefix of an
over-long snippet embeds better than no vector at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
import attrs

from ...application.concurrency.bounded_concurrency import for_each_bounded
from ...domain.analysis.token_counting import ESTIMATED_TOKENS, TokenCounting
from ...domain.errors import ErrorKind, SheafError
from ...domain.search.embeddings import EmbeddingModel, unit_vector
from .json_api_client import InputTooLong, JsonApiClient

MIN_TEXT_CHARACTERS = 16


class RemoteEmbedder:
    """A base for HTTP embedders: subclasses say where to post and how to read the
    answer. The dimension is asked of the server once when it was not configured."""

    def __init__(self, base_url: str, model: str, *, dimension: int | None = None,
                 api_key: str | None = None, batch_size: int = 32, retries: int = 4,
                 timeout: float = 60.0, backoff: float = 0.5,
                 concurrency: int = 2, input_limit: int | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model_name = model
        self._dimension = dimension
        self.batch_size = batch_size
        self._client = JsonApiClient(base_url, api_key=api_key,
                                     failure=ErrorKind.EMBEDDING_FAILED,
                                     what="embeddings server", retries=retries,
                                     timeout=timeout, backoff=backoff)
        self._limit = anyio.CapacityLimiter(concurrency)
        # A server's tokenizer is not known here: sizes are estimated, and the limit is the
        # one declared (SHEAF_EMBEDDING_MAX_TOKENS); halving still catches a misjudged one.
        self._counting = attrs.evolve(ESTIMATED_TOKENS, limit=input_limit)
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
            results[index] = await self._embed_fitting(batches[index])

        await for_each_bounded(range(len(batches)), run, self._limit)
        vectors = [v for batch in results for v in batch]
        expected = (await self.model()).dimension
        if any(len(v) != expected for v in vectors):
            raise SheafError(ErrorKind.EMBEDDING_FAILED,
                             f"{self.model_name} answered vectors of another dimension than "
                             f"{expected}", url=self.base_url)
        return vectors

    async def token_counting(self) -> TokenCounting:
        return self._counting

    async def aclose(self) -> None:
        await self._client.aclose()

    # -- batching and halving --------------------------------------------------------------
    async def _embed_fitting(self, texts: list[str]) -> list[tuple[float, ...]]:
        try:
            return [unit_vector(v) for v in await self._post_batch(texts)]
        except InputTooLong:
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
        answer = await self._client.post(self.endpoint, self.request_body(texts))
        try:
            vectors = self.vectors_of(answer)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise SheafError(ErrorKind.EMBEDDING_FAILED,
                             f"unreadable answer from the embeddings server: {exc!r}",
                             url=self.base_url) from None
        if len(vectors) != len(texts):
            raise SheafError(ErrorKind.EMBEDDING_FAILED,
                             f"{len(vectors)} vectors for {len(texts)} texts",
                             url=self.base_url)
        return vectors
