"""The content budget's byte limits applied to a file before PDFium reads it (ADR-0042).

PDFium inflates the streams a page needs inside C++, where sheaf's counting cannot
reach: a 1 MB page whose content inflates to 1 GiB would take 1 GiB. So every stream a
page's text can make PDFium decode (its contents, and whatever its resources reach:
forms, fonts and their programs, CMaps, Type 3 glyph procedures, patterns) is decoded
here first, through the same bounded decoders as the pdfminer engine's, and the file
is refused (`too_large`) as soon as one stream or their sum passes the limits. Image
streams are left out: neither engine decodes pixels to read text (a 1 GiB image on a
page costs PDFium's text reading nothing). Operation and glyph counts stay with the
PDFium engine's page loop.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable

import pikepdf

from ...domain.errors import ErrorKind, SheafError
from .content_budget import ContentBudget, decode_bounded

_NOT_FOLLOWED = frozenset({"/Parent"})  # back to the page tree, not down to content


def bound_streams(data: bytes, budget: ContentBudget, max_pages: int) -> None:
    """Decode, under `budget`, every non-image stream the first `max_pages` pages'
    contents and resources reach, and count each page's content tokens (its forms'
    included) against the page operation limit; raise `too_large`, `too_complex` or
    `timeout` as the budget does."""
    try:
        pdf = pikepdf.open(io.BytesIO(data))
    except (pikepdf.PdfError, ValueError, OSError) as exc:
        raise SheafError(ErrorKind.CORRUPT, f"unreadable PDF: {exc}") from None
    with pdf:
        try:
            _walk(pdf, budget, max_pages)
        except pikepdf.PdfError as exc:
            raise SheafError(ErrorKind.CORRUPT, f"unreadable PDF: {exc}") from None


def _walk(pdf: pikepdf.Pdf, budget: ContentBudget, max_pages: int) -> None:
    """Page by page: a stream is decoded once per document, its tokens counted on
    every page that reaches it. Each object's kind and children are read from pikepdf
    once per document (`_Node`), not again on every page that shares it (fonts, their
    widths and descriptors)."""
    tokens: dict[tuple[int, int], int] = {}
    nodes: dict[tuple[int, int], _Node] = {}
    limit = budget.limits.max_page_operations
    for number, page in enumerate(pdf.pages, start=1):
        if number > max_pages:
            break
        budget.start_page(number)
        contents = page.obj.get("/Contents")
        # A page's own content streams count as content whether or not they say so.
        operations = sum(_read(stream, budget, tokens, content=True)
                         for stream in _containers(
                             contents if isinstance(contents, pikepdf.Array)
                             else [contents])
                         if isinstance(stream, pikepdf.Stream))
        seen: set[tuple[int, int]] = set()
        # Depth first, each object's children taken from the last.
        stack = [_node(item, nodes) for item in _containers([page.obj.get("/Resources")])]
        while stack:
            node = stack.pop()
            if node.key is not None:
                if node.key in seen:
                    continue
                seen.add(node.key)
            kind = node.kind
            if kind == _UNREAD:
                kind = node.kind = _kind(node.item)
            if kind == _ARRAY:
                if node.children is None:
                    node.children = [_node(item, nodes) for item in _containers(node.item)]
                stack.extend(node.children)
                continue
            if kind == _IMAGE:
                continue
            if kind != _DICTIONARY:
                if node.count is None:
                    node.count = _read(node.item, budget, tokens, content=kind == _FORM)
                operations += node.count
            if operations > limit:
                raise budget.too_complex(f"runs more than {limit} content operations")
            if node.children is None:
                node.children = [_node(item, nodes) for item in _containers(
                    value for key, value in node.item.items() if key not in _NOT_FOLLOWED)]
            stack.extend(node.children)
        if operations > limit:
            raise budget.too_complex(f"runs more than {limit} content operations")
        if operations > budget.limits.max_page_objects:
            _count_drawing(contents, seen, pdf, budget)
        budget.check_time()


_UNREAD, _ARRAY, _DICTIONARY, _IMAGE, _FORM, _STREAM = range(6)


class _Node:
    """A dictionary, array or stream the walk reached: its pikepdf object, its key
    when indirect (such an object is visited once per page), and, once read, its kind,
    the containers among its values and (a stream's) content tokens."""

    __slots__ = ("children", "count", "item", "key", "kind")

    def __init__(self, item: pikepdf.Object, key: tuple[int, int] | None) -> None:
        self.item = item
        self.key = key
        self.kind = _UNREAD
        self.children: list[_Node] | None = None
        self.count: int | None = None


def _node(item: pikepdf.Object, nodes: dict[tuple[int, int], _Node]) -> _Node:
    """The one node of an indirect object; a direct one's own (it has one parent)."""
    if not item.is_indirect:
        return _Node(item, None)
    key = item.objgen
    node = nodes.get(key)
    if node is None:
        node = nodes[key] = _Node(item, key)
    return node


def _kind(item: pikepdf.Object) -> int:
    code = item._type_code
    if code == _ARRAY_TYPE:
        return _ARRAY
    if code == _STREAM_TYPE:
        subtype = item.get("/Subtype")
        if subtype == pikepdf.Name.Image:
            return _IMAGE
        return _FORM if subtype == pikepdf.Name.Form else _STREAM
    return _DICTIONARY


# Operators that make PDFium keep a page object: text shown, a path painted, an
# XObject, a shading, an inline image (the regular expression finds whole tokens).
_DRAWING = re.compile(rb"(?<![^\s\])>])(?:Tj|TJ|'|\"|[SsfFBbn]\*?|Do|sh|EI)(?![^\s\[(<>/%])")


def _count_drawing(contents: object, seen: set[tuple[int, int]], pdf: pikepdf.Pdf,
                   budget: ContentBudget) -> None:
    """Refuse a page whose content draws more objects than the page may hold. Only
    asked when its tokens could be that many: PDFium builds every object of a page
    before its glyphs can be counted (20 MB of `(a) Tj` took 1.7 GB)."""
    streams = [s for s in _containers(contents if isinstance(contents, pikepdf.Array)
                                      else [contents]) if isinstance(s, pikepdf.Stream)]
    streams += [obj for obj in (pdf.get_object(key) for key in seen)
                if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == pikepdf.Name.Form]
    limit = budget.limits.max_page_objects
    drawn = 0
    for stream in streams:
        try:
            data = stream.read_bytes()  # already decoded once under the budget
        except pikepdf.PdfError:
            continue
        drawn += sum(1 for _ in _DRAWING.finditer(data))
        if drawn > limit:
            raise budget.too_complex(f"draws more than {limit} glyphs and shapes")


_ARRAY_TYPE, _STREAM_TYPE = pikepdf.ObjectType.array, pikepdf.ObjectType.stream
_CONTAINER_TYPES = frozenset({pikepdf.ObjectType.dictionary, _ARRAY_TYPE, _STREAM_TYPE})


def _containers(values: Iterable[object]) -> list[pikepdf.Object]:
    """The dictionaries, arrays and streams among `values` (numbers and names hold no
    streams). Told by the object's type code, which is what `isinstance` against
    pikepdf's `Dictionary`, `Array` and `Stream` reads, through Python code per
    value (1.3 against 0.3 microseconds a value)."""
    return [value for value in values
            if isinstance(value, pikepdf.Object) and value._type_code in _CONTAINER_TYPES]


def _read(stream: pikepdf.Stream, budget: ContentBudget,
          tokens: dict[tuple[int, int], int], *, content: bool) -> int:
    """The stream decoded under the budget once per document; its content tokens (an
    upper bound on the operands and operators it runs) when it is content, else 0."""
    key = stream.objgen if stream.is_indirect else (-1, id(stream))
    count = tokens.get(key)
    if count is None:
        chain = stream.get("/Filter")
        names = ([chain] if isinstance(chain, pikepdf.Name)
                 else list(chain) if isinstance(chain, pikepdf.Array) else [])
        try:
            raw = stream.read_raw_bytes()
        except pikepdf.PdfError:
            raw = b""  # PDFium fails on the same damage; nothing was inflated
        decoded = decode_bounded(raw, [_filter_name(name) for name in names], budget)
        count = tokens[key] = token_count(decoded) if content else 0
    return count


def _filter_name(name: object) -> str:
    """A filter's name without its slash; a name that is not text (a mutated byte) or
    not a name names no decoder, so the chain stops there."""
    if not isinstance(name, pikepdf.Name):
        return ""
    return bytes(name.unparse())[1:].decode("latin-1")


# Whitespace and delimiters to 0, every other byte to 1: a token starts at each 0 1.
_SEPARATORS = b" \t\r\n\f\x00[]()<>{}/%"
_MARKS = bytes(0 if byte in _SEPARATORS else 1 for byte in range(256))


def token_count(data: bytes) -> int:
    """At least as many as the operands and operators the content runs: the runs of
    characters between whitespace and delimiters, and each string, array and
    dictionary opened (which may be empty), counted in C. Words inside strings count
    too, which only overstates."""
    marked = data.translate(_MARKS)
    return (marked.count(b"\x00\x01") + (marked[:1] == b"\x01")
            + data.count(b"(") + data.count(b"[") + data.count(b"<"))
