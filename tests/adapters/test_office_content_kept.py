"""Charts, equations and pictures are kept as text, and what is not kept is named with
its count in the document's notes."""

from __future__ import annotations

import io
import zipfile

import pytest

from sheaf.adapters.office.docx_extractor import DocxExtractor
from sheaf.adapters.office.omml_latex import M, omml_latex
from sheaf.adapters.office.pptx_extractor import PptxExtractor
from sheaf.adapters.office.safe_xml import parse_xml
from sheaf.domain.document.document import BlockKind
from sheaf.domain.document.omissions import Omission, OmissionTally
from tests.office_fixtures import chart_pptx_bytes, equation_docx_bytes, rewrite_zip


def test_a_chart_slide_keeps_the_chart_title_axes_and_series_as_a_table() -> None:
    document = PptxExtractor().extract_sync(chart_pptx_bytes(), "ducks.pptx")
    caption = next(b for b in document.blocks if b.kind is BlockKind.CAPTION
                   and "chart" in b.draft.text)
    assert caption.draft.text == "Bar chart: Ducks counted per year (axes: Year; Ducks)"
    table = next(b for b in document.blocks if b.kind is BlockKind.TABLE)
    assert table.draft.rows == (("Year", "Freshwater", "Saltwater"), ("2019", "120", "80"),
                                ("2020", "130", "95"), ("2021", "150", "110.5"))
    assert all(b.draft.pages == (1,) for b in (caption, table))
    assert "Figure: A mallard on the pond" in document.text
    # The picture named "Picture 7" by PowerPoint has no description: counted.
    assert document.notes == ("left out: 1 image without alt text or caption",)


def test_a_chart_whose_part_is_missing_is_counted_as_left_out() -> None:
    body = chart_pptx_bytes()
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        chart = next(n for n in archive.namelist() if n.startswith("ppt/charts/chart"))
        names = [n for n in archive.namelist() if n != chart]
        kept = {n: archive.read(n) for n in names}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name, data in kept.items():
            target.writestr(name, data)
    document = PptxExtractor().extract_sync(out.getvalue(), "ducks.pptx")
    assert "Freshwater" not in document.text
    assert "1 chart without readable data" in document.notes[-1]


def test_inline_and_display_equations_become_latex_and_nothing_is_silent() -> None:
    document = DocxExtractor().extract_sync(equation_docx_bytes(), "circles.docx")
    assert "The area is $A=\\pi {r}^{2}$ ." in document.text
    formula = next(b for b in document.blocks if b.kind is BlockKind.FORMULA)
    assert formula.markdown == "$$x=\\frac{-b\\pm \\sqrt{{b}^{2}-4ac}}{2a}$$"
    assert "Figure: A unit circle" in document.text
    assert document.notes == ("left out: 1 image without alt text or caption, "
                              "1 embedded object (OLE)",)


def _math(inner: str) -> str:
    xml = f'<m:oMath xmlns:m="{M[1:-1]}">{inner}</m:oMath>'
    return omml_latex(parse_xml(xml.encode(), "math.xml"))


def _r(text: str, plain: bool = False) -> str:
    style = '<m:rPr><m:sty m:val="p"/></m:rPr>' if plain else ""
    return f"<m:r>{style}<m:t>{text}</m:t></m:r>"


