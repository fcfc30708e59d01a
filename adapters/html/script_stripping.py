"""Removing script, style and comment bodies from raw HTML bytes before parsing.

html5lib tokenizes every character of an inline script although sheaf throws scripts
away; on news pages scripts are often most of the bytes. The scan below follows the
tokenizer's rules for where these end (the first `</script`, `</style` or the end of
the comment), left to right. Ordinary tags and the text-only elements (title,
textarea, ...) are matched too and kept as they are, so a `<script` that the parser
would read as part of another tag, or as text, is left alone. JSON-LD scripts are kept:
they carry metadata.
"""

from __future__ import annotations

import re

from .folded_patterns import lowered_twin

# Tags that end SVG content in the parser (and a nested <svg>, whose end the pattern
# cannot pair): an <svg> holding one of them is left for the parser.
_RAW = re.compile(
    rb"(?P<comment><!--(?:>|->|.*?(?:--!?>|\Z)))"
    rb"|(?P<script><script(?=[\s/>])(?P<attributes>[^>]*)>.*?(?:</script[\s/>]|\Z))"
    rb"|(?P<style><style(?=[\s/>])[^>]*>.*?(?:</style[\s/>]|\Z))"
    rb"|(?P<text_only><(?P<name>title|textarea|xmp|iframe|noembed|noframes)(?=[\s/>])[^>]*>"
    rb".*?(?:</(?P=name)[\s/>]|\Z))"
    rb"|(?P<tag></?[A-Za-z][^>]*>)"
    # Doctypes and bogus comments ("<![CDATA[", "<?xml", "</ x>") end at the next ">".
    rb"|(?P<bogus><!(?!--)[^>]*>|<\?[^>]*>|</(?![A-Za-z])[^>]*>)",
    re.IGNORECASE | re.DOTALL,
)
_JSON_LD = re.compile(rb"application/ld\+json", re.IGNORECASE)
# Attributes the extractor reads (element_rules, content_root, block_builder,
# page_metadata, content_omissions: an image's alt text and size) and those the parser
# needs (encoding; a <font> with color, face or size
# ends SVG and MathML content); every other
# quoted attribute is dropped before parsing.
_READ_ATTRIBUTES = (
    rb"class|id|href|hidden|role|itemprop|aria-hidden|aria-labelledby|name|property|"
    rb"content|charset|http-equiv|rel|type|lang|xml:lang|start|value|colspan|xmlns[\w:]*|"
    rb"encoding|definitionurl|color|face|size|alt|width|height")
_BULKY_ATTRIBUTE_BUT_STYLE = re.compile(
    rb'\s(?!(?:' + _READ_ATTRIBUTES + rb'|style)=)[A-Za-z_:][-\w.:]*=(?:"[^"<>]*"|\'[^\'<>]*\')'
    rb'(?=[\s/>])',
    re.IGNORECASE)
# `style` is read only for `display: none` and `visibility: hidden` (element_rules); a
# style that names neither (and holds no character reference that could spell them)
# is dropped like any other unread attribute.
_BULKY_ATTRIBUTE = re.compile(
    rb'\s(?!(?:' + _READ_ATTRIBUTES + rb')=|style="[^"<>]*(?:display|visibility|&)'
    rb'|style=\'[^\'<>]*(?:display|visibility|&))'
    rb'[A-Za-z_:][-\w.:]*=(?:"[^"<>]*"|\'[^\'<>]*\')(?=[\s/>])',
    re.IGNORECASE)
# The parser keeps the first of repeated attributes: dropping one `style` would let a
# later one count, so a tag with two keeps them all.
_STYLE = re.compile(rb"\sstyle\s*=", re.IGNORECASE)
# A run of text and of tags the loop below would leave as they are (every attribute one
# it keeps, double-quoted; no name that opens raw text or foreign content), skipped in
# one step: each such tag is a unit the `tag` alternative of _RAW matches the same way.
_UNCHANGED_RUN = re.compile(
    rb"(?:[^<]++|</?(?!(?:script|style|title|textarea|xmp|iframe|noembed|noframes|svg|math)"
    rb"(?![^\s/>]))[A-Za-z][^\s/>]*+"
    rb'(?:\s+(?:' + _READ_ATTRIBUTES + rb')="[^"<>]*+")*+\s*+/?>)*+',
    re.IGNORECASE)
