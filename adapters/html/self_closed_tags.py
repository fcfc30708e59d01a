"""Self-closed tags of XML-serialised pages read as empty elements (issue 29).

Pages written by XML tool chains (XSLT publishing pipelines, XHTML templates) close
empty elements the XML way: `<object data="..."/>`, `<div class="clear"/>`,
`<a name="B1"/>`. The HTML parsing rules ignore the slash on elements that are not void,
so such an element stays open and swallows what follows: the rest of an article becomes
an <object>'s fallback content (dropped as an embed), or one link. The author meant an
empty element, and the XML parsers these pages were made for read one. Here a start tag
closed with "/>" is followed by its end tag, for the elements that otherwise change how
the rest of the page reads. Elements that switch the tokenizer's state (script, style,
title, textarea, iframe, ...) are left as the HTML rules read them: their content is
not markup, and the end tag has to come from the page.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

from html5lib.constants import tokenTypes

from .tag_tokenizer import PlainTagTokenizer

CLOSED_WHEN_SELF_CLOSING = frozenset({
    "a", "abbr", "applet", "article", "aside", "b", "canvas", "dd", "div", "dl", "dt", "em",
    "font", "footer", "header", "i", "li", "nav", "object", "ol", "p", "section", "small",
    "span", "strong", "sub", "sup", "td", "th", "u", "ul", "video", "audio",
})
_START_TAG = tokenTypes["StartTag"]
_END_TAG = tokenTypes["EndTag"]
_PARSE_ERROR = tokenTypes["ParseError"]


def closing_self_closed(tokens: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """`tokens`, each self-closed start tag of `CLOSED_WHEN_SELF_CLOSING` followed by its
    end tag."""
    for token in tokens:
        yield token
        if token["type"] == _START_TAG and token.get("selfClosing") \
                and token["name"] in CLOSED_WHEN_SELF_CLOSING:
            yield {"type": _END_TAG, "name": token["name"], "data": []}


class SelfClosingTokenizer(PlainTagTokenizer):  # type: ignore[misc]
    """`PlainTagTokenizer` whose tokens go through `closing_self_closed`."""

    def __iter__(self) -> Iterator[dict[str, Any]]:
        # html5lib's token loop and `closing_self_closed` in one generator: a page's
        # thousands of tokens each pass one generator instead of two. As there, a token
        # is checked after the parser has taken it.
        self.tokenQueue = deque()
        while self.state():
            while self.stream.errors:
                yield {"type": _PARSE_ERROR, "data": self.stream.errors.pop(0)}
            while self.tokenQueue:
                token = self.tokenQueue.popleft()
                yield token
                if token["type"] == _START_TAG and token.get("selfClosing") \
                        and token["name"] in CLOSED_WHEN_SELF_CLOSING:
                    yield {"type": _END_TAG, "name": token["name"], "data": []}