@pytest.mark.parametrize(("inner", "latex"), [
    (f"<m:f><m:num>{_r('a')}</m:num><m:den>{_r('b')}</m:den></m:f>", r"\frac{a}{b}"),
    (f"<m:sSub><m:e>{_r('x')}</m:e><m:sub>{_r('i')}</m:sub></m:sSub>", "{x}_{i}"),
    (f"<m:sSubSup><m:e>{_r('x')}</m:e><m:sub>{_r('0')}</m:sub><m:sup>{_r('2')}</m:sup>"
     "</m:sSubSup>", "{x}_{0}^{2}"),
    (f"<m:rad><m:deg>{_r('3')}</m:deg><m:e>{_r('y')}</m:e></m:rad>", r"\sqrt[3]{y}"),
    ('<m:nary><m:naryPr><m:chr m:val="∑"/></m:naryPr>'
     f"<m:sub>{_r('k=0')}</m:sub><m:sup>{_r('n')}</m:sup><m:e>{_r('k')}</m:e></m:nary>",
     r"\sum_{k=0}^{n}{k}"),
    (f"<m:nary><m:sub>{_r('0')}</m:sub><m:sup>{_r('1')}</m:sup><m:e>{_r('f')}</m:e>"
     "</m:nary>", r"\int_{0}^{1}{f}"),
    (f"<m:d><m:e>{_r('x')}</m:e></m:d>", r"\left(x\right)"),
    ('<m:d><m:dPr><m:begChr m:val="["/><m:endChr m:val="]"/></m:dPr>'
     f"<m:e>{_r('a')}</m:e><m:e>{_r('b')}</m:e></m:d>", r"\left[a|b\right]"),
    (f"<m:func><m:fName>{_r('log', plain=True)}</m:fName><m:e>{_r('x')}</m:e></m:func>",
     r"\log{x}"),
    (f"<m:acc><m:e>{_r('v')}</m:e></m:acc>", r"\hat{v}"),
    (f'<m:bar><m:barPr><m:pos m:val="top"/></m:barPr><m:e>{_r("z")}</m:e></m:bar>',
     r"\overline{z}"),
    (f"<m:m><m:mr><m:e>{_r('1')}</m:e><m:e>{_r('0')}</m:e></m:mr><m:mr><m:e>{_r('0')}"
     f"</m:e><m:e>{_r('1')}</m:e></m:mr></m:m>", r"\begin{matrix}1 & 0 \\ 0 & 1\end{matrix}"),
    (_r("50% of {a} &amp; b_c"), r"50\% of \{a\} \& b\_c"),
    (_r("α≤β"), r"\alpha \leq \beta"),
    (f"<m:limLow><m:e>{_r('lim', plain=True)}</m:e><m:lim>{_r('n→∞')}</m:lim></m:limLow>",
     r"\lim_{n\rightarrow \infty }"),
    ("<m:unknownThing>" + _r("q") + "</m:unknownThing>", "q"),
], ids=["fraction", "subscript", "sub-superscript", "root", "sum", "integral",
        "parentheses", "brackets", "function", "accent", "bar", "matrix", "escapes",
        "symbols", "limit", "unknown-element-keeps-its-text"])
def test_omml_structures_as_latex(inner: str, latex: str) -> None:
    assert _math(inner) == latex


def test_an_equation_never_renders_as_an_empty_span() -> None:
    document = DocxExtractor().extract_sync(equation_docx_bytes(), "circles.docx")
    assert "$$$$" not in document.text and "$ $" not in document.text
    assert all(b.draft.text.strip() for b in document.blocks if b.kind is BlockKind.FORMULA)


def test_the_tally_words_counts_in_declared_order() -> None:
    tally = OmissionTally()
    assert tally.note() == "left out: nothing"
    tally.add(Omission.EMBEDDED_OBJECT)
    tally.add(Omission.IMAGE_WITHOUT_TEXT, 2)
    tally.add(Omission.EMBEDDED_OBJECT)
    assert tally.note() == ("left out: 2 images without alt text or caption, "
                            "2 embedded objects (OLE)")


def test_nested_tables_are_tables_of_their_own() -> None:
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

    def p(text: str) -> str:
        return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"

    inner = f"<w:tbl><w:tr><w:tc>{p('x1')}</w:tc><w:tc>{p('x2')}</w:tc></w:tr></w:tbl>"
    outer = (f"<w:tbl><w:tr><w:tc>{p('Outer A')}</w:tc><w:tc>{p('Outer B')}{inner}</w:tc>"
             f"</w:tr><w:tr><w:tc><w:tcPr><w:vMerge w:val=\"restart\"/></w:tcPr>{p('Tall')}"
             f"</w:tc><w:tc>{p('c')}</w:tc></w:tr><w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr>"
             f"{p('')}</w:tc><w:tc>{p('d')}</w:tc></w:tr></w:tbl>")
    xml = (f'<w:document xmlns:w="{w}"><w:body>{outer}</w:body></w:document>')
    body = rewrite_zip(equation_docx_bytes(), {"word/document.xml": xml.encode()})
    document = DocxExtractor().extract_sync(body, "nested.docx")
    tables = [b.draft.rows for b in document.blocks if b.kind is BlockKind.TABLE]
    assert tables == [(("Outer A", "Outer B"), ("Tall", "c"), ("Tall", "d")),
                      (("x1", "x2"),)]