_FOREIGN_START = re.compile(rb"<(svg|math)[\s/>]", re.IGNORECASE)
_FOREIGN_TOKEN = re.compile(
    rb"<!--(?:>|->|.*?(?:--!?>|\Z))|<!\[CDATA\[.*?(?:\]\]>|\Z)|</?[A-Za-z][^>]*>",
    re.DOTALL)
_TAG_NAME = re.compile(rb"<(/?)([^\s/>]+)")
# Start tags that end SVG or MathML content (the HTML standard's list).
_BREAKOUT_TAGS = frozenset(
    b"b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i "
    b"img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table "
    b"tt u ul var".split())
_INTEGRATION_POINTS = frozenset(
    b"foreignobject desc title mi mo mn ms mtext annotation-xml".split())
_FONT_BREAKOUT = re.compile(rb"\s(?:color|face|size)\s*=", re.IGNORECASE)
_DOUBLE_ESCAPE = re.compile(rb"<!--.*<script", re.IGNORECASE | re.DOTALL)
_ASCII_INCOMPATIBLE_BOMS = (b"\xff\xfe", b"\xfe\xff")
# `_RAW` without the lazy runs to each element's end: where a match starts and which
# alternative it takes depend on the openers alone (every run ends at the latest at the
# end of the bytes), and `next_raw` finds the ends with `bytes.find`, which scans a long
# script many times faster than the pattern's lazy repeat.
_RAW_OPENING = re.compile(
    rb"(?P<comment><!--)"
    rb"|(?P<script><script(?=[\s/>])(?P<attributes>[^>]*)>)"
    rb"|(?P<style><style(?=[\s/>])[^>]*>)"
    rb"|(?P<text_only><(?P<name>title|textarea|xmp|iframe|noembed|noframes)(?=[\s/>])[^>]*>)"
    rb"|(?P<tag></?[a-z][^>]*>)"
    rb"|(?P<bogus><!(?!--)[^>]*>|<\?[^>]*>|</(?![a-z])[^>]*>)",
    re.DOTALL,
)
"""The case-sensitive opening of each alternative of `_RAW`, for lowered bytes."""
_AFTER_END_TAG_NAME = frozenset(b" \t\n\r\f\v/>")
"""What `[\\s/>]` matches after an end tag's name in `_RAW` (bytes: ASCII whitespace)."""
_CLOSERS = {"script": b"</script", "style": b"</style"}

RawMatch = tuple[int, int, str, bytes]
"""A match of `_RAW`: start, end, the alternative's name, a script's attributes (lowered;
empty for other kinds)."""


def next_raw(lowered: bytes, position: int) -> RawMatch | None:
    """The first match of `_RAW` in `lowered` (lowered bytes) at or after `position`, as
    `_RAW.search` finds it, or None."""
    opening = _RAW_OPENING.search(lowered, position)
    if opening is None:
        return None
    kind = opening.lastgroup
    assert kind is not None
    start, end = opening.span()
    if kind == "comment":
        end = _comment_end(lowered, end)
    elif kind in ("script", "style", "text_only"):
        closer = _CLOSERS.get(kind) or b"</" + opening.group("name")
        end = _end_tag_end(lowered, end, closer)
    attributes = opening.group("attributes") or b"" if kind == "script" else b""
    return start, end, kind, attributes


def _comment_end(lowered: bytes, position: int) -> int:
    """The end of `<!--(?:>|->|.*?(?:--!?>|\\Z))` whose `<!--` ends at `position`."""
    if lowered.startswith(b">", position):
        return position + 1
    if lowered.startswith(b"->", position):
        return position + 2
    plain = lowered.find(b"-->", position)
    bang = lowered.find(b"--!>", position, plain if plain >= 0 else len(lowered))
    if bang >= 0:
        return bang + 4
    return plain + 3 if plain >= 0 else len(lowered)


