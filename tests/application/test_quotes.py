"""Quotes of stored documents, with fakes of every port."""

from __future__ import annotations

import pytest

from sheaf.application.ingestion.ingestion import IngestOptions
from sheaf.application.quotes.quotes import QuoteNotVerified, Quotes
from sheaf.application.store.document_catalogue import DocumentCatalogue
from sheaf.application.store.document_structure import DocumentStructure
from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.quotes.quote_verification import Mode
from tests.application.world import World

pytestmark = pytest.mark.anyio
PAPER = "/data/paper.md"
TEXT = (b"# A Study of Tides\n\n## Abstract\n\nWe measured growth. It rose.\n\n"
        b"## 1 Methods\n\nLeaves were punched. Shoots were counted daily.\n\n"
        b"## 2 Results\n\nGrowth rose by 23 percent after spring tides.\n")


@pytest.fixture
async def quotes() -> Quotes:
    world = World()
    world.files.files[PAPER] = TEXT
    result = await world.ingestion.ingest(PAPER, IngestOptions())
    assert result.document_id
    return Quotes(DocumentStructure(DocumentCatalogue(world.storage, world.blobs)))


async def test_by_text_with_citation(quotes: Quotes) -> None:
    (quote,) = await quotes.by_text("default", PAPER, "growth rose by 23\npercent")
    assert quote.text == "Growth rose by 23 percent" and quote.match == "tolerant"
    assert quote.status == "verified" and quote.tolerated == ("whitespace", "leading_case")
    assert quote.section_path == ("2 Results",) and quote.section_label == "results"
    assert quote.sentences == (5,) and quote.title == "A Study of Tides"
    assert quote.context_after.startswith(" after spring tides.")


async def test_by_position_and_section(quotes: Quotes) -> None:
    assert (await quotes.by_position("default", PAPER, "sentence", 2)).text == "It rose."
    assert (await quotes.by_position("default", PAPER, "sentence", 3, 4)).text == (
        "Leaves were punched. Shoots were counted daily.")
    methods = await quotes.section("default", PAPER, "methods", first_sentences=1)
    assert methods.text == "Leaves were punched."
    last = await quotes.section("default", PAPER, "abstract", last_sentences=1)
    assert last.text == "It rose."
    whole = await quotes.section("default", PAPER, "2 Results")
    assert whole.text.startswith("## 2 Results") and whole.text.endswith("spring tides.")


async def test_refusals_never_invent(quotes: Quotes) -> None:
    with pytest.raises(SheafError) as missing:
        await quotes.by_text("default", PAPER, "The moon causes earthquakes every week.")
    assert missing.value.kind is ErrorKind.QUOTE_NOT_FOUND
    with pytest.raises(QuoteNotVerified) as changed:
        await quotes.by_text("default", PAPER, "Growth rose by 32 percent")
    closest = changed.value.check.closest
    assert changed.value.check.status == "not_verified" and closest is not None
    assert closest.text == "Growth rose by 23 percent" and closest.status == "not_verified"
    assert [(d.kind.value, d.request, d.document) for d in closest.differences] == [
        ("number_changed", "32", "23")]
    assert TEXT.decode()[closest.differences[0].start:closest.differences[0].end] == "23"
    with pytest.raises(SheafError) as far:
        await quotes.by_position("default", PAPER, "sentence", 99)
    assert far.value.kind is ErrorKind.OUT_OF_RANGE and "has 5 sentences" in far.value.message
    with pytest.raises(SheafError) as nosection:
        await quotes.section("default", PAPER, "discussion")
    assert "sections:" in nosection.value.message


async def test_locating_is_never_verifying(quotes: Quotes) -> None:
    (found,) = await quotes.by_text("default", PAPER, "growth rose BY 23 percent",
                                    mode=Mode.LOCATE)
    assert found.status == "located" and found.text == "Growth rose by 23 percent"
    assert [d.kind.value for d in found.differences] == ["case_changed"]
    (exact,) = await quotes.by_text("default", PAPER, "Leaves were punched.",
                                    mode=Mode.LOCATE)
    assert exact.status == "located" and exact.differences == ()


async def test_a_check_is_a_record_that_never_raises(quotes: Quotes) -> None:
    check = await quotes.check_text("default", PAPER, "Shoots were counted weekly.")
    assert check.status == "not_verified" and not check.quotes
    assert check.closest is not None and check.closest.text.startswith("Shoots were counted")
    nothing = await quotes.check_text("default", PAPER, "Quantum chromodynamics")
    assert nothing.status == "not_found" and nothing.closest is None
