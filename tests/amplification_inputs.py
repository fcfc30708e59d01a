"""Small files that make an extractor build far more than they hold (issue 30): a part
listed many times, one string behind many cells, frames that add up past any page.
Generated here; the tests and `bench/hostile_inputs.py` write them to disk and extract
them in child processes."""

from __future__ import annotations

import io
import zipfile

_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
_SLIDE = _R + "/slide"
_NOTES = _R + "/notesSlide"
_S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def _rels(targets: list[tuple[str, str, str]]) -> bytes:
    return (f'<?xml version="1.0"?><Relationships xmlns="{_PKG}">'
            + "".join(f'<Relationship Id="{i}" Type="{t}" Target="{target}"/>'
                      for i, t, target in targets)
            + "</Relationships>").encode()


def _slide_xml(paragraphs: int, words: str) -> bytes:
    body = "".join(f"<a:p><a:r><a:t>{words} {n}</a:t></a:r></a:p>" for n in range(paragraphs))
    return (f'<?xml version="1.0"?><p:sld xmlns:p="{_P}" xmlns:a="{_A}"><p:cSld><p:spTree>'
            f"<p:sp><p:txBody>{body}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>").encode()


def pptx_one_slide_listed(times: int = 250, slide_bytes: int = 1_000_000) -> bytes:
    """A deck whose slide list names one slide of about `slide_bytes` bytes `times` times
    (the 5 KB file that peaked at 2.9 GB)."""
    words = "The same slide again and again, read once more by the extractor"
    paragraph = len(f"<a:p><a:r><a:t>{words} 000</a:t></a:r></a:p>")
    slide = _slide_xml(slide_bytes // paragraph, words)
    ids = "".join(f'<p:sldId id="{256 + n}" r:id="rId1"/>' for n in range(times))
    presentation = (f'<?xml version="1.0"?><p:presentation xmlns:p="{_P}" xmlns:r="{_R}">'
                    f"<p:sldIdLst>{ids}</p:sldIdLst></p:presentation>").encode()
    return _zip({"ppt/presentation.xml": presentation,
                 "ppt/_rels/presentation.xml.rels": _rels([("rId1", _SLIDE,
                                                            "slides/slide1.xml")]),
                 "ppt/slides/slide1.xml": slide})


def pptx_shared_notes(slides: int = 300, notes_bytes: int = 1_000_000) -> bytes:
    """`slides` small distinct slides whose relationships all name one large notes part."""
    words = "Speaker notes every slide shares, one part read for each slide"
    paragraph = len(f"<a:p><a:r><a:t>{words} 000</a:t></a:r></a:p>")
    body = "".join(f"<a:p><a:r><a:t>{words} {n}</a:t></a:r></a:p>"
                   for n in range(notes_bytes // paragraph))
    notes = (f'<?xml version="1.0"?><p:notes xmlns:p="{_P}" xmlns:a="{_A}"><p:cSld><p:spTree>'
             f'<p:sp><p:nvSpPr><p:nvPr><p:ph type="body"/></p:nvPr></p:nvSpPr>'
             f"<p:txBody>{body}</p:txBody></p:sp></p:spTree></p:cSld></p:notes>").encode()
    members = {"ppt/notesSlides/notesSlide1.xml": notes}
    for n in range(1, slides + 1):
        members[f"ppt/slides/slide{n}.xml"] = _slide_xml(1, f"Slide {n}")
        members[f"ppt/slides/_rels/slide{n}.xml.rels"] = _rels(
            [("rId1", _NOTES, "../notesSlides/notesSlide1.xml")])
    ids = "".join(f'<p:sldId id="{255 + n}" r:id="rId{n}"/>' for n in range(1, slides + 1))
    members["ppt/presentation.xml"] = (
        f'<?xml version="1.0"?><p:presentation xmlns:p="{_P}" xmlns:r="{_R}">'
        f"<p:sldIdLst>{ids}</p:sldIdLst></p:presentation>").encode()
    members["ppt/_rels/presentation.xml.rels"] = _rels(
        [(f"rId{n}", _SLIDE, f"slides/slide{n}.xml") for n in range(1, slides + 1)])
    return members_first(members, "ppt/presentation.xml")


def members_first(members: dict[str, bytes], first: str) -> bytes:
    return _zip({first: members[first], **{k: v for k, v in members.items() if k != first}})


def xlsx_one_string_many_cells(cells: int = 40_000, string_characters: int = 30_000
                               ) -> bytes:
    """A sheet of `cells` cells that all show one shared string of `string_characters`."""
    text = ("many cells, one string " * (string_characters // 23 + 1))[:string_characters]
    shared = (f'<?xml version="1.0"?><sst xmlns="{_S}"><si><t>{text}</t></si></sst>').encode()
    row = "".join('<c t="s"><v>0</v></c>' for _ in range(100))
    rows = "".join(f'<row r="{n + 1}">{row}</row>' for n in range(cells // 100))
    sheet = f'<?xml version="1.0"?><worksheet xmlns="{_S}"><sheetData>{rows}</sheetData>' \
            "</worksheet>"
    workbook = (f'<?xml version="1.0"?><workbook xmlns="{_S}" xmlns:r="{_R}"><sheets>'
                '<sheet name="Echo" sheetId="1" r:id="rId1"/></sheets></workbook>')
    return _zip({"xl/workbook.xml": workbook.encode(),
                 "xl/_rels/workbook.xml.rels": _rels([("rId1", _R + "/worksheet",
                                                       "worksheets/sheet1.xml")]),
                 "xl/sharedStrings.xml": shared, "xl/worksheets/sheet1.xml": sheet.encode()})


def docx_nested_content_controls(depth: int = 20_000) -> bytes:
    """A body of `depth` content controls nested in one another around one paragraph."""
    inner = "<w:p><w:r><w:t>The innermost paragraph.</w:t></w:r></w:p>"
    body = "<w:sdt><w:sdtContent>" * depth + inner + "</w:sdtContent></w:sdt>" * depth
    document = (f'<?xml version="1.0"?><w:document xmlns:w="{_W}"><w:body>'
                f"<w:p><w:r><w:t>Before the controls.</w:t></w:r></w:p>{body}"
                "</w:body></w:document>")
    return _zip({"word/document.xml": document.encode()})


def docx_nested_runs(depth: int = 20_000) -> bytes:
    """A paragraph whose text sits `depth` smart tags deep."""
    body = "<w:smartTag>" * depth + "<w:r><w:t>Deep words.</w:t></w:r>" \
        + "</w:smartTag>" * depth
    document = (f'<?xml version="1.0"?><w:document xmlns:w="{_W}"><w:body><w:p>{body}</w:p>'
                "</w:body></w:document>")
    return _zip({"word/document.xml": document.encode()})


def docx_huge_cell(characters: int = 200_000) -> bytes:
    """A one-cell table whose cell holds `characters` characters."""
    text = ("a very long table cell " * (characters // 23 + 1))[:characters]
    document = (f'<?xml version="1.0"?><w:document xmlns:w="{_W}"><w:body><w:tbl><w:tr><w:tc>'
                f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
                "</w:body></w:document>")
    return _zip({"word/document.xml": document.encode()})


def tiff_frames(frames: int = 40, side: int = 8_000) -> bytes:
    """A multi-frame TIFF of blank `side` x `side` one-bit frames (CCITT group 4 makes each
    a few hundred bytes, so the file is small and its frames are not): each frame within
    the per-frame cap, all of them together far past the document's pixel budget."""
    from PIL import Image

    frame = Image.new("1", (side, side), 1)
    buffer = io.BytesIO()
    frame.save(buffer, "TIFF", save_all=True, compression="group4",
               append_images=[frame] * (frames - 1))
    return buffer.getvalue()


def tiff_small_then_huge(side: int = 30_000) -> bytes:
    """A TIFF whose first frame is 100 x 100 and whose second is `side` x `side` (only
    the first frame's size used to be checked)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("1", (100, 100), 1).save(buffer, "TIFF", save_all=True, compression="group4",
                                       append_images=[Image.new("1", (side, side), 1)])
    return buffer.getvalue()


def gif_frames(frames: int = 300, side: int = 8_000) -> bytes:
    """An animated GIF written by hand: a `side` x `side` canvas and `frames` frames of one
    pixel each. Every frame decodes to the whole canvas, so 300 frames of 18 bytes stand
    for 19 billion pixels."""
    import struct

    header = b"GIF89a" + struct.pack("<HHBBB", side, side, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    # One pixel coded with LZW at minimum code size 2: clear (4), index 0, end (5).
    frame = (b"\x21\xf9\x04\x00\x01\x00\x00\x00"  # graphic control: 10 ms
             + b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00")
    return header + frame * frames + b"\x3b"


def docx_of_text(characters: int) -> bytes:
    """A Word document of paragraphs holding about `characters` characters of words
    drawn (seeded) from a small vocabulary: varied enough to inflate like prose, not
    like a ZIP bomb."""
    import random

    chooser = random.Random(31)
    vocabulary = [f"{a}{b}{c}" for a in "bdfgklmnprst" for b in "aeiou" for c in "nrst"]
    paragraphs = []
    written = 0
    while written < characters:
        line = " ".join(chooser.choice(vocabulary) for _ in range(200)) + "."
        paragraphs.append(f"<w:p><w:r><w:t>{line}</w:t></w:r></w:p>")
        written += len(line)
    body = "".join(paragraphs)
    document = (f'<?xml version="1.0"?><w:document xmlns:w="{_W}"><w:body>{body}'
                "</w:body></w:document>")
    return _zip({"word/document.xml": document.encode()})


def eml_attachments_past_the_budget(attachments: int = 6,
                                    characters: int = 3_000_000) -> bytes:
    """A message with `attachments` Word documents of `characters` characters each:
    every one well inside one document's budget (16 million characters), all of them
    together past it."""
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"] = "Ada Ferris <ada@example.org>"
    message["Subject"] = "The whole log"
    message.set_content("The log, in parts.\n")
    part = docx_of_text(characters)
    for number in range(1, attachments + 1):
        message.add_attachment(part, maintype="application",
                               subtype="vnd.openxmlformats-officedocument."
                                       "wordprocessingml.document",
                               filename=f"log-{number}.docx")
    return message.as_bytes()
