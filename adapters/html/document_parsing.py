"""Raw page bytes to an ElementTree document, with html5lib and sheaf's faster tokenizer."""

from __future__ import annotations

from typing import Any
from xml.etree.ElementTree import Element

from html5lib import treebuilders
from html5lib._tokenizer import HTMLTokenizer
from html5lib.constants import namespaces, tokenTypes
from html5lib.html5parser import HTMLParser
from html5lib.treebuilders.base import listElementsMap

from .self_closed_tags import SelfClosingTokenizer


class _Parser(HTMLParser):  # type: ignore[misc]
    """html5lib's parser reading with `PlainTagTokenizer` (as `SelfClosingTokenizer`, which
    closes XML-style self-closed tags): `_parse` creates the stock tokenizer and then calls
    `reset`, which hands it the subclass (it adds methods, no state) and stops its stream
    reporting invalid code points."""

    def reset(self) -> None:
        if type(self.tokenizer) is HTMLTokenizer:
            self.tokenizer.__class__ = SelfClosingTokenizer
            # The stream's check for invalid code points only records parse errors,
            # which sheaf never reads (a regex over every chunk: ~5% of extraction).
            self.tokenizer.stream.reportCharacterErrors = None
        super().reset()

    def mainLoop(self) -> None:
        """html5lib's token loop, with the test of which phase reads a token short for
        the usual case: the current node is an HTML element (no namespace here), which
        the stock loop reaches only after looking the node up three times. Foreign
        content (SVG, MathML) goes through the stock test, unchanged."""
        tree = self.tree
        open_elements = tree.openElements  # `reset` alone replaces it, outside this loop
        html = tree.defaultNamespace
        foreign = self.phases["inForeignContent"]
        for token in self.tokenizer:
            prev_token = None
            new_token = token
            while new_token is not None:
                prev_token = new_token
                type = new_token["type"]
                if type == _PARSE_ERROR_TOKEN:
                    self.parseError(new_token["data"], new_token.get("datavars", {}))
                    new_token = None
                    continue
                if not open_elements:
                    phase = self.phase
                else:
                    current = open_elements[-1]
                    if current.namespace == html or _reads_as_html(self, current, type, token):
                        phase = self.phase
                    else:
                        phase = foreign
                if type == _CHARACTERS_TOKEN:
                    new_token = phase.processCharacters(new_token)
                elif type == _START_TAG_TOKEN:
                    new_token = phase.processStartTag(new_token)
                elif type == _END_TAG_TOKEN:
                    new_token = phase.processEndTag(new_token)
                elif type == _SPACE_CHARACTERS_TOKEN:
                    new_token = phase.processSpaceCharacters(new_token)
                elif type == _COMMENT_TOKEN:
                    new_token = phase.processComment(new_token)
                elif type == _DOCTYPE_TOKEN:
                    new_token = phase.processDoctype(new_token)
            if (type == _START_TAG_TOKEN and prev_token["selfClosing"] and
                    not prev_token["selfClosingAcknowledged"]):
                self.parseError("non-void-element-with-trailing-solidus",
                                {"name": prev_token["name"]})
        # At the end of the tokens, EOF, as the stock loop ends.
        reprocess = True
        phases = []
        while reprocess:
            phases.append(self.phase)
            reprocess = self.phase.processEOF()
            if reprocess:
                assert self.phase not in phases

    def release(self) -> None:
        """Drop html5lib's node wrappers without leaving them to the cycle collector.

        Each wrapper points to its parent and the parent to it, so a page's wrappers
        (several per element) outlive the parse until a full garbage collection, and
        every collection until then walks them: about a tenth of sheaf's time on the dev
        pages. Cutting the parent links lets reference counting free them at once; the
        ElementTree the parse returns does not refer to them."""
        tree = self.tree
        stack = [tree.document]
        while stack:
            node = stack.pop()
            node.parent = None
            stack.extend(node._childNodes)
            node._childNodes = []  # the attribute, not the property: that empties the ET
        tree.openElements = []
        tree.activeFormattingElements = []
        tree.document = None
        tree.headPointer = tree.formPointer = None


_CHARACTERS_TOKEN = tokenTypes["Characters"]
_SPACE_CHARACTERS_TOKEN = tokenTypes["SpaceCharacters"]
_START_TAG_TOKEN = tokenTypes["StartTag"]
_END_TAG_TOKEN = tokenTypes["EndTag"]
_COMMENT_TOKEN = tokenTypes["Comment"]
_DOCTYPE_TOKEN = tokenTypes["Doctype"]
_PARSE_ERROR_TOKEN = tokenTypes["ParseError"]
_MATHML = namespaces["mathml"]
_MATHML_GLYPHS = frozenset(["mglyph", "malignmark"])


