"""Classes of page layout where the best-scoring container is not the article (issue 29),
each on generated variations with negatives: one folded part of an article set as text
modules and collapsible panels; a box of the side column beside the column the page's
title heads; a photo credit set as a BEM caption element inside the article."""

from __future__ import annotations

import itertools
from xml.etree.ElementTree import Element

import pytest

from sheaf.adapters.html.collapsed_parts import is_collapsible, out_of_collapsed_panel
from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.adapters.html.page_inputs import read_page
from sheaf.domain.document.document import Document

EXTRACTOR = Html5libExtractor()
URL = "https://site.example/news/detail/"
TEXT = ("the council met again on monday and agreed that the harbour works would go on "
        "through the winter while the old quay is rebuilt stone by stone for the ferries "
        "that carry workers and goods across the bay each morning")
WORDS = TEXT.split()


def sentence(seed: int, words: int = 22) -> str:
    """A sentence that opens with its own number, so that its opening is found only where
    the sentence is."""
    picked = [WORDS[(seed * 7 + i * 3) % len(WORDS)] for i in range(words)]
    return f"Record {seed} says " + " ".join(picked) + "."


def paragraphs(seed: int, count: int, per: int = 3) -> str:
    return "".join("<p>" + " ".join(sentence(seed * 100 + k * 10 + j) for j in range(per))
                   + "</p>" for k in range(count))


def extract(html: str) -> Document:
    return EXTRACTOR.extract_sync(html.encode(), URL)


def flat(document: Document) -> str:
    return " ".join(document.text.split())


MENU = ('<nav class="main-nav"><ul>' + "".join(f'<li><a href="/s{i}">Section {i}</a></li>'
                                               for i in range(12)) + "</ul></nav>")
FOOTER = '<footer><p>Imprint, privacy, contact and terms of use of this site.</p></footer>'


# -- one folded part of an article set as modules and panels -------------------------------
def folded_panel(token: str, inner: str, depth: int, heading: str) -> str:
    wrapped = inner
    for level in range(depth):
        wrapped = f'<div class="{("row", "col-xs-12", "panel-body")[level % 3]}">{wrapped}</div>'
    if token == "details":
        return f"<details><summary>{heading}</summary>{wrapped}</details>"
    return (f'<div class="panel-group {token}-media" id="acc1"><div class="panel panel-default">'
            f'<div class="panel-heading"><a href="#c1">{heading}</a></div>'
            f'<div class="{token}" id="c1">{wrapped}</div></div></div>')


def modular_article(token: str, modules: int, position: int, depth: int) -> tuple[str, list[str]]:
    """A story as `modules` text modules with one long folded panel at `position`; the
    opening words of every part, to look for."""
    parts = [f'<div class="media"><h3>Part {i}</h3>{paragraphs(i + 1, 2)}</div>'
             for i in range(modules)]
    panel_text = paragraphs(90, 8, per=4)
    parts.insert(position, f"<div>{folded_panel(token, panel_text, depth, 'Interview')}</div>")
    html = (f"<!DOCTYPE html><html><head><title>Harbour works go on</title></head><body>"
            f"{MENU}<div class='page'><section><div class='news-detail'>"
            f"<h1>Harbour works go on</h1>{''.join(parts)}</div></section></div>{FOOTER}"
            f"</body></html>")
    openings = [sentence(100 * (i + 1))[:60] for i in range(modules)] + [sentence(9000)[:60]]
    return html, openings


@pytest.mark.parametrize(("token", "modules", "where", "depth"), list(itertools.product(
    ("collapse", "panel-collapse collapse", "accordion", "details"), (1, 2, 3),
    ("first", "last"), (1, 3))))
def test_an_article_with_a_folded_part_comes_out_whole(token: str, modules: int, where: str,
                                                       depth: int) -> None:
    html, openings = modular_article(token, modules, 0 if where == "first" else modules, depth)
    text = flat(extract(html))
    for opening in openings:
        assert opening in text
    assert "Section 3" not in text
    assert "Imprint" not in text


def test_toggle_states_and_menus_are_not_panels() -> None:
    for classes in ("navbar-collapse", "collapsed", "collapse-toggle", "accordion-button x"):
        assert not is_collapsible(Element("div", {"class": classes}))
    for classes in ("collapse in", "panel-collapse", "accordion", "accordion-item", "read-more"):
        assert is_collapsible(Element("div", {"class": classes}))
    assert is_collapsible(Element("details"))


def _tree(beside_links: bool, beside_prose: int) -> tuple[Element, Element, dict[Element, Element]]:
    body = Element("body")
    column = Element("div")
    widget = Element("div", {"class": "accordion"})
    root = Element("div", {"class": "panel-body"})
    widget.append(root)
    column.append(widget)
    body.append(column)
    beside = Element("a" if beside_links else "p")
    beside.text = "x" * beside_prose
    column.append(beside)
    parents = {child: parent for parent in body.iter() for child in parent}
    return body, root, parents