def _end_tag_end(lowered: bytes, position: int, closer: bytes) -> int:
    """The end of `.*?(?:CLOSER[\\s/>]|\\Z)` run from `position`."""
    after = len(closer)
    while (found := lowered.find(closer, position)) >= 0:
        if found + after < len(lowered) and lowered[found + after] in _AFTER_END_TAG_NAME:
            return found + after + 1
        position = found + 1
    return len(lowered)


_UNCHANGED_RUN_LOWERED = lowered_twin(_UNCHANGED_RUN) or _UNCHANGED_RUN
_BULKY_ATTRIBUTE_LOWERED = lowered_twin(_BULKY_ATTRIBUTE) or _BULKY_ATTRIBUTE
_BULKY_ATTRIBUTE_BUT_STYLE_LOWERED = (lowered_twin(_BULKY_ATTRIBUTE_BUT_STYLE)
                                      or _BULKY_ATTRIBUTE_BUT_STYLE)
_STYLE_LOWERED = lowered_twin(_STYLE) or _STYLE


def strip_scripts(body: bytes) -> bytes:
    """`body` without script, style and comment contents (JSON-LD kept); bytes in
    encodings that are not ASCII-compatible are returned unchanged."""
    if body.startswith(_ASCII_INCOMPATIBLE_BOMS) or b"\x00" in body[:1024]:
        return body
    out: list[bytes] = []
    emitted = 0
    position = 0
    # The scan reads the lowered bytes with case-sensitive twins of its patterns (the
    # same spans, about three times faster); what it keeps is cut from `body`.
    lowered = body.lower()
    while True:
        unchanged = _UNCHANGED_RUN_LOWERED.match(lowered, position)
        if unchanged is None or (found := next_raw(lowered, unchanged.end())) is None:
            break
        start, position, kind, attributes = found
        whole = body[start:position]
        foreign = _FOREIGN_START.match(whole) if kind == "tag" else None
        if foreign:
            # Inside SVG or MathML the parser reads <script>, <style> and comments by other
            # rules; scan again only where HTML parsing resumes.
            if whole.endswith(b"/>"):
                continue
            opener = foreign.group(1).lower()
            svg_end = _plain_svg_end(body, position) if opener == b"svg" else None
            if svg_end is None:
                position = _foreign_content_end(body, position, opener)
                continue
            # sheaf never reads inside an <svg>; icon paths are a tenth of a page's bytes
            # and every element of them costs the parser a token.
            out.append(body[emitted:start])
            out.append(_without_bulky_attributes(whole) + b"</svg>")
            emitted = position = svg_end
            continue
        if kind == "comment":
            # An empty comment still separates what stood on either side ("<" + "a").
            replacement = b"<!---->" if whole.endswith(b">") else b""
        elif kind == "script":
            if _DOUBLE_ESCAPE.search(whole, 7):
                # "<!--" then "<script" inside a script: the parser's escaped states make
                # the end unpredictable by pattern. Leave the rest of the page as it is.
                break
            replacement = whole if _JSON_LD.search(attributes) else _emptied(whole, b"</script")
        elif kind == "style":
            replacement = _emptied(whole, b"</style")
        elif kind == "tag" and b"=" in whole:
            # Attributes sheaf never reads (data-*, srcset, inline handlers) are most of
            # a modern page's tag bytes, and html5lib reads them a character at a time.
            # One pass: the tag comes back as it is when nothing in it is unread.
            replacement = _without_bulky_attributes(whole, lowered[start:position])
            if replacement is whole:
                continue
        else:
            continue
        out.append(body[emitted:start])
        out.append(replacement)
        emitted = position
    out.append(body[emitted:])
    return b"".join(out)


