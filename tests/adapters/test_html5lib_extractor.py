"""The HTML extractor on small pages written for the project."""

from __future__ import annotations

import html
import json

import html5lib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.adapters.html.nesting_depth import MAX_NESTING
from sheaf.domain.document.document import BlockKind, Document
from sheaf.domain.errors import ErrorKind, SheafError
from tests.property_examples import examples

EXTRACTOR = Html5libExtractor()
URL = "https://publisher.example/article/10.1000/xyz"


def extract(html: str, url: str = URL) -> Document:
    return EXTRACTOR.extract_sync(html.encode(), url)


def kinds(document: Document) -> list[BlockKind]:
    return [b.kind for b in document.blocks]


SPRINGER = """<!DOCTYPE html><html lang="en"><head>
<meta name="citation_title" content="Sleep spindles and memory">
<meta name="citation_doi" content="10.1007/s00000-020-0001-x">
<meta name="citation_pdf_url" content="https://link.springer.com/content/pdf/10.1007/x.pdf">
<meta name="citation_author" content="Ada Byron"><meta name="citation_author" content="Alan Turing">
<title>Sleep spindles and memory | SpringerLink</title></head><body>
<header class="c-header"><nav>Journals Books Log in</nav></header>
<div class="c-article-header"><h1 class="c-article-title">Sleep spindles and memory</h1></div>
<section aria-labelledby="Abs1" data-title="Abstract"><div class="c-article-section">
<h2 id="Abs1">Abstract</h2><p>Spindles predict overnight memory gains.</p></div></section>
<div class="c-article-body">
<section><h2>Introduction</h2><p>Sleep helps memory, as shown before [1].</p>
<a class="c-article-section__figure-link">Full size image</a></section>
<section><h2>Methods</h2><p>We recorded EEG in 40 adults.</p></section>
<section><h2>References</h2><ol class="c-article-references">
<li class="c-article-references__item">
<p class="c-article-references__text">Walker M. Sleep. Nature. 2009.</p>
<p class="c-article-references__links"><a href="#">Article</a>
<a href="#">Google Scholar</a></p></li>
<li class="c-article-references__item">
<p class="c-article-references__text">Born J. Spindles. Neuron. 2012.</p></li>
</ol></section>
<section><h2>Rights and permissions</h2><p>Reprints and permissions</p></section>
</div>
<div class="c-article-recommendations"><h2>Similar content being viewed by others</h2>
<p>Other paper</p></div>
</body></html>"""


def test_springer_style_article() -> None:
    document = extract(SPRINGER)
    meta = document.metadata
    assert meta.title == "Sleep spindles and memory"
    assert meta.doi == "10.1007/s00000-020-0001-x"
    assert meta.citation_pdf_url == "https://link.springer.com/content/pdf/10.1007/x.pdf"
    assert meta.authors == ("Ada Byron", "Alan Turing")
    headings = [b.draft.text for b in document.headings()]
    # The title is the document's `# ` heading (and metadata); then the abstract.
    assert headings == ["Sleep spindles and memory", "Abstract", "Introduction", "Methods",
                        "References"]
    assert document.text.startswith("# Sleep spindles and memory\n\n## Abstract")
    refs = [b for b in document.blocks if b.kind is BlockKind.REFERENCE]
    assert [r.markdown for r in refs] == ["1. Walker M. Sleep. Nature. 2009.",
                                         "2. Born J. Spindles. Neuron. 2012."]
    for junk in ("Full size image", "Google Scholar", "Similar content", "Reprints",
                 "Log in", "Rights and permissions"):
        assert junk not in document.text


def test_every_block_knows_its_exact_span() -> None:
    document = extract(SPRINGER)
    for block in document.blocks:
        assert document.text[block.start:block.end] == block.markdown


def test_page_without_article_uses_the_densest_container() -> None:
    prose = " ".join(f"Sentence number {i}, with a comma and some words." for i in range(30))
    html = f"""<html><body><div id="menu"><a href="/">Home</a> <a href="/b">Blog</a></div>
    <div class="wrapper"><div class="post-content"><h2>A post</h2><p>{prose}</p>
    <p>{prose}</p></div><div class="widget"><p>Buy our book, it has commas, many, many.</p>
    </div></div><div class="footer">Copyright 2026</div></body></html>"""
    document = extract(html)
    assert "Sentence number 29" in document.text
    assert "Home" not in document.text and "Copyright" not in document.text


def test_references_beside_a_sidebar_are_kept() -> None:
    html = """<html><body><div class="l-with-sidebar"><article><h1>T</h1>
    <p>Body text long enough to count as the article body of this page.</p>
    <h2>Bibliography</h2><ul><li>Knuth D. TAOCP. 1968.</li><li>Dijkstra E. GOTO. 1968.</li></ul>
    </article><aside class="sidebar"><h3>Popular</h3><ul><li>Other post</li></ul></aside>
    </div></body></html>"""
    document = extract(html)
    refs = [b.draft.text for b in document.blocks if b.kind is BlockKind.REFERENCE]
    assert refs == ["Knuth D. TAOCP. 1968.", "Dijkstra E. GOTO. 1968."]
    assert "Popular" not in document.text and "Other post" not in document.text


def test_tables_with_spans_and_pipes() -> None:
    html = """<html><body><article><h1>Data</h1><p>The table below lists results.</p>
    <table><tr><th colspan="2">Group</th><th>n</th></tr>
    <tr><td rowspan="2">A|B</td><td>x</td><td>1</td></tr><tr><td>y</td><td>2</td></tr>
    </table></article></body></html>"""
    document = extract(html)
    table = next(b for b in document.blocks if b.kind is BlockKind.TABLE)
    assert table.markdown.splitlines()[0] == "| Group |  | n |"
    assert "| A\\|B | x | 1 |" in table.markdown
    assert "| y | 2 |" in table.markdown


