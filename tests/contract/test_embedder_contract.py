"""The Embedder contract, run against the fake, the hashing embedder, both HTTP clients
(against a loopback server speaking their protocol) and the local model when installed."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator

import pytest

from sheaf.adapters.models.hashing_embedder import HashingEmbedder
from sheaf.adapters.models.memory_embedder import MemoryEmbedder
from sheaf.adapters.models.ollama_embedder import OllamaEmbedder
from sheaf.adapters.models.openai_embedder import OpenAiEmbedder
from sheaf.application.ports.embedder import Embedder
from tests.embedding_server import EmbeddingServer

pytestmark = pytest.mark.anyio

TEXTS = ["Hybrid retrieval fuses lexical and dense rankings.",
         "The cat sat on the mat.",
         "Reciprocal rank fusion needs no score calibration.",
         "The cat sat on the mat."]


@pytest.fixture(params=["memory", "hashing", "openai", "ollama", "local"])
async def embedder(request: pytest.FixtureRequest) -> AsyncIterator[Embedder]:
    server: EmbeddingServer | None = None
    found: Embedder
    if request.param == "memory":
        found = MemoryEmbedder()
    elif request.param == "hashing":
        found = HashingEmbedder()
    elif request.param == "local":
        local = pytest.importorskip("sheaf.adapters.models.onnx_embedder")
        try:
            found = local.OnnxEmbedder.installed()
        except Exception as exc:  # any missing piece means skip
            pytest.skip(f"the local model is not installed: {exc}")
    else:
        server = EmbeddingServer()
        await server.start()
        if request.param == "openai":
            found = OpenAiEmbedder(server.url("/v1"), "test-embed", batch_size=2)
        else:
            found = OllamaEmbedder(server.url(""), "test-embed", batch_size=2)
    yield found
    await found.aclose()
    if server is not None:
        await server.stop()


async def test_one_unit_vector_per_text_in_order(embedder: Embedder) -> None:
    model = await embedder.model()
    vectors = await embedder.embed(TEXTS)
    assert len(vectors) == len(TEXTS)
    for vector in vectors:
        assert len(vector) == model.dimension
        assert math.isclose(math.fsum(x * x for x in vector), 1.0, rel_tol=1e-4)
    assert vectors[1] == pytest.approx(vectors[3])  # same text, same vector
    assert vectors[0] != pytest.approx(vectors[1])


async def test_order_does_not_depend_on_the_batch(embedder: Embedder) -> None:
    alone = [(await embedder.embed([t]))[0] for t in TEXTS[:3]]
    together = await embedder.embed(TEXTS[:3])
    for a, b in zip(alone, together, strict=True):
        assert a == pytest.approx(b, abs=1e-4)


async def test_no_texts_no_vectors(embedder: Embedder) -> None:
    assert await embedder.embed([]) == []


async def test_the_model_is_named_and_stable(embedder: Embedder) -> None:
    first, second = await embedder.model(), await embedder.model()
    assert first == second and first.name and first.dimension > 0


async def test_it_says_what_it_counts_and_counts_monotonically(embedder: Embedder) -> None:
    counting = await embedder.token_counting()
    assert counting.unit and counting.counter
    assert counting.limit is None or counting.limit >= 16
    short, long = TEXTS[0], " ".join(TEXTS * 20)
    assert 0 < counting.count(short) < counting.count(long)
    assert counting.count(short) == counting.count(short)


async def test_the_local_model_counts_its_own_wordpieces_up_to_its_limit() -> None:
    local = pytest.importorskip("sheaf.adapters.models.onnx_embedder")
    try:
        embedder = local.OnnxEmbedder.installed()
    except Exception as exc:
        pytest.skip(f"the local model is not installed: {exc}")
    counting = await embedder.token_counting()
    assert counting.unit == "wordpieces" and counting.limit == local.MAX_TOKENS
    # [CLS] the cat sat on the mat . [SEP]
    assert counting.count("The cat sat on the mat.") == 9
    assert counting.count("word " * 1000) == 1002  # no truncation when counting
