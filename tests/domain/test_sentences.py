from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.domain.analysis.sentences import sentence_spans


def split(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("One. Two.", ["One.", "Two."]),
    ("Use e.g. salt. Then stop.", ["Use e.g. salt.", "Then stop."]),
    ("That is, i.e. this one. Next.", ["That is, i.e. this one.", "Next."]),
    ("Smith et al. found it. We agree.", ["Smith et al. found it.", "We agree."]),
    ("See Fig. 3 and Eq. 2 for details. Done.", ["See Fig. 3 and Eq. 2 for details.", "Done."]),
    ("A vs. B was close. Yes.", ["A vs. B was close.", "Yes."]),
    ("Dr. Lee spoke. Then left.", ["Dr. Lee spoke.", "Then left."]),
    ("Made in the U.S. by hand. Fine.", ["Made in the U.S. by hand.", "Fine."]),
    ("The value was 3.14 units. Next.", ["The value was 3.14 units.", "Next."]),
    ("J. R. R. Tolkien wrote. Then.", ["J. R. R. Tolkien wrote.", "Then."]),
    ("Prior work agrees [12]. We differ.", ["Prior work agrees [12].", "We differ."]),
    ("As shown (Smith et al., 2019). Next one.",
     ["As shown (Smith et al., 2019).", "Next one."]),
    ("See https://doi.org/10.1000/x.y for it. Next.",
     ["See https://doi.org/10.1000/x.y for it.", "Next."]),
    ("Wait... Then it came. Fine.", ["Wait...", "Then it came.", "Fine."]),
    ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
    ("It ended (finally.) Next.", ["It ended (finally.)", "Next."]),
    ("Why? Because. Really!", ["Why?", "Because.", "Really!"]),
    ("First para.\n\nSecond para", ["First para.", "Second para"]),
    ("1. First item with text", ["1. First item with text"]),
    ("As in Fig. 3. The rest held.", ["As in Fig. 3.", "The rest held."]),
    ("See step 2. Then stop.", ["See step 2.", "Then stop."]),
])
def test_splitting(text: str, expected: list[str]) -> None:
    assert split(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # Cyrillic, with Russian abbreviations (single letters, "т.е.", "и др.").
    ("Привет. Как дела? Хорошо.", ["Привет.", "Как дела?", "Хорошо."]),
    ("В 2020 г. Москва выросла. Т. е. всё.", ["В 2020 г. Москва выросла.", "Т. е. всё."]),
    ("Это т.е. пример. См. рис. 3 ниже. Конец.", ["Это т.е. пример.", "См. рис. 3 ниже.",
                                                 "Конец."]),
    # German, French, Spanish abbreviations and ordinals.
    ("Er kam z.B. am 3. Oktober. Dann ging er.", ["Er kam z.B. am 3. Oktober.",
                                                  "Dann ging er."]),
    ("Siehe Abb. 2 und vgl. Nr. 4 unten. Gut.", ["Siehe Abb. 2 und vgl. Nr. 4 unten.", "Gut."]),
    ("« Bonjour. » Il partit. M. Dupont resta.", ["« Bonjour. »", "Il partit.",
                                                  "M. Dupont resta."]),
    ("Mme Curie, env. 30 ans. Vraiment\u202f? Oui.", ["Mme Curie, env. 30 ans.",
                                                     "Vraiment\u202f?", "Oui."]),
    ("¿Qué tal? ¡Muy bien! El Sr. García vino.", ["¿Qué tal?", "¡Muy bien!",
                                                   "El Sr. García vino."]),
    ("Véase la pág. 4 de EE.UU. Fin.", ["Véase la pág. 4 de EE.UU. Fin."]),
    # Greek, with its own question mark.
    ("Καλημέρα. Τι κάνεις\u037e Καλά.", ["Καλημέρα.", "Τι κάνεις\u037e", "Καλά."]),
    # Right to left: Arabic (with its question mark), Urdu full stop, Hebrew.
    ("مرحبا. كيف حالك؟ أنا بخير.", ["مرحبا.", "كيف حالك؟", "أنا بخير."]),
    ("یہ پہلا جملہ ہے۔ یہ دوسرا ہے۔", ["یہ پہلا جملہ ہے۔", "یہ دوسرا ہے۔"]),
    ("שלום. מה שלומך? טוב.", ["שלום.", "מה שלומך?", "טוב."]),
    # CJK: no space after the stop, closing brackets kept with their sentence.
    ("我很好。你呢？我也好！", ["我很好。", "你呢？", "我也好！"]),
    ("日本語です。「次の文です。」最後。", ["日本語です。", "「次の文です。」", "最後。"]),
    ("He said 你好!我是学生。", ["He said 你好!", "我是学生。"]),
    ("서울은 크다. 부산도 크다.", ["서울은 크다.", "부산도 크다."]),
    # Devanagari danda, Thai spaces, Armenian and Ethiopic stops.
    ("यह पहला वाक्य है। यह दूसरा है।", ["यह पहला वाक्य है।", "यह दूसरा है।"]),
    ("ภาษาไทยง่าย ฉันชอบมาก", ["ภาษาไทยง่าย", "ฉันชอบมาก"]),
    ("Բարեւ։ Ինչպես ես։", ["Բարեւ։", "Ինչպես ես։"]),
    ("ሰላም ነው። እንዴት ነህ።", ["ሰላም ነው።", "እንዴት ነህ።"]),
])
def test_splitting_other_scripts(text: str, expected: list[str]) -> None:
    assert split(text) == expected


_MIXED_SCRIPTS = "aB .?!\n\"()[]12。！？؟।«»「」ыЖمשあ漢ภไ z\u037e"


@given(st.text(alphabet=_MIXED_SCRIPTS, max_size=200))
def test_spans_tile_mixed_script_text(text: str) -> None:
    spans = sentence_spans(text)
    previous = 0
    for start, end in spans:
        assert previous <= start < end <= len(text)
        assert not text[start].isspace() and not text[end - 1].isspace()
        assert not text[previous:start].strip()  # only whitespace between sentences
        previous = end
    assert not text[previous:].strip()


@given(st.text(alphabet="ab .?!\n\"()[]ABC12", max_size=200))
def test_spans_are_ordered_trimmed_and_inside_the_text(text: str) -> None:
    spans = sentence_spans(text)
    previous = 0
    for start, end in spans:
        assert previous <= start < end <= len(text)
        assert not text[start].isspace() and not text[end - 1].isspace()
        previous = end
    covered = "".join(text[a:b] for a, b in spans)
    assert "".join(covered.split()) == "".join(text.split())  # nothing lost, no overlap


def test_numbering_is_stable_for_long_documents() -> None:
    text = " ".join(f"Sentence number {i} ends here." for i in range(5000))
    spans = sentence_spans(text)
    assert len(spans) == 5000
    assert text[slice(*spans[4321])] == "Sentence number 4321 ends here."
