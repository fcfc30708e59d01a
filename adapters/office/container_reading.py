"""Reading members of a ZIP-based document with its sizes enforced while inflating."""

from __future__ import annotations

import io
import zipfile
import zlib
from xml.etree.ElementTree import Element

from ...domain.document.extraction_budget import ExtractionBudget
from ...domain.errors import ErrorKind, SheafError
from ...domain.office.zip_container import (
    DEFAULT_LIMITS,
    ContainerLimits,
    check_listing,
    check_ratio,
    read_zip_listing,
)
from .safe_xml import parse_xml

_CHUNK = 64 * 1024


class Container:
    """An opened archive whose directory passed `check_listing`; members are read with
    the declared size, the per-member cap and the ratio cap enforced on the real bytes,
    and the archive's total inflated bytes capped across reads. Every read is also spent
    from the document's `budget` (a part read twice counts twice), which the extractor
    reading the archive spends its text and cells from as well."""

    def __init__(self, body: bytes, limits: ContainerLimits = DEFAULT_LIMITS, *,
                 budget: ExtractionBudget | None = None) -> None:
        self._limits = limits
        self.budget = budget if budget is not None else ExtractionBudget()
        check_listing(read_zip_listing(body), limits)
        self._archive = zipfile.ZipFile(io.BytesIO(body))
        self._infos = {i.filename: i for i in self._archive.infolist() if not i.is_dir()}
        self._inflated = 0

    def has(self, name: str) -> bool:
        return name in self._infos

    def read(self, name: str) -> bytes:
        """A member's bytes; `corrupt` when it is missing or damaged."""
        info = self._infos.get(name)
        if info is None:
            raise SheafError(ErrorKind.CORRUPT, f"the archive has no member {name}")
        limits = self._limits
        # Counted before inflating, at the size the directory declares (and enforced
        # below): a refused read costs nothing.
        self.budget.spend_bytes(info.file_size, f"member {name}")
        allowed = min(info.file_size, limits.max_member_bytes)
        out = bytearray()
        try:
            with self._archive.open(info) as stream:
                while chunk := stream.read(_CHUNK):
                    out += chunk
                    if len(out) > allowed:
                        raise SheafError(ErrorKind.UNSAFE_CONTENT,
                                         f"member {name} inflates past the {allowed} bytes "
                                         "it declares: a ZIP bomb")
                    check_ratio(name, len(out), info.compress_size, limits)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
                NotImplementedError) as exc:
            raise SheafError(ErrorKind.CORRUPT, f"member {name} is damaged: {exc}") from None
        self._inflated += len(out)
        if self._inflated > limits.max_total_bytes:
            raise SheafError(ErrorKind.UNSAFE_CONTENT,
                             f"the archive inflates past {limits.max_total_bytes} bytes")
        return bytes(out)

    @property
    def limits(self) -> ContainerLimits:
        return self._limits

    def remaining_bytes(self) -> int:
        """How many more bytes the archive's members may inflate to, all reads counted
        (what a package embedded in this one may still inflate to)."""
        return max(self._limits.max_total_bytes - self._inflated, 0)

    def xml(self, name: str) -> Element:
        return parse_xml(self.read(name), name)

    def optional_xml(self, name: str) -> Element | None:
        return self.xml(name) if self.has(name) else None

    def close(self) -> None:
        self._archive.close()
