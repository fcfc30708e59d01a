"""A web page's notes say what its content holds and the text does not: images, frames
and embedded objects, audio and video and drawings, counted inside the parts
read as the article (never the page's chrome), decorative and hidden ones aside."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.adapters.html.html5lib_extractor import Html5libExtractor
from sheaf.domain.document.omissions import LEFT_OUT_PREFIX, Omission

PROSE = "".join(f"<p>Paragraph {i} of the story, with enough words, commas, and detail to "
                "read as prose that a reader came for.</p>" for i in range(6))
URL = "https://news.example.org/2026/harbour"


def _left_out(html: str) -> str:
    document = Html5libExtractor().extract_sync(html.encode(), URL)
    found = [n for n in document.notes if n.startswith(LEFT_OUT_PREFIX)]
    assert len(found) == 1, document.notes
    return found[0]


def test_a_page_of_prose_left_out_nothing() -> None:
    assert _left_out(f"<html><body><article>{PROSE}</article></body></html>") \
        == "left out: nothing"


def test_each_kind_in_the_article_is_counted_and_the_chrome_is_not() -> None:
    article = (
        PROSE
        + '<img src="a.jpg"><img src="b.jpg" alt="The quay at dawn">'
        + '<img src="spacer.gif" alt="">'               # decorative, by the page's word
        + '<img src="t.gif" width="1" height="1">'      # a tracker
        + '<img src="h.jpg" hidden>'                     # not shown
        + '<figure><img src="c.jpg"><figcaption>The east basin.</figcaption></figure>'
        + '<iframe src="https://video.example/embed/1"></iframe><object data="x.swf"></object>'
        + '<video src="v.mp4"></video><svg viewBox="0 0 10 10"><circle r="4"/></svg>'
        + '<canvas></canvas><svg aria-hidden="true"><path d="M0 0"/></svg>'
        + '<script>render()</script><script type="application/ld+json">{}</script>')
    page = (f"<html><body><nav><img src='logo.png'><iframe src='ad.html'></iframe></nav>"
            f"<article>{article}</article><footer><img src='f.png'></footer></body></html>")
    # A news photo's caption is not kept, so the captioned picture's caption is left out.
    assert _left_out(page) == (
        "left out: 1 image without alt text or caption, "
        "2 images whose alt text or caption is left out, "
        "2 embedded frames or objects (iframe, object, embed), 2 drawings (SVG or canvas), "
        "1 audio or video clip")


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from(["bare", "alt", "decorative", "frame", "video", "svg",
                                 "script", "data"]), max_size=8),
       st.integers(0, 3))
def test_the_counts_follow_what_the_article_holds(items: list[str], chrome: int) -> None:
    markup = {"bare": '<img src="p.jpg">', "alt": '<img src="p.jpg" alt="A boat">',
              "decorative": '<img src="p.jpg" alt="">',
              "frame": '<iframe src="https://v.example/1"></iframe>',
              "video": '<audio src="a.mp3"></audio>', "svg": "<svg><rect/></svg>",
              "script": "<script>x()</script>",
              "data": '<script type="application/json">{}</script>'}
    article = "".join(f"<p>{markup[item]}</p>" if n % 2 else markup[item]
                      for n, item in enumerate(items))
    navigation = "<nav>" + "<img src='n.png'>" * chrome + "</nav>"
    note = _left_out(f"<html><body>{navigation}<article>{PROSE}{article}</article>"
                     "</body></html>")
    expected = [(Omission.IMAGE_WITHOUT_TEXT, items.count("bare")),
                (Omission.IMAGE_DESCRIPTION, items.count("alt")),
                (Omission.EMBEDDED_FRAME, items.count("frame")),
                (Omission.DRAWING, items.count("svg")),
                (Omission.MEDIA, items.count("video"))]
    words = [kind.phrase(count) for kind, count in expected if count]
    assert note == LEFT_OUT_PREFIX + (", ".join(words) if words else "nothing")


def test_text_from_the_pages_script_data_says_it_was_not_counted() -> None:
    story = " ".join(f"Sentence {i} of the story the page renders by script, long enough."
                     for i in range(40))
    page = ('<html><head><title>Harbour</title><script type="application/ld+json">'
            f'{{"@type": "NewsArticle", "headline": "Harbour", "articleBody": "{story}"}}'
            "</script></head><body><div id='app'><img src='a.jpg'></div></body></html>")
    assert _left_out(page).startswith("left out: not counted (")
