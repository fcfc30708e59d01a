"""Writing small, real PDFs with pikepdf for fixtures and the bundled demo sample."""

from __future__ import annotations

import io
import re
import textwrap
import warnings
import zlib
from collections.abc import Sequence
from pathlib import Path

import pikepdf

PAGE_WIDTH, PAGE_HEIGHT, MARGIN = 612, 792, 72


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def write_pdf(blocks: Sequence[tuple[str, str]], *, title: str | None = None,
              author: str | None = None, running_header: str | None = None,
              columns: int = 1, password: str | None = None) -> bytes:
    """A PDF of (kind, text) blocks: kind "h1", "h2" or "p"; wrapped lines, real fonts;
    one or two columns; optionally encrypted with a user password."""
    pdf = pikepdf.Pdf.new()
    fonts = pikepdf.Dictionary(
        F1=pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Font,
                                                Subtype=pikepdf.Name.Type1,
                                                BaseFont=pikepdf.Name.Helvetica)),
        F2=pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Font,
                                                Subtype=pikepdf.Name.Type1,
                                                BaseFont=pikepdf.Name("/Helvetica-Bold"))))
    pages: list[list[str]] = [[]]
    y = PAGE_HEIGHT - MARGIN
    column = 0
    gutter = 24
    column_width = (PAGE_WIDTH - 2 * MARGIN - gutter * (columns - 1)) // columns
    wrap = 88 if columns == 1 else 40

    def emit(font: str, size: int, line: str) -> None:
        nonlocal y, column
        if y < MARGIN + size:
            column += 1
            if column == columns:
                pages.append([])
                column = 0
            y = PAGE_HEIGHT - MARGIN
        x = MARGIN + column * (column_width + gutter)
        pages[-1].append(f"BT /{font} {size} Tf {x} {y} Td ({_escape(line)}) Tj ET")
        y -= int(size * 1.4)

    for kind, text in blocks:
        if kind in ("h1", "h2"):
            y -= 10
            size = 18 if kind == "h1" else 14
            for line in textwrap.wrap(text, 50 if columns == 1 else 28):
                emit("F2", size, line)
            y -= 4
        else:
            for line in textwrap.wrap(text, wrap):
                emit("F1", 10, line)
            y -= 8
    for number, commands in enumerate(pages, start=1):
        stream = list(commands)
        if running_header:
            stream.append(f"BT /F1 8 Tf {MARGIN} {PAGE_HEIGHT - 40} Td "
                          f"({_escape(running_header)}) Tj ET")
        stream.append(f"BT /F1 8 Tf {PAGE_WIDTH // 2} 40 Td ({number}) Tj ET")
        page = pikepdf.Dictionary(
            Type=pikepdf.Name.Page, MediaBox=[0, 0, PAGE_WIDTH, PAGE_HEIGHT],
            Resources=pikepdf.Dictionary(Font=fonts),
            Contents=pdf.make_stream("\n".join(stream).encode("latin-1")))
        pdf.pages.append(pikepdf.Page(page))
    if title or author:
        with pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
            if title:
                meta["dc:title"] = title
            if author:
                meta["dc:creator"] = [author]
        if title:
            pdf.docinfo["/Title"] = title
        if author:
            pdf.docinfo["/Author"] = author
    out = io.BytesIO()
    if password is not None:
        pdf.save(out, encryption=pikepdf.Encryption(user=password, owner=password + "-owner"))
    else:
        pdf.save(out, deterministic_id=True)
    return out.getvalue()


def write_pdf_file(path: Path, blocks: Sequence[tuple[str, str]], **kwargs: str) -> Path:
    path.write_bytes(write_pdf(blocks, **kwargs))
    return path


def _font_resources(pdf: pikepdf.Pdf) -> pikepdf.Dictionary:
    return pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=pdf.make_indirect(pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica))))


