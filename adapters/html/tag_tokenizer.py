"""html5lib's tokenizer with a one-step path for plain tags and text.

html5lib reads a tag a character at a time, one method call per state and character,
and hands every token over through a generator: together about a third of sheaf's time
on a page. Most of a page is plain: text without character references, and tags whose
attributes have quoted or unquoted values without references, no duplicate and no
character that is a parse error. For those the tokenizer's states reduce to regular
expressions over the decoded chunk it is reading. `PlainTagTokenizer` reads runs of
such text and tags in one state call and queues the tokens the states would have
queued; whatever the expressions do not take whole (a character reference, a stray
quote, a token running to the end of the chunk, a comment, a doctype) goes through
html5lib's own states from its first character, so the tokens are the same either way.

A run stops after a start tag the tree builder may answer by switching the tokenizer
to another state (script, style, title, textarea, ...), so the parser sees that tag
before the tokenizer reads on. Only parse-error positions differ: the parser asks the
stream where it is when it records one, and the stream may be ahead by a run. sheaf
never reads them.
"""

from __future__ import annotations

import re
from typing import Any

from html5lib._tokenizer import HTMLTokenizer
from html5lib.constants import asciiUpper2Lower, tokenTypes

# The tokenizer's whitespace (the input stream has already turned CR into LF).
_S = r"[\t\n\f ]"


def _attribute(group: str) -> str:
    """One attribute as the states read it without a parse error: a name with no quote,
    "<" or "=" in it; a value holding no character reference or NUL, an unquoted one
    also none of the characters the states flag. Possessive quantifiers, because the
    states never give back a character ("<a b=c/>" has the value "c/")."""
    return (_S + r"++(" + group + r"[^\t\n\f\r />=\x00\"'<]++)"
            r"(?:" + _S + r"*+=" + _S + r"*+"
            r"(?:\"(" + group + r"[^\"&\x00]*+)\"|'(" + group + r"[^'&\x00]*+)'"
            r"|(" + group + r"[^\t\n\f\r >&\"'=<`\x00]++)))?+")


_ATTRIBUTE = re.compile(_attribute(""))
"""Groups: the name, then the value double-quoted, single-quoted or bare."""
_TAG = re.compile(r"(/?)([A-Za-z][^\t\n\f\r />\x00]*+)((?:" + _attribute("?:") + r")*+)"
                  + _S + r"*+(/?)>")
"""Groups: "/" for an end tag, the name, the attributes, "/" for a self-closing tag."""

_START_TAG = tokenTypes["StartTag"]
_END_TAG = tokenTypes["EndTag"]
_CHARACTERS = tokenTypes["Characters"]
_SPACE_CHARACTERS = tokenTypes["SpaceCharacters"]

_RUN_PART = re.compile(
    # The states' whitespace token, and their text token (a first character that is not
    # whitespace, then everything up to "&", "<" or NUL): both may go on in the next
    # chunk, so each must end before the chunk does.
    r"(" + _S + r"++)(?=[\s\S])|([^\t\n\f &<\x00][^&<\x00]*+)(?=[&<\x00])"
    r"|<(?=[/A-Za-z])")
_STATE_SWITCHING = frozenset((
    "script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes",
    "noscript", "plaintext"))
"""Start tags after which the tree builder may set the tokenizer's state. (A `<meta>`
that restarts the parse in another encoding needs no stop: the restart drops the queue
and reads the stream again from its start.)"""


_TagRead = tuple[int, str, tuple[tuple[str, str], ...], bool]
"""A plain tag as read: token type, name, attributes, self-closing."""


class PlainTagTokenizer(HTMLTokenizer):  # type: ignore[misc]
    """An `HTMLTokenizer` that reads plain text and tags a run at a time."""

    _known_tags: dict[str, _TagRead] | None = None
    """Plain tags read so far in this document, by their text (set on first use: the
    parser gives an `HTMLTokenizer` this class after creating it)."""

    def dataState(self) -> bool:  # html5lib names its states
        stream = self.stream
        chunk, position, end = stream.chunk, stream.chunkOffset, stream.chunkSize
        queue = self.tokenQueue
        start = position
        while (part := _RUN_PART.match(chunk, position, end)) is not None:
            if part.lastindex == 1:
                queue.append({"type": _SPACE_CHARACTERS, "data": part.group(1)})
                position = part.end()
            elif part.lastindex == 2:
                queue.append({"type": _CHARACTERS, "data": part.group(2)})
                position = part.end()
            else:
                read = self._plain_tag(chunk, position + 1, end)
                if read is None:
                    break
                token, position = read
                if token["type"] is _START_TAG and token["name"] in _STATE_SWITCHING:
                    break
        stream.chunkOffset = position
        if position == start:
            return bool(super().dataState())
        return True

    def tagOpenState(self) -> bool:
        stream = self.stream
        read = self._plain_tag(stream.chunk, stream.chunkOffset, stream.chunkSize)
        if read is None:
            return bool(super().tagOpenState())
        stream.chunkOffset = read[1]
        self.state = self.dataState
        return True

    def _plain_tag(self, chunk: str, position: int, end: int
                   ) -> tuple[dict[str, Any], int] | None:
        """The tag token starting at `position` (just after its "<"), queued, and where
        it ends; None, queueing nothing, when the tag is not plain."""
        # A page repeats its tags ("</div>", '<li class="item">'): a tag read before is
        # known by its text up to the first ">", when that is where it ended.
        known = self._known_tags
        if known is None:
            known = self._known_tags = {}
        close = chunk.find(">", position, end) + 1
        read = known.get(chunk[position:close]) if close else None
        if read is None:
            match = _TAG.match(chunk, position, end)
            if match is None:
                return None
            read = _tag_read(*match.groups())
            if read is None:
                return None
            if match.end() == close:
                known[chunk[position:close]] = read
            close = match.end()
        kind, name, attributes, self_closing = read
        token: dict[str, Any]
        if kind is _END_TAG:
            token = {"type": _END_TAG, "name": name, "data": [], "selfClosing": False}
        else:
            token = {"type": _START_TAG, "name": name, "data": dict(attributes),
                     "selfClosing": self_closing, "selfClosingAcknowledged": False}
        # The states keep the tag as the current token: RCDATA and RAWTEXT read their
        # end tag by its name ("an appropriate end tag").
        self.currentToken = token
        self.tokenQueue.append(token)
        return token, close


def _tag_read(closing: str, name: str, attributes: str, self_closing: str
              ) -> _TagRead | None:
    """A plain tag from the groups of `_TAG`; None when it is one the states flag (an end
    tag with attributes or "/", a duplicate attribute)."""
    name = _ascii_lowered(name)
    if closing:
        if attributes or self_closing:
            return None
        return _END_TAG, name, (), False
    pairs = tuple((_ascii_lowered(key), double or single or bare)
                  for key, double, single, bare in _ATTRIBUTE.findall(attributes))
    if len({key for key, _ in pairs}) < len(pairs):
        return None
    return _START_TAG, name, pairs, bool(self_closing)


def _ascii_lowered(text: str) -> str:
    """`text` with ASCII capitals lowered, as the states lower tag and attribute names;
    `str.lower` when that is the same (ASCII text), several times faster than the
    per-character table."""
    return text.lower() if text.isascii() else text.translate(asciiUpper2Lower)
