"""Ingestion stages become OpenTelemetry spans when the otel extra is installed."""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.application.world import NOTES, World

pytestmark = pytest.mark.anyio
EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def provider() -> None:
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
    trace.set_tracer_provider(tracer_provider)


async def test_each_stage_is_a_span_with_its_outcome() -> None:
    EXPORTER.clear()
    world = World()
    await world.ingestion.ingest(NOTES)
    await world.ingestion.ingest(NOTES)
    spans = [(s.name, s.attributes["sheaf.outcome"]) for s in EXPORTER.get_finished_spans()]
    assert spans == [("sheaf.fetch", "ok"), ("sheaf.extract", "ok"), ("sheaf.chunk", "ok"),
                     ("sheaf.stage", "ok"), ("sheaf.embed", "ok"),
                     ("sheaf.near-duplicates", "none"), ("sheaf.store", "ok"),
                     ("sheaf.fetch", "ok"), ("sheaf.dedup", "unchanged")]
    assert all(s.attributes["sheaf.source"] == NOTES for s in EXPORTER.get_finished_spans())
