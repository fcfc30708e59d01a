"""sheaf's html5lib parsing (one-step plain tags, lean tree) builds what stock html5lib builds
(with the same reading of XML-style self-closed tags, `self_closed_tags`, on both sides)."""

from __future__ import annotations

import gc
from typing import Any
from unittest.mock import patch
from xml.etree.ElementTree import Element, tostring

import html5lib
from html5lib._inputstream import HTMLUnicodeInputStream
from html5lib._tokenizer import HTMLTokenizer
from html5lib.html5parser import HTMLParser
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sheaf.adapters.html import document_parsing
from sheaf.adapters.html.document_parsing import parse_document
from sheaf.adapters.html.self_closed_tags import closing_self_closed
from sheaf.adapters.html.tag_tokenizer import PlainTagTokenizer
from tests.property_examples import examples


def tokens(tokenizer_class: type[Any], text: str, chunk_size: int | None = None
           ) -> list[dict[str, Any]]:
    tokenizer = tokenizer_class(text)
    if chunk_size is not None:  # tags split across chunks take the states' path
        tokenizer.stream._defaultChunkSize = chunk_size
    return [dict(t) for t in tokenizer]


class _StockSelfClosing(HTMLTokenizer):  # type: ignore[misc]
    """html5lib's own tokenizer, its tokens read as sheaf reads self-closed tags."""

    def __iter__(self) -> Any:
        return closing_self_closed(HTMLTokenizer.__iter__(self))


class _StockParser(HTMLParser):  # type: ignore[misc]
    def reset(self) -> None:
        if type(self.tokenizer) is HTMLTokenizer:
            self.tokenizer.__class__ = _StockSelfClosing
        super().reset()


def stock_tree(body: bytes) -> bytes:
    parser = _StockParser(html5lib.getTreeBuilder("etree"), namespaceHTMLElements=False)
    root: Element = parser.parse(body, likely_encoding="utf-8")
    return tostring(root)


def test_self_closed_tags_are_empty_and_the_stock_parser_nests() -> None:
    body = b'<div><object data="x"/><p>after</p><a name="n"/>text</div>'
    ours = parse_document(body, None)
    assert next(ours.iter("object")).findall("p") == []
    assert next(ours.iter("a")).text is None
    stock = html5lib.parse(body, treebuilder="etree", namespaceHTMLElements=False)
    assert next(stock.iter("object")).findall("p")  # the HTML rules leave it open


def test_plain_tags_are_read_in_one_step_as_the_states_read_them() -> None:
    text = ('<DIV Class="a b" id=x data-e=\'\' hidden><a href="/p?q=1" TITLE = "t">x</a>'
            '<br/><img src=a.png/><input disabled /></Div><p a=1 b=2>')
    assert tokens(PlainTagTokenizer, text) == tokens(HTMLTokenizer, text)
    start = tokens(PlainTagTokenizer, text)[0]
    assert start["name"] == "div" and start["data"] == {
        "class": "a b", "id": "x", "data-e": "", "hidden": ""}


def test_tags_with_errors_or_references_take_the_states_path() -> None:
    text = ('<a href="?a=1&amp;b=2&copy=3">x</a><p id=a id=b>d</p><a b="1"c="2">'
            '<a / b><a b=c"d><a b= ><x\x00y><p/ ></p a><a "q"=1></a/><a b=\'c')
    assert tokens(PlainTagTokenizer, text) == tokens(HTMLTokenizer, text)


def test_rcdata_ends_at_the_end_tag_named_by_the_start_tag() -> None:
    # The parser switches the tokenizer to RCDATA after <title>: only a tree shows it.
    body = b"<!---->x<title>a</b></title><textarea>x</title></textarea><p>"
    assert tostring(parse_document(body, None)) == stock_tree(body)


def test_parse_document_builds_the_stock_tree() -> None:
    body = (b"<!doctype html><html><head><title>T &amp; U</title><meta charset=utf-8></head>"
            b"<body><table><tr><td>a<p>b</table><b><i>c</b>d</i>"
            b"<svg viewBox='0 0 1 1'><foreignObject><p>e</p></foreignObject></svg>"
            b"<math><mi>x</mi></math><ul><li>1<li>2</ul>"
            b"<svg><use xlink:href='#i' class=c /></svg><p lang=en id=q class=r>f</body></html>")
    assert tostring(parse_document(body, None)) == stock_tree(body)