def _deflated(prefix: bytes, unit: bytes, size: int) -> bytes:
    """`prefix` then `unit` repeated to `size` bytes, deflated piece by piece so that
    writing a 1 GiB bomb never holds 1 GiB."""
    packer = zlib.compressobj(9)
    parts = [packer.compress(prefix)]
    block = unit * max(1, (1 << 20) // len(unit))
    written = len(prefix)
    while written < size:
        piece = block[:size - written]
        parts.append(packer.compress(piece))
        written += len(piece)
    parts.append(packer.flush())
    return b"".join(parts)


def _add_bomb_page(pdf: pikepdf.Pdf, resources: pikepdf.Dictionary,
                   contents: pikepdf.Object) -> None:
    pdf.pages.append(pikepdf.Page(pikepdf.Dictionary(
        Type=pikepdf.Name.Page, MediaBox=[0, 0, PAGE_WIDTH, PAGE_HEIGHT],
        Resources=resources, Contents=contents)))


def _saved_as_written(pdf: pikepdf.Pdf) -> bytes:
    """`pdf` saved with its streams exactly as written: a bomb stays deflated."""
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True, compress_streams=False,
             stream_decode_level=pikepdf.StreamDecodeLevel.none)
    return out.getvalue()


def write_bomb_pdf(unit: bytes, size: int, *, pages: int = 1,
                   prefix: bytes = b"BT /F1 12 Tf 72 720 Td (A page with a bomb) Tj ET\n"
                   ) -> bytes:
    """A small PDF whose page content streams each inflate to `size` bytes: `prefix` then
    `unit` repeated (spaces for a decompression bomb, `(a) Tj ` for an operator flood)."""
    pdf = pikepdf.Pdf.new()
    resources = _font_resources(pdf)
    encoded = _deflated(prefix, unit, size)
    for _ in range(pages):
        stream = pikepdf.Stream(pdf, b"")
        stream.write(encoded, filter=pikepdf.Name.FlateDecode)
        _add_bomb_page(pdf, resources, pdf.make_indirect(stream))
    return _saved_as_written(pdf)


def write_form_bomb_pdf(unit: bytes, size: int, prefix: bytes = b"") -> bytes:
    """A page that draws one form XObject whose content inflates to `prefix` and `unit`
    repeated to `size` bytes: a flood that the page's own content does not show."""
    pdf = pikepdf.Pdf.new()
    resources = _font_resources(pdf)
    form = pikepdf.Stream(pdf, b"")
    form.write(_deflated(prefix, unit, size), filter=pikepdf.Name.FlateDecode)
    form.Type, form.Subtype = pikepdf.Name.XObject, pikepdf.Name.Form
    form.BBox = [0, 0, PAGE_WIDTH, PAGE_HEIGHT]
    form.Resources = resources
    resources.XObject = pikepdf.Dictionary(Fm0=pdf.make_indirect(form))
    content = pdf.make_stream(b"BT /F1 12 Tf 72 720 Td (A page with a form) Tj ET /Fm0 Do")
    _add_bomb_page(pdf, resources, content)
    return _saved_as_written(pdf)


def write_image_bomb_pdf(side: int) -> bytes:
    """A page of text that also draws a `side` x `side` grey image, deflated from zeros
    (32768 makes 1 GiB of pixels in a 1 MB file)."""
    pdf = pikepdf.Pdf.new()
    resources = _font_resources(pdf)
    image = pikepdf.Stream(pdf, b"")
    image.write(_deflated(b"", b"\0" * 64, side * side), filter=pikepdf.Name.FlateDecode)
    image.Type, image.Subtype = pikepdf.Name.XObject, pikepdf.Name.Image
    image.Width, image.Height, image.BitsPerComponent = side, side, 8
    image.ColorSpace = pikepdf.Name.DeviceGray
    resources.XObject = pikepdf.Dictionary(Im0=pdf.make_indirect(image))
    content = pdf.make_stream(b"BT /F1 12 Tf 72 720 Td (A page with a picture) Tj ET "
                              b"q 100 0 0 100 72 72 cm /Im0 Do Q")
    _add_bomb_page(pdf, resources, content)
    return _saved_as_written(pdf)


