"""What the parts of a web page read as its content hold and the text does not: images,
embedded frames and objects, audio and video, and drawings, counted for the document's
"left out:" note (domain/document/omissions). Scripts are not counted: their bodies are
removed before the page is parsed (script_stripping), so which of them sat in the
article cannot be told, and the page's own are most of them.

Only the parts the extractor read are counted (the article, not the page's chrome), and
only what the page presents as content: an image with `alt=""` is decorative by the
page's own word, hidden elements and `aria-hidden` ones are not shown, a one-pixel image
is a tracker, navigation and forms are chrome.
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.etree.ElementTree import Element

from ...domain.document.omissions import Omission, OmissionTally
from .element_rules import SVG_NAMESPACE, is_hidden

_FRAMES = frozenset({"iframe", "object", "embed"})
_MEDIA = frozenset({"video", "audio"})
_NOT_CONTENT = frozenset({"nav", "form", "noscript", "template", "head", "style", "select",
                          "dialog", "menu", "map", "script"})


def content_omissions(parts: Iterable[Element], *, captions_kept: bool) -> OmissionTally:
    """The count of each kind of content in `parts` the text does not hold;
    `captions_kept` says whether figure captions were kept (scholarly pages)."""
    tally = OmissionTally()
    stack = [(part, False) for part in parts]
    while stack:
        element, captioned = stack.pop()
        tag = element.tag
        if not isinstance(tag, str) or is_hidden(element):
            continue
        if tag.startswith(SVG_NAMESPACE) or tag == "canvas":
            tally.add(Omission.DRAWING)
        elif tag == "img":
            _image(element, captioned, captions_kept, tally)
        elif tag in _FRAMES:
            tally.add(Omission.EMBEDDED_FRAME)
        elif tag in _MEDIA:
            tally.add(Omission.MEDIA)
        elif tag not in _NOT_CONTENT:
            inside = captioned or (tag == "figure"
                                   and any(c.tag == "figcaption" for c in element))
            stack.extend((child, inside) for child in element)
    return tally


def _image(element: Element, captioned: bool, captions_kept: bool,
           tally: OmissionTally) -> None:
    alt = element.get("alt")
    if alt is not None and not alt.strip():
        return  # decorative, by the page's own word
    if _tracker(element) or element.get("role") in ("presentation", "none"):
        return
    if alt is not None or (captioned and not captions_kept):
        # The builder keeps no alt text, and a news photo's caption is not the article's.
        tally.add(Omission.IMAGE_DESCRIPTION)
    elif not captioned:
        tally.add(Omission.IMAGE_WITHOUT_TEXT)


def _tracker(element: Element) -> bool:
    sizes = [element.get("width"), element.get("height")]
    return any(size is not None and size.strip().isdigit() and int(size) <= 2
               for size in sizes)
