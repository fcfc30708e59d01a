"""Bytes that are not text are refused with the reason; text in any charset passes."""

from __future__ import annotations

import random
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.text.content_sanity import control_count, unreadable_text_reason


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("charset", [None, "utf-8", "latin-1", "cp1252", "ascii"])
def test_random_bytes_are_not_text(seed: int, charset: str | None) -> None:
    noise = random.Random(seed).randbytes(4096)
    reason = unreadable_text_reason(noise, charset)
    assert reason is not None and reason.startswith("not text")


@pytest.mark.parametrize("size", [1, 10, 10_000])
def test_nul_and_control_bytes_are_not_text(size: int) -> None:
    assert "NUL" in (unreadable_text_reason(b"\x00" * size) or "")
    assert "control" in (unreadable_text_reason(bytes(range(1, 9)) * size) or "")


@given(st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1),
       st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_any_text_in_a_unicode_encoding_is_text(text: str, codec: str) -> None:
    encoded = text.encode(codec)  # utf-16/32 carry a BOM
    assert unreadable_text_reason(encoded, None if codec != "utf-8" else codec) is None


@pytest.mark.parametrize(("text", "codec"), [
    ("Καλημέρα κόσμε, τι κάνεις σήμερα;\n", "cp1253"),
    ("Привет, как дела у тебя сегодня?\n", "koi8-r"),
    ("Ça va très bien, merci beaucoup.\n", "latin-1"),
    ("Tabs\tand\r\nline breaks\fand feeds\n", "ascii"),
])
def test_text_in_an_undeclared_legacy_charset_is_text(text: str, codec: str) -> None:
    assert unreadable_text_reason((text * 200).encode(codec)) is None


def _category_count(text: str) -> int:
    return sum(1 for c in text if c not in "\t\n\r\f\v" and unicodedata.category(c) == "Cc")


@given(st.one_of(st.text(st.characters(max_codepoint=0x2FF), max_size=300),
                 st.text(max_size=300),
                 st.text(st.characters(codec="utf-8", exclude_categories=("Cs",))
                         | st.characters(categories=("Cs", "Cc")), max_size=300)))
def test_the_control_count_is_unicodes_category(text: str) -> None:
    assert control_count(text) == _category_count(text)


def test_every_control_character_is_counted_and_no_other() -> None:
    for point in range(sys.maxunicode + 1):
        character = chr(point)
        assert control_count(character) == _category_count(character), hex(point)
    every = "".join(map(chr, range(0x3000)))
    assert control_count(every) == _category_count(every) == 65 - 5
