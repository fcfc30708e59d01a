"""The article a page keeps only in its script state, for pages whose markup shows none.

Pages built with client-side frameworks ship the story as JSON and render it in the
browser: a `<script type="application/json">` or `__NEXT_DATA__` blob, a
`window.__STATE__ = {...}` assignment, a `data-react-props` / `data-props` attribute.
Such state holds much else (navigation, related stories, settings), so the story is
taken only from the JSON object that names the page's own title, and only its prose
strings (HTML with paragraphs, or sentences) are read, in their order.
"""

from __future__ import annotations

import contextlib
import html as html_entities
import json
import re
from typing import Any
from xml.etree.ElementTree import Element

import html5lib

_BLOBS = re.compile(
    rb"<script[^>]*?\b(?:type=[\"']?application/json|id=[\"']?__NEXT_DATA__)[^>]*>(.*?)</script"
    rb"|<script[^>]*>\s*window\.__[A-Za-z_]+__\s*=\s*(\{.*?\})\s*;?\s*</script"
    rb"|\sdata-(?:react-)?props=\"([^\"]*)\"",
    re.IGNORECASE | re.DOTALL)
MAX_BLOB = 5_000_000
"""Bytes of one state blob read at most."""
MAX_DEPTH = 60
PROSE_STRING = 80
"""Characters a string needs to be read as prose."""
_SENTENCE = re.compile(r"\w[.!?…。](?:\s|$)")
_MARKUP = re.compile(r"<(?:p|br|h[1-6]|li|div)[\s/>]", re.IGNORECASE)


def script_state_article(raw: bytes, titles: set[str]) -> list[Element]:
    """The prose of the state object titled after the page, as HTML elements in order
    (one per string); empty when no blob names the page's title."""
    if not titles:
        return []
    best: list[str] = []
    for match in _BLOBS.finditer(raw):
        blob = next(g for g in match.groups() if g is not None)
        if len(blob) > MAX_BLOB:
            continue
        text = blob.decode("utf-8", "replace")
        if match.group(3) is not None:
            text = html_entities.unescape(text)
        with contextlib.suppress(ValueError, RecursionError):
            found = _titled_prose(json.loads(text), titles)
            if sum(map(len, found)) > sum(map(len, best)):
                best = found
    return [_as_element(s) for s in best]


def _titled_prose(state: Any, titles: set[str]) -> list[str]:
    """Prose strings of the object (anywhere in `state`) that has the page's title as one
    of its values and the most prose under it."""
    best: list[str] = []
    stack: list[tuple[Any, int]] = [(state, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            continue
        if isinstance(node, dict):
            if any(isinstance(v, str) and _folded(v) in titles for v in node.values()):
                prose = _prose_strings(node)
                if sum(map(len, prose)) > sum(map(len, best)):
                    best = prose
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return best


def _prose_strings(node: Any) -> list[str]:
    out: list[str] = []
    stack: list[tuple[Any, int]] = [(node, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            continue
        if isinstance(item, str):
            if len(item) >= PROSE_STRING and (_MARKUP.search(item) or (
                    _SENTENCE.search(item) and item.count(" ") >= 8)) \
                    and not item.lstrip().startswith(("http://", "https://", "{", "[")):
                out.append(item)
        elif isinstance(item, dict):
            stack.extend((v, depth + 1) for v in reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in reversed(item))
    return out


def _as_element(text: str) -> Element:
    wrapper = Element("div")
    if not _MARKUP.search(text):
        paragraph = Element("p")
        paragraph.text = text
        wrapper.append(paragraph)
        return wrapper
    fragment = html5lib.parseFragment(text, treebuilder="etree", namespaceHTMLElements=False)
    wrapper.text = fragment.text
    wrapper.extend(list(fragment))
    return wrapper


def _folded(text: str) -> str:
    return " ".join(text.lower().split())
