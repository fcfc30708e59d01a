"""Whether a page's text is built by script, and so whether to render it."""

from __future__ import annotations

import re
from typing import Literal

RenderMode = Literal["auto", "always", "never"]
RENDER_MODES: tuple[RenderMode, ...] = ("auto", "always", "never")

FEW_WORDS = 80
"""Below this many words an extraction is too thin to be the page's article."""

_SCRIPT_SRC = re.compile(rb"<script\b[^>]*\bsrc\s*=", re.IGNORECASE)
_MOUNT = re.compile(rb"<(?:div|main|section|body)\b[^>]*\bid\s*=\s*[\"']?(?:root|app|__next|"
                    rb"__nuxt|svelte|react-root|ember-app|gatsby-focus-wrapper)\b",
                    re.IGNORECASE)
_NOSCRIPT = re.compile(rb"<noscript\b[^>]*>[^<]{0,300}(?:enable|turn on|requires?)\s+"
                       rb"javascript", re.IGNORECASE)
_TAGS = re.compile(rb"<[^>]*>")
_SCRIPTS = re.compile(rb"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


def script_signs(html: bytes) -> tuple[str, ...]:
    """What in a page says that script builds its content: a mount element, a
    `<noscript>` asking for JavaScript, bundles with next to no text outside scripts."""
    head = html[:2_000_000]
    signs: list[str] = []
    if _MOUNT.search(head):
        signs.append("an empty application root element")
    if _NOSCRIPT.search(head):
        signs.append("a <noscript> asking for JavaScript")
    scripts = len(_SCRIPT_SRC.findall(head))
    visible = len(_TAGS.sub(b" ", _SCRIPTS.sub(b" ", head)).split())
    if scripts and visible < FEW_WORDS * 2:
        signs.append(f"{scripts} script bundle(s) and {visible} words of markup text")
    return tuple(signs)


def render_reason(mode: RenderMode, html: bytes, extracted_words: int | None
                  ) -> str | None:
    """Why the page should be rendered, or None to keep what the server sent.

    `extracted_words` is what extraction of the served markup kept (None when it found
    no main content). `auto` renders only a thin extraction of a page that shows
    script's signs: a page that is short by nature (no bundle, no mount) is not sent
    to a browser."""
    if mode == "never":
        return None
    if mode == "always":
        return "rendering was asked for"
    if extracted_words is not None and extracted_words >= FEW_WORDS:
        return None
    signs = script_signs(html)
    if not signs:
        return None
    kept = "no main content" if extracted_words is None else f"{extracted_words} words"
    return f"the served markup gave {kept} and shows {', '.join(signs)}"
