"""Opening PDF bytes with pikepdf: repair, decryption, metadata and typed failures."""

from __future__ import annotations

import io
import logging
import re

import attrs
import pikepdf

from ...domain.document.omissions import OmissionTally
from ...domain.errors import ErrorKind, SheafError
from ...domain.routing.routing import has_pdf_magic
from .pdf_omissions import PdfOmissions, pdf_omissions

# pikepdf reports recoverable problems (unparsable XMP, repaired xref) through logging;
# sheaf surfaces what matters as diagnostics instead.
logging.getLogger("pikepdf").setLevel(logging.ERROR)

_STREAM_NAME = re.compile(r"\bstream <[^<>]* at 0x[0-9a-f]+>: ")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)")


@attrs.frozen
class OpenedPdf:
    """A readable, decrypted copy of the file and what its Info dictionary says."""

    data: bytes
    """Bytes pdfminer can read: the original, or a repaired and decrypted rewrite."""
    page_count: int
    title: str | None
    authors: tuple[str, ...]
    subject: str | None
    keywords: tuple[str, ...]
    doi: str | None
    outline: tuple[tuple[str, int], ...] = ()
    """Bookmark titles with their depth (0 for top level), in document order."""
    omissions: PdfOmissions = attrs.field(factory=lambda: PdfOmissions(OmissionTally(), {}))
    """What the file holds beside its text layer (pictures, annotations, attachments,
    form fields), counted for the "left out:" note."""


def open_pdf(body: bytes, password: str | None = None, *,
             max_pages: int = 2000) -> OpenedPdf:
    """Open, repair and decrypt; raise not_a_pdf, corrupt, encrypted or wrong_password.
    What the first `max_pages` pages hold beside their text is counted."""
    if not body.strip():
        raise SheafError(ErrorKind.NOT_A_PDF, "the file is empty")
    if body.startswith(b"version https://git-lfs.github.com/spec/"):
        raise SheafError(ErrorKind.NOT_A_PDF, "a Git LFS pointer, not the PDF it points to")
    if not has_pdf_magic(body[:2048]):
        raise SheafError(ErrorKind.NOT_A_PDF, "no %PDF- header in the first KiB")
    try:
        pdf = pikepdf.open(io.BytesIO(body), password=password or "")
    except pikepdf.PasswordError:
        if password:
            raise SheafError(ErrorKind.WRONG_PASSWORD,
                             "the supplied password does not open this PDF") from None
        raise SheafError(ErrorKind.ENCRYPTED,
                         "the PDF is encrypted; supply its password") from None
    except (pikepdf.PdfError, ValueError, OSError) as exc:
        # qpdf names the stream it read, by its memory address: left out, so the same
        # file gives the same message on every run.
        message = _STREAM_NAME.sub("", str(exc))
        raise SheafError(ErrorKind.CORRUPT, f"unreadable PDF: {message}") from None
    with pdf:
        try:
            page_count = len(pdf.pages)
        except pikepdf.PdfError as exc:
            raise SheafError(ErrorKind.CORRUPT, f"unreadable page tree: {exc}") from None
        info = _info(pdf)
        xmp = _xmp(pdf)
        outline = _outline(pdf)
        omissions = pdf_omissions(pdf, max_pages)
        needs_rewrite = pdf.is_encrypted or not body.lstrip().startswith(b"%PDF-")
        data = body
        if needs_rewrite or _has_broken_xref(pdf):
            out = io.BytesIO()
            try:
                # Streams are copied as they are: decoding them here would inflate a
                # compression bomb before the content budget can count it.
                pdf.save(out, encryption=False,
                         stream_decode_level=pikepdf.StreamDecodeLevel.none)
            except (pikepdf.PdfError, OSError) as exc:
                raise SheafError(ErrorKind.CORRUPT, f"cannot repair the PDF: {exc}") from None
            data = out.getvalue()
    title = _plausible_title(xmp.get("title")) or _plausible_title(info.get("/Title"))
    author_text = xmp.get("creator") or info.get("/Author", "")
    authors = tuple(a.strip() for a in re.split(r";|\band\b|,(?=\s*[A-Z][a-z]+\s)",
                                                author_text) if a.strip())
    keywords = tuple(k.strip() for k in re.split(r"[;,]", xmp.get("subject") or
                                                  info.get("/Keywords", "")) if k.strip())
    doi_match = _DOI.search(" ".join([*info.values(), *xmp.values()]))
    return OpenedPdf(data, page_count, title, authors, info.get("/Subject") or None, keywords,
                     doi_match.group(1).rstrip(".,;") if doi_match else None, outline,
                     omissions)


_FILE_NAME_TITLE = re.compile(
    r"\.(?:docx?|pdf|tex|dvi|ps|indd|rtf|odt)\b|^untitled|^microsoft word", re.IGNORECASE)


def _plausible_title(title: str | None) -> str | None:
    """Info titles are often the authoring file's name; those are not titles."""
    if not title or _FILE_NAME_TITLE.search(title) or len(title.split()) < 2:
        return None
    return " ".join(title.split())


def _xmp(pdf: pikepdf.Pdf) -> dict[str, str]:
    """Dublin Core and PRISM fields of the XMP packet, as text; empty when unreadable."""
    out: dict[str, str] = {}
    try:
        # Read, not opened for editing: leaving a `with` block serialises the packet
        # back into the file (1% of reading a paper), which nothing here wants.
        meta = pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False)
        for key, name in (("dc:title", "title"), ("dc:creator", "creator"),
                          ("dc:subject", "subject"), ("prism:doi", "doi"),
                          ("dc:identifier", "identifier")):
            value = meta.get(key)
            # pikepdf gives an rdf:Bag (dc:subject's keywords) as a set, which has no
            # order: sorted, the same document gives the same keywords in every process.
            if isinstance(value, set | frozenset):
                value = sorted(str(v) for v in value)
            if isinstance(value, list | tuple):
                value = "; ".join(str(v) for v in value)
            if value and str(value).strip():
                out[name] = str(value).strip()
    except Exception:  # malformed XMP must never stop extraction
        return {}
    return out


def _outline(pdf: pikepdf.Pdf, limit: int = 2000) -> tuple[tuple[str, int], ...]:
    """Bookmark titles and depths, breadth-limited against hostile outlines."""
    found: list[tuple[str, int]] = []
    try:
        with pdf.open_outline() as outline:
            stack = [(item, 0) for item in reversed(outline.root)]
            while stack and len(found) < limit:
                item, depth = stack.pop()
                title = " ".join(str(item.title or "").split())
                if title:
                    found.append((title, depth))
                stack.extend((child, depth + 1) for child in reversed(item.children))
    except Exception:  # a broken outline only loses the bookmarks
        return ()
    return tuple(found)


def _info(pdf: pikepdf.Pdf) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        for key, value in pdf.docinfo.items():
            text = str(value).strip()
            if text:
                out[str(key)] = text
    except (pikepdf.PdfError, ValueError, TypeError):
        pass
    return out


def _has_broken_xref(pdf: pikepdf.Pdf) -> bool:
    # qpdf repairs broken cross-reference tables on open and says so in its warnings.
    try:
        return bool(pdf.get_warnings())
    except AttributeError:
        return False