def test_nested_lists() -> None:
    html = """<html><body><article><h1>Steps</h1><p>Follow these steps with care.</p>
    <ol><li>First<ul><li>detail a</li><li>detail b</li></ul></li><li>Second</li></ol>
    </article></body></html>"""
    lists = [b for b in extract(html).blocks if b.kind is BlockKind.LIST]
    assert lists[0].markdown == "1. First\n    - detail a\n    - detail b\n2. Second"


def test_cookie_banner_only_page_is_empty() -> None:
    html = """<html><body><div class="cookie-consent"><p>We use cookies to give you the
    best experience. Accept all cookies?</p><button>Accept</button></div></body></html>"""
    with pytest.raises(SheafError) as caught:
        extract(html)
    assert caught.value.kind is ErrorKind.EMPTY


def test_megabytes_of_inline_script_never_reach_the_text() -> None:
    script = "var x = function(a){ return a + 1; };\n" * 60_000
    html = (f"<html><head><script>{script}</script></head><body><article><h1>Real</h1>"
            f"<p>The real article text.</p><script>{script}</script>"
            "<style>@media print { body { color: red } }</style></article></body></html>")
    assert len(html) > 4_000_000
    document = extract(html)
    assert "The real article text." in document.text
    assert "function(" not in document.text and "@media" not in document.text


def test_hidden_elements_and_whitespace() -> None:
    html = """<html><body><article><h1>W</h1><p>one&nbsp;two\u200b three
    four</p><p hidden>secret</p><p style="display: none">gone</p>
    <p aria-hidden="true">also gone</p><pre>  keep
      this   verbatim</pre></article></body></html>"""
    document = extract(html)
    assert "one two three four" in document.text
    assert "secret" not in document.text and "gone" not in document.text
    assert "```\n  keep\n      this   verbatim\n```" in document.text


def test_links_keep_their_text_and_record_their_url() -> None:
    html = """<html><body><article><h1>L</h1><p>See <a href="/docs">the docs</a> now.</p>
    </article></body></html>"""
    document = extract(html)
    assert "See the docs now." in document.text and "](" not in document.text
    assert any(link.url == "https://publisher.example/docs" for link in document.links)


markup = st.recursive(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20),
    lambda inner: st.tuples(
        st.sampled_from(["div", "p", "script", "style", "article", "table", "tr", "td", "ul",
                         "li", "h2", "pre", "span", "a", "noscript", "svg", "template"]),
        st.lists(inner, max_size=4),
    ).map(lambda t: f"<{t[0]}>" + "".join(t[1]) + f"</{t[0]}>"),
    max_leaves=25,
)


def _visible_to_the_parser(page: str, text: str) -> bool:
    """True when html5lib itself puts `text` outside script and style elements."""
    tree = html5lib.parse(page, treebuilder="etree", namespaceHTMLElements=False)
    for element in tree.iter():
        if element.tag in ("script", "style"):
            if text in (element.tail or ""):
                return True
            continue
        if text in (element.text or "") or text in (element.tail or ""):
            return True
    return False


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markup)
def test_arbitrary_markup_gives_a_document_or_a_typed_error(html: str) -> None:
    marker = "SCRIPTMARKER"
    page = (f"<html><body>{html}<script>{marker}()</script>"
            f"<style>.{marker} {{}}</style></body></html>")
    try:
        document = extract(page)
    except SheafError as exc:
        assert exc.kind is ErrorKind.EMPTY
        return
    if not _visible_to_the_parser(page, marker):  # "<?" before <script> makes it text
        assert marker not in document.text
    for block in document.blocks:
        assert document.text[block.start:block.end] == block.markdown


DEEP_OPENERS = {"b": "<b>", "div": "<div>", "ul": "<ul><li>", "table": "<table><tr><td>",
                "span-div": "<span><div>", "blockquote": "<blockquote>"}


@pytest.mark.parametrize("name", sorted(DEEP_OPENERS))
@pytest.mark.parametrize("levels", [100_000, 20_000])
def test_nesting_past_the_limit_is_too_complex_before_parsing(name: str, levels: int) -> None:
    html = "<p>A first paragraph of the page.</p>" + DEEP_OPENERS[name] * levels + "deep"
    with pytest.raises(SheafError) as caught:
        extract(html)
    assert caught.value.kind is ErrorKind.TOO_COMPLEX


@pytest.mark.parametrize("name", sorted(DEEP_OPENERS))
def test_nesting_just_under_the_limit_keeps_its_text(name: str) -> None:
    levels = MAX_NESTING // DEEP_OPENERS[name].count("<") - 2
    closers = "".join(f"</{t[1:]}" for t in reversed(DEEP_OPENERS[name].split("<")[1:]))
    html = ("<p>A first paragraph of the page.</p>" + DEEP_OPENERS[name] * levels
            + "the deepest words" + closers * levels + "<p>After the nest.</p>")
    text = extract(html).text
    assert "the deepest words" in text and "After the nest." in text


def test_a_long_flat_run_of_unclosed_items_is_not_deep() -> None:
    items = "".join(f"<li>item {i}<p>para {i}" for i in range(5000))
    document = extract(f"<ul>{items}</ul>")
    assert "item 4999" in document.text


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["<b>", "<i>", "<div>", "<ul><li>", "<table><tr><td>", "<p>",
                                 "</div>", "</b>", "<section>", "<a href=x>", "<h2>", "<ol>"]),
                min_size=1, max_size=30), st.integers(min_value=1, max_value=120))