def test_check_box_controls_read_as_their_state() -> None:
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    w14 = "http://schemas.microsoft.com/office/word/2010/wordml"

    def box(checked: str, label: str) -> str:
        return (f'<w:sdt><w:sdtPr><w14:checkbox><w14:checked w14:val="{checked}"/>'
                "</w14:checkbox></w:sdtPr><w:sdtContent><w:r><w:t>\u2612</w:t></w:r>"
                f'</w:sdtContent></w:sdt><w:r><w:t xml:space="preserve"> {label}</w:t></w:r>')

    xml = (f'<w:document xmlns:w="{w}" xmlns:w14="{w14}"><w:body><w:p>{box("1", "Tea")}'
           f'</w:p><w:p>{box("0", "Milk")}</w:p></w:body></w:document>')
    body = rewrite_zip(equation_docx_bytes(), {"word/document.xml": xml.encode()})
    document = DocxExtractor().extract_sync(body, "boxes.docx")
    assert "[x] Tea" in document.text and "[ ] Milk" in document.text
    assert "\u2612" not in document.text


def test_numbered_headings_carry_the_number_word_prints() -> None:
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

    def heading(level: int, text: str) -> str:
        return (f'<w:p><w:pPr><w:pStyle w:val="Heading{level + 1}"/><w:numPr>'
                f'<w:ilvl w:val="{level}"/><w:numId w:val="7"/></w:numPr></w:pPr>'
                f"<w:r><w:t>{text}</w:t></w:r></w:p>")

    numbering = (f'<w:numbering xmlns:w="{w}"><w:abstractNum w:abstractNumId="3">'
                 '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/>'
                 '<w:lvlText w:val="%1"/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/>'
                 '<w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%1.%2)"/></w:lvl>'
                 '</w:abstractNum><w:num w:numId="7"><w:abstractNumId w:val="3"/></w:num>'
                 "</w:numbering>")
    xml = (f'<w:document xmlns:w="{w}"><w:body>{heading(0, "Scope")}{heading(1, "Sites")}'
           f'{heading(1, "Dates")}{heading(0, "Method")}{heading(1, "Tools")}'
           "</w:body></w:document>")
    body = rewrite_zip(equation_docx_bytes(), {"word/document.xml": xml.encode(),
                                               "word/numbering.xml": numbering.encode()})
    document = DocxExtractor().extract_sync(body, "plan.docx")
    assert [h.draft.text for h in document.headings()] == [
        "1 Scope", "1.a) Sites", "1.b) Dates", "2 Method", "2.a) Tools"]


def test_a_text_box_holds_paragraphs_of_its_own() -> None:
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    box = ("<w:drawing><w:txbxContent><w:p><w:r><w:t>Student falls ill</w:t></w:r></w:p>"
           "<w:p><w:r><w:t>Suggested steps</w:t></w:r></w:p></w:txbxContent></w:drawing>")
    xml = (f'<w:document xmlns:w="{w}"><w:body><w:p><w:r><w:t>Anchor line.</w:t></w:r>'
           f"<w:r>{box}</w:r></w:p></w:body></w:document>")
    body = rewrite_zip(equation_docx_bytes(), {"word/document.xml": xml.encode()})
    document = DocxExtractor().extract_sync(body, "box.docx")
    assert [b.draft.text for b in document.blocks] == ["Anchor line.", "Student falls ill",
                                                       "Suggested steps"]


def _chart_part() -> bytes:
    with zipfile.ZipFile(io.BytesIO(chart_pptx_bytes())) as archive:
        name = next(n for n in archive.namelist()
                    if n.startswith("ppt/charts/chart") and n.endswith(".xml"))
        return archive.read(name)


