"""Taking the retrieval prefix's markers out keeps every other character: what they hold,
the body, and any text where no marker is written."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sheaf.domain.analysis.retrieval_prefix import marker_free
from tests.property_examples import examples

_HELD = st.text(st.characters(blacklist_characters="[]\n"), max_size=20)
_NO_BRACKET = st.characters(blacklist_characters="[")


@settings(max_examples=examples(200))
@given(title=_HELD, path=st.lists(_HELD, max_size=3), label=_HELD,
       body=st.text(_NO_BRACKET, max_size=60), context=st.none() | _HELD)
def test_every_marker_is_taken_out_and_what_it_holds_kept(
        title: str, path: list[str], label: str, body: str, context: str | None) -> None:
    trail = " > ".join(path)
    prefix = f"[CONTEXT: {context}]\n" if context is not None else ""
    written = f"{prefix}[DOC: {title}] [PATH: {trail}] [SECTION: {label}]\n{body}"
    held = f"{context}]\n" if context is not None else ""
    assert marker_free(written) == f"{held}{title}] {trail}] {label}]\n{body}"


@settings(max_examples=examples(200))
@given(text=st.text(_NO_BRACKET, max_size=80))
def test_text_without_an_opening_bracket_is_kept_whole(text: str) -> None:
    assert marker_free(text) == text