def _without_bulky_attributes(tag: bytes, lowered: bytes | None = None) -> bytes:
    """`tag` without the attributes sheaf never reads, or `tag` itself when it has none.
    The patterns run over the lowered tag (`lowered`, when the caller has it) as their
    case-sensitive twins, which find the same spans; the spans are cut from `tag`, as
    `sub` would. (`_BULKY_ATTRIBUTE_BUT_STYLE` finds a subset of what `_BULKY_ATTRIBUTE`
    finds, so a tag the latter finds nothing in is returned as it is either way.)"""
    if lowered is None:
        lowered = tag.lower()
    # Two `style=` need two "style"s: the count spares most tags the pattern.
    several_styles = lowered.count(b"style") > 1 and len(_STYLE_LOWERED.findall(lowered)) > 1
    bulky = _BULKY_ATTRIBUTE_BUT_STYLE_LOWERED if several_styles else _BULKY_ATTRIBUTE_LOWERED
    kept: list[bytes] = []
    start = 0
    for found in bulky.finditer(lowered):
        kept.append(tag[start:found.start()])
        start = found.end()
    if not start:
        return tag
    kept.append(tag[start:])
    return b"".join(kept)


def _foreign_content_end(body: bytes, start: int, opener: bytes) -> int:
    """Where html5lib leaves the SVG or MathML content that opened before `start`: after
    the matching end tag, or at a start tag that breaks out of foreign content. Staying
    inside longer than the parser only forgoes some stripping, so doubt extends it."""
    open_roots = [opener]
    integration_points = 0  # open <foreignObject>, <desc>, <title>, <mi>, ...
    for match in _FOREIGN_TOKEN.finditer(body, start):
        name_match = _TAG_NAME.match(match.group(0))
        if name_match is None:
            continue  # a comment or CDATA section
        closing, name = name_match.group(1), name_match.group(2).lower()
        if name in (b"svg", b"math"):
            if not closing:
                if not match.group(0).endswith(b"/>"):
                    open_roots.append(name)
            elif name in open_roots:
                del open_roots[len(open_roots) - 1 - open_roots[::-1].index(name):]
                if not open_roots:
                    return match.end()
        elif name in _INTEGRATION_POINTS:
            # HTML inside these does not break out; what follows them is foreign again.
            # An end tag with none open is ignored by the parser.
            integration_points = max(0, integration_points + (-1 if closing else 1))
        elif not closing and not integration_points and (
                name in _BREAKOUT_TAGS
                or (name == b"font" and _FONT_BREAKOUT.search(match.group(0)))):
            return match.start()
    return len(body)


def _plain_svg_end(body: bytes, start: int) -> int | None:
    """The end of the `</svg>` that closes the <svg> opened before `start`, when
    everything between is SVG the parser keeps inside it: no tag that breaks out to HTML,
    no end tag of an element opened outside, no nested MathML. Otherwise None, and the
    content is left for the parser."""
    open_names = [b"svg"]
    for match in _FOREIGN_TOKEN.finditer(body, start):
        name_match = _TAG_NAME.match(match.group(0))
        if name_match is None:
            continue  # a comment or CDATA section
        closing, name = name_match.group(1), name_match.group(2).lower()
        if closing:
            if name not in open_names:
                return None  # the parser would close an HTML element with it
            del open_names[len(open_names) - 1 - open_names[::-1].index(name):]
            if not open_names:
                return match.end()
        elif (open_names[-1] in _INTEGRATION_POINTS or name in _BREAKOUT_TAGS
              or name in (b"math", b"font")):
            # Tags inside <title>, <desc> or <foreignObject> are HTML to the parser.
            return None
        elif not match.group(0).endswith(b"/>"):
            open_names.append(name)
    return None


def _emptied(whole: bytes, end_tag: bytes) -> bytes:
    """A script or style element the extractor never reads: an empty comment when it
    ends with a plain end tag (two tags and an element cost the parser far more than a
    comment, which still keeps what stood on either side apart and, unlike a start tag
    before the doctype, does not put the page in quirks mode); else `_closing`."""
    if whole[-len(end_tag) - 1:].lower() == end_tag + b">":
        return b"<!---->"
    return _closing(whole, end_tag)


def _closing(whole: bytes, end_tag: bytes) -> bytes:
    """The same element emptied: its start tag, then its end tag with the byte the
    regex consumed past the tag name, so the tree around it is built as before."""
    start_end = whole.find(b">") + 1
    cut = whole.lower().rfind(end_tag)
    if cut < start_end:  # unterminated: the parser would swallow the rest as script text
        return whole[:start_end]
    return whole[:start_end] + whole[cut:]