def test_a_chart_in_a_word_document_is_read_as_its_data() -> None:
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    rels_ns = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    drawing = ('<w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/'
               'drawingml/2006/wordprocessingDrawing"><wp:docPr id="1" name="Chart 1"/>'
               '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
               '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">'
               '<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" '
               f'xmlns:r="{rels_ns}" r:id="rIdChart"/></a:graphicData></a:graphic>'
               "</wp:inline></w:drawing>")
    xml = (f'<w:document xmlns:w="{w}"><w:body><w:p><w:r><w:t>Counts:</w:t></w:r>'
           f"<w:r>{drawing}</w:r></w:p></w:body></w:document>")
    with zipfile.ZipFile(io.BytesIO(equation_docx_bytes())) as archive:
        rels = archive.read("word/_rels/document.xml.rels").decode()
    rels = rels.replace("</Relationships>",
                        f'<Relationship Id="rIdChart" Type="{rels_ns}/chart" '
                        'Target="charts/chart1.xml"/></Relationships>')
    body = rewrite_zip(equation_docx_bytes(), {"word/document.xml": xml.encode(),
                                               "word/_rels/document.xml.rels": rels.encode(),
                                               "word/charts/chart1.xml": _chart_part()})
    document = DocxExtractor().extract_sync(body, "counts.docx")
    assert [b.kind for b in document.blocks] == [BlockKind.PARAGRAPH, BlockKind.CAPTION,
                                                 BlockKind.TABLE]
    assert document.blocks[2].draft.rows[1] == ("2019", "120", "80")


