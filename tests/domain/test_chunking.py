"""Chunking properties: exact spans, tiling snippets, limits, determinism."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.analysis.chunking import (
    SECTION_MAX,
    SNIPPET_MAX,
    BlockSpan,
    ChunkSizes,
    chunk_document,
    estimate_tokens,
)
from sheaf.domain.analysis.sections import Heading, detect_sections
from sheaf.domain.document.document import BlockDraft, BlockKind, Document
from sheaf.domain.document.markdown_rendering import assemble_document
from tests.property_examples import examples

words = st.sampled_from(["tide", "growth", "leaf", "the", "of", "seagrass", "light", "rose",
                         "meadow", "23", "percent", "Smith", "et", "al.", "Fig.", "(2019)."])
sentence = st.lists(words, min_size=1, max_size=40).map(lambda w: " ".join(w).capitalize()
                                                         + ".")
paragraph = st.lists(sentence, min_size=1, max_size=30).map(" ".join)
block = st.one_of(
    paragraph.map(lambda t: BlockDraft(BlockKind.PARAGRAPH, text=t)),
    st.tuples(st.integers(2, 3), st.lists(words, min_size=1, max_size=5)).map(
        lambda t: BlockDraft(BlockKind.HEADING, text=" ".join(t[1]).title(), level=t[0])),
    st.lists(st.tuples(words, words), min_size=2, max_size=60).map(
        lambda rows: BlockDraft(BlockKind.TABLE, rows=tuple(rows))),
)
documents = st.lists(block, min_size=1, max_size=40).map(assemble_document)


def chunks_of(document: Document) -> tuple:  # type: ignore[type-arg]
    headings = [Heading(b.draft.text, b.level, b.start, b.end) for b in document.blocks
                if b.kind is BlockKind.HEADING]
    sections = detect_sections(document.text, headings)
    spans = [BlockSpan(b.kind.value, b.start, b.end, b.draft.pages) for b in document.blocks]
    return chunk_document(document.text, spans, sections, version_id="doc.v1", title="T")


@settings(max_examples=examples(150), deadline=None)
@given(documents)
def test_chunk_properties(document: Document) -> None:
    text = document.text
    chunks = chunks_of(document)
    sections = [c for c in chunks if c.level == "section"]
    snippets = [c for c in chunks if c.level == "snippet"]
    for chunk in chunks:
        assert chunk.text == text[chunk.start:chunk.end]
        assert chunk.tokens == estimate_tokens(chunk.text)
    for chunk in sections:
        assert chunk.tokens <= SECTION_MAX
    for chunk in snippets:
        assert chunk.tokens <= SNIPPET_MAX
    # Sections cover the text without overlap, gaps only whitespace.
    for a, b in itertools.pairwise(sections):
        assert a.end <= b.start and not text[a.end:b.start].strip()
    if sections:
        assert not text[:sections[0].start].strip() and not text[sections[-1].end:].strip()
    # The snippets of each section chunk tile it.
    for section in sections:
        inner = [s for s in snippets if s.parent_id == section.id]
        assert inner and inner[0].start == section.start and inner[-1].end == section.end
        for a, b in itertools.pairwise(inner):
            assert a.end <= b.start and not text[a.end:b.start].strip()
    # Deterministic.
    assert chunks == chunks_of(document)


def test_ids_links_and_retrieval_text() -> None:
    document = assemble_document([
        BlockDraft(BlockKind.HEADING, text="Introduction", level=2),
        BlockDraft(BlockKind.PARAGRAPH, text="Seagrass grows. " * 200),
        BlockDraft(BlockKind.HEADING, text="Methods", level=2),
        BlockDraft(BlockKind.PARAGRAPH, text="We counted."),
    ])
    chunks = chunks_of(document)
    sections = [c for c in chunks if c.level == "section"]
    assert [c.id for c in sections] == ["doc.v1:section:0", "doc.v1:section:1"]
    assert sections[0].next_id == sections[1].id and sections[1].prev_id == sections[0].id
    first_snippet = next(c for c in chunks if c.level == "snippet")
    assert first_snippet.parent_id == sections[0].id
    assert first_snippet.retrieval_text.startswith(
        "[DOC: T] [PATH: Introduction] [SECTION: introduction]\n## Introduction")
    assert sections[1].section_label == "methods"


@settings(max_examples=examples(60), deadline=None)
@given(documents, st.integers(min_value=40, max_value=400))
def test_configured_sizes_are_limits_too(document: Document, target: int) -> None:
    sizes = ChunkSizes.for_snippets(target)
    headings = [Heading(b.draft.text, b.level, b.start, b.end) for b in document.blocks
                if b.kind is BlockKind.HEADING]
    spans = [BlockSpan(b.kind.value, b.start, b.end, b.draft.pages) for b in document.blocks]
    chunks = chunk_document(document.text, spans, detect_sections(document.text, headings),
                            version_id="doc.v1", title="T", sizes=sizes)
    for chunk in chunks:
        assert chunk.text == document.text[chunk.start:chunk.end]
        limit = sizes.snippet_max if chunk.level == "snippet" else sizes.section_max
        assert chunk.tokens <= limit


def test_inconsistent_sizes_are_refused() -> None:
    assert str(ChunkSizes.for_snippets(150)) == "150/225"
    for bad in ((0, None), (300, 200)):
        try:
            ChunkSizes.for_snippets(*bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad} accepted")


# -- sizes in an embedder's own unit, within its input limit ---------------------------

def _pieces(text: str) -> int:
    """A stand-in tokenizer: like a wordpiece one, it counts a long word as several
    pieces, each CJK character as one, and two special tokens."""
    count = 2
    for word in text.split():
        cjk = sum(1 for c in word if "\u3040" <= c <= "\u9fff")
        count += cjk + max(1 if len(word) > cjk else 0, (len(word) - cjk + 5) // 6)
    return count


odd_words = st.one_of(words, st.text("abcdefgh/:._", min_size=20, max_size=900),
                      st.text("潮汐葉成長春", min_size=1, max_size=400))
odd_paragraph = st.lists(odd_words, min_size=1, max_size=200).map(" ".join)
odd_documents = st.lists(st.one_of(
    block, odd_paragraph.map(lambda t: BlockDraft(BlockKind.PARAGRAPH, text=t)),
    # A paragraph marked up as a heading: it is in the path of what follows it too.
    odd_paragraph.map(lambda t: BlockDraft(BlockKind.HEADING, text=t, level=2))),
    min_size=1, max_size=20).map(assemble_document)


@settings(max_examples=examples(60), deadline=None)
@given(odd_documents, st.integers(32, 300), st.text("Tidal Rhythms ", max_size=600))
def test_no_snippet_is_longer_than_the_model_reads(document: Document, limit: int,
                                                   title: str) -> None:
    headings = [Heading(b.draft.text, b.level, b.start, b.end) for b in document.blocks
                if b.kind is BlockKind.HEADING]
    sections = detect_sections(document.text, headings)
    blocks = [BlockSpan(b.kind.value, b.start, b.end) for b in document.blocks]
    chunks = chunk_document(document.text, blocks, sections, version_id="v", title=title,
                            count=_pieces, input_limit=limit)
    snippets = [c for c in chunks if c.level == "snippet"]
    for chunk in snippets:
        assert _pieces(chunk.retrieval_text) <= limit, (limit, chunk.retrieval_text)
        assert chunk.tokens == _pieces(chunk.text)
        assert document.text[chunk.start:chunk.end] == chunk.text
    # Snippets still tile the document's words: nothing is dropped to fit.
    covered = "".join(c.text for c in snippets)
    assert "".join(covered.split()) == "".join(
        "".join(document.text[b.start:b.end].split()) for b in document.blocks)


def test_sizes_shrink_to_a_limit_and_not_beyond() -> None:
    assert ChunkSizes().within(10_000) == ChunkSizes()
    fitted = ChunkSizes().within(240)
    assert fitted.snippet_max == 240 and fitted.snippet_target == 150
    assert fitted.section_max == ChunkSizes().section_max


furniture = st.integers(1, 999).map(
    lambda n: BlockDraft(BlockKind.FURNITURE, text=f"Running Header Qx {n}", pages=(n,)))
paged_documents = st.lists(st.one_of(block, furniture), min_size=1, max_size=40).map(
    assemble_document)


@settings(max_examples=examples(150), deadline=None)
@given(paged_documents)
def test_furniture_is_in_the_chunks_and_out_of_their_retrieval_text(document: Document) -> None:
    text = document.text
    chunks = chunks_of(document)
    sections = [c for c in chunks if c.level == "section"]
    for a, b in itertools.pairwise(sections):
        assert a.end <= b.start and not text[a.end:b.start].strip()
    if sections:
        assert not text[:sections[0].start].strip() and not text[sections[-1].end:].strip()
    only_furniture = all(b.kind is BlockKind.FURNITURE for b in document.blocks)
    for chunk in chunks:
        assert chunk.text == text[chunk.start:chunk.end]
        assert chunk.tokens <= (SNIPPET_MAX if chunk.level == "snippet" else SECTION_MAX)
        assert "Qx" not in chunk.retrieval_text
        assert not any("Qx" in part for part in chunk.heading_path)
        body = chunk.retrieval_text.split("\n", 1)[1]
        # A chunk of furniture alone only when there is nothing else to join.
        assert body.strip() or only_furniture or len(chunks) <= 2 or \
            chunk.tokens > SNIPPET_MAX // 2


def test_a_page_break_inside_a_snippet_leaves_its_heading_and_search_text_whole() -> None:
    document = assemble_document([
        BlockDraft(BlockKind.FURNITURE, text="Journal of Tests 1", pages=(1,)),
        BlockDraft(BlockKind.HEADING, text="Introduction", level=2, pages=(1,)),
        BlockDraft(BlockKind.FURNITURE, text="Journal of Tests 1 footer", pages=(1,)),
        BlockDraft(BlockKind.FURNITURE, text="A Running Title", pages=(2,)),
        BlockDraft(BlockKind.PARAGRAPH, text="Seagrass grows in the bay.", pages=(2,)),
    ])
    chunks = chunks_of(document)
    snippets = [c for c in chunks if c.level == "snippet"]
    assert len(snippets) == 1
    snippet = snippets[0]
    assert snippet.text == document.text
    assert snippet.heading_path == ("Introduction",)
    assert snippet.retrieval_text.endswith("\n## Introduction\n\nSeagrass grows in the bay.")
    assert "Journal" not in snippet.retrieval_text and "Running" not in snippet.retrieval_text