def test_any_nesting_gives_a_document_or_a_typed_error(pattern: list[str], repeat: int) -> None:
    html = "<p>Opening words of a page.</p>" + "".join(pattern) * repeat + "words"
    try:
        extract(html)
    except SheafError as error:
        assert error.kind in (ErrorKind.TOO_COMPLEX, ErrorKind.EMPTY)


# Links are left out: a run that is mostly link text is a navigation line by design (the
# exact-quote test below has links in a sentence).
INLINE_TAGS = ["i", "em", "b", "strong", "sub", "sup", "span", "code", "abbr", "cite",
               "small", "mark", "u", "s", "var", "font", "time"]
WORDS = st.text(alphabet="abcXYZ()[].,−-1 ", min_size=1, max_size=8)


def _inline_markup(depth: int) -> st.SearchStrategy[tuple[str, str]]:
    """(markup, the text a browser shows for it) for nested inline elements."""
    leaf = WORDS.map(lambda w: (w.replace("&", "&amp;").replace("<", "&lt;"), w))
    if depth == 0:
        return leaf
    element = st.tuples(st.sampled_from(INLINE_TAGS), st.lists(_inline_markup(depth - 1),
                                                                 min_size=1, max_size=3))
    return st.one_of(leaf, element.map(lambda t: (
        f"<{t[0]}>" + "".join(m for m, _ in t[1]) + f"</{t[0]}>", "".join(w for _, w in t[1]))))


BLOCK_WRAPPERS = {
    "p": "<p>{}</p>", "li": "<ul><li>{}</li></ul>", "h2": "<h2>{}</h2>",
    "td": "<table><tr><td>{}</td><td>q</td></tr><tr><td>a</td><td>b</td></tr></table>",
    "figcaption": "<figure><figcaption>{}</figcaption></figure>", "dd": "<dl><dd>{}</dd></dl>",
    "blockquote": "<blockquote>{}</blockquote>",
}


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_inline_markup(3), min_size=1, max_size=5), st.sampled_from(sorted(BLOCK_WRAPPERS)))
def test_inline_elements_join_without_invented_spaces(parts: list[tuple[str, str]],
                                                      block: str) -> None:
    shown = " ".join(("Lead words " + "".join(w for _, w in parts) + " end").split())
    inner = BLOCK_WRAPPERS[block].format("Lead words " + "".join(m for m, _ in parts) + " end")
    document = extract(f"<html><head><meta name=citation_doi content=10.1000/xyz></head><body>"
                       f"<article><p>A first paragraph, with commas, for the score.</p>{inner}"
                       # a heading that ends the root heads nothing: prose follows it
                       f"<p>A last paragraph.</p></article></body></html>")
    assert shown in " ".join(document.text.split())


def test_inline_elements_in_a_sentence_are_an_exact_quote() -> None:
    document = extract("<article><p>Echium (<i>Echium plantagineum</i> L.) yields 3 t "
                       "ha<sup>−1</sup> as shown [<a href='#r2'>2</a>]. Water (H<sub>2</sub>O) "
                       "and <math><mi>x</mi><mo>+</mo><mn>1</mn></math> too.</p></article>")
    sentence = ("Echium (Echium plantagineum L.) yields 3 t ha−1 as shown [2]. Water (H2O) "
                "and x+1 too.")
    start = document.text.index(sentence)
    (block,) = [b for b in document.blocks if b.start <= start < b.end]
    assert block.markdown == sentence


def test_title_is_the_markdown_heading_and_the_banner_above_it_goes() -> None:
    document = extract("""<html><head><meta name="citation_title" content="Bayes for nulls">
    <meta name="citation_doi" content="10.3389/fpsyg.2014.00781"></head><body><article>
    <div class="header-info"><h2>METHODS article</h2><p>Front. Psychol., 29 July 2014</p>
    <p>Volume 5 - 2014</p></div><h1>Bayes for nulls</h1><h2>Abstract</h2>
    <p>No scientific conclusion follows automatically from a non-significant result.</p>
    <h2>Methods</h2><p>We computed Bayes factors for every published null result.</p>
    </article></body></html>""")
    assert document.text.startswith("# Bayes for nulls\n\n## Abstract\n\n")
    assert document.metadata.title == "Bayes for nulls"
    assert "METHODS article" not in document.text and "29 July" not in document.text
    assert [b.draft.text for b in document.headings()] == ["Bayes for nulls", "Abstract",
                                                          "Methods"]


def test_title_from_the_first_heading_is_not_repeated() -> None:
    document = extract("<article><h2>Tides</h2><p>The sea rose and fell twice a day here.</p>"
                       "</article>")
    assert document.text == "# Tides\n\nThe sea rose and fell twice a day here."


@pytest.mark.parametrize("entry", [
    '<li id="ref1"><span class="order">1.</span> Romanovsky AA (2006) Temperature.</li>',
    '<li id="ref1">1. Romanovsky AA (2006) Temperature.</li>',
    '<li id="ref1">[1] Romanovsky AA (2006) Temperature.</li>',
])
def test_reference_numbers_are_not_doubled(entry: str) -> None:
    document = extract(f"""<head><meta name="citation_doi" content="10.1000/xyz"></head>
    <article><p>Body text of the article that cites one work [1].</p><h2>References</h2>
    <ol class="references">{entry}</ol></article>""")
    (ref,) = [b for b in document.blocks if b.kind is BlockKind.REFERENCE]
    assert ref.markdown == "1. Romanovsky AA (2006) Temperature."


