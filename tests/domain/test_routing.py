"""Routing decides from the declared type and the bytes, never from the URL."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from sheaf.domain.errors import ErrorKind
from sheaf.domain.routing.routing import PDF_MAGIC, Route, route_content

content_types = st.one_of(
    st.none(),
    st.sampled_from(["application/pdf", "text/html; charset=utf-8", "text/plain",
                     "application/octet-stream", "image/png", "application/json", "",
                     "text/markdown", "application/x-pdf", "APPLICATION/PDF"]),
    st.text(max_size=40),
)
urls = st.one_of(st.just("https://example.org/paper.pdf"), st.text(max_size=60))


pdf_versions = st.sampled_from([b"1.0", b"1.3", b"1.4", b"1.5", b"1.6", b"1.7", b"2.0"])


@given(junk=st.binary(max_size=1024), version=pdf_versions, rest=st.binary(max_size=200),
       declared=content_types, url=urls)
def test_any_body_with_a_header_in_the_first_kib_is_a_pdf(
        junk: bytes, version: bytes, rest: bytes, declared: str | None, url: str) -> None:
    body = junk + PDF_MAGIC + version + rest
    assert route_content(declared, body, url).route is Route.PDF


@given(before=st.text(max_size=400), after=st.text(max_size=200).filter(
           lambda t: not t[:1].isdigit()),
       quote=st.sampled_from(["`%PDF-`", "%PDF- header", "'%PDF-'", "%PDF-x.y", "%PDF-"]),
       declared=st.sampled_from(["text/markdown", "text/plain", None]))
def test_text_that_names_the_header_is_not_a_pdf(
        before: str, after: str, quote: str, declared: str | None) -> None:
    """A note about PDFs (this repository's ADR-0004 is one) names `%PDF-` without the
    version a header carries."""
    assume("%PDF-" not in before + after)
    body = f"# Routing\n\n{before} {quote}{after}".encode()
    assert route_content(declared, body).route is not Route.PDF


@given(body=st.binary(max_size=3000), declared=content_types, url=urls)
def test_no_body_without_the_magic_is_a_pdf_and_routing_never_raises(
        body: bytes, declared: str | None, url: str) -> None:
    decision = route_content(declared, body, url)
    if PDF_MAGIC not in body[:1024 + len(PDF_MAGIC)]:
        assert decision.route is not Route.PDF
    assert decision.reason


def test_magic_after_more_than_a_kib_of_junk_is_not_a_pdf() -> None:
    body = b"x" * 1025 + PDF_MAGIC + b"1.7"
    assert route_content("application/pdf", body).route is not Route.PDF


@pytest.mark.parametrize(("declared", "body", "route"), [
    ("application/pdf", b"<!DOCTYPE html><html><body>Sign in</body></html>", Route.HTML),
    ("application/pdf", b"\n\n  <html lang=en>", Route.HTML),
    (None, b"\xef\xbb\xbf<!doctype html><p>x", Route.HTML),
    ("application/octet-stream", b"<!-- saved --> <html><body>", Route.HTML),
    ("text/plain", b"<?xml version='1.0'?>\n<html xmlns='x'>", Route.HTML),
    ("text/html; charset=iso-8859-1", b"anything at all", Route.HTML),
    ("text/plain", b"Just some notes.\n", Route.RAW),
    ("text/markdown", b"# Title\n\nBody", Route.RAW),
    ("application/json", b'{"a": 1}', Route.RAW),
    ("application/ld+json", b'{"a": 1}', Route.RAW),
    (None, b"plain words, no type", Route.RAW),
    ("text/html", b"%PDF-1.4 but declared html", Route.PDF),
])
def test_examples(declared: str | None, body: bytes, route: Route) -> None:
    assert route_content(declared, body, "https://example.org/x").route is route


@pytest.mark.parametrize(("declared", "body", "kind"), [
    ("image/gif", b"GIF89a\x01\x00\x01\x00\x80\x00\x00", ErrorKind.UNSUPPORTED_CONTENT),
    ("application/msword", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00", ErrorKind.UNSUPPORTED_CONTENT),
    ("application/octet-stream", b"\x00\x01\x02\xff\xfe", ErrorKind.UNSUPPORTED_CONTENT),
    ("application/pdf", b"version https://git-lfs.github.com/spec/v1\n", ErrorKind.NOT_A_PDF),
    ("text/html", b"", ErrorKind.EMPTY),
])
def test_refusals_name_the_problem(declared: str, body: bytes, kind: ErrorKind) -> None:
    decision = route_content(declared, body)
    assert decision.refused and decision.refusal is kind
    if kind is ErrorKind.UNSUPPORTED_CONTENT:
        assert declared in decision.reason
