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
    # A tag's opening "<", and its text up to the first ">" when the chunk holds one
    # (what a tag read before is known by).
    r"|<(?=[/A-Za-z])([^>]*+>)?")
_STATE_SWITCHING = frozenset((
    "script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes",
    "noscript", "plaintext"))
"""Start tags after which the tree builder may set the tokenizer's state. (A `<meta>`
that restarts the parse in another encoding needs no stop: the restart drops the queue
and reads the stream again from its start.)"""


_TagRead = tuple[int, str, dict[str, str] | None, bool, bool]
"""A plain tag as read: token type, name, attributes (None for an end tag; copied into
each token), self-closing, and whether the tree builder may switch the tokenizer's state
after it."""

_KNOWN_TAGS: dict[str, _TagRead] = {}
"""Plain tags read so far, by their text up to the first ">" (when that is where they
ended). A tag's reading depends on its text alone, and pages repeat their tags within and
across documents ("</div>", '<li class="item">'): shared by every tokenizer, emptied when
full (a long crawl meets new links and class lists on every site). An entry is about
600 bytes (the text, its attributes), so the cache stays near 10 MB; the dev pages have
about 400 distinct tag texts a page, most of them links."""
_KNOWN_TAGS_LIMIT = 16384


class PlainTagTokenizer(HTMLTokenizer):  # type: ignore[misc]
    """An `HTMLTokenizer` that reads plain text and tags a run at a time."""

    def dataState(self) -> bool:  # html5lib names its states
        stream = self.stream
        chunk, position, end = stream.chunk, stream.chunkOffset, stream.chunkSize
        start = position
        # Bound once: the loop runs for every text run and tag of the page.
        match, known, append = _RUN_PART.match, _KNOWN_TAGS.get, self.tokenQueue.append
        while (part := match(chunk, position, end)) is not None:
            kind = part.lastindex
            if kind == 1:
                append({"type": _SPACE_CHARACTERS, "data": part[1]})
                position = part.end()
            elif kind == 2:
                append({"type": _CHARACTERS, "data": part[2]})
                position = part.end()
            else:
                text = part[3]  # None when no ">" follows in the chunk
                read = known(text) if text is not None else None
                if read is None:
                    found = self._plain_tag(chunk, position + 1, end,
                                            None if text is None else part.end())
                    if found is None:
                        break
                    read, position = found
                else:
                    position = part.end()
                # `_queue_tag`, inline.
                if read[2] is None:
                    token = {"type": _END_TAG, "name": read[1], "data": [],
                             "selfClosing": False}
                else:
                    token = {"type": _START_TAG, "name": read[1], "data": read[2].copy(),
                             "selfClosing": read[3], "selfClosingAcknowledged": False}
                self.currentToken = token
                append(token)
                if read[4]:
                    break
        stream.chunkOffset = position
        if position == start:
            return bool(super().dataState())
        return True

    def tagOpenState(self) -> bool:
        stream = self.stream
        chunk, position, end = stream.chunk, stream.chunkOffset, stream.chunkSize
        close = chunk.find(">", position, end) + 1
        read = _KNOWN_TAGS.get(chunk[position:close]) if close else None
        if read is None:
            found = self._plain_tag(chunk, position, end, close or None)
            if found is None:
                return bool(super().tagOpenState())
            read, close = found
        self._queue_tag(read)
        stream.chunkOffset = close
        self.state = self.dataState
        return True

    @staticmethod
    def _plain_tag(chunk: str, position: int, end: int, close: int | None
                   ) -> tuple[_TagRead, int] | None:
        """The plain tag starting at `position` (just after its "<") and where it ends,
        remembered when it ends at `close` (just past the first ">"); None when the tag
        is not plain."""
        match = _TAG.match(chunk, position, end)
        if match is None:
            return None
        read = _tag_read(*match.groups())
        if read is None:
            return None
        if match.end() == close:
            if len(_KNOWN_TAGS) >= _KNOWN_TAGS_LIMIT:
                _KNOWN_TAGS.clear()
            _KNOWN_TAGS[chunk[position:close]] = read
        return read, match.end()

    def _queue_tag(self, read: _TagRead) -> None:
        """Queue the token of a plain tag, as the states would have."""
        kind, name, attributes, self_closing, _switching = read
        token: dict[str, Any]
        if kind is _END_TAG or attributes is None:
            token = {"type": _END_TAG, "name": name, "data": [], "selfClosing": False}
        else:
            token = {"type": _START_TAG, "name": name, "data": attributes.copy(),
                     "selfClosing": self_closing, "selfClosingAcknowledged": False}
        # The states keep the tag as the current token: RCDATA and RAWTEXT read their
        # end tag by its name ("an appropriate end tag").
        self.currentToken = token
        self.tokenQueue.append(token)


def _tag_read(closing: str, name: str, attributes: str, self_closing: str
              ) -> _TagRead | None:
    """A plain tag from the groups of `_TAG`; None when it is one the states flag (an end
    tag with attributes or "/", a duplicate attribute)."""
    name = _ascii_lowered(name)
    if closing:
        if attributes or self_closing:
            return None
        return _END_TAG, name, None, False, False
    found = _ATTRIBUTE.findall(attributes)
    if attributes.isascii():  # then every name is ASCII, and lowered by `str.lower`
        pairs = [(key.lower(), double or single or bare) for key, double, single, bare in found]
    else:
        pairs = [(_ascii_lowered(key), double or single or bare)
                 for key, double, single, bare in found]
    read = dict(pairs)
    if len(read) < len(pairs):
        return None
    return _START_TAG, name, read, bool(self_closing), name in _STATE_SWITCHING


def _ascii_lowered(text: str) -> str:
    """`text` with ASCII capitals lowered, as the states lower tag and attribute names;
    `str.lower` when that is the same (ASCII text), several times faster than the
    per-character table."""
    return text.lower() if text.isascii() else text.translate(asciiUpper2Lower)
