"""Opening PDF bytes with pikepdf: repair, decryption, metadata and typed failures."""

from __future__ import annotations

import io
import re

import attrs
import pikepdf

from sheaf.domain.errors import ErrorKind, SheafError
from sheaf.domain.routing import has_pdf_magic

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


def open_pdf(body: bytes, password: str | None = None) -> OpenedPdf:
    """Open, repair and decrypt; raise not_a_pdf, corrupt, encrypted or wrong_password."""
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
        raise SheafError(ErrorKind.CORRUPT, f"unreadable PDF: {exc}") from None
    with pdf:
        try:
            page_count = len(pdf.pages)
        except pikepdf.PdfError as exc:
            raise SheafError(ErrorKind.CORRUPT, f"unreadable page tree: {exc}") from None
        info = _info(pdf)
        needs_rewrite = pdf.is_encrypted or not body.lstrip().startswith(b"%PDF-")
        data = body
        if needs_rewrite or _has_broken_xref(pdf):
            out = io.BytesIO()
            try:
                pdf.save(out, encryption=False)
            except (pikepdf.PdfError, OSError) as exc:
                raise SheafError(ErrorKind.CORRUPT, f"cannot repair the PDF: {exc}") from None
            data = out.getvalue()
    title = info.get("/Title") or None
    authors = tuple(a.strip() for a in re.split(r";|\band\b|,(?=\s*[A-Z][a-z]+\s)",
                                                info.get("/Author", "")) if a.strip())
    keywords = tuple(k.strip() for k in re.split(r"[;,]", info.get("/Keywords", ""))
                     if k.strip())
    doi_match = _DOI.search(" ".join(info.values()))
    return OpenedPdf(data, page_count, title, authors, info.get("/Subject") or None, keywords,
                     doi_match.group(1) if doi_match else None)


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
