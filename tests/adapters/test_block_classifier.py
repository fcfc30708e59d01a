"""The block classifier under HTML root choice: segmentation, features, the model, the
classifier's root proposal and pruning, and the confidence each document carries."""

from __future__ import annotations

from contextlib import ExitStack
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.html import page_blocks as page_blocks_module
from sheaf.adapters.html.block_features import FEATURES, _digits
from sheaf.adapters.html.block_model import BlockModel, shipped_model
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.adapters.html.learned_root import extraction_evidence, propose_root
from sheaf.adapters.html.page_blocks import PATH_WORDS, SEMANTIC_PATH, page_blocks
from sheaf.adapters.html.page_inputs import read_page
from sheaf.domain.document.extraction_confidence import (
    ExtractionConfidence,
    confidence_of,
)
from tests.property_examples import examples

URL = "https://example.org/story"
PROSE = ("The council voted on Tuesday to rebuild the harbour wall, which storms breached "
         "twice last winter, and the work will start in May. ")


def _body(html: str):  # type: ignore[no-untyped-def]
    return read_page(html.encode(), URL).body


def test_blocks_are_the_text_each_block_element_holds_with_its_links() -> None:
    page = page_blocks(_body(
        "<body><nav><ul><li><a href='/'>Home</a></li></ul></nav><article><h1>Harbour</h1>"
        "<p>The wall <a href='/w'>was breached</a> twice.</p><div>Loose text<p>Inner</p>"
        "tail</div></article></body>"))
    texts = [b.text for b in page.blocks]
    assert texts == ["Home", "Harbour", "The wall was breached twice.", "Loose text tail",
                     "Inner"]
    by_text = {b.text: b for b in page.blocks}
    assert by_text["Home"].skipped and not by_text["Harbour"].skipped
    assert by_text["The wall was breached twice."].link_chars == len("was breached")
    assert by_text["Inner"].containers[-1].tag == "p"
    assert page.total == sum(len(t) for t in texts)
    assert [b.offset for b in page.blocks] == [sum(len(t) for t in texts[:i])
                                               for i in range(len(texts))]


def test_scripts_and_styles_never_become_blocks() -> None:
    page = page_blocks(_body("<body><p>Kept</p><style>p{color:red}</style>"
                             "<template><p>Never</p></template></body>"))
    assert [b.text for b in page.blocks] == ["Kept"]


def test_path_words_and_semantic_containers_are_flagged() -> None:
    page = page_blocks(_body("<body><aside class='sidebar-widget'><p>Side</p></aside>"
                             "<main><article class='post-content'><p>Story</p></article>"
                             "</main></body>"))
    side, story = page.blocks
    bit = {name: i for i, (name, _) in enumerate(PATH_WORDS)}
    semantic = {tag: len(PATH_WORDS) + i for i, tag in enumerate(SEMANTIC_PATH)}
    assert side.flags >> bit["side"] & 1 and side.flags >> semantic["aside"] & 1
    assert story.flags >> bit["content"] & 1 and story.flags >> semantic["article"] & 1
    assert not story.flags >> semantic["aside"] & 1


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.sampled_from(["p", "li", "h2", "div", "td", "blockquote"]), min_size=1,
                max_size=12),
       st.integers(min_value=0, max_value=5))
def test_every_block_has_one_vector_of_every_feature(tags: list[str], links: int) -> None:
    inner = "".join(f"<{t}>{PROSE[: 20 + 7 * i]}{'<a href=/x>link</a>' * links}</{t}>"
                    for i, t in enumerate(tags))
    page = read_page(f"<body><div class='content'>{inner}</div></body>".encode(), URL)
    vectors = page.evidence.vectors
    assert len(vectors) == len(page.evidence.blocks.blocks) >= 1
    assert all(len(v) == len(FEATURES) for v in vectors)
    assert all(all(-1e-9 <= x <= 2.0 for x in v) for v in vectors)
    assert all(0.0 <= p <= 1.0 for p in shipped_model().probabilities(vectors))