def write_private_encoding_pdf(paragraphs: Sequence[str], *, readable_heading: str) -> bytes:
    """A page whose body font is a Type3 font with private glyph names and no ToUnicode
    map, so each letter comes out as its character code (`!"#!"$`), under a heading in
    Helvetica that decodes normally."""
    pdf = pikepdf.Pdf.new()
    letters = sorted({c for p in paragraphs for c in p if not c.isspace()})
    codes = {c: 33 + i for i, c in enumerate(letters)}
    procs = pikepdf.Dictionary({f"/g{i}": pdf.make_stream(b"0 0 m 500 0 l 500 500 l f")
                                for i in codes.values()})
    differences = pikepdf.Array([33, *(pikepdf.Name(f"/g{codes[c]}") for c in letters)])
    private = pdf.make_indirect(pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type3, FontBBox=[0, 0, 500, 500],
        FontMatrix=[0.001, 0, 0, 0.001, 0, 0], CharProcs=procs,
        Encoding=pikepdf.Dictionary(Type=pikepdf.Name.Encoding, Differences=differences),
        FirstChar=33, LastChar=32 + len(letters), Widths=[500] * len(letters),
        Resources=pikepdf.Dictionary()))
    fonts = _font_resources(pdf).Font
    fonts.F2 = private
    commands = [f"BT /F1 16 Tf {MARGIN} 720 Td ({_escape(readable_heading)}) Tj ET"]
    y = 690
    for paragraph in paragraphs:
        for line in textwrap.wrap(paragraph, 80):
            coded = "".join(" " if c == " " else chr(codes[c]) for c in line)
            commands.append(f"BT /F2 10 Tf {MARGIN} {y} Td ({_escape(coded)}) Tj ET")
            y -= 14
        y -= 8
    return _one_page(pdf, fonts, commands)


def write_raw_page_pdf(commands: Sequence[str]) -> bytes:
    """One page of raw content-stream commands, with /F1 Helvetica, /F2 Helvetica-Bold and
    /F3 Symbol (Greek letters and mathematical symbols by their Symbol codes: `a` is
    alpha, `\\316` is the element sign)."""
    pdf = pikepdf.Pdf.new()
    fonts = _font_resources(pdf).Font
    fonts.F2 = pdf.make_indirect(pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
        BaseFont=pikepdf.Name("/Helvetica-Bold")))
    fonts.F3 = pdf.make_indirect(pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Symbol))
    return _one_page(pdf, fonts, commands)


def write_raw_pages_pdf(pages: Sequence[Sequence[str]]) -> bytes:
    """Pages of raw content-stream commands, with /F1 Helvetica."""
    pdf = pikepdf.Pdf.new()
    fonts = _font_resources(pdf).Font
    for commands in pages:
        _add_page(pdf, fonts, commands)
    return _saved(pdf)


def write_encoded_font_pdf(codes: Sequence[bytes], *, base_font: str = "Helvetica",
                           differences: Sequence[int | str] | None = None,
                           to_unicode: dict[int, str] | None = None,
                           base_encoding: str | None = None, leading: int = 20) -> bytes:
    """One page drawing each of `codes` as a line in a simple Type1 font `base_font`, with
    an /Encoding of `differences` (codes and glyph names, over `base_encoding` when given)
    or of `base_encoding` alone, a ToUnicode map of `to_unicode` when given, and lines
    `leading` points apart."""
    pdf = pikepdf.Pdf.new()
    font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
                              BaseFont=pikepdf.Name("/" + base_font))
    if differences is not None:
        font.Encoding = pikepdf.Dictionary(Type=pikepdf.Name.Encoding, Differences=[
            item if isinstance(item, int) else pikepdf.Name("/" + item)
            for item in differences])
        if base_encoding is not None:
            font.Encoding.BaseEncoding = pikepdf.Name("/" + base_encoding)
    elif base_encoding is not None:
        font.Encoding = pikepdf.Name("/" + base_encoding)
    if to_unicode is not None:
        font.ToUnicode = _to_unicode_map(pdf, to_unicode)
    fonts = _font_resources(pdf).Font
    fonts.F9 = pdf.make_indirect(font)
    commands = [b"BT /F9 12 Tf 72 %d Td <%s> Tj ET" % (720 - leading * i, code.hex().encode())
                for i, code in enumerate(codes)]
    pdf.pages.append(pikepdf.Page(pikepdf.Dictionary(
        Type=pikepdf.Name.Page, MediaBox=[0, 0, PAGE_WIDTH, PAGE_HEIGHT],
        Resources=pikepdf.Dictionary(Font=fonts), Contents=pdf.make_stream(b"\n".join(commands)))))
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    return out.getvalue()


