from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.fetching.accept_policy import HTML_FIRST, PDF_FIRST, accept_header_for
from sheaf.domain.fetching.url_normalisation import normalise_url


@pytest.mark.parametrize(("url", "expected"), [
    ("https://github.com/psf/requests/blob/main/README.md",
     "https://raw.githubusercontent.com/psf/requests/main/README.md"),
    ("https://GitHub.com/a/b/blob/v1.0/docs/x.md#L10",
     "https://raw.githubusercontent.com/a/b/v1.0/docs/x.md"),
    ("https://gitlab.com/group/sub/proj/-/blob/main/README.md",
     "https://gitlab.com/group/sub/proj/-/raw/main/README.md"),
    ("https://gist.github.com/someone/0123abcdef",
     "https://gist.githubusercontent.com/someone/0123abcdef/raw"),
    ("HTTP://Example.ORG:80/A/B?q=1#frag", "http://example.org/A/B?q=1"),
    ("https://example.org:443", "https://example.org/"),
    ("https://example.org:8443/x", "https://example.org:8443/x"),
    ("  https://[2001:DB8::1]:8080/p  ", "https://[2001:db8::1]:8080/p"),
])
def test_examples(url: str, expected: str) -> None:
    assert normalise_url(url) == expected


@pytest.mark.parametrize("url", ["ftp://x.org/f", "javascript:alert(1)", "example.org/page",
                                 "http://", "https://host:99999/"])
def test_non_http_urls_are_refused(url: str) -> None:
    with pytest.raises(SheafError) as caught:
        normalise_url(url)
    assert caught.value.kind is ErrorKind.INVALID_URL


hosts = st.from_regex(r"[A-Za-z][A-Za-z0-9-]{0,10}(\.[A-Za-z]{2,5}){1,2}", fullmatch=True)
paths = st.lists(st.from_regex(r"[A-Za-z0-9._~-]{1,8}", fullmatch=True), max_size=5)


@given(scheme=st.sampled_from(["http", "https", "HTTPS"]), host=hosts, path=paths,
       query=st.from_regex(r"([a-z]=[0-9]{1,3})?", fullmatch=True),
       fragment=st.from_regex(r"[a-z]{0,5}", fullmatch=True),
       port=st.one_of(st.none(), st.integers(1, 65535)))
def test_normalisation_is_idempotent(scheme: str, host: str, path: list[str], query: str,
                                     fragment: str, port: int | None) -> None:
    url = f"{scheme}://{host}{f':{port}' if port else ''}/{'/'.join(path)}"
    url += f"?{query}" if query else ""
    url += f"#{fragment}" if fragment else ""
    once = normalise_url(url)
    assert normalise_url(once) == once
    assert "#" not in once


@given(st.text(max_size=80))
def test_normalisation_raises_only_typed_errors(text: str) -> None:
    try:
        once = normalise_url(text)
    except SheafError as exc:
        assert exc.kind is ErrorKind.INVALID_URL
        return
    assume(once)
    assert normalise_url(once) == once


@pytest.mark.parametrize(("url", "accept"), [
    ("https://doi.org/10.1000/xyz", PDF_FIRST),
    ("https://arxiv.org/abs/2101.00001", PDF_FIRST),
    ("https://link.springer.com/article/10.1007/s1", PDF_FIRST),
    ("https://www.nature.com/articles/s41598-020-1", PDF_FIRST),
    ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1/", PDF_FIRST),
    ("https://www.ncbi.nlm.nih.gov/gene/1", HTML_FIRST),
    ("https://bmcbioinformatics.biomedcentral.com/articles/1", PDF_FIRST),
    ("https://example.org/blog/post", HTML_FIRST),
    ("https://notnature.com/x", HTML_FIRST),
])
def test_accept_header(url: str, accept: str) -> None:
    assert accept_header_for(url) == accept


@pytest.mark.parametrize(("host", "expected"), [
    ("127。0。0。1", "127.0.0.1"), ("１２７.０.０.１", "127.0.0.1"), ("127｡0｡0｡1", "127.0.0.1"),
    ("①②⑦.⓪.⓪.①", "127.0.0.1"), ("%31%32%37.0.0.1", "127.0.0.1"), ("١٢٧.0.0.1", "127.0.0.1"),
    ("Bücher.DE", "xn--bcher-kva.de"), ("[::FFFF:127.0.0.1]", "::ffff:7f00:1"),
    ("example.org.", "example.org."), ("ＥＸＡＭＰＬＥ．org", "example.org"),
])
def test_hosts_normalise_to_the_ascii_a_connection_uses(host: str, expected: str) -> None:
    from sheaf.domain.fetching.url_normalisation import canonical_host
    assert canonical_host(host) == expected


@pytest.mark.parametrize("host", ["⒈⒉⒎.0.0.1", "a..b", "exa mple.org", "%zz.org", "[::g]",
                                  "host%2fpath.org"])
def test_hosts_that_do_not_normalise_cleanly_are_refused(host: str) -> None:
    from sheaf.domain.fetching.url_normalisation import canonical_host
    with pytest.raises(SheafError) as caught:
        canonical_host(host)
    assert caught.value.kind is ErrorKind.INVALID_URL