def test_the_shipped_model_weighs_every_feature_and_refuses_unknown_ones() -> None:
    model = shipped_model()
    assert len(model.weights) == len(FEATURES) and any(w != 0 for w in model.weights)
    with pytest.raises(ValueError, match="unknown block features"):
        BlockModel.from_mapping({"no_such_feature": 1.0}, 0.0)


def test_a_positive_weight_raises_the_probability_of_blocks_that_have_the_feature() -> None:
    vector = [0.0] * len(FEATURES)
    vector[FEATURES.index("link_density")] = 1.0
    low = BlockModel.from_mapping({"link_density": -3.0}, 0.0)
    high = BlockModel.from_mapping({"link_density": 3.0}, 0.0)
    assert low.probability(vector) < 0.5 < high.probability(vector)
    assert BlockModel.from_mapping({}, 0.0).probability(vector) == 0.5


def test_the_classifier_proposes_a_root_only_when_the_cascade_misses_most_content() -> None:
    story = "".join(f"<p>{PROSE}</p>" for _ in range(8))
    chrome = "".join(f"<p>Menu entry {i} and another menu entry</p>" for i in range(30))
    page = read_page((f"<body><div class='teaser'><p>{PROSE}</p></div>"
                      f"<div class='other'>{story}</div><div class='links'>{chrome}</div>"
                      f"</body>").encode(), URL)
    blocks = page.evidence.blocks
    teaser, other, _links = page.body
    odds = [0.05 if b.text.startswith("Menu") else 0.9 for b in blocks.blocks]
    proposal = propose_root(blocks, odds, [teaser], page.body)
    assert proposal is not None and proposal.element is other
    assert "block classifier" in proposal.why
    # Already holding the content: nothing to propose.
    assert propose_root(blocks, odds, [other], page.body) is None
    # Nothing scored as content: nothing to go on.
    assert propose_root(blocks, [0.1] * len(blocks.blocks), [teaser], page.body) is None
    # Content everywhere: the whole body is no better root than the cascade's.
    assert propose_root(blocks, [0.9] * len(blocks.blocks), [teaser], page.body) is None


def test_evidence_measures_coverage_and_purity_of_the_extraction() -> None:
    page = read_page((f"<body><div><p>{PROSE}</p></div><div><p>Subscribe to our newsletter "
                      f"for offers and news every single week.</p></div></body>").encode(), URL)
    blocks = page.evidence.blocks
    story, ad = blocks.blocks
    probabilities = [0.9, 0.1]
    whole = extraction_evidence(blocks, probabilities, f"{story.text} {ad.text}")
    only_story = extraction_evidence(blocks, probabilities, story.text)
    only_ad = extraction_evidence(blocks, probabilities, ad.text)
    assert only_story.coverage > 0.85 and only_story.purity == pytest.approx(0.9)
    assert whole.coverage == pytest.approx(1.0) and whole.purity < only_story.purity
    assert only_ad.coverage < 0.15 and only_ad.confidence < 0.5 < only_story.confidence


def test_every_html_document_carries_its_confidence_and_reason() -> None:
    story = "".join(f"<p>{PROSE}</p>" for _ in range(6))
    document = Html5libExtractor().extract_sync(
        f"<html><head><title>Harbour wall</title></head><body><nav><a href='/'>Home</a>"
        f"</nav><article><h1>Harbour wall</h1>{story}</article><footer>© Gazette</footer>"
        f"</body></html>".encode(), URL)
    confidence = document.confidence
    assert confidence is not None and not confidence.low
    assert "root <article>" in confidence.reason and "holds" in confidence.reason
    assert document.notes[-1] == confidence.note
    assert confidence.note.startswith(f"extraction confidence {confidence.score:.2f} (high)")


def _stories(count: int) -> bytes:
    """The page's story followed by `count - 1` others as long (a page that loads the next
    stories below the first): the extraction rightly keeps the first, which is then a
    shrinking share of the prose on the page."""
    articles = "".join(f"<article><h1>Story {i} headline here</h1>"
                       + "".join(f"<p>Story{i} {PROSE}</p>" for _ in range(5)) + "</article>"
                       for i in range(count))
    return (f"<html><head><title>Story 0 headline here</title></head><body>{articles}"
            f"</body></html>").encode()