@pytest.mark.parametrize(("links", "beside", "widened"), [
    (False, 2000, True),    # prose beside the widget: the article's other parts
    (True, 2000, False),    # links beside it: a menu column with a folded box
    (False, 200, False),    # a caption's worth beside it: the panel is all there is
])
def test_a_panel_is_widened_only_to_prose_beside_it(links: bool, beside: int,
                                                    widened: bool) -> None:
    body, root, parents = _tree(links, beside)
    widget = parents[root]
    column = parents[widget]
    sizes = {id(root): 1000, id(widget): 1000, id(column): 1000 + (0 if links else beside)}

    def density(element: Element) -> float:
        return 0.6 if links else 0.0

    found = out_of_collapsed_panel(root, parents, body, lambda e: sizes.get(id(e), 0), density)
    assert (found is column) if widened else (found is None)


def test_a_page_that_is_all_folded_panels_keeps_every_answer() -> None:
    panels = "".join(folded_panel("collapse", paragraphs(i, 1), 2, f"Question {i}")
                     for i in range(1, 6))
    html = (f"<!DOCTYPE html><html><head><title>Questions on the harbour works</title></head>"
            f"<body>{MENU}<main><h1>Questions on the harbour works</h1><div class='faq'>"
            f"{panels}</div></main>{FOOTER}</body></html>")
    text = flat(extract(html))
    for i in range(1, 6):
        assert sentence(100 * i)[:60] in text


# -- a box of the side column beside the column the page's title heads -------------------
SIDE_BOX = ("<div class='panel panel-primary'><div class='panel-heading'><h3>Contact</h3></div>"
            "<div class='panel-body'><b>Harbour Wines, Bottles, Tapas, Cheese and Ham</b><br>"
            "Owner: A. Marin, Shop 1, King Street 18, 14109 Berlin, Germany<br>"
            "Phone: +49 30 2581, Fax: +49 30 2582, Mail: shop@harbour.example<br>"
            "<b>Opening hours</b><br>Monday, Tuesday, Wednesday, Thursday, Friday 12 to 19, "
            "Saturday 10 to 15, Sunday closed, holidays closed, by phone, by mail, by fax<br>"
            "</div></div>")


def shop_page(grid: tuple[str, str], side_first: bool, title: str, wraps: int) -> str:
    main_class, side_class = grid
    description = ("<div class='description'><span class='st'>"
                   + " ".join(sentence(500 + i) for i in range(4)) + "</span><br>"
                   + " ".join(sentence(600 + i) for i in range(3)) + "</div>")
    heading = "<h1>Rioja reds from the Ebro</h1>"
    for _ in range(wraps):
        heading = f"<div class='crumbs'>{heading}</div>"
    # A shop's listing under the description: mostly links.
    items = "".join(f"<div class='item'><h2><a href='/w{i}'>Bodega number {i} red wine from "
                    f"the upper Ebro valley</a></h2><span>9,50 EUR per bottle</span></div>"
                    for i in range(10))
    main = f"<div class='{main_class}'>{heading}{description}{items}</div>"
    side = f"<div class='{side_class}'>{SIDE_BOX}</div>"
    columns = side + main if side_first else main + side
    return (f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{MENU}"
            f"<div class='container'><div class='row'>{columns}</div></div>{FOOTER}"
            f"</body></html>")


@pytest.mark.parametrize(("grid", "side_first", "title", "wraps"), list(itertools.product(
    (("col-md-9", "col-md-3"), ("col-sm-8", "col-sm-4"), ("large-9 columns", "large-3 columns")),
    (False, True),
    ("Rioja reds from the Ebro", "Rioja reds from the Ebro - Harbour Wines Berlin",
     "Rioja reds from the Ebro | Harbour Wines"),
    (0, 2))))
def test_the_column_the_title_heads_beats_a_box_beside_it(grid: tuple[str, str],
                                                          side_first: bool, title: str,
                                                          wraps: int) -> None:
    html = shop_page(grid, side_first, title, wraps)
    # The cascade's own first choice, before the block classifier weighs in: the side box
    # outscores the description by its commas.
    assert read_page(html.encode(), URL).candidates[0].element.get("class") == "description"
    text = flat(extract(html))
    assert sentence(500)[:60] in text
    assert sentence(602)[:60] in text
    assert "Opening hours" not in text


def test_a_short_hero_under_the_title_does_not_pull_the_article_away() -> None:
    # The title heads a column with a standfirst only; the story beside it has far more
    # prose, so the column the title heads is not where the text is.
    hero = (f"<div class='hero'><h1>Harbour works go on</h1><p>{sentence(1)} "
            f"{sentence(2)}</p></div>")
    story = f"<div class='story-body'>{paragraphs(3, 6)}</div>"
    html = (f"<!DOCTYPE html><html><head><title>Harbour works go on</title></head><body>"
            f"{MENU}<div class='row'><div class='col-md-4'>{hero}</div>"
            f"<div class='col-md-8'>{story}</div></div>{FOOTER}</body></html>")
    assert read_page(html.encode(), URL).candidates[0].element.get("class") == "story-body"
    text = flat(extract(html))
    assert sentence(300)[:60] in text
    assert sentence(350)[:60] in text


