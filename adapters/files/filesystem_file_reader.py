"""Reading local files for extraction and ingestion."""

from __future__ import annotations

import os
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import anyio

from ...application.ports.file_reader import LocalFile
from ...domain.errors import ErrorKind, SheafError
from ...domain.routing.directory_listing import (
    SNIFF_BYTES,
    DirectoryListing,
    SkippedFile,
    skip_reason,
)
from ...domain.routing.media_type import (
    CSV_TYPE,
    DOCX_TYPE,
    EMAIL_TYPE,
    EPUB_TYPE,
    MSG_TYPE,
    ODP_TYPE,
    ODS_TYPE,
    ODT_TYPE,
    PPTX_TYPE,
    RTF_TYPE,
    TSV_TYPE,
    XLSX_TYPE,
)
from ...domain.routing.routing import ZIP_MAGICS
from .confined_opening import open_confined, read_descriptor

TYPE_HINTS = {".html": "text/html", ".htm": "text/html", ".xhtml": "application/xhtml+xml",
              ".pdf": "application/pdf", ".txt": "text/plain", ".md": "text/markdown",
              ".markdown": "text/markdown", ".json": "application/json",
              ".csv": CSV_TYPE, ".tsv": TSV_TYPE, ".docx": DOCX_TYPE, ".pptx": PPTX_TYPE,
              ".xlsx": XLSX_TYPE, ".xlsm": XLSX_TYPE, ".epub": EPUB_TYPE,
              ".odt": ODT_TYPE, ".ods": ODS_TYPE, ".odp": ODP_TYPE, ".rtf": RTF_TYPE,
              ".eml": EMAIL_TYPE, ".msg": MSG_TYPE, ".xml": "application/xml",
              ".png": "image/png",
              ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".tif": "image/tiff",
              ".tiff": "image/tiff"}
"""The type a file's name suggests: a hint its bytes must confirm."""


class FilesystemFileReader:
    """Files by path; `.gz` files are inflated under the same size cap."""

    async def read(self, path: str, max_bytes: int, *,
                   confined_to: Sequence[str] = ()) -> LocalFile:
        return await anyio.to_thread.run_sync(self.read_sync, path, max_bytes, confined_to)

    def read_sync(self, path: str, max_bytes: int,
                  confined_to: Sequence[str] = ()) -> LocalFile:
        """`read`, for a caller already off the event loop (one worker-thread call that
        reads a file and goes on to extract it)."""
        file = Path(path).expanduser()
        if confined_to:
            # The file read is the file checked: opened without following links from a
            # descriptor on the allowed folder, then verified (ADR-0029).
            file = Path(os.path.abspath(file))
            data = read_descriptor(open_confined(str(file), confined_to), max_bytes, path)
        else:
            if not file.is_file():
                raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"no such file: {path}")
            if file.stat().st_size > max_bytes:
                raise SheafError(ErrorKind.TOO_LARGE,
                                 f"{path} is over the {max_bytes} byte limit")
            data = file.read_bytes()
        name = file.name.lower()
        if name.endswith(".gz"):
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                data = inflater.decompress(data, max_bytes + 1)
            except zlib.error as exc:
                raise SheafError(ErrorKind.CORRUPT, f"{path}: not valid gzip: {exc}") from None
            if len(data) > max_bytes:
                raise SheafError(ErrorKind.TOO_LARGE, f"{path} inflates past {max_bytes} bytes")
            name = name[:-3]
        where = str(file) if confined_to else str(file.resolve())
        return LocalFile(where, data, TYPE_HINTS.get(Path(name).suffix))

    async def is_directory(self, path: str) -> bool:
        return Path(path).expanduser().is_dir()

    async def list_directory(self, path: str, recursive: bool) -> DirectoryListing:
        return await anyio.to_thread.run_sync(self._list, path, recursive)

    def _list(self, path: str, recursive: bool) -> DirectoryListing:
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"no such directory: {path}")
        entries = folder.rglob("*") if recursive else folder.iterdir()
        files: list[str] = []
        skipped: list[SkippedFile] = []
        for entry in sorted(entries):
            if any(part.startswith(".") for part in entry.relative_to(folder).parts[:-1]):
                continue  # hidden folders are not walked
            where = str(entry.absolute())
            if entry.is_dir():
                # A folder not walked is said, never silently dropped: a tree of folders
                # given without --recursive would otherwise come to "0 files".
                if not recursive and not entry.name.startswith("."):
                    skipped.append(SkippedFile(where, "a folder: walked only with "
                                                      "--recursive"))
                continue
            if not entry.is_file():
                skipped.append(SkippedFile(where, "not a regular file"))
                continue
            try:
                with entry.open("rb") as handle:
                    head = handle.read(SNIFF_BYTES)
            except OSError as exc:
                skipped.append(SkippedFile(where, f"unreadable ({exc.strerror or exc})"))
                continue
            reason = skip_reason(entry.name, type_hint_for(entry.name), head,
                                 _zip_members(entry, head))
            if reason is None:
                files.append(str(entry.resolve()))
            else:
                skipped.append(SkippedFile(where, reason))
        return DirectoryListing(tuple(files), tuple(skipped))


def _zip_members(entry: Path, head: bytes) -> list[str] | None:
    """The member names of a ZIP archive, from its central directory alone (nothing is
    inflated); None when it is not one or the directory cannot be read (the ingest then
    reports why)."""
    if not head.startswith(ZIP_MAGICS):
        return None
    try:
        with zipfile.ZipFile(entry) as archive:
            return archive.namelist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError,
            NotImplementedError):
        return None


def type_hint_for(name: str) -> str | None:
    """The type a file name suggests (`.gz` looked through)."""
    lowered = name.lower()
    lowered = lowered[:-3] if lowered.endswith(".gz") else lowered
    return TYPE_HINTS.get(Path(lowered).suffix)
