"""The root finder's tree index tests the semantic-root predicates only on elements with a
semantic tag, an itemprop or a role: no predicate may read anything else."""

from __future__ import annotations

import itertools
from xml.etree.ElementTree import Element

from sheaf.adapters.html.content_root import _SEMANTIC_TAGS, SEMANTIC_ROOTS, _TreeIndex

TAGS = ("div", "section", "article", "main", "span", "p", "aside")
ATTRIBUTES = ({}, {"class": "articleBody main"}, {"id": "main"}, {"itemprop": "articleBody"},
              {"role": "main"}, {"itemprop": "text", "class": "c"}, {"role": "navigation"},
              {"data-role": "main"}, {"name": "articleBody"})


def test_no_predicate_holds_without_a_semantic_tag_itemprop_or_role() -> None:
    for tag, attributes in itertools.product(TAGS, ATTRIBUTES):
        element = Element(tag, attributes)
        if tag in _SEMANTIC_TAGS or "itemprop" in attributes or "role" in attributes:
            continue
        assert not any(predicate(element) for _label, predicate in SEMANTIC_ROOTS), (tag,
                                                                                   attributes)


def test_the_index_lists_what_the_predicates_pick_in_document_order() -> None:
    body = Element("body")
    for tag, attributes in itertools.product(TAGS, ATTRIBUTES):
        body.append(Element(tag, attributes))
    index = _TreeIndex.build(body)
    for label, predicate in SEMANTIC_ROOTS:
        assert index.semantic[label] == [e for e in body.iter() if predicate(e)]
        assert index.semantic[label]
    assert all(index.parents[child] is body for child in body)
