"""Two classes of page text that are not the article (issue 29), each tried on generated
variations with negatives that must stay: copyright and licence notices set as their own
block, wherever they stand; and a publication's bibliographic record set as a definition
list on a publisher page."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.html.bibliographic_records import is_bibliographic_record
from sheaf.adapters.html.rights_notices import is_rights_notice
from sheaf.domain.document.document import BlockKind, Document
from tests.adapters.test_publisher_shapes import HEAD, SENTENCE, citation, extract, page, prose
from tests.property_examples import examples

# -- copyright and licence notices ------------------------------------------------------
HOLDERS = ["Ann Kibbey", "The Authors", "Smith et al.", "Vox Media, LLC", "Elsevier B.V."]
COPYRIGHT_LINES = [
    "Copyright ©{year} {holder}.", "© {year} {holder}.", "Copyright: © {year} {holder}.",
    "Copyright {year} by {holder}.", "(c) {year} {holder}.", "© {holder} {year}",
]
RESERVATIONS = ["", " All Rights Reserved Worldwide.", " All rights reserved.",
                " Alle Rechte vorbehalten."]
SUBJECTS = ["This paper", "This article", "This work", "The article", "This chapter",
            "This is an open access article", "Open Access This article"]
VERBS = ["is licensed under", "is distributed under the terms of", "is published under",
         "is made available under", "distributed under the terms of"]
LICENCES = ["a Creative Commons Attribution 4.0 International License",
            "the Creative Commons Attribution License (CC BY), which permits unrestricted "
            "use, distribution, and reproduction in any medium, provided the original "
            "author and source are credited",
            "the CC BY-NC-ND 3.0 licence"]


def licence_line(subject: str, verb: str, licence: str) -> str:
    if subject.startswith("This is") and verb.startswith("is "):
        verb = verb[3:]  # "This is an open access article distributed under ..."
    elif not subject.startswith("This is") and not verb.startswith("is "):
        verb = "is " + verb
    return f"{subject} {verb} {licence}."


NOTICES = list(dict.fromkeys([
    *(line.format(year=year, holder=holder) + reserved for line, year, holder, reserved in
      itertools.product(COPYRIGHT_LINES, (1998, 2021), HOLDERS[:2], RESERVATIONS[:2])),
    *(licence_line(subject, verb, LICENCES[k % len(LICENCES)]) for k, (subject, verb) in
      enumerate(itertools.product(SUBJECTS, VERBS))),
    "Licensed under CC BY 4.0.",
    "This article is distributed under the terms of CC BY 4.0.",
    "This work is released into the public domain under CC0.",
    "All rights reserved.",
]))
PLACES = {
    # after the references, inside a list a plain "Works Cited" line opened
    "tail of a works-cited list": lambda notice: (
        f"<table><tr><td>{prose(6)}<p align=center>Works Cited</p>"
        + "".join(f"<p>{citation(i)}</p>" for i in range(8))
        + f"<p><strong>Editorial history</strong></p><p>Received 17 October 2019.</p><hr>"
          f'<p><a href="https://creativecommons.org/licenses/by/4.0/">'
          f'<img alt="Creative Commons License" src="cc.png"></a><br>{notice}</p>'
          f"<p>Tides and moons<br>by A. Author.<br>Journal of Oceans, 3<br>"
          f"https://journal.example/3</p></td></tr></table>"),
    "under the abstract": lambda notice: (
        f'<div class="abstract"><h2>Abstract</h2><p>{SENTENCE}</p></div><p>{notice}</p>'
        f"<h2>Introduction</h2>{prose(5)}"),
    "footer cell of a layout table": lambda notice: (
        f"<table width=500><tr><td>{prose(6)}</td></tr></table>"
        f'<table width=500><tr><td><p><a href="/d">Copyright</a> {notice.split(" ", 1)[1]}'
        f'</p><center><a href="/e">Editorial Board</a> || <a href="/i">Current Issue</a>'
        f"</center></td></tr></table>")
    if notice.startswith("Copyright ") else f"<div>{prose(6)}</div><p>{notice}</p>",
}


@pytest.mark.parametrize(("notice", "place"), list(itertools.product(NOTICES, PLACES)))
def test_a_notice_in_its_own_block_is_not_the_article(notice: str, place: str) -> None:
    document = extract(page(PLACES[place](notice)))
    text = " ".join(document.text.split())
    assert notice not in text
    assert SENTENCE in text
    if place == "tail of a works-cited list":
        assert sum(1 for b in document.blocks if b.kind is BlockKind.REFERENCE) >= 8


@pytest.mark.parametrize("notice", ["© 2020 Vox Media, LLC. All rights reserved.",
                                    "This post is licensed under CC BY-SA 4.0."])
def test_notices_leave_web_pages_too(notice: str) -> None:
    document = extract(f"<html><body><article><h1>Tides</h1>{prose(5)}<p>{notice}</p>"
                       f"<p>{SENTENCE} The end.</p></article></body></html>",
                       url="https://blog.example/tides")
    assert notice not in document.text
    assert f"{SENTENCE} The end." in document.text


ARTICLE_TEXT = [
    # the article's own statements about rights and reuse
    "The data are available under a CC BY 4.0 licence from the repository.",
    "All code is released under the MIT License and archived on Zenodo.",
    "Copyright law in most countries protects a work for the author's life plus seventy years.",
    "Copyright holders rarely enforce their claims against small archives.",
    "Permission to reproduce Figure 2 was granted by the publisher.",
    "(c) Samples stored at 4 °C for a week.",
    "This article is published with the support of the Tidal Research Council.",
    "This work was made available through the harbour's public archive.",
    # a notice followed by the article's prose in the same paragraph
    f"© 2010 Ann Kibbey. {SENTENCE}",
    f"This paper is licensed under CC BY. {SENTENCE}",
    # sentences that mention a licence after another subject
    "Most of the papers we sampled are licensed under a Creative Commons licence.",
    "These journals publish under CC BY, and their authors keep the copyright.",
]


@pytest.mark.parametrize("text", ARTICLE_TEXT)
def test_the_articles_own_words_on_rights_are_not_notices(text: str) -> None:
    assert not is_rights_notice(text)
    document = extract(page(f"<div>{prose(4)}<p>{text}</p>{prose(2)}</div>"))
    assert text in " ".join(document.text.split())


def test_a_reference_entry_that_cites_a_copyright_act_stays() -> None:
    entries = "".join(f"<p>{citation(i)}</p>" for i in range(6))
    act = "Copyright, Designs and Patents Act 1988, c. 48. London: HMSO."
    document = extract(page(f"<div>{prose(5)}<p>References</p>{entries}<p>{act}</p></div>"))
    assert act in document.text


@pytest.mark.parametrize("wrapper", ["<ul><li>{}</li><li>Second item of the list.</li></ul>",
                                     "<blockquote><p>{}</p></blockquote>", "<pre>{}</pre>"])
def test_a_notice_shown_as_an_example_stays(wrapper: str) -> None:
    notice = "This work is licensed under a Creative Commons Attribution 4.0 License."
    document = extract(page(f"<div>{prose(4)}{wrapper.format(notice)}{prose(2)}</div>"))
    assert notice in document.text


def test_an_article_about_licences_keeps_its_notice_shaped_paragraphs() -> None:
    notice = "This work is licensed under a Creative Commons Attribution 4.0 License."
    discussion = ("<p>Creative Commons licences let authors choose which reuse they allow, "
                  "and the attribution licence is the least restrictive of them.</p>"
                  "<p>A licence notice is usually one line at the foot of the work, such "
                  "as the one that follows, and readers rarely read it.</p>")
    document = extract(page(f"<div>{prose(3)}{discussion}<p>{notice}</p>{prose(2)}</div>"))
    assert notice in document.text


def test_a_page_that_is_only_its_notice_keeps_it() -> None:
    notice = "Copyright © 2021 The Authors. All rights reserved."
    document = extract(page(f"<p>{notice}</p>"))
    assert notice in document.text


@given(st.sampled_from(["The authors", "We", "Our survey", "The museum", "Each archive"]),
       st.sampled_from(["hold the copyright to", "licensed", "were given permission for",
                        "distribute under CC BY", "asked for a licence for"]),
       st.sampled_from(["the images.", "the recordings in 2010.", "every scan they made."]))
@settings(max_examples=examples(100))
def test_sentences_about_rights_with_another_subject_are_prose(subject: str, verb: str,
                                                               rest: str) -> None:
    assert not is_rights_notice(f"{subject} {verb} {rest}")


# -- bibliographic records as definition lists -----------------------------------------
ABSTRACT = ("We measure the pull of the moon on the harbour and find that the model "
            "predicts the tides within a few centimetres over a whole year of readings.")
RECORD_FIELDS = {
    "Volume:": "Proceedings of the Conference on Tides",
    "Issue:": "4", "Journal:": "Journal of Oceans", "Venue:": "TIDES",
    "DOI:": "10.1000/xyz.208", "Cite (Informal):": "Tides and moons (Author, 2021)",
    "Bibkey:": "author-2021-tides", "Copy Citation:": "BibTeX Markdown MODS XML",
}
SHARED_FIELDS = {
    "Month:": "June", "Year:": "2021", "Address:": "Online", "Editors:": "A. Editor, B. Editor",
    "Publisher:": "Society of Oceans", "Pages:": "2627–2636", "URL:": "https://journal.example/208",
    "PDF:": "https://journal.example/208.pdf", "Language:": "English", "Authors:": "A. Author",
    "Anthology ID:": "2021.main.208",
}


def definition_list(fields: dict[str, str]) -> str:
    return "<dl>" + "".join(f"<dt>{t}</dt><dd>{v}</dd>" for t, v in fields.items()) + "</dl>"


def abstract_page(dl: str, *, head: str = HEAD, url: str = "https://journal.example/a/208"
                  ) -> Document:
    body = (f'<section><div class="card"><h5>Abstract</h5><span>{ABSTRACT}</span></div>'
            f"{dl}</section>")
    return extract(page(body, head=head), url=url)


@given(st.lists(st.sampled_from(list(RECORD_FIELDS)), min_size=2, max_size=6, unique=True),
       st.lists(st.sampled_from(list(SHARED_FIELDS)), min_size=2, max_size=8, unique=True),
       st.randoms(use_true_random=False))
@settings(max_examples=examples(60))
def test_a_publication_record_on_a_publisher_page_is_metadata(
        record: list[str], shared: list[str], order: random.Random) -> None:
    terms = record + shared
    order.shuffle(terms)
    fields = {t: RECORD_FIELDS.get(t) or SHARED_FIELDS[t] for t in terms}
    document = abstract_page(definition_list(fields))
    text = " ".join(document.text.split())
    assert ABSTRACT in text
    for term in terms:
        assert term not in text


def test_the_same_list_on_a_page_without_citation_metadata_stays() -> None:
    fields = {**RECORD_FIELDS, **SHARED_FIELDS}
    document = abstract_page(definition_list(fields), head="<head><title>Tides</title></head>",
                             url="https://blog.example/tides")
    assert all(term in document.text for term in fields)


PRODUCT_DETAILS = [
    # a bookshop's details: bibliographic words, no field only a citable work has
    {"Title:": "Tides and moons", "Author:": "A. Author", "Publisher:": "Society of Oceans",
     "Year:": "2021", "Pages:": "320", "ISBN:": "978-0-00-000000-0", "Language:": "English"},
    # a journal issue on sale: record fields, and a price
    {"Journal:": "Journal of Oceans", "Volume:": "12", "Issue:": "3", "Year:": "2019",
     "Price:": "$20.00", "Availability:": "In stock"},
]


@pytest.mark.parametrize("fields", PRODUCT_DETAILS)
def test_product_details_stay_even_on_a_publisher_page(fields: dict[str, str]) -> None:
    document = abstract_page(definition_list(fields))
    assert all(term in document.text for term in fields)


def test_a_glossary_of_record_fields_stays() -> None:
    fields = {"DOI": "A persistent identifier that resolves to the article's current home.",
              "Volume": "The run of issues a journal publishes in one year.",
              "Issue": "One instalment of a journal, numbered within its volume.",
              "Venue": "The journal or conference where a paper appears.",
              "Pages": "The span the article takes in the printed issue."}
    document = abstract_page(definition_list(fields))
    assert "A persistent identifier that resolves" in document.text
    assert not is_bibliographic_record(list(fields), list(fields.values()))


def test_a_definition_list_in_the_article_stays() -> None:
    fields = {"NUE": "nitrogen use efficiency", "WUE": "water use efficiency",
              "UAN": "urea ammonium nitrate", "AA": "anhydrous ammonia"}
    document = abstract_page(definition_list(fields))
    assert "nitrogen use efficiency" in document.text


def test_a_reference_list_set_as_a_definition_list_is_still_references() -> None:
    entries = "".join(f"<dt>[{i}]</dt><dd>{citation(i)}</dd>" for i in range(6))
    body = f"<article>{prose(5)}<h2>References</h2><dl>{entries}</dl></article>"
    document = extract(page(body))
    assert sum(1 for b in document.blocks if b.kind is BlockKind.REFERENCE) == 6


@given(st.lists(st.sampled_from(list(SHARED_FIELDS)), min_size=4, max_size=10, unique=True),
       st.sampled_from([[], ["DOI:"], ["Volume:"]]))
@settings(max_examples=examples(60))
def test_without_two_record_fields_a_list_is_no_record(shared: list[str],
                                                       one: list[str]) -> None:
    terms = shared + one
    assert not is_bibliographic_record(terms, [SHARED_FIELDS.get(t, "x") for t in terms])
