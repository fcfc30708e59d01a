"""Opening an S3 connection, or saying plainly that the `s3` extra is missing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....domain.errors import ErrorKind, SheafError
from .location import S3Location
from .settings import S3Settings

if TYPE_CHECKING:
    from .connection import S3Connection


def s3_connection(location: S3Location, settings: S3Settings) -> S3Connection:
    """A connection to `location` (nothing is contacted yet); without aiobotocore, a
    `SheafError(STORAGE)` naming the extra to install instead of an ImportError."""
    try:
        from .connection import S3Connection
    except ImportError as exc:
        raise SheafError(ErrorKind.STORAGE,
                         f"{location.url} needs the s3 extra: pip install 'sheaf[s3]' "
                         f"({exc})") from None
    return S3Connection(location, settings)
