"""Reading local files for extraction: size-capped, gzip-aware, typed by extension as a hint."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from sheaf.domain.errors import ErrorKind, SheafError

TYPE_HINTS = {".html": "text/html", ".htm": "text/html", ".xhtml": "application/xhtml+xml",
              ".pdf": "application/pdf", ".txt": "text/plain", ".md": "text/markdown",
              ".markdown": "text/markdown", ".json": "application/json"}


def read_local(path: Path, max_bytes: int) -> tuple[bytes, str | None]:
    """The file's bytes (gunzipped for `.gz`) and the type its name suggests; the bytes
    must still confirm that type when routed."""
    if not path.is_file():
        raise SheafError(ErrorKind.INPUT_NOT_FOUND, f"no such file: {path}")
    if path.stat().st_size > max_bytes:
        raise SheafError(ErrorKind.TOO_LARGE, f"{path} is over the {max_bytes} byte limit")
    data = path.read_bytes()
    name = path.name.lower()
    if name.endswith(".gz"):
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            data = inflater.decompress(data, max_bytes + 1)
        except (zlib.error, gzip.BadGzipFile) as exc:
            raise SheafError(ErrorKind.CORRUPT, f"{path}: not valid gzip: {exc}") from None
        if len(data) > max_bytes:
            raise SheafError(ErrorKind.TOO_LARGE, f"{path} inflates past {max_bytes} bytes")
        name = name[:-3]
    return data, TYPE_HINTS.get(Path(name).suffix)


def output_name(source: str) -> str:
    """A file stem for an input: its name without .gz and extension, or the URL's tail."""
    stem = source.rstrip("/").rsplit("/", 1)[-1] or "index"
    for suffix in (".gz", *TYPE_HINTS):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in stem) or "document"
