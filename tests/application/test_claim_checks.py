"""Claim checks across a space, with fakes of every port: each sentence verified with
its citation, or its closest passage and what differs, or not found."""

from __future__ import annotations

import pytest

from sheaf.application.quotes.claim_checks import ClaimChecks
from sheaf.application.quotes.quotes import Quotes
from sheaf.application.search.search import Search
from sheaf.application.store.document_catalogue import DocumentCatalogue
from sheaf.application.store.document_structure import DocumentStructure
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.search.search_request import SearchFilters
from tests.application.world import World

pytestmark = pytest.mark.anyio
TIDES = (b"# Tides\n\n## Results\n\nSeagrass grew with the tides. Shoot density doubled in "
         b"spring, but only at the northern site.\n")
FOXES = b"# Foxes\n\nUrban foxes eat from bins at night. No fox was seen by day.\n"


@pytest.fixture
async def checks() -> tuple[ClaimChecks, dict[str, str]]:
    world = World()
    world.files.files["/d/tides.md"] = TIDES
    world.files.files["/d/foxes.md"] = FOXES
    ids = {}
    for path in ("/d/tides.md", "/d/foxes.md"):
        result = await world.ingestion.ingest(path)
        assert result.document_id
        ids[path] = result.document_id
    structure = DocumentStructure(DocumentCatalogue(world.storage, world.blobs))
    return ClaimChecks(Search(world.storage), Quotes(structure)), ids


async def test_each_sentence_is_checked_on_its_own(
        checks: tuple[ClaimChecks, dict[str, str]]) -> None:
    claims, ids = checks
    found = await claims.check("default", "Seagrass grew with the tides. Urban foxes eat "
                                          "from bins at noon.")
    assert found.status == "not_verified"
    grew, foxes = found.sentences
    assert grew.status == "verified" and grew.closest is None
    (support,) = grew.support
    assert support.document_id == ids["/d/tides.md"] and support.text == (
        "Seagrass grew with the tides.") and support.section_path == ("Results",)
    assert foxes.status == "not_verified" and not foxes.support
    assert foxes.closest is not None and foxes.closest.document_id == ids["/d/foxes.md"]
    assert [(d.kind.value, d.request, d.document) for d in foxes.closest.differences] == [
        ("word_replaced", "noon", "night")]


async def test_a_claim_no_document_makes_is_not_found(
        checks: tuple[ClaimChecks, dict[str, str]]) -> None:
    claims, _ = checks
    found = await claims.check("default", "Glaciers retreated across the Alps in 2019.")
    assert found.status == "not_found"
    (sentence,) = found.sentences
    assert sentence.closest is None and not sentence.support


async def test_a_claim_cut_before_its_qualifier_is_not_verified(
        checks: tuple[ClaimChecks, dict[str, str]]) -> None:
    claims, _ = checks
    (cut,) = (await claims.check("default", "Shoot density doubled in spring.")).sentences
    assert cut.status == "not_verified" and cut.closest is not None
    assert [d.kind.value for d in cut.closest.differences] == ["qualifier_cut"]
    (fox,) = (await claims.check("default", "A fox was seen by day.")).sentences
    assert fox.status == "not_verified"


async def test_a_document_filter_limits_the_candidates(
        checks: tuple[ClaimChecks, dict[str, str]]) -> None:
    claims, ids = checks
    only_foxes = SearchFilters(frozenset({ids["/d/foxes.md"]}))
    found = await claims.check("default", "Seagrass grew with the tides.", filters=only_foxes)
    assert found.status == "not_found"


async def test_bad_claims_are_refused(checks: tuple[ClaimChecks, dict[str, str]]) -> None:
    claims, _ = checks
    for claim, k in (("   ", 5), ("Seagrass grew.", 0), ("Tides rose. " * 30, 5)):
        with pytest.raises(SheafError) as refused:
            await claims.check("default", claim, k=k)
        assert refused.value.kind is ErrorKind.INVALID_QUERY