def _to_unicode_map(pdf: pikepdf.Pdf, to_unicode: dict[int, str]) -> pikepdf.Stream:
    """A ToUnicode CMap stream giving each one-byte code its character."""
    entries = "\n".join(f"<{code:02x}> <{ord(char):04x}>" for code, char in
                         sorted(to_unicode.items()))
    return pdf.make_stream((
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        "/CMapName /Test def 1 begincodespacerange <00> <ff> endcodespacerange\n"
        f"{len(to_unicode)} beginbfchar\n{entries}\nendbfchar\n"
        "endcmap CMapName currentdict /CMap defineresource pop end end").encode())


_LEFT_TO_RIGHT_RUN = re.compile(r"[0-9\u0660-\u0669\u06f0-\u06f9]+")


def write_right_to_left_pdf(lines: Sequence[tuple[int, bool, str]], *,
                            columns: int = 1) -> bytes:
    """One page of right-to-left lines, each (size, bold, text in reading order), drawn as
    word processors draw them: in visual order from the left (the text reversed, its runs
    of digits left to right), in a regular or a bold font with a ToUnicode map giving
    each code its letter and every glyph half an em wide. Each line is set 1.3 of its
    size below the one before (2.1 for a heading: bold, or larger than the line before),
    flush right; with two columns the first half of the lines
    fill the right-hand column (read first) and the rest the left-hand one."""
    letters = sorted({c for _, _, text in lines for c in text if c != " "})
    codes = [*range(65, 91), *range(97, 123), *range(48, 58)]
    if len(letters) > len(codes):
        raise ValueError(f"{len(letters)} distinct characters, at most {len(codes)}")
    code_of = {" ": 32, **{char: codes[i] for i, char in enumerate(letters)}}
    pdf = pikepdf.Pdf.new()
    to_unicode = _to_unicode_map(pdf, {code: char for char, code in code_of.items()})
    fonts = pikepdf.Dictionary()
    # Not a standard font name, so readers take the /Widths rather than Helvetica's metrics.
    for name, base in (("R1", "/TestNaskh"), ("R2", "/TestNaskh-Bold")):
        fonts["/" + name] = pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name(base),
            ToUnicode=to_unicode, FirstChar=32, LastChar=122, Widths=[500] * 91,
            FontDescriptor=pdf.make_indirect(pikepdf.Dictionary(
                Type=pikepdf.Name.FontDescriptor, FontName=pikepdf.Name(base), Flags=32,
                FontBBox=[0, -250, 500, 750], ItalicAngle=0, Ascent=750, Descent=-250,
                CapHeight=700, StemV=80))))
    commands: list[str] = []
    gutter = 24
    width = (PAGE_WIDTH - 2 * MARGIN - gutter * (columns - 1)) / columns
    per_column = -(-len(lines) // columns)
    y = PAGE_HEIGHT - MARGIN
    for index, (size, bold, text) in enumerate(lines):
        if index % per_column == 0:
            y = PAGE_HEIGHT - MARGIN
        right = PAGE_WIDTH - MARGIN - (index // per_column) * (width + gutter)
        # A heading (bold, or larger than the text before it) has space before it, as a
        # word processor's heading style sets.
        heading = bold or (index > 0 and size > lines[index - 1][0])
        y -= int(size * (2.1 if heading else 1.3))
        visual = _LEFT_TO_RIGHT_RUN.sub(lambda m: m.group(0)[::-1], text[::-1])
        drawn = bytes(code_of[c] for c in visual).decode("latin-1")
        x = right - size * len(visual) / 2  # flush right; every glyph half an em
        commands.append(f"BT /{'R2' if bold else 'R1'} {size} Tf {x} {y} Td "
                        f"({_escape(drawn)}) Tj ET")
    return _one_page(pdf, fonts, commands)


def _one_page(pdf: pikepdf.Pdf, fonts: pikepdf.Dictionary, commands: Sequence[str]) -> bytes:
    """`pdf` with one page of `commands` drawn with `fonts`, saved deterministically."""
    _add_page(pdf, fonts, commands)
    return _saved(pdf)


def _add_page(pdf: pikepdf.Pdf, fonts: pikepdf.Dictionary, commands: Sequence[str]) -> None:
    pdf.pages.append(pikepdf.Page(pikepdf.Dictionary(
        Type=pikepdf.Name.Page, MediaBox=[0, 0, PAGE_WIDTH, PAGE_HEIGHT],
        Resources=pikepdf.Dictionary(Font=fonts),
        Contents=pdf.make_stream("\n".join(commands).encode("latin-1")))))


def _saved(pdf: pikepdf.Pdf) -> bytes:
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    return out.getvalue()


def with_pdf_extras(body: bytes, *, pictures: int = 0, tiny_pictures: int = 0,
                    shared_picture: bool = False, form_picture: bool = False,
                    annotations: Sequence[str] = (), fields: int = 0,
                    field_kids: int = 0, files: int = 0,
                    picture_on_blank_page: bool = False) -> bytes:
    """`body` (a PDF with a text layer) with what a text layer does not hold added:
    `pictures` image XObjects on page 1 (and `tiny_pictures` of 4 x 4 pixels), one
    picture shared by every page, a form XObject drawing a picture on the last page,
    page 1 annotations of the given subtypes ("/Text", "/Link", ...), `fields` form
    fields and one parent field with `field_kids` named kids, `files` embedded files,
    and a last page with no text showing a picture."""
    pdf = pikepdf.open(io.BytesIO(body))

    def image(side: int) -> pikepdf.Stream:
        stream = pdf.make_stream(bytes(side * side))
        stream.Type, stream.Subtype = pikepdf.Name.XObject, pikepdf.Name.Image
        stream.Width = stream.Height = side
        stream.ColorSpace, stream.BitsPerComponent = pikepdf.Name.DeviceGray, 8
        return stream

    def xobjects(page: pikepdf.Page) -> pikepdf.Dictionary:
        resources = page.obj.get("/Resources")
        if resources is None:
            page.obj.Resources = resources = pikepdf.Dictionary()
        if "/XObject" not in resources:
            resources.XObject = pikepdf.Dictionary()
        return resources.XObject

    first = pdf.pages[0]
    for n in range(pictures):
        xobjects(first)[f"/Im{n}"] = image(32)
    for n in range(tiny_pictures):
        xobjects(first)[f"/Tiny{n}"] = image(4)
    if shared_picture:
        shared = image(48)
        for page in pdf.pages:
            xobjects(page).Shared = shared
    if form_picture:
        form = pdf.make_stream(b"/Inner Do")
        form.Type, form.Subtype = pikepdf.Name.XObject, pikepdf.Name.Form
        form.BBox = [0, 0, 100, 100]
        form.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Inner=image(40)))
        xobjects(pdf.pages[-1]).Form = form
    first.obj.Annots = pdf.make_indirect(pikepdf.Array([
        pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Annot,
                                             Subtype=pikepdf.Name(subtype),
                                             Rect=[10, 10, 50, 50]))
        for subtype in annotations]))
    if fields or field_kids:
        leaves = [pdf.make_indirect(pikepdf.Dictionary(FT=pikepdf.Name.Tx, T=f"field {n}"))
                  for n in range(fields)]
        if field_kids:
            kids = [pdf.make_indirect(pikepdf.Dictionary(T=f"kid {n}"))
                    for n in range(field_kids)]
            leaves.append(pdf.make_indirect(pikepdf.Dictionary(T="parent",
                                                               Kids=pikepdf.Array(kids))))
        pdf.Root.AcroForm = pdf.make_indirect(pikepdf.Dictionary(Fields=pikepdf.Array(leaves)))
    if files:
        names = pikepdf.Array()
        for n in range(files):
            names.append(pikepdf.String(f"file{n}.bin"))
            names.append(pdf.make_indirect(pikepdf.Dictionary(
                Type=pikepdf.Name.Filespec, F=f"file{n}.bin")))
        pdf.Root.Names = pikepdf.Dictionary(EmbeddedFiles=pikepdf.Dictionary(Names=names))
    if picture_on_blank_page:
        page = pdf.add_blank_page(page_size=(PAGE_WIDTH, PAGE_HEIGHT))
        xobjects(page).Scan = image(64)
        page.obj.Contents = pdf.make_stream(b"q 500 0 0 700 50 50 cm /Scan Do Q")
    out = io.BytesIO()
    with warnings.catch_warnings():
        # pikepdf warns of widgets no form lists: the test's widgets stand alone.
        warnings.simplefilter("ignore")
        pdf.save(out, deterministic_id=True)
    return out.getvalue()
