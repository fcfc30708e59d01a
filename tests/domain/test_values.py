"""Frozen records are values, and artifacts survive a round trip through their JSON."""

from __future__ import annotations

from datetime import UTC, datetime

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.analysis.chunking import DEFAULT_SIZES, Chunk
from sheaf.domain.analysis.sections import Section
from sheaf.domain.analysis.text_profile import TextProfile
from sheaf.domain.store.document_analysis import StoredStructure
from sheaf.domain.store.knowledge_records import BlockRow, VersionRecord
from sheaf.domain.store.staged_version import StagedVersion
from sheaf.domain.values.frozen_mapping import FrozenMapping, freeze

words = st.text(max_size=12)
maybe_words = st.one_of(st.none(), words)
offsets = st.integers(0, 10_000)
spans = st.tuples(offsets, offsets)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), words),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(words, inner, max_size=3)), max_leaves=8)
chunks = st.builds(Chunk, id=words, level=st.sampled_from(["section", "snippet"]),
                   index=offsets, start=offsets, end=offsets, text=words, tokens=offsets,
                   heading_path=st.tuples(words), section_label=maybe_words,
                   pages=st.lists(offsets, max_size=2).map(tuple), parent_id=maybe_words,
                   prev_id=maybe_words, next_id=maybe_words, retrieval_text=words,
                   context=maybe_words)
sections = st.builds(Section, index=offsets, heading=maybe_words, label=words,
                     level=st.integers(0, 6), start=offsets, end=offsets,
                     path=st.lists(words, max_size=3).map(tuple),
                     parent=st.one_of(st.none(), offsets), inferred=st.booleans())
profiles = st.builds(TextProfile, characters=offsets, words=offsets,
                     sentences=st.lists(spans, max_size=4).map(tuple),
                     paragraphs=st.lists(spans, max_size=4).map(tuple),
                     lines=st.lists(spans, max_size=4).map(tuple))
staged_versions = st.builds(
    StagedVersion, version_id=words, title=maybe_words, content_source=words,
    content_type=words, metadata=st.dictionaries(words, json_values, max_size=4),
    diagnostics=st.lists(words, max_size=3).map(tuple),
    blocks=st.lists(st.builds(BlockRow, kind=words, start=offsets, end=offsets,
                              level=st.integers(0, 6), label=maybe_words,
                              pages=st.lists(offsets, max_size=2).map(tuple)),
                    max_size=4).map(tuple),
    characters=offsets, final_url=maybe_words, content_sha=words, markdown_sha=words,
    chunks=st.lists(chunks, max_size=4).map(tuple),
    sections=st.lists(sections, max_size=4).map(tuple),
    profile=st.one_of(st.none(), profiles))


@given(staged_versions)
def test_staged_artifacts_round_trip_with_their_sections(staged: StagedVersion) -> None:
    assert StagedVersion.from_artifacts(staged.meta_json(), staged.chunks_jsonl()) == staged


@given(st.lists(sections, max_size=4).map(tuple), profiles)
def test_stored_structure_round_trips(found: tuple[Section, ...], profile: TextProfile) -> None:
    from sheaf.domain.values.value_codec import from_plain, to_plain

    structure = StoredStructure(found, profile, DEFAULT_SIZES)
    assert from_plain(StoredStructure, to_plain(structure)) == structure


def test_artifacts_of_another_format_are_not_resumed() -> None:
    assert StagedVersion.from_artifacts(b'{"format": 1}', b"") is None


@given(st.dictionaries(words, json_values, max_size=4))
def test_a_frozen_mapping_is_hashable_and_refuses_changes(data: dict[str, object]) -> None:
    frozen = freeze(data)
    assert isinstance(frozen, FrozenMapping) and frozen == freeze(data)
    assert hash(frozen) == hash(freeze(data))
    with pytest.raises(TypeError):
        frozen["x"] = 1
    with pytest.raises(TypeError):
        frozen.update({"x": 1})


def test_version_records_are_values() -> None:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    record = VersionRecord("v", "d", "s", 1, "a", "a", "m", "raw", "text/plain", None,
                           moment, metadata={"authors": ["A", "B"]},
                           caller_metadata={"team": "x"}, enrichment={"concepts": ["c"]})
    same = attrs.evolve(record)
    assert hash(record) == hash(same) and record == same
    with pytest.raises(TypeError):
        record.metadata["x"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        record.caller_metadata["team"] = "y"  # type: ignore[index]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        record.title = "t"  # type: ignore[misc]


def test_ingest_options_are_values() -> None:
    from sheaf.application.ingestion.ingestion import IngestOptions

    options = IngestOptions(metadata={"team": "blue"})
    assert hash(options) == hash(IngestOptions(metadata={"team": "blue"}))
    with pytest.raises(TypeError):
        options.metadata["team"] = "red"  # type: ignore[index]