def test_a_late_meta_charset_restarts_the_parse_as_in_html5lib() -> None:
    # Past the prescan's first 1,024 bytes the parser meets the <meta> itself, switches
    # to its encoding and parses again from the start.
    body = (b"<p>" + b"caf\xe9 " * 300 + b"</p><meta charset=\"iso-8859-2\">"
            b"<p>\xb1 &amp; b</p>")
    tree = parse_document(body, None)
    assert tostring(tree) == stock_tree(body)
    assert "\u0105" in "".join(tree.itertext())


pieces = st.sampled_from([
    "<p>", "</p>", "<P class=x>", "<div id=\"a\">", "</div>", "<b>", "</B>", "<i>", "</i>",
    "text", " ", "\n", "\t", "&amp;", "&copy", "<", ">", "/", "=", '"', "'", "`", "\x00",
    "<a href=\"/x?a=1&b=2\">", "<a href='y'>", "<a href=z>", "</a>", "<br>", "<br/>",
    "<img src=a.png/>", "<input disabled>", "<x-y a-b=c>", "<p a=1 a=2>", "<p A=1 a=2>",
    "<title>", "</title>", "<textarea>", "</textarea>", "<script>", "</script>",
    "<style>", "</style>", "<!--", "-->", "<!doctype html>", "<table>", "<tr>", "<td>",
    "</table>", "<svg>", "</svg>", "<math>", "</math>", "<foreignObject>", "<plaintext>",
    "<li>", "<ul>", "</ul>", "<h1 class=\"t\">", "</h1>", "<a b = \"c\" >", "<a b/>",
    "<a\nb=\"c\"\n>", "</p foo>", "</p/>", "<p/ >", "<meta charset=\"utf-8\">",
    "<noscript>", "</noscript>", "<template>", "</template>", "<select>", "<option>",
    "<!-- c -->", "<?php x ?>", "&#169;", "&nbsp;", "a  b", "   ", "long text here. ",
    "<![CDATA[x]]>", "<p\tclass='a'\fid=b>", "</P>", "</p\n>",
    # Foreign attributes, which html5lib names with their namespace.
    "<use xlink:href=\"#a\" class=u>", "<math definitionURL=x xmlns:xlink=y>",
    "<svg viewBox=\"0 0 1 1\" xml:lang=en>",
    # Integration points, where the parser's loop reads tokens in foreign content as HTML.
    "<mi>", "</mi>", "<mtext>", "<mglyph>", "<annotation-xml encoding=\"text/html\">",
    "<annotation-xml>", "</annotation-xml>", "<desc>", "</desc>", "<title>", "<b>x",
])


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(pieces, max_size=40), st.sampled_from([None, 3, 16, 64]))
def test_tokens_are_the_stock_tokenizers(parts: list[str], chunk_size: int | None) -> None:
    text = "".join(parts)
    assert tokens(PlainTagTokenizer, text, chunk_size) == tokens(HTMLTokenizer, text,
                                                                 chunk_size)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(pieces, max_size=40), st.sampled_from([5, 17, 10240]))
@example(["<math>", "<mi>", "<mglyph>", "x", "</mi>", "<annotation-xml>", "<svg>", "</svg>",
          "</annotation-xml>", "<annotation-xml>", "<x-y a-b=c>", "</annotation-xml>",
          "<annotation-xml encoding=\"text/html\">", "<p>", "</math>",
          "<svg>", "<desc>", "<b>x", "</desc>", "<foreignObject>", "<p>", "</svg>"], 10240)
def test_trees_are_the_stock_parsers(parts: list[str], chunk_size: int) -> None:
    body = "".join(parts).encode()
    # Small chunks put chunk ends inside text runs and tags.
    with patch.object(HTMLUnicodeInputStream, "_defaultChunkSize", chunk_size):
        assert tostring(parse_document(body, None)) == stock_tree(body)


def test_node_wrappers_are_freed_without_the_cycle_collector() -> None:
    wrapper = document_parsing._TREE.elementClass
    body = b"<html><head><title>t</title></head><body>" + b"<div><p>a <b>b</b></p></div>" * 50
    gc.collect()
    gc.disable()
    try:
        tree = parse_document(body, None)
        alive = sum(1 for o in gc.get_objects() if isinstance(o, wrapper))
    finally:
        gc.enable()
    assert len(tree.findall(".//p")) == 50
    assert alive == 0


def test_invalid_code_points_leave_the_tree_as_stock_html5lib_builds_it() -> None:
    # sheaf's stream does not record them as parse errors; the tree must not notice.
    body = "<p>a\x01b\ufffe<b>c\U0001fffe</b>\x0bd\x7f<i>\ufdd0e</i>".encode()
    assert tostring(parse_document(body, None)) == stock_tree(body)