def test_merged_cells_of_a_slide_table_repeat_their_value() -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Rota"
    table = slide.shapes.add_table(3, 3, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, row in enumerate([("Week", "Mon", "Tue"), ("1", "Ann", "Bo"), ("", "Cy", "Di")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    table.cell(1, 0).merge(table.cell(2, 0))  # "1" spans two rows
    table.cell(0, 1).merge(table.cell(0, 2))  # "Mon" spans two columns
    table.cell(0, 1).text = "Mon"  # merging moved "Tue" into the spanning cell
    buffer = io.BytesIO()
    deck.save(buffer)
    document = PptxExtractor().extract_sync(buffer.getvalue(), "rota.pptx")
    rows = next(b for b in document.blocks if b.kind is BlockKind.TABLE).draft.rows
    assert rows == (("Week", "Mon", "Mon"), ("1", "Ann", "Bo"), ("1", "Cy", "Di"))


def test_a_list_that_resumes_its_numbering_keeps_its_printed_numbers() -> None:
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

    def item(text: str) -> str:
        return (f'<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="4"/></w:numPr>'
                f"</w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>")

    numbering = (f'<w:numbering xmlns:w="{w}"><w:abstractNum w:abstractNumId="1">'
                 '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/>'
                 '<w:lvlText w:val="%1."/></w:lvl></w:abstractNum><w:num w:numId="4">'
                 '<w:abstractNumId w:val="1"/></w:num></w:numbering>')
    xml = (f'<w:document xmlns:w="{w}"><w:body>{item("Mix")}{item("Knead")}'
           "<w:p><w:r><w:t>Leave it to rise overnight.</w:t></w:r></w:p>"
           f"{item('Bake')}</w:body></w:document>")
    body = rewrite_zip(equation_docx_bytes(), {"word/document.xml": xml.encode(),
                                               "word/numbering.xml": numbering.encode()})
    document = DocxExtractor().extract_sync(body, "bread.docx")
    assert document.text == ("1. Mix\n2. Knead\n\nLeave it to rise overnight.\n\n3. Bake")


def test_smartart_nodes_are_read_as_a_list_and_an_unreadable_one_is_counted() -> None:
    from pptx import Presentation

    dgm = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
    a = "http://schemas.openxmlformats.org/drawingml/2006/main"
    rels_ns = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Process"
    buffer = io.BytesIO()
    deck.save(buffer)

    def frame(rel_id: str) -> str:
        return ('<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="9" name="Diagram"/>'
                "<p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm>"
                '<a:off x="0" y="2000000"/><a:ext cx="10" cy="10"/></p:xfrm><a:graphic>'
                f'<a:graphicData uri="{dgm}"><dgm:relIds xmlns:dgm="{dgm}" '
                f'xmlns:r="{rels_ns}" r:dm="{rel_id}" r:lo="x" r:qs="x" r:cs="x"/>'
                "</a:graphicData></a:graphic></p:graphicFrame>")

    data = (f'<dgm:dataModel xmlns:dgm="{dgm}" xmlns:a="{a}"><dgm:ptLst>'
            '<dgm:pt modelId="0" type="doc"><dgm:t><a:p><a:r><a:t>ignored</a:t></a:r>'
            "</a:p></dgm:t></dgm:pt>"
            + "".join(f'<dgm:pt modelId="{i}"><dgm:t><a:p><a:r><a:t>{step}</a:t></a:r>'
                      "</a:p></dgm:t></dgm:pt>"
                      for i, step in enumerate(["Plan", "Build", "Ship"], 1))
            + '<dgm:pt modelId="9" type="parTrans"/></dgm:ptLst></dgm:dataModel>')
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        xml = archive.read("ppt/slides/slide1.xml").decode()
        rels = archive.read("ppt/slides/_rels/slide1.xml.rels").decode()
    xml = xml.replace("</p:spTree>", frame("rIdDm") + frame("rIdMissing") + "</p:spTree>")
    rels = rels.replace("</Relationships>",
                        f'<Relationship Id="rIdDm" Type="{rels_ns}/diagramData" '
                        'Target="../diagrams/data1.xml"/></Relationships>')
    body = rewrite_zip(buffer.getvalue(), {"ppt/slides/slide1.xml": xml.encode(),
                                           "ppt/slides/_rels/slide1.xml.rels": rels.encode(),
                                           "ppt/diagrams/data1.xml": data.encode()})
    document = PptxExtractor().extract_sync(body, "process.pptx")
    listed = next(b for b in document.blocks if b.kind is BlockKind.LIST)
    assert [i.text for i in listed.draft.items] == ["Plan", "Build", "Ship"]
    assert "ignored" not in document.text
    assert document.notes == ("left out: 1 SmartArt diagram without readable text",)


def _embedding_deck() -> bytes:
    from pptx import Presentation
    from pptx.enum.shapes import PROG_ID
    from pptx.util import Inches

    from tests.office_fixtures import xlsx_bytes

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Sales"
    slide.shapes.add_ole_object(io.BytesIO(xlsx_bytes()), PROG_ID.XLSX, Inches(1),
                                Inches(2), Inches(4), Inches(2))
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def test_a_workbook_embedded_in_a_slide_is_read_as_a_child_document() -> None:
    from sheaf.adapters.office.xlsx_extractor import XlsxExtractor

    deck = _embedding_deck()
    embedded = {"xlsx": XlsxExtractor().read}
    document = PptxExtractor(embedded=embedded).extract_sync(deck, "sales.pptx")
    headings = [(h.level, h.draft.text) for h in document.headings()]
    assert headings[0] == (1, "Sales")
    assert headings[1][0] == 2 and headings[1][1].startswith("Embedded workbook: ")
    assert (3, "Sales") in headings and (3, "Staff") in headings  # its sheets, below
    assert "| Grace | Engineer |" in document.text
    assert all(b.draft.pages == (1,) for b in document.blocks)
    # Without a reader for it, the same object is counted, not silently dropped.
    bare = PptxExtractor().extract_sync(deck, "sales.pptx")
    assert "Grace" not in bare.text
    assert bare.notes[-1].startswith("left out: ") and "1 embedded object (OLE)" in \
        bare.notes[-1]


def test_an_embedded_package_is_held_to_the_outer_archives_budget() -> None:
    from sheaf.adapters.office.container_reading import Container
    from sheaf.adapters.office.embedded_packages import embedded_drafts
    from sheaf.adapters.office.xlsx_extractor import XlsxExtractor
    from sheaf.domain.office.zip_container import ContainerLimits

    deck = _embedding_deck()
    with zipfile.ZipFile(io.BytesIO(deck)) as archive:
        part = next(n for n in archive.namelist() if n.endswith(".xlsx"))
        others = [i.filename for i in archive.infolist() if i.filename != part]
        total = sum(i.file_size for i in archive.infolist())
    # An archive allowed exactly its own declared size: once its other members are read,
    # the embedded package's bytes are all that is left, so the package's own members
    # have no budget to inflate into, and it is counted instead of read.
    container = Container(deck, ContainerLimits(max_total_bytes=total))
    for name in others:
        container.read(name)
    tally = OmissionTally()
    notes: list[str] = []
    drafts = embedded_drafts(container, part, {"xlsx": XlsxExtractor().read}, tally, notes,
                             level=1)
    assert drafts == [] and tally.count(Omission.EMBEDDED_OBJECT) == 1
    # With the budget to spare, the same package is read.
    roomy = Container(deck)
    assert embedded_drafts(roomy, part, {"xlsx": XlsxExtractor().read}, OmissionTally(),
                           notes, level=1)


def test_a_workbook_embedded_in_a_word_document_is_read_after_its_paragraph() -> None:
    from sheaf.adapters.office.xlsx_extractor import XlsxExtractor
    from tests.office_fixtures import xlsx_bytes

    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    rels_ns = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    ole = ('<w:object><o:OLEObject xmlns:o="urn:schemas-microsoft-com:office:office" '
           f'xmlns:r="{rels_ns}" Type="Embed" ProgID="Excel.Sheet.12" r:id="rIdOle"/>'
           "</w:object>")
    xml = (f'<w:document xmlns:w="{w}"><w:body><w:p><w:r><w:t>The figures:</w:t></w:r>'
           f"<w:r>{ole}</w:r></w:p><w:p><w:r><w:t>Signed.</w:t></w:r></w:p></w:body>"
           "</w:document>")
    with zipfile.ZipFile(io.BytesIO(equation_docx_bytes())) as archive:
        rels = archive.read("word/_rels/document.xml.rels").decode()
    rels = rels.replace("</Relationships>",
                        f'<Relationship Id="rIdOle" Type="{rels_ns}/package" '
                        'Target="embeddings/Book1.xlsx"/></Relationships>')
    body = rewrite_zip(equation_docx_bytes(), {"word/document.xml": xml.encode(),
                                               "word/_rels/document.xml.rels": rels.encode(),
                                               "word/embeddings/Book1.xlsx": xlsx_bytes()})
    document = DocxExtractor(embedded={"xlsx": XlsxExtractor().read}).extract_sync(
        body, "report.docx")
    texts = [b.draft.text for b in document.blocks if b.kind is not BlockKind.TABLE]
    assert texts[:3] == ["The figures:", "Embedded workbook: Book1.xlsx", "Sales"]
    assert texts[-1] == "Signed."
    assert document.notes == ("left out: nothing",)


def test_automatically_numbered_slide_paragraphs_are_an_ordered_list() -> None:
    from pptx import Presentation
    from pptx.oxml.ns import qn
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Steps"
    frame = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(5), Inches(2)).text_frame
    frame.text = "Unpack"
    frame.add_paragraph().text = "Assemble"
    for paragraph in frame.paragraphs:
        properties = paragraph._p.get_or_add_pPr()
        numbered = properties.makeelement(qn("a:buAutoNum"), {"type": "arabicPeriod"})
        properties.append(numbered)
    buffer = io.BytesIO()
    deck.save(buffer)
    document = PptxExtractor().extract_sync(buffer.getvalue(), "steps.pptx")
    assert "1. Unpack\n2. Assemble" in document.text


def test_a_paragraph_holding_only_an_equation_and_pictures_is_read_once() -> None:
    # A picture anchored in a paragraph whose only text is an equation: the equation
    # becomes a display formula, and the pictures are placed and counted once each.
    import docx

    from tests.office_fixtures import MATH, png_bytes

    document = docx.Document()
    document.add_paragraph("Before the figure.")
    document.add_picture(io.BytesIO(png_bytes()))
    document.add_picture(io.BytesIO(png_bytes()))
    buffer = io.BytesIO()
    document.save(buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        xml = archive.read("word/document.xml").decode()
    math = f'<m:oMath xmlns:m="{MATH}"><m:r><m:t>E=m</m:t></m:r></m:oMath>'
    # Both pictures' runs move into the first picture's paragraph, after an equation.
    start = xml.index("<w:p>", xml.index("Before the figure."))
    first_end = xml.index("</w:p>", start)
    second_start = xml.index("<w:p>", first_end)
    second_end = xml.index("</w:p>", second_start)
    second_runs = xml[second_start + len("<w:p>"):second_end]
    paragraph = "<w:p>" + math + xml[start + len("<w:p>"):first_end] + second_runs + "</w:p>"
    xml = xml[:start] + paragraph + xml[second_end + len("</w:p>"):]
    xml = xml.replace('descr=""', 'descr="A falling apple"', 1) if 'descr=""' in xml else \
        xml.replace('<wp:docPr id="1" name="Picture 1"',
                    '<wp:docPr id="1" name="Picture 1" descr="A falling apple"', 1)
    body = rewrite_zip(buffer.getvalue(), {"word/document.xml": xml.encode()})
    read = DocxExtractor().extract_sync(body, "apple.docx")
    assert [b.markdown for b in read.blocks if b.kind is BlockKind.FORMULA] == ["$$E=m$$"]
    assert read.text.count("A falling apple") == 1
    assert read.notes == ("left out: 1 image without alt text or caption",)