def test_figure_and_reference_chrome_is_dropped() -> None:
    document = extract("""<head><meta name="citation_doi" content="10.1000/xyz"></head>
    <article><p>We recorded body temperature in forty rats over two days.</p>
    <div class="figure"><div class="figure-inline-download">Download:<ul><li><a href="x">PNG
    </a></li></ul></div><div class="figcaption">Figure 1. Temperature over time.</div></div>
    <p>Results differ (see <button class="ArticleReference">Dienes, forthcoming</button>).</p>
    <h2>References</h2><ol class="references"><li>Smith J (2001) Heat. J Therm 3: 1-9.
    <ul class="links"><li><a href="https://doi.org/x">CrossRef </a></li><li><a href="g">Google
    Scholar</a></li><li><a href="#">View reference in article</a></li></ul>
    <p>Web of Science® Times Cited: 12</p></li></ol></article>""")
    text = document.text
    for chrome in ("Download", "PNG", "CrossRef", "Google", "View reference", "Times Cited"):
        assert chrome not in text
    assert "Figure 1. Temperature over time." in text
    assert "(see Dienes, forthcoming)." in text
    (ref,) = [b for b in document.blocks if b.kind is BlockKind.REFERENCE]
    assert ref.draft.text == "Smith J (2001) Heat. J Therm 3: 1-9."


ARTICLE_PARAGRAPHS = "".join(
    f"<p>Paragraph {i} of the story, with enough words, commas, and detail to read as prose "
    f"that a reader came for.</p>" for i in range(6))


@pytest.mark.parametrize("wrapper", [
    '<div class="entry-content no-share">{}</div>',
    '<div class="article isPaywall">{}</div>',
    '<article class="post steady-paywall-container tag-coronavirus">{}</article>',
    '<div class="story-body ad-marker">{}</div>',
    '<noscript><div class="text">{}</div></noscript>',
    '<form id="aspnetForm" action="/page.aspx"><div class="text">{}</div></form>',
])
def test_prose_under_a_misleading_class_is_rescued(wrapper: str) -> None:
    page = (f"<body><nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
            f"{wrapper.format(ARTICLE_PARAGRAPHS)}<div class='share'><a href='x'>Share</a>"
            f"</div></body>")
    text = extract(page).text
    assert "Paragraph 0 of the story" in text and "Paragraph 5 of the story" in text
    assert "Share" not in text and "Home" not in text


@pytest.mark.parametrize("wrapper", [
    '<div class="comments">{}</div>', '<ul class="nav">{}</ul>',
    '<div class="related-posts">{}</div>', '<section id="kommentare">{}</section>',
    '<div class="bloc-commentaires">{}</div>', '<div class="lista_comentarios">{}</div>',
    '<div class="commenti-box">{}</div>', '<div class="reacties">{}</div>',
])
def test_comments_menus_and_related_lists_are_never_rescued(wrapper: str) -> None:
    page = (f"<body><article><p>The article itself is short but it is the article, and it "
            f"stays.</p></article>{wrapper.format(ARTICLE_PARAGRAPHS)}</body>")
    document = extract(page)
    assert "The article itself is short" in document.text
    assert "Paragraph 0 of the story" not in document.text


def test_a_root_that_yields_only_chrome_is_passed_over_and_logged() -> None:
    chrome = "".join(f"<p><a href='/a{i}'>Google Scholar</a> <a href='/b{i}'>CrossRef</a> "
                     f"<a href='/c{i}'>PubMed</a>, <a href='/d{i}'>Download</a>, x</p>"
                     for i in range(40))
    page = (f"<body><div class='frame'><main>{chrome}</main></div><div class='story'>"
            f"{ARTICLE_PARAGRAPHS}</div></body>")
    document = extract(page)
    assert "Paragraph 3 of the story" in document.text
    assert "Google Scholar" not in document.text
    assert document.notes[0].startswith("HTML content root <main> (semantic container <main>) "
                                        "passed over: ")
    assert document.notes[-3].startswith("HTML content root: <div>")
    assert document.notes[-2] == "left out: nothing"
    assert document.notes[-1].startswith("extraction confidence ")


@pytest.mark.parametrize("label", ["Related News", "Siehe auch", "Das könnte Sie auch "
                                   "interessieren", "Veja Também", "Über den Autor",
                                   "Subscribe to email updates", "Lee también", "Comments"])
def test_read_next_boxes_are_dropped_until_the_story_resumes(label: str) -> None:
    long_prose = ("The story then resumes with a long paragraph of its own, well over a line "
                  "long, which is plainly the article going on after the box ends, as a "
                  "reader would see it.")
    document = extract(f"""<article>{ARTICLE_PARAGRAPHS}<h2>{label}</h2><ul>
    <li><a href="/a">A teaser headline</a></li><li><a href="/b">Another teaser</a></li></ul>
    <h3>Teaser story title</h3><p>Short teaser line.</p><p>{long_prose}</p></article>""")
    text = document.text
    assert label not in text and "teaser" not in text.lower()
    assert "Paragraph 5 of the story" in text and long_prose in text


@pytest.mark.parametrize("module", ['<div class="module module-text">{}</div>',
                                    '<article class="article_c{n}">{}</article>',
                                    '<section class="text-block">{}</section>'])
def test_a_story_set_as_several_sibling_modules_is_kept_whole(module: str) -> None:
    parts = "".join(module.format(
        f"<p>Module {n} opens with a sentence, long enough, with commas, to count as prose.</p>"
        f"<p>Module {n} goes on with another sentence of the same story, as readers see it.</p>",
        n=n) for n in range(4))
    page = (f"<body><nav><a href='/'>Home</a></nav><div class='content'>{parts}"
            f"<div class='teaser'><a href='/x'>Another story entirely, linked</a></div></div>"
            f"</body>")
    text = extract(page).text
    for n in range(4):
        assert f"Module {n} opens" in text and f"Module {n} goes on" in text
    assert "Another story entirely" not in text and "Home" not in text


