"""When a page goes to the browser: script-built shells of any framework do, pages that
are short by nature do not, and an extraction that already has an article never does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.rendering.render_need import FEW_WORDS, render_reason, script_signs
from tests.property_examples import examples

MOUNTS = ["root", "app", "__next", "__nuxt", "svelte", "react-root", "ember-app"]
words = st.lists(st.sampled_from(["tide", "harbour", "gauge", "moon", "storm", "pier"]),
                 max_size=40).map(" ".join)


@st.composite
def shells(draw: st.DrawFn) -> bytes:
    """An application shell: a mount element, bundles, maybe a noscript, little text."""
    mount = draw(st.sampled_from(MOUNTS))
    tag = draw(st.sampled_from(["div", "main", "section"]))
    quote = draw(st.sampled_from(['"', "'"]))
    bundles = "".join(f'<script src="/static/{i}.js" defer></script>'
                      for i in range(draw(st.integers(1, 4))))
    state = draw(st.sampled_from(["", "<script>window.__STATE__ = {\"a\": 1}</script>"]))
    title = draw(words)
    return (f"<!doctype html><html><head><title>{title}</title>{bundles}</head><body>"
            f"<{tag} id={quote}{mount}{quote}></{tag}>{state}</body></html>").encode()


@st.composite
def static_pages(draw: st.DrawFn) -> bytes:
    """A page short by nature: plain markup, no mount, no bundle."""
    text = draw(words)
    return (f"<!doctype html><html><head><title>Note</title></head><body><main><p>{text}"
            f"</p></main></body></html>").encode()


@settings(max_examples=examples(100))
@given(shells(), st.one_of(st.none(), st.integers(0, FEW_WORDS - 1)))
def test_thin_script_built_pages_are_rendered(html: bytes, kept: int | None) -> None:
    assert script_signs(html)
    assert render_reason("auto", html, kept) is not None


@settings(max_examples=examples(100))
@given(static_pages(), st.one_of(st.none(), st.integers(0, FEW_WORDS - 1)))
def test_pages_short_by_nature_are_not(html: bytes, kept: int | None) -> None:
    assert render_reason("auto", html, kept) is None


@settings(max_examples=examples(50))
@given(shells(), st.integers(FEW_WORDS, 5000))
def test_an_extraction_with_an_article_is_kept(html: bytes, kept: int) -> None:
    assert render_reason("auto", html, kept) is None


def test_modes_always_and_never_decide_alone() -> None:
    shell = b'<div id="root"></div><script src="/a.js"></script>'
    assert render_reason("never", shell, None) is None
    assert render_reason("always", b"<p>long article</p>", 5000) == "rendering was asked for"


def test_a_noscript_asking_for_javascript_is_a_sign() -> None:
    page = (b"<html><body><noscript>You need to enable JavaScript to run this app."
            b"</noscript><div id=mount></div></body></html>")
    assert "a <noscript> asking for JavaScript" in script_signs(page)
