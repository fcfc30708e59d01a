from __future__ import annotations

import ipaddress
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.fetching.network_policy import (
    blocked_host_reason,
    blocked_reason,
    parse_ip_literal,
)


@pytest.mark.parametrize(("spelling", "address"), [
    ("127.1", "127.0.0.1"), ("0x7f.1", "127.0.0.1"), ("017700000001", "127.0.0.1"),
    ("2130706433", "127.0.0.1"), ("0177.0.0.01", "127.0.0.1"), ("10.1", "10.0.0.1"),
    ("[::ffff:7f00:1]", "::ffff:7f00:1"), ("fe80::1%eth0", "fe80::1"), ("1.2.3.4.", "1.2.3.4"),
])
def test_legacy_spellings_parse_like_inet_aton(spelling: str, address: str) -> None:
    assert parse_ip_literal(spelling) == ipaddress.ip_address(address)


@given(st.lists(st.integers(0, 255), min_size=4, max_size=4),
       st.sampled_from(["dec", "hex", "oct"]))
def test_inet_aton_agrees_with_the_c_library(octets: list[int], style: str) -> None:
    fmt = {"dec": "{}", "hex": "0x{:x}", "oct": "0{:o}"}[style]
    spelling = ".".join(fmt.format(o) for o in octets)
    expected = ipaddress.IPv4Address(socket.inet_aton(spelling))
    assert parse_ip_literal(spelling) == expected


@pytest.mark.parametrize("name", ["example.org", "999.1.1.1.example", "1.2.3.4.5", "0x", "abc"])
def test_names_are_not_literals(name: str) -> None:
    assert parse_ip_literal(name) is None or name == "0x"


@given(st.ip_addresses())
def test_every_address_is_classified_without_error(address: ipaddress.IPv4Address) -> None:
    reason = blocked_reason(address)
    if reason is None:
        assert address.is_global and not address.is_multicast


def test_names_of_the_local_machine() -> None:
    assert blocked_host_reason("localhost.")
    assert blocked_host_reason("x.localhost")
    assert blocked_host_reason("example.org") is None