def test_a_short_root_beside_much_more_page_text_is_passed_over() -> None:
    spans = "".join(f"<div><span>Line {i} of a post set in spans, with words a reader came "
                    f"for, and more of them.</span></div>" for i in range(30))
    page = (f"<body><div class='post'>{spans}</div><div class='copyright'>Crafted with care "
            f"by a template shop, all of it.</div></body>")
    document = extract(page)
    assert "Line 0 of a post" in document.text and "Line 29 of a post" in document.text
    assert any("passed over" in note for note in document.notes)


@pytest.mark.parametrize("kicker", ["Kommentar", "Comment"])
def test_an_opinion_kicker_is_not_a_comments_section(kicker: str) -> None:
    document = extract(f"<article><h2>{kicker}</h2>{ARTICLE_PARAGRAPHS}</article>")
    assert "Paragraph 0 of the story" in document.text


def _ld_page(body: str, shown: str) -> str:
    ld = json.dumps({"@context": "https://schema.org", "@type": "NewsArticle",
                     "headline": "Snow on solar panels", "articleBody": body})
    return (f'<html><head><script type="application/ld+json">{ld}</script></head><body>'
            f'<div id="app">{shown}</div></body></html>')


STORY = "\n".join(f"Sentence {i} of the story that the page renders with a script, in full."
                  for i in range(12))


def test_json_ld_article_body_stands_in_for_a_page_rendered_by_script() -> None:
    document = extract(_ld_page(STORY, "<p>Sentence 0 of the story that the page renders</p>"))
    assert "Sentence 11 of the story" in document.text
    assert any("JSON-LD articleBody" in note for note in document.notes)


def test_json_ld_article_body_about_another_text_is_not_taken() -> None:
    shown = ("<p>Eine Schneedecke auf der Anlage ist im Winter normal, sagen die Experten "
             "der Branche.</p>")
    document = extract(_ld_page(STORY, shown))
    assert "Eine Schneedecke" in document.text and "Sentence 11" not in document.text


def test_json_ld_nested_too_deep_is_ignored() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    page = (f'<html><head><script type="application/ld+json">{deep}</script></head><body>'
            f"<article><p>The page itself still reads as an article, with words.</p>"
            f"</article></body></html>")
    assert "still reads as an article" in extract(page).text


@pytest.mark.parametrize("wrapper", [
    '<article class="node article paywall-on">{}</article>',
    '<div role="article" class="story has-paywall">{}</div>',
])
def test_a_paywall_state_on_the_article_itself_does_not_hide_it(wrapper: str) -> None:
    teasers = "".join(f"<div class='teaser'><p>Teaser {i} of another story, with a line of "
                      f"prose, commas, and a summary that runs on.</p></div>" for i in range(12))
    page = (f"<body><main>{wrapper.format(ARTICLE_PARAGRAPHS)}"
            f"<div class='paywall-prompt'><p>Subscribe now to read on, it is cheap, honestly "
            f"cheap.</p></div>{teasers}</main></body>")
    text = extract(page).text
    assert "Paragraph 0 of the story" in text and "Paragraph 5 of the story" in text
    assert "Subscribe now" not in text


def test_ruby_readings_are_not_part_of_the_text() -> None:
    page = ("<article><p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもの<ruby>法律<rt>"
            "ほうりつ</rt></ruby>ができて、<ruby>親<rt>おや</rt></ruby>が"
            "子どもを教育するために、たたいたり蹴ったりする体罰を禁止することになりました。</p>"
            "</article>")
    assert "子どもの法律ができて、親が子どもを教育する" in extract(page).text


TRAILING_LABELS = [
    "<h2>Mehr zum Thema</h2>", "<p>Themen:</p>", "<p>Seite teilen</p>",
    "<h3>Weiterführende Informationen</h3>", "<p>En savoir plus</p>",
    "<p>This entry was posted in News. Bookmark the permalink.</p>",
    "<p>Filed under politics, elections.</p>", "<p>Etiquetas: Gobierno, Salud</p>",
    "<p>Meistgelesene Artikel</p>", "<h4>Related Coverage</h4>", "<p>Kategorie: News</p>",
]


@pytest.mark.parametrize("labels", [TRAILING_LABELS[i:i + 3]
                                    for i in range(len(TRAILING_LABELS))])
def test_box_titles_and_labels_after_the_last_sentence_are_chrome(labels: list[str]) -> None:
    document = extract(f"<article>{ARTICLE_PARAGRAPHS}{''.join(labels)}</article>")
    text = document.text
    assert "Paragraph 5 of the story" in text
    for label in labels:
        assert html5lib.parseFragment(label).itertext().__next__() not in text


@pytest.mark.parametrize("ending", ["<p>Euer Hans, die Redaktion</p>", "<p>– „Ok.“</p>",
                                    "<p>Viel Glück!</p>", "<h2>Fazit</h2><p>Es lohnt sich.</p>"])
def test_a_short_last_sentence_or_signature_stays(ending: str) -> None:
    document = extract(f"<article>{ARTICLE_PARAGRAPHS}{ending}</article>")
    last = "".join(html5lib.parseFragment(ending.split("<p>")[-1]).itertext())
    assert document.text.rstrip().endswith(last)


