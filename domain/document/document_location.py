"""Where a document came from, in the form a reader can follow back: a citation's
source."""

from __future__ import annotations

from pathlib import PurePath

import attrs


@attrs.frozen
class DocumentLocation:
    """The URL of a fetched document (where its redirects ended), the absolute path and
    `file:` URI of a local file, or the original file name of an upload."""

    url: str | None = None
    path: str | None = None
    file_uri: str | None = None
    file_name: str | None = None

    @classmethod
    def of_file(cls, path: str) -> DocumentLocation:
        """A local file by its absolute path (a relative one gets no URI)."""
        pure = PurePath(path)
        return cls(path=path, file_uri=pure.as_uri() if pure.is_absolute() else None,
                   file_name=pure.name or None)

    @property
    def cited(self) -> str | None:
        """The one string a citation shows: URL, else `file:` URI, else path, else the
        uploaded file's name."""
        return self.url or self.file_uri or self.path or self.file_name

    def as_dict(self) -> dict[str, str]:
        """The fields that are set."""
        return {k: v for k, v in attrs.asdict(self).items() if v is not None}
