"""Where blobs live in an object store: `s3://bucket/prefix`, parsed and checked once."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from attrs import frozen

from ....domain.errors import ErrorKind, SheafError

# S3's rules for new buckets (MinIO, R2 and Ceph share them): 3 to 63 lowercase letters,
# digits, dots and hyphens, starting and ending with a letter or digit, no "..", not an
# IPv4 address. A name breaking them is refused here rather than by the server later.
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_IPV4 = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")
_SEGMENT = re.compile(r"^[A-Za-z0-9!_.*'()-]+$")


@frozen
class S3Location:
    """A bucket and a key prefix inside it ("" for the bucket's root, else no slashes at
    either end)."""

    bucket: str
    prefix: str = ""

    def key(self, *parts: str) -> str:
        """The object key of `parts` under the prefix."""
        return "/".join((self.prefix, *parts) if self.prefix else parts)

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"


def parse_s3_url(url: str) -> S3Location:
    """`s3://bucket[/prefix]` as a location; `SheafError(INVALID_URL)` naming what is wrong.

    The endpoint, region and credentials never travel in the URL (they come from the
    environment), so a query, a fragment, a user or a port is refused, not ignored."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() != "s3":
        raise SheafError(ErrorKind.INVALID_URL,
                         f"not an s3:// URL: {url!r} (expected s3://bucket/prefix)")
    if parts.query or parts.fragment:
        raise SheafError(ErrorKind.INVALID_URL,
                         f"an s3:// URL takes no query or fragment: {url!r} (the endpoint "
                         "and region come from AWS_ENDPOINT_URL_S3 and AWS_REGION)")
    if "@" in parts.netloc or ":" in parts.netloc:
        raise SheafError(ErrorKind.INVALID_URL,
                         f"an s3:// URL names only a bucket, no user, password or port: "
                         f"{url!r} (credentials come from AWS_ACCESS_KEY_ID and "
                         "AWS_SECRET_ACCESS_KEY)")
    bucket = parts.netloc
    if not bucket:
        raise SheafError(ErrorKind.INVALID_URL, f"no bucket in {url!r}")
    if not _BUCKET.match(bucket) or ".." in bucket or _IPV4.match(bucket):
        raise SheafError(ErrorKind.INVALID_URL,
                         f"not a valid bucket name: {bucket!r} (3 to 63 lowercase letters, "
                         "digits, dots and hyphens, starting and ending with a letter or "
                         "digit)")
    segments = [s for s in parts.path.split("/") if s]
    for segment in segments:
        if segment in (".", "..") or not _SEGMENT.match(segment):
            raise SheafError(ErrorKind.INVALID_URL,
                             f"unsafe key prefix segment {segment!r} in {url!r} (letters, "
                             "digits and !_.*'()- only; no . or .. segments)")
    return S3Location(bucket, "/".join(segments))
