"""Stripping script, style and comment bodies before parsing changes no text sheaf reads."""

from __future__ import annotations

from unittest.mock import patch
from xml.etree.ElementTree import Element

import html5lib
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sheaf.adapters.html import script_stripping
from sheaf.adapters.html.element_rules import is_skipped
from sheaf.adapters.html.script_stripping import strip_scripts
from tests.property_examples import examples


def visible_text(body: bytes) -> str:
    """Text outside the elements sheaf always skips (scripts, styles, SVG, ...)."""
    root: Element = html5lib.parse(body, treebuilder="etree", namespaceHTMLElements=False)
    parts: list[str] = []

    def walk(element: Element) -> None:
        if isinstance(element.tag, str) and not is_skipped(element, inside_root=True):
            parts.append(element.text or "")
            for child in element:
                walk(child)
        parts.append(element.tail or "")

    walk(root)
    return "".join(parts)


def test_examples() -> None:
    body = (b"<p>a<!-- <script>x</script> -->b<script>if (a<b) {}</script>c"
            b"<style>p{}</style>d<!-->e<!--->f</p>"
            b'<script type="application/ld+json">{"@type": "Article"}</script>')
    stripped = strip_scripts(body)
    assert b"if (a<b)" not in stripped and b"p{}" not in stripped
    assert b'{"@type": "Article"}' in stripped
    assert visible_text(stripped) == visible_text(body)


def test_only_styles_that_can_hide_are_kept() -> None:
    body = (b'<p style="color: red">a</p><p style="display: none">b</p>'
            b'<p style="x" style="display:none">c</p><p style="v&#105;sibility:hidden">d</p>')
    stripped = strip_scripts(body)
    assert b"color: red" not in stripped and b"display: none" in stripped
    assert b'style="x"' in stripped and b"&#105;" in stripped  # the parser keeps the first
    assert visible_text(stripped) == visible_text(body) == "ac"


def test_unterminated_script_swallows_the_rest_as_the_parser_does() -> None:
    body = b"<p>kept</p><script>var never_closed = 1; <p>not text</p>"
    assert visible_text(strip_scripts(body)) == visible_text(body)


def test_utf16_is_left_alone() -> None:
    body = "\ufeff<p>x</p><script>y</script>".encode("utf-16")
    assert strip_scripts(body) == body


pieces = st.sampled_from([
    "<p>", "</p>", "<div>", "</div>", "text ", "<b>", "</b>", "<script>", "</script>",
    "<script type=text/javascript>", "<style>", "</style>", "<!--", "-->", "<!-->", "--!>",
    "<", ">", "a<b", "if (x) {}", "</scr", "ipt>", "<SCRIPT>", "</SCRIPT >", "<br>",
    "<title>", "</title>", "<textarea>", "</textarea>", "<script/>", "</script/>",
    "<a title='x>y'>", "</a>", " ", "\n", '<div data-x="1" class="c">', '<img srcset="a 1x">',
    '<p onclick="go()" data-y="<">', "<svg>", "</svg>", '<svg viewBox="0 0 1 1">',
    '<path d="M0 0"/>', "<text>label</text>", '<a data-z="q"title="t">', "<math>", "</math>",
    "<mi>x</mi>", '<font color="red">', "</p>", "<![CDATA[", "]]>", "<g>", "</g>",
    "<foreignObject>", "</foreignObject>", "<desc>", "</desc>", "<use/>", "<SVG>", "</Svg>",
    '<div style="color: red">', '<div style="display: none">', "<span style='DISPLAY:NONE'>",
    '<p style="display&#58;none">', '<p style="x" style="visibility: hidden">', "</span>",
    '<div style="margin:0" class="c" style="display:none">',
])


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(pieces, max_size=30))
def test_stripping_keeps_the_visible_text(tokens: list[str]) -> None:
    body = "".join(tokens).encode()
    assert visible_text(strip_scripts(body)) == visible_text(body)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(pieces, max_size=30), st.lists(st.booleans(), min_size=1, max_size=64))
