"""Spellings of non-public addresses, as an attacker would write them to slip past a guard.

Each function takes the address and returns host strings that an HTTP stack, a resolver
or `inet_aton` may read as that address. The table test takes them all; the property
test draws random combinations of the same transformations.
"""

from __future__ import annotations

import ipaddress

# Digits that NFKC or UTS-46 fold to ASCII, and digits of other scripts that a lenient
# parser (Python's int(), some resolvers) reads as numbers.
DIGIT_FORMS: dict[str, str] = {
    "full-width": "０１２３４５６７８９",
    "circled": "⓪①②③④⑤⑥⑦⑧⑨",
    "mathematical bold": "𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗",
    "mathematical double-struck": "𝟘𝟙𝟚𝟛𝟜𝟝𝟞𝟟𝟠𝟡",
    "superscript": "⁰¹²³⁴⁵⁶⁷⁸⁹",
    "arabic-indic": "٠١٢٣٤٥٦٧٨٩",
    "devanagari": "०१२३४५६७८९",
}
# Full stops UTS-46 maps to ".", plus the small full stop NFKC maps to ".".
DOTS = (".", "\u3002", "\uff0e", "\uff61", "\ufe52")

BLOCKED_IPV4 = ("127.0.0.1", "169.254.169.254", "10.0.0.1", "192.168.0.1", "0.0.0.0",
                "172.16.0.1", "100.64.0.1", "127.255.255.254")


def with_digits(text: str, form: str) -> str:
    table = DIGIT_FORMS[form]
    return "".join(table[int(c)] if c.isascii() and c.isdigit() else c for c in text)


def with_dots(text: str, dot: str) -> str:
    return text.replace(".", dot)


def percent_encoded(text: str) -> str:
    return "".join(f"%{ord(c):02X}" if c.isdigit() else c for c in text)


def numeric_forms(address: str) -> list[str]:
    """The inet_aton spellings: one number, octal, hex, two- and three-part forms."""
    a, b, c, d = (int(p) for p in address.split("."))
    number = int(ipaddress.IPv4Address(address))
    return [
        str(number), hex(number), hex(number).upper().replace("0X", "0x"), f"0{number:o}",
        f"{a}.{b * 65536 + c * 256 + d}", f"{a}.{b}.{c * 256 + d}",
        f"0x{a:x}.0x{b:x}.0x{c:x}.0x{d:x}", f"0{a:o}.0{b:o}.0{c:o}.0{d:o}",
        f"0x{a:02X}.{b}.{c}.{d}", f"{a:04o}.{b}.{c}.{d}" if a else f"00.{b}.{c}.{d}",
    ]


def ipv6_forms(address: str) -> list[str]:
    """IPv6 spellings that carry the IPv4 address: mapped, compatible, 6to4, NAT64, Teredo."""
    v4 = ipaddress.IPv4Address(address)
    number = int(v4)
    high, low = number >> 16, number & 0xFFFF
    teredo_client = number ^ 0xFFFFFFFF
    return [
        f"[::ffff:{address}]", f"[::ffff:{high:x}:{low:x}]", f"[::FFFF:{high:X}:{low:X}]",
        f"[0:0:0:0:0:ffff:{address}]", f"[0000:0000:0000:0000:0000:ffff:{high:04x}:{low:04x}]",
        f"[::{address}]" if number > 1 else f"[::ffff:{address}]",
        f"[2002:{high:x}:{low:x}::]", f"[2002:{high:x}:{low:x}::1]",
        f"[64:ff9b::{address}]", f"[64:ff9b::{high:x}:{low:x}]",
        f"[2001:0:4136:e378:8000:63bf:{teredo_client >> 16:x}:{teredo_client & 0xFFFF:x}]",
    ]


def unicode_forms(address: str) -> list[str]:
    forms = []
    for form in DIGIT_FORMS:
        forms.append(with_digits(address, form))
    for dot in DOTS[1:]:
        forms.append(with_dots(address, dot))
        forms.append(with_dots(with_digits(address, "full-width"), dot))
    forms.append(with_dots(with_digits(address, "circled"), "\u3002"))
    forms.append(percent_encoded(address))
    forms.append(percent_encoded(address).lower())
    forms.append(address + ".")
    forms.append(with_dots(address, "\u3002") + "\u3002")
    forms.append(with_digits(address, "full-width") + "．")
    return forms


def all_spellings(address: str) -> list[str]:
    return [address, *unicode_forms(address), *numeric_forms(address), *ipv6_forms(address)]


LOCAL_NAMES = [
    "localhost", "LOCALHOST", "LocalHost.", "localhost\u3002", "ｌｏｃａｌｈｏｓｔ",
    "ＬＯＣＡＬＨＯＳＴ", "api.localhost", "api\uff0elocalhost", "%6c%6f%63%61%6c%68%6f%73%74",
    "localhost.localdomain", "ip6-localhost",
]
IPV6_LITERALS = ["[::1]", "[0:0:0:0:0:0:0:1]", "[::]", "[0::1]", "[::0001]", "[fe80::1]",
                 "[FE80::1]", "[fc00::1]", "[fd00::1]", "[ff02::1]", "[fec0::1]",
                 "[::ffff:0:0]", "[::ffff:0.0.0.0]"]


def table() -> list[str]:
    """Every host spelling of the table test, without duplicates, in a stable order."""
    seen: dict[str, None] = {}
    for address in BLOCKED_IPV4:
        for spelling in all_spellings(address):
            seen.setdefault(spelling, None)
    for name in (*LOCAL_NAMES, *IPV6_LITERALS):
        seen.setdefault(name, None)
    return list(seen)


def url_for(host: str, port: int) -> str:
    return f"http://{host}:{port}/"