@pytest.mark.parametrize("tail", [
    # a contact box: a heading over short lines, commas and all
    "<h3>Kontakt</h3><p>Bundesamt für Naturschutz</p><p>Referat Presse, Öffentlichkeit</p>"
    "<p>Konstantinstraße 110, 53179 Bonn</p>",
    # an author box: the name as a heading, one line of role
    "<h4>Annette Henkel</h4><p>Editor, writer, reader</p>",
    # a box of other stories: its title, a teaser's title and summary
    "<h2>Noch mehr Infos für dich</h2><h3>Strom aus Wellenenergie</h3><p>Das Minikraftwerk "
    "verwandelt Wellen in Strom. Das erste Modul läuft schon.</p>",
    "<h2>Keine Lust alleine zu radeln?</h2><h3>Tine</h3><p>Hi, ich bin Tine und liebe es, "
    "mit dem Rad die Stadt zu erkunden, komm mit!</p>",
    # copyright and filing lines, full stop and all
    "<p>© 2020 Example Interactive Inc. All Rights Reserved.</p>",
    "<p>Der Beitrag wurde am Mittwoch, den 27. November 2019 um 15:21 Uhr veröffentlicht und "
    "wurde unter Allgemein, Region abgelegt.</p>",
])
def test_boxes_after_the_last_sentence_are_chrome(tail: str) -> None:
    document = extract(f"<article>{ARTICLE_PARAGRAPHS}{tail}</article>")
    assert document.text.rstrip().endswith("that a reader came for.")


def test_a_last_section_of_the_article_stays() -> None:
    section = ("<h2>Fazit</h2><p>Es lohnt sich, sagen alle, die es versucht haben, und zwar "
               "sehr.</p><p>Wer zweifelt, fragt am besten selbst nach.</p>")
    document = extract(f"<article>{ARTICLE_PARAGRAPHS}{section}</article>")
    assert "Wer zweifelt, fragt am besten selbst nach." in document.text
    assert "Fazit" in document.text


def test_labels_between_paragraphs_stay_where_prose_follows() -> None:
    document = extract(f"<article><p>Zwischentitel</p>{ARTICLE_PARAGRAPHS}</article>")
    assert "Zwischentitel" in document.text


def _comment_thread(n: int) -> str:
    return "<ul class='thread'>" + "".join(
        f"<li><a href='/u{i}'><h4>reader{i}</h4></a><p>Comment {i}: I disagree, and here is "
        f"why, at some length, with commas, because comments run long, very long.</p></li>"
        for i in range(n)) + "</ul>"


@pytest.mark.parametrize("comments", [20, 60])
def test_a_declared_article_body_wins_over_a_longer_comment_thread(comments: int) -> None:
    story = "".join(f"<p>Paragraph {i} of the story, long enough to count, with commas, and "
                    f"with the detail a reader came for, over and over.</p>" for i in range(12))
    page = (f"<body><div class='page'><div itemprop='articleBody'>{story}</div></div>"
            f"<div class='community'>{_comment_thread(comments)}</div></body>")
    text = extract(page).text
    assert "Paragraph 0 of the story" in text and "Paragraph 11 of the story" in text
    assert "Comment 3:" not in text


@pytest.mark.parametrize("neighbour", ["next-post-thumbnails", "nextstory", "prev_article",
                                       "previous-entries"])
def test_links_to_neighbouring_posts_are_chrome(neighbour: str) -> None:
    teasers = "".join(f"<div class='{neighbour}'><p>Teaser {i}, another post, with a summary, "
                      f"commas, and a line of prose to score.</p></div>" for i in range(5))
    page = (f"<body><div id='story'><p>The post itself, short, with a sentence or two of "
            f"its own, and a comma.</p></div><div id='{neighbour}'>{teasers}</div></body>")
    text = extract(page).text
    assert "The post itself" in text and "Teaser" not in text


@pytest.mark.parametrize("box", [
    "<div class='card-content'><p>Earn 80,000 points, then 2x, 3x, 5x, on dining, travel, "
    "groceries, gas, and more, terms apply, see rates, fees, and offer details.</p></div>",
    "<div class='quote-content'><p>“Short, sharp, quotable, and, yes, full of commas, commas, "
    "commas,” she said, later, twice, to them, all.</p></div>",
])
def test_a_dense_box_does_not_outscore_a_longer_article_beside_it(box: str) -> None:
    # Scored a little under the box (fewer commas per character), with six times its text.
    story = "".join(f"<p>Sentence {i} of a <a href='/x{i}'>linked</a> story that runs on, for "
                    f"a while, as stories do, with more words than a box holds, and detail.</p>"
                    for i in range(7))
    page = f"<body><div class='offer'>{box}</div><div class='wrap'>{story}</div></body>"
    document = extract(page)
    assert "Sentence 0 of a linked story" in document.text
    assert "Sentence 6 of a linked story" in document.text
    assert any("far more prose" in note for note in document.notes)


@pytest.mark.parametrize("block", ["<div class='row'><div class='textpic_text'>{}</div></div>",
                                   "<section><div class='c-text-element'>{}</div></section>",
                                   "<div class='step'><div class='recipeStepText'>{}</div>"
                                   "</div>"])
def test_an_article_set_as_a_run_of_like_blocks_is_kept_whole(block: str) -> None:
    blocks = "".join(block.format(
        f"<p>Part {n} opens with a sentence, long enough, with commas, to score as prose.</p>"
        f"<p>Part {n} carries on, with a second sentence, and more words, for the reader.</p>")
        for n in range(5))
    page = f"<body><div class='frame'><div class='inner'>{blocks}</div></div></body>"
    document = extract(page)
    for n in range(5):
        assert f"Part {n} opens" in document.text
    assert any("near-best scores" in note for note in document.notes)


def test_alike_sidebar_widgets_do_not_pull_the_root_into_their_column() -> None:
    widget = ("<div class='box'><div class='content'><p>Event {n}: a date, a place, a hall, a "
              "time.</p></div></div>")
    links = "".join(f"<a href='/e{n}'>All the other events of week {n} and the next</a> "
                    for n in range(8))
    story = "".join(f"<p>Sentence {i} of the article itself, which reads on for a while.</p>"
                    for i in range(12))
    page = (f"<body><div class='col'>{''.join(widget.format(n=n) for n in range(5))}"
            f"<div>{links}</div></div><div class='col'><div class='full'>{story}</div></div>"
            f"</body>")
    document = extract(page)
    assert "Sentence 11 of the article itself" in document.text
    assert "Event 2:" not in document.text


