"""Raw page bytes to an ElementTree document, with html5lib and sheaf's faster tokenizer."""

from __future__ import annotations

from typing import Any
from xml.etree.ElementTree import Element

from html5lib import treebuilders
from html5lib._tokenizer import HTMLTokenizer
from html5lib.constants import namespaces
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