def test_confidence_falls_as_more_rival_stories_compete_and_is_flagged_when_low() -> None:
    extractor = Html5libExtractor()
    scores = []
    for count in range(1, 10):
        document = extractor.extract_sync(_stories(count), URL)
        assert "Story0 " in document.text and "Story1 " not in document.text
        assert document.confidence is not None
        scores.append(document.confidence.score)
        if count >= 6:
            assert document.confidence.low
            assert document.notes[-1].startswith("extraction confidence ")
            assert "(low)" in document.notes[-1]
    assert not Html5libExtractor().extract_sync(_stories(1), URL).confidence.low  # type: ignore[union-attr]
    assert scores == sorted(scores, reverse=True)


def test_confidence_is_checked_and_read_back_from_stored_metadata() -> None:
    with pytest.raises(ValueError, match="within"):
        ExtractionConfidence(1.5, "")
    stored = {"title": "x", "extraction_confidence": {"score": 0.31, "level": "low",
                                                      "reason": "root <div> ..."}}
    read = confidence_of(stored)
    assert read is not None and read.low and read.reason == "root <div> ..."
    assert confidence_of({"title": "x"}) is None
    assert confidence_of({"extraction_confidence": {"score": "high"}}) is None
    assert confidence_of({"extraction_confidence": {"score": 7}}) is None


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from(["i", "em", "sup", "sub", "b", "span class='genus'", "scp"]),
       st.sampled_from(["citation_title", "dc.title", "og:title"]))
def test_titles_written_with_markup_are_plain_text(tag: str, key: str) -> None:
    name = tag.split()[0]
    escaped = f"Effect of &lt;{tag}&gt;Aeschynomene americana&lt;/{name}&gt; L. &amp;amp; weeds"
    page = (f"<html><head><meta name='{key}' content=\"{escaped}\"></head><body><article>"
            f"<p>{PROSE * 3}</p></article></body></html>")
    document = Html5libExtractor().extract_sync(page.encode(), URL)
    assert document.metadata.title == "Effect of Aeschynomene americana L. & weeds"
    assert document.text.startswith("# Effect of Aeschynomene americana L. & weeds\n")


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60)
       | st.text(alphabet="0123456789abc ,.", max_size=60))
def test_digit_share_counts_what_isdigit_counts(text: str) -> None:
    # ASCII text is counted by str.count, the rest a character at a time: the same count.
    assert _digits(text) == sum(1 for c in text if c.isdigit())


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.sampled_from(["post-content", "sidebar", "nav-menu", "x", "author-bio",
                                 "share-tools", "col-6", "card-item"]), min_size=1, max_size=8))
def test_path_flags_do_not_depend_on_what_the_caches_hold(classes: list[str]) -> None:
    html = "".join(f"<div class='{c} n{i}' id='i{i}'><p>Text {i}</p></div>"
                   for i, c in enumerate(classes))
    body = _body(f"<body>{html}<aside class='share-tools'><p>Share</p></aside></body>")
    with _empty_flag_caches():
        roomy = [b.flags for b in page_blocks(body).blocks]
    # A cache of two entries empties itself over and over while the page is read.
    with _empty_flag_caches(), patch.object(page_blocks_module, "_CACHE_LIMIT", 2):
        cramped = [b.flags for b in page_blocks(body).blocks]
        assert len(page_blocks_module._TOKEN_FLAGS) <= 2
    assert cramped == roomy and any(roomy)


def _empty_flag_caches() -> ExitStack:
    stack = ExitStack()
    stack.enter_context(patch.dict(page_blocks_module._TOKEN_FLAGS, clear=True))
    stack.enter_context(patch.dict(page_blocks_module._CLASS_FLAGS, clear=True))
    return stack


def test_a_vector_of_another_length_is_refused() -> None:
    with pytest.raises(ValueError, match="block features"):
        shipped_model().probability([0.0] * (len(FEATURES) - 1))