def _story(title: str, n: int) -> str:
    return (f"<article class='entry'><h1>{title}</h1>" + "".join(
        f"<p>{title}: paragraph {i}, with commas, words, and more words, as a story has.</p>"
        for i in range(n)) + "</article>")


@pytest.mark.parametrize("title_tag", ["Diario | Bendición de vehículos este sábado",
                                       "Bendición de vehículos este sábado – Diario"])
def test_of_several_stories_on_a_page_the_one_titled_after_the_page_is_taken(
        title_tag: str) -> None:
    # Infinite-scroll pages load the next stories, longer or denser, below the first.
    page = (f"<html><head><title>{title_tag}</title></head><body><div class='feed'>"
            f"{_story('Bendición de vehículos este sábado', 5)}{_story('Otra noticia', 12)}"
            f"{_story('Una tercera noticia', 9)}</div></body></html>")
    text = extract(page).text
    assert "Bendición de vehículos este sábado: paragraph 4" in text
    assert "Otra noticia: paragraph" not in text and "Una tercera" not in text


@pytest.mark.parametrize("target", ['<main id="skip-main">{}</main>',
                                    '<div id="skip-to-content" class="page">{}</div>',
                                    '<section class="skiptarget">{}</section>'])
def test_where_a_skip_link_leads_is_the_content(target: str) -> None:
    # More plain lines elsewhere than the article has prose: no rescue would find it.
    other = "".join(f"<p>Help line {i} for the members area of this site and all of its apps</p>"
                    for i in range(12))
    page = (f"<body><a class='skip-link' href='#skip-main'>Skip to content</a>"
            f"{target.format(ARTICLE_PARAGRAPHS)}<div class='help'>{other}</div></body>")
    text = extract(page).text
    assert "Paragraph 0 of the story" in text and "Skip to content" not in text


@pytest.mark.parametrize("breaks", ["<br><br>", "<br />\n<br />", "<br>"])
def test_prose_set_in_a_div_with_line_breaks_scores_as_its_paragraphs(breaks: str) -> None:
    # Six paragraphs of over a hundred characters outscore the box; one run of text
    # of the same length would not.
    prose = breaks.join(f"Paragraph {i} of the description sits straight in the div and reads "
                        f"as prose over several lines just as a reader sees it" for i in range(6))
    box = ("<div class='box'><ul><li>Cart, empty, for now, and later</li>"
           "<li>Opening hours, days, times, and more</li></ul></div>")
    page = f"<body><div class='side'>{box}</div><div class='description'>{prose}</div></body>"
    document = extract(page)
    text = document.text
    assert "Paragraph 0 of the description" in text and "Paragraph 5 of the description" in text
    assert not any("passed over" in note for note in document.notes)  # chosen first


def _link_roll(n: int) -> str:
    return "<ul class='linkroll'>" + "".join(
        f"<li><p class='link'><a href='https://site{i}.example/story'>Headline {i} of a "
        f"story saved to read later</a></p><p class='note'>via site{i}.example</p></li>"
        for i in range(n)) + "</ul>"


def test_a_post_that_is_a_list_of_links_keeps_its_links() -> None:
    page = (f"<body><nav><a href='/'>Home</a></nav><article class='post'><h1>Links of the "
            f"day</h1>{_link_roll(12)}<p>Posted from a bookmarks app.</p></article></body>")
    document = extract(page)
    assert "Headline 0 of a story saved to read later" in document.text
    assert "via site11.example" in document.text
    assert any("lists of links kept" in note for note in document.notes)


def test_a_teaser_list_article_does_not_win_over_the_story_beside_it() -> None:
    page = (f"<body><article class='teasers'>{_link_roll(6)}</article>"
            f"<div class='story'>{ARTICLE_PARAGRAPHS}</div></body>")
    text = extract(page).text
    assert "Paragraph 5 of the story" in text and "Headline 0" not in text


def _state(title: str, steps: int, prefix: str) -> dict[str, object]:
    return {"title": title, "description": f"<p>{prefix} introduction, in a sentence of its "
                                          f"own, that tells the reader what comes next.</p>",
            "steps": [{"text": f"<p>{prefix} step {i}: cut, fold and sew the cloth along the "
                               f"line, then press it flat.</p>"} for i in range(steps)]}


_SHELL = ("<html><head><title>{title} | Site</title></head><body>{state}"
          "<div id='app'><p>Your browser is out of date.</p></div></body></html>")


@pytest.mark.parametrize("carrier", ["next", "json", "window", "props"])
def test_a_story_kept_only_in_script_state_is_read_from_the_object_titled_after_the_page(
        carrier: str) -> None:
    title = "How to sew a round tablecloth"
    state = {"page": {"project": _state(title, 6, "Ours"),
                      "related": _state("Cleaning a chalkboard", 9, "Other")},
             "nav": ["Home", "Shop"]}
    blob = json.dumps(state)
    holder = {
        "next": f'<script id="__NEXT_DATA__" type="application/json">{blob}</script>',
        "json": f'<script type="application/json">{blob}</script>',
        "window": f"<script>window.__INITIAL_STATE__ = {blob};</script>",
        "props": f'<div data-react-props="{html.escape(blob)}"></div>',
    }[carrier]
    document = extract(_SHELL.format(title=title, state=holder))
    text = document.text
    assert "Ours introduction, in a sentence" in text and "Ours step 5: cut" in text
    assert "Other step" not in text
    assert any("script state" in note for note in document.notes)