def test_a_title_heading_in_the_page_header_leaves_the_story_alone() -> None:
    # The titled column is the whole page: it holds the chosen story, so nothing moves.
    html = (f"<!DOCTYPE html><html><head><title>Harbour works go on</title></head><body>"
            f"<div class='wrap'><div class='top'><h1>Harbour works go on</h1></div>"
            f"<div class='text'>{paragraphs(4, 5)}</div>"
            f"<div class='box'><p>{sentence(7)}</p></div></div>{FOOTER}</body></html>")
    text = flat(extract(html))
    assert sentence(400)[:60] in text
    assert sentence(440)[:60] in text


# -- a photo credit set as a BEM caption element -------------------------------------------
@pytest.mark.parametrize("caption_class", ["media__caption media__caption--source",
                                           "c-image__caption", "image__caption--credit"])
def test_bem_caption_elements_of_news_photos_are_left_out(caption_class: str) -> None:
    html = (f"<!DOCTYPE html><html><head><title>Harbour works go on</title></head><body>"
            f"<article><h1>Harbour works go on</h1><div class='media__image'>"
            f"<img src='/a.jpg' alt='The quay'><p class='{caption_class}'>Photo: A. Marin, "
            f"King Street, Berlin.</p></div>{paragraphs(5, 4)}</article></body></html>")
    text = flat(extract(html))
    assert "A. Marin" not in text
    assert sentence(500)[:60] in text


def test_a_paragraph_whose_class_only_mentions_a_caption_stays() -> None:
    html = (f"<!DOCTYPE html><html><head><title>Harbour works go on</title></head><body>"
            f"<article><h1>Harbour works go on</h1><p class='captioned-text'>{sentence(8)}</p>"
            f"{paragraphs(5, 3)}</article></body></html>")
    assert sentence(8)[:60] in flat(extract(html))


# -- of several <article>s, the one that opens the page under its headline -----------------
def landing_page(lead_paragraphs: int, h1_outside: bool, teasers: int) -> str:
    headline = "<h1>Become a product tester</h1>"
    lead = (f"<article class='box teaser_1'>{'' if h1_outside else headline}"
            f"<div class='text'>{paragraphs(11, lead_paragraphs)}</div></article>")
    cards = "".join(f"<article class='box teaser_{i + 2}'><h2>Product test {i}</h2>"
                    f"<p>{sentence(2000 + i, 12)}</p></article>" for i in range(teasers))
    blurb = (f"<div><article class='box text-block'><h2>All tests at a glance</h2>"
             f"{paragraphs(12, 6)}</article></div>")
    return (f"<!DOCTYPE html><html><head><title>Product testers wanted | Shop</title></head>"
            f"<body>{MENU}{headline if h1_outside else ''}<section class='col-2'>{lead}"
            f"<div class='grid'>{cards}</div>{blurb}</section>{FOOTER}</body></html>")


@pytest.mark.parametrize(("lead", "teasers"), list(itertools.product((2, 3), (0, 4, 12))))
def test_the_article_under_the_first_headline_is_the_story(lead: int, teasers: int) -> None:
    text = flat(extract(landing_page(lead, False, teasers)))
    assert sentence(1100)[:60] in text
    assert sentence(1100 + 10 * (lead - 1))[:60] in text
    assert sentence(2001, 12)[:40] not in text


@pytest.mark.parametrize("teasers", (0, 4, 12))
def test_a_headline_outside_every_article_leaves_the_longest_one(teasers: int) -> None:
    text = flat(extract(landing_page(2, True, teasers)))
    assert sentence(1200)[:60] in text
    assert sentence(1250)[:60] in text


def test_a_headline_card_with_little_prose_is_not_the_story() -> None:
    # The first headline sits on a card with a line of text: the longest article stays.
    html = landing_page(2, False, 4).replace(paragraphs(11, 2), f"<p>{sentence(11, 10)}</p>")
    text = flat(extract(html))
    assert sentence(1200)[:60] in text
    assert sentence(1250)[:60] in text


# -- the box about the post's author ------------------------------------------------------
@pytest.mark.parametrize("marks", ["class='author-box'", "id='mvp-author-box-wrap'",
                                   "class='row authorBox'", "class='entry-author-box clearfix'"])
def test_the_box_about_the_author_is_left_out(marks: str) -> None:
    html = (f"<!DOCTYPE html><html><head><title>Harbour works go on</title></head><body>"
            f"<article><h1>Harbour works go on</h1>{paragraphs(6, 4)}"
            f"<div {marks}><p>Ana Marin writes about ports, ferries and the sea. You can "
            f"follow her on the usual networks.</p></div>{paragraphs(7, 1)}</article>"
            f"</body></html>")
    text = flat(extract(html))
    assert "Ana Marin writes" not in text
    assert sentence(600)[:60] in text
    assert sentence(700)[:60] in text


def test_an_authors_line_is_not_an_author_box() -> None:
    html = (f"<!DOCTYPE html><html><head><title>Harbour works go on</title></head><body>"
            f"<article><h1>Harbour works go on</h1><div class='authors'><p>{sentence(9)}</p>"
            f"</div>{paragraphs(6, 4)}</article></body></html>")
    assert sentence(9)[:60] in flat(extract(html))
