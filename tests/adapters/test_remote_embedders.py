"""The HTTP embedders against a loopback server: retries, adaptive halving, typed errors."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sheaf.adapters.models.ollama_embedder import OllamaEmbedder
from sheaf.adapters.models.openai_embedder import OpenAiEmbedder
from sheaf.adapters.models.remote_embedder import RemoteEmbedder
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.search.embeddings import unit_vector
from tests.embedding_server import DIMENSION, EmbeddingServer, server_vector

pytestmark = pytest.mark.anyio


@pytest.fixture
async def server() -> AsyncIterator[EmbeddingServer]:
    found = EmbeddingServer()
    await found.start()
    yield found
    await found.stop()


def clients(server: EmbeddingServer, **options: object) -> list[RemoteEmbedder]:
    return [OpenAiEmbedder(server.url("/v1"), "test-embed", backoff=0.01, **options),  # type: ignore[arg-type]
            OllamaEmbedder(server.url(""), "test-embed", backoff=0.01, **options)]  # type: ignore[arg-type]


async def test_batches_of_the_configured_size(server: EmbeddingServer) -> None:
    for client in clients(server, batch_size=3, dimension=DIMENSION):
        server.batches.clear()
        texts = [f"text number {i}" for i in range(7)]
        vectors = await client.embed(texts)
        assert sorted(len(b) for b in server.batches) == [1, 3, 3]
        assert vectors == [pytest.approx(unit_vector(server_vector(t))) for t in texts]
        await client.aclose()


async def test_the_dimension_is_asked_once_when_not_configured(server: EmbeddingServer
                                                               ) -> None:
    for client in clients(server):
        server.batches.clear()
        assert (await client.model()).dimension == DIMENSION
        await client.model()
        assert len(server.batches) == 1
        await client.aclose()


async def test_overload_is_retried(server: EmbeddingServer) -> None:
    for client in clients(server, dimension=DIMENSION):
        server.overloaded = 2
        assert len(await client.embed(["a passage"])) == 1
        await client.aclose()


async def test_lasting_overload_is_a_typed_error(server: EmbeddingServer) -> None:
    for client in clients(server, dimension=DIMENSION, retries=1):
        server.overloaded = 5
        with pytest.raises(SheafError) as caught:
            await client.embed(["a passage"])
        assert caught.value.kind is ErrorKind.EMBEDDING_FAILED
        assert "503" in caught.value.message
        server.overloaded = 0
        await client.aclose()


async def test_a_too_long_input_is_isolated_and_halved(server: EmbeddingServer) -> None:
    server.max_characters = 100
    texts = ["short one", "x" * 150 + " table cells", "short two", "short three"]
    for client in clients(server, batch_size=4, dimension=DIMENSION):
        server.batches.clear()
        vectors = await client.embed(texts)
        assert len(vectors) == 4
        assert vectors[0] == pytest.approx(unit_vector(server_vector("short one")))
        assert vectors[1] == pytest.approx(unit_vector(server_vector(texts[1][:81])))
        assert client.truncated == 1
        # the batch, the half holding the long text, its halves, the long text cut, and
        # the other half, whole
        assert [len(b) for b in server.batches] == [4, 2, 1, 1, 1, 2]
        await client.aclose()


async def test_a_wrong_key_is_refused_at_once(server: EmbeddingServer) -> None:
    server.key = "right"
    client = OpenAiEmbedder(server.url("/v1"), "test-embed", api_key="wrong",
                            dimension=DIMENSION)
    with pytest.raises(SheafError) as caught:
        await client.embed(["a passage"])
    assert caught.value.kind is ErrorKind.EMBEDDING_FAILED and "401" in caught.value.message
    await client.aclose()
    good = OpenAiEmbedder(server.url("/v1"), "test-embed", api_key="right",
                          dimension=DIMENSION)
    assert len(await good.embed(["a passage"])) == 1
    await good.aclose()


async def test_an_unreachable_server_is_a_typed_error() -> None:
    client = OllamaEmbedder("http://127.0.0.1:9", "test-embed", retries=1, backoff=0.01,
                            dimension=DIMENSION)
    with pytest.raises(SheafError) as caught:
        await client.embed(["a passage"])
    assert caught.value.kind is ErrorKind.EMBEDDING_FAILED
    assert "cannot reach" in caught.value.message
    await client.aclose()


async def test_a_configured_dimension_that_is_wrong_is_refused(server: EmbeddingServer
                                                               ) -> None:
    client = OpenAiEmbedder(server.url("/v1"), "test-embed", dimension=DIMENSION + 1)
    with pytest.raises(SheafError) as caught:
        await client.embed(["a passage"])
    assert caught.value.kind is ErrorKind.EMBEDDING_FAILED
    await client.aclose()