def test_script_state_that_names_no_page_title_is_not_taken() -> None:
    blob = json.dumps({"related": _state("Cleaning a chalkboard", 9, "Other")})
    page = _SHELL.format(title="How to sew a round tablecloth",
                         state=f'<script type="application/json">{blob}</script>')
    assert "Other step" not in extract(page).text


@pytest.mark.parametrize("line", ["Aktualisiert: 11.04.2020, 10:27", "Dienstag, 4. Juni 2019",
                                  "Updated: 2020-04-03 12:35", "June 4, 2019",
                                  "Publié le 4 juin 2019 à 10h30", "03.04.2020"])
def test_a_line_that_is_only_a_date_is_the_dateline(line: str) -> None:
    document = extract(f"<article><p>{line}</p>{ARTICLE_PARAGRAPHS}<p>{line}</p></article>")
    assert line not in document.text and "Paragraph 5 of the story" in document.text


@pytest.mark.parametrize("line", ["Vom 4. Juni 2019 bis heute ging es gut.",
                                  "In 2019 we went to Paris, twice."])
def test_a_sentence_with_a_date_stays(line: str) -> None:
    document = extract(f"<article>{ARTICLE_PARAGRAPHS}<p>{line}</p></article>")
    assert line in document.text


@pytest.mark.parametrize("module_class", ["media", "", "text-module", "ce-textpic"])
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("modules", [2, 4])
def test_a_story_whose_score_sits_in_one_wrapped_module_is_kept_whole(
        module_class: str, depth: int, modules: int) -> None:
    lead = "".join(f"<p>Lead paragraph {n}, with commas, clauses, asides, and more, as an "
                   f"interview's opening answer has them, at length, here.</p>"
                   for n in range(2 * modules))
    wrapped = "<div>" * depth + f"<div class='lead'>{lead}</div>" + "</div>" * depth
    rest = "".join(f"<div class='{module_class}'><p>Module {n} carries on the interview with "
                   f"a plain answer that runs on for a while without any pause in it at "
                   f"all until the end</p><p>Module {n} closes the answer with another long "
                   f"plain sentence that a reader came to this page to read in full</p></div>"
                   for n in range(modules))
    page = (f"<body><nav><a href='/'>Home</a></nav><div id='story'>{wrapped}{rest}</div>"
            f"<div class='teaser'><a href='/x'>Another story entirely, linked</a></div></body>")
    text = extract(page).text
    assert "Lead paragraph 0" in text
    assert all(f"Module {n} carries on" in text and f"Module {n} closes" in text
               for n in range(modules))
    assert "Another story entirely" not in text and "Home" not in text


@pytest.mark.parametrize("depth", [1, 2])
def test_a_wrapped_story_beside_a_list_of_linked_teasers_stays_alone(depth: int) -> None:
    lead = "".join(f"<p>Story paragraph {n}, with commas, clauses, asides, and more, as a "
                   f"story has them, at length, here.</p>" for n in range(5))
    wrapped = "<div>" * depth + f"<div class='lead'>{lead}</div>" + "</div>" * depth
    teasers = "".join(f"<li><a href='/t{n}'>Teaser {n} names another story</a> and says a "
                      f"little about it in a line of plain text after the link itself</li>"
                      for n in range(12))
    page = f"<body><div id='page'>{wrapped}<ul>{teasers}</ul></div></body>"
    text = extract(page).text
    assert "Story paragraph 0" in text and "Story paragraph 4" in text
    assert "Teaser 3 names" not in text


@pytest.mark.parametrize("suffix", ["", " (40222)", " (40222) - Holiday homes"])
@pytest.mark.parametrize("section", ["faq", "prices", "reviews"])
@pytest.mark.parametrize("questions", [4, 7])
def test_the_best_scoring_section_under_the_page_title_brings_the_page_with_it(
        suffix: str, section: str, questions: int) -> None:
    name = "Farmhouse Feinen by the lake"
    # Each answer scores on its own (no shared parent within the three credited levels),
    # so the section is "the container of several near-best scores".
    items = "".join(f"<div class='item'><h3>Question {n}?</h3><div class='wrap'><div><p>"
                    f"Answer {n}: yes, guests may, within reason, bring pets, bikes, boats, "
                    f"and children, as the terms, which apply, say.</p></div></div></div>"
                    for n in range(questions))
    page = (f"<html><head><title>{name}{suffix}</title></head><body>"
            f"<div class='top'><a href='/'>Portal</a> <a href='/help'>Help</a></div>"
            f"<div id='listing'><h1>{name}</h1><div id='about'>"
            f"<p>We turned our old farmhouse into a holiday home that sleeps eight guests</p>"
            f"<p>The village lies in a quiet valley with walks straight from the door</p></div>"
            f"<section id='{section}'>{items}</section></div>"
            f"<div class='foot'><a href='/imprint'>Imprint</a></div></body></html>")
    text = extract(page).text
    assert "We turned our old farmhouse" in text and "The village lies" in text
    assert "Answer 0: yes" in text and "Portal" not in text


def test_a_section_whose_title_heading_sits_in_a_link_roll_stays_alone() -> None:
    name = "Farmhouse Feinen by the lake"
    items = "".join(f"<div class='item'><h3>Question {n}?</h3><div class='wrap'><div><p>"
                    f"Answer {n}: yes, guests may, within reason, bring pets, bikes, boats, "
                    f"and children, as the terms, which apply, say.</p></div></div></div>"
                    for n in range(5))
    links = "".join(f"<li><a href='/o{n}'>Other holiday home number {n} nearby</a></li>"
                    for n in range(20))
    page = (f"<html><head><title>{name}</title></head><body><div id='page'><h1>{name}</h1>"
            f"<ul>{links}</ul><section id='faq'>{items}</section></div></body></html>")
    text = extract(page).text
    assert "Answer 0: yes" in text and "Other holiday home number 3" not in text
