"""The identity and version rule over its whole decision table."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.store.ingestion import IngestStatus, SourceKind, document_id_for
from sheaf.domain.store.knowledge_records import SourceRecord
from sheaf.domain.store.version_decision import decide

shas = st.sampled_from(["a" * 64, "b" * 64, "c" * 64])
keys = st.text(min_size=1, max_size=20)
known_sources = st.one_of(st.none(), st.builds(
    lambda document, sha: SourceRecord("s", "k", SourceKind.FILE, document, sha, "k"),
    st.sampled_from(["doc_1", "doc_2"]), shas))


@given(keys, known_sources, st.integers(0, 50), st.one_of(st.none(), st.just("doc_twin")),
       shas, st.booleans())
def test_every_combination_follows_the_rule(key: str, known: SourceRecord | None,
                                            latest: int, twin: str | None, sha: str,
                                            force: bool) -> None:
    decision = decide("s", key, known, latest, twin, sha, force)
    if known is not None and known.fetched_sha == sha and not force:
        assert decision.outcome is IngestStatus.UNCHANGED
        assert decision.document_id == known.document_id and not decision.stores_version
    elif known is not None:
        assert decision.outcome is IngestStatus.CHANGED
        assert decision.document_id == known.document_id
        assert decision.number == latest + 1
        assert decision.version_id == f"{known.document_id}.v{latest + 1}"
    elif twin is not None:
        assert decision.outcome is IngestStatus.DUPLICATE
        assert decision.document_id == twin and decision.version_id is None
    else:
        assert decision.outcome is IngestStatus.NEW
        assert decision.document_id == document_id_for("s", key) and decision.number == 1


@given(keys, shas)
def test_a_known_source_is_never_a_duplicate_of_a_twin(key: str, sha: str) -> None:
    known = SourceRecord("s", key, SourceKind.URL, "doc_1", sha, key)
    assert decide("s", key, known, 3, "doc_twin", sha, False).outcome is \
        IngestStatus.UNCHANGED
    assert decide("s", key, known, 3, "doc_twin", sha, True).outcome is IngestStatus.CHANGED


@given(keys, st.text(min_size=1, max_size=20))
def test_new_document_ids_are_stable_and_per_space(key: str, space: str) -> None:
    first = decide(space, key, None, 0, None, "a" * 64, False)
    assert first == decide(space, key, None, 0, None, "b" * 64, True)
    if space != "s":
        assert first.document_id != decide("s", key, None, 0, None, "a" * 64,
                                           False).document_id