def _reads_as_html(parser: HTMLParser, current: Any, type: int, token: dict[str, Any]
                   ) -> bool:
    """The rest of html5lib's test for a current node outside the HTML namespace: the
    token goes to the current phase at an integration point, else to foreign content.
    (`token` is the tokenizer's, as the stock loop reads it, not one a phase returned.)"""
    return bool(
        (parser.isMathMLTextIntegrationPoint(current) and
         ((type == _START_TAG_TOKEN and token["name"] not in _MATHML_GLYPHS) or
          type in (_CHARACTERS_TOKEN, _SPACE_CHARACTERS_TOKEN))) or
        (current.namespace == _MATHML and current.name == "annotation-xml" and
         type == _START_TAG_TOKEN and token["name"] == "svg") or
        (parser.isHTMLIntegrationPoint(current) and
         type in (_START_TAG_TOKEN, _CHARACTERS_TOKEN, _SPACE_CHARACTERS_TOKEN)))


_ETREE = treebuilders.getTreeBuilder("etree")
_ETREE_ELEMENT = _ETREE.elementClass
_ET_ELEMENT = _ETREE.implementation.Element
_HTML = namespaces["html"]


class _Element(_ETREE_ELEMENT):  # type: ignore[misc,valid-type]
    """html5lib's etree node, made with less work: the same fields set in one call, and
    a start tag's attributes given to the element when it is made (the stock setter
    loops in Python over each, to spell namespaced names, which only the attributes of
    SVG and MathML elements have).

    `name` and `namespace` are plain attributes, not the stock properties: the parser
    reads them for every token (the current node's), and nothing sets them after the
    node is made (the stock setters would retag the element)."""

    name = None
    namespace = None

    def __init__(self, name: str, namespace: str | None = None,
                 attributes: dict[Any, str] | None = None) -> None:
        self._name = self.name = name
        self._namespace = self.namespace = namespace
        tag = name if namespace is None else f"{{{namespace}}}{name}"
        if attributes and tuple not in map(type, attributes):
            self._element = _ET_ELEMENT(tag, attributes)  # copies the dict, in its order
        else:
            self._element = _ET_ELEMENT(tag)
            if attributes:
                _ETREE_ELEMENT._setAttributes(self, attributes)
        self.nameTuple = (_HTML if namespace is None else namespace), name
        self.parent = None
        self._childNodes = []
        self._flags = []

    def _setAttributes(self, attributes: dict[Any, str]) -> None:
        if attributes and tuple in map(type, attributes):
            _ETREE_ELEMENT._setAttributes(self, attributes)
            return
        own = self._element.attrib
        own.clear()
        if attributes:
            own.update(attributes)

    attributes = property(_ETREE_ELEMENT._getAttributes, _setAttributes)


_SCOPES = listElementsMap
_IMPLIED_END = frozenset(("dd", "dt", "li", "option", "optgroup", "p", "rp", "rt"))


class _TreeBuilder(_ETREE):  # type: ignore[misc,valid-type]
    elementClass = _Element

    def insertElementNormal(self, token: dict[str, Any]) -> _Element:
        """The stock insertion, with the attributes handed to the new node."""
        element = _Element(token["name"], token.get("namespace", self.defaultNamespace),
                           token["data"])
        self.openElements[-1].appendChild(element)
        self.openElements.append(element)
        return element

    def generateImpliedEndTags(self, exclude: str | None = None) -> None:
        """The stock step (pop the current node while it is one whose end tag is
        implied), as a loop over a set made once: the stock one builds the set on every
        call, and the parser calls it for most end tags and many start tags."""
        open_elements = self.openElements
        while (name := open_elements[-1].name) in _IMPLIED_END and name != exclude:
            open_elements.pop()

    def elementInScope(self, target: Any, variant: str | None = None) -> bool:
        """The stock scope test; for a tag name (most calls: `<p>`, `<li>`, end tags)
        without its per-node tests of which kind of target it was given."""
        if not isinstance(target, str):
            return bool(super().elementInScope(target, variant))
        wanted = (_HTML, target)
        boundary, invert = _SCOPES[variant]
        for node in reversed(self.openElements):
            names = node.nameTuple
            if names == wanted:
                return True
            if invert ^ (names in boundary):
                return False
        raise AssertionError("no scope boundary open")  # html5lib asserts the same


_TREE = _TreeBuilder


def parse_document(body: bytes, charset: str | None) -> Element:
    """The page as html5lib builds it (HTML elements without namespace).

    Precedence of encodings as browsers apply it: BOM, the HTTP charset, <meta charset>;
    then, instead of html5lib's windows-1252 default, UTF-8 when the bytes are valid
    UTF-8. An unknown declared charset is left for html5lib to sniff."""
    likely = "utf-8" if _is_utf8(body) else None
    try:
        return _parse(body, transport_encoding=charset, likely_encoding=likely)
    except LookupError:
        return _parse(body, likely_encoding=likely)


def _parse(body: bytes, **encodings: Any) -> Element:
    parser = _Parser(_TREE, namespaceHTMLElements=False)
    document: Element = parser.parse(body, **encodings)
    parser.release()
    return document


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