def test_the_lowered_scan_cuts_what_the_case_blind_patterns_cut(
        tokens: list[str], upper: list[bool]) -> None:
    # The scan reads lowered bytes with case-sensitive twins; the patterns as written
    # (IGNORECASE) over the same lowered bytes find the same matches as over the page.
    text = "".join(tokens)
    body = "".join(c.upper() if upper[i % len(upper)] else c for i, c in enumerate(text)
                   ).encode()
    with patch.object(script_stripping, "next_raw", _raw_as_written), \
            patch.object(script_stripping, "_UNCHANGED_RUN_LOWERED",
                         script_stripping._UNCHANGED_RUN):
        expected = strip_scripts(body)
    assert strip_scripts(body) == expected


def _raw_as_written(lowered: bytes, position: int) -> script_stripping.RawMatch | None:
    """`next_raw` as the case-blind `_RAW` itself finds it."""
    match = script_stripping._RAW.search(lowered, position)
    if match is None:
        return None
    kind = match.lastgroup
    assert kind is not None
    attributes = match.group("attributes") or b"" if kind == "script" else b""
    return match.start(), match.end(), kind, attributes


raw_pieces = st.sampled_from([
    "<!--", "-->", "--!>", "--", "-", "!", ">", "<!-->", "<!--->", "<script", "</script",
    "<style", "</style", "<title", "</title", "<textarea", "</textarea", "<iframe",
    "</iframe", "<noframes", "</noembed", " ", "\t", "\n", "\v", "/", "x", "<", "</",
    "<p>", "</p>", "<?", "<!", "<!doctype html>", "</ x>", "type=application/ld+json",
    "<scripts>", "</scripts>", "=", '"', "\x00", "\xe9",
])


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(raw_pieces, max_size=40), st.integers(min_value=0, max_value=200))
@example(["<script", ">", "x", "</script"], 0)  # an end tag's name at the very end
@example(["<title", " ", ">", "</title", "x", "</title", "/"], 0)
@example(["<!--", "--!>", "-->"], 0)
@example(["<!--", "-->", "--!>"], 0)
def test_raw_spans_are_the_pattern_s(pieces: list[str], start: int) -> None:
    # The ends are found with `bytes.find` instead of the lazy runs of `_RAW`: the same
    # match from every position, on lowered bytes.
    lowered = "".join(pieces).encode("utf-8").lower()
    position = min(start, len(lowered))
    assert script_stripping.next_raw(lowered, position) == _raw_as_written(lowered, position)


attribute_pieces = st.sampled_from([
    " ", "\n", 'class="c"', "data-x='1'", 'STYLE="color: red"', 'style="display:none"',
    'Style="x"', 'onClick="go()"', 'srcset="a 1x"', 'ID="i"', 'data-y="<"', "x=1", 'a="b>"',
    '"', "'", "=", "/", 'href="/p"', 'Data-Long-Name="v"', "style = 'visibility:hidden'",
])


@settings(max_examples=examples(300), deadline=None)
@given(st.sampled_from(["div", "P", "img", "Span"]), st.lists(attribute_pieces, max_size=12),
       st.lists(st.booleans(), min_size=1, max_size=16))
# Two styles that can hide, nothing else unread: a tag the scan leaves as it is.
@example("div", ['style="display:none"', 'style="display:none"'], [False])
@example("P", ['style="display:none"', 'Style="x"', 'data-x=\'1\''], [False, True])
def test_unread_attributes_are_cut_as_the_case_blind_patterns_cut(
        name: str, parts: list[str], upper: list[bool]) -> None:
    text = " ".join(parts)
    tag = ("<" + name + " " + "".join(c.upper() if upper[i % len(upper)] else c
                                      for i, c in enumerate(text)) + ">").encode()
    as_written = (script_stripping._BULKY_ATTRIBUTE_BUT_STYLE
                  if len(script_stripping._STYLE.findall(tag)) > 1
                  else script_stripping._BULKY_ATTRIBUTE).sub(b"", tag)
    assert script_stripping._without_bulky_attributes(tag) == as_written
    assert script_stripping._without_bulky_attributes(tag, tag.lower()) == as_written
    # The scan's rule for an ordinary tag: left as it is when `_BULKY_ATTRIBUTE` finds
    # nothing in it, whatever its styles.
    if script_stripping._BULKY_ATTRIBUTE.search(tag) is None:
        assert script_stripping._without_bulky_attributes(tag, tag.lower()) is tag
