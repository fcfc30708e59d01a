"""Which network addresses sheaf may connect to (the SSRF guard's rules).

Every classification leans on the `ipaddress` module's own properties; the
only hand-written parsing is for the legacy IPv4 spellings that `inet_aton`
accepts (`127.1`, `0x7f.1`, `017700000001`, `2130706433`), which resolvers
still honour and `ipaddress` rightly refuses.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_V4_PART = re.compile(r"^(?:0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*)$")
_LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address a host string denotes by itself, without DNS; None for a name."""
    text = host.strip().rstrip(".")
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    text = text.split("%", 1)[0]  # IPv6 zone index
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    return _parse_inet_aton(text)


def _parse_inet_aton(text: str) -> ipaddress.IPv4Address | None:
    parts = text.split(".")
    if not 1 <= len(parts) <= 4 or not all(_V4_PART.match(p) for p in parts):
        return None
    values = []
    for part in parts:
        if part[:2].lower() == "0x":
            values.append(int(part[2:] or "0", 16))
        elif len(part) > 1 and part.startswith("0"):
            values.append(int(part, 8))
        else:
            values.append(int(part))
    # The last part fills all the bytes the earlier ones left.
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (4 - len(head)):
        return None
    number = 0
    for v in head:
        number = number * 256 + v
    number = number * 256 ** (4 - len(head)) + last
    return ipaddress.IPv4Address(number)


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 spelling carries (mapped, compatible, 6to4, NAT64, Teredo)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64 or (address in _IPV4_COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def blocked_reason(address: IPAddress) -> str | None:
    """Why connecting to `address` is refused, or None when it is a public address."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = embedded_ipv4(address)
        if inner is not None:
            reason = blocked_reason(inner)
            if reason:
                return f"{address} embeds {inner}: {reason}"
        if address.is_site_local:
            return f"{address} is an IPv6 site-local address"
    checks = (
        ("is_unspecified", "unspecified"),
        ("is_loopback", "loopback"),
        ("is_link_local", "link-local"),
        ("is_multicast", "multicast"),
        ("is_private", "private"),
        ("is_reserved", "reserved"),
    )
    for attribute, label in checks:
        if getattr(address, attribute):
            return f"{address} is a {label} address"
    if not address.is_global:
        return f"{address} is not a globally routable address"
    return None


def blocked_host_reason(host: str,
                        policy: Callable[[IPAddress], str | None] | None = None) -> str | None:
    """Refuse what can be refused from the host string alone: local names and IP literals
    (judged by `policy`, `blocked_reason` by default)."""
    name = host.strip().lower().rstrip(".")
    if name in _LOCAL_NAMES or name.endswith(".localhost"):
        return f"{host!r} names the local machine"
    literal = parse_ip_literal(host)
    if literal is not None:
        return (policy or blocked_reason)(literal)
    return None
