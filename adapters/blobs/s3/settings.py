"""How to reach an S3-compatible service: endpoint, region, credentials, upload sizes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal
from urllib.parse import urlsplit

from attrs import field, frozen

from ....domain.errors import ErrorKind, SheafError

MIB = 1024 * 1024
# S3 refuses parts under 5 MiB (all but the last) and over 5 GiB; MinIO, R2 and Ceph
# keep the same bounds, so a part size outside them fails here, not at the last request.
MIN_PART_SIZE = 5 * MIB
MAX_PART_SIZE = 5 * 1024 * MIB
MAX_PARTS = 10_000

AddressingStyle = Literal["auto", "path", "virtual"]


def _positive(instance: object, attribute: object, value: float) -> None:
    if value <= 0:
        raise ValueError(f"S3 setting {getattr(attribute, 'name', attribute)} must be "
                         f"positive, not {value!r}")


def _part_size(instance: object, attribute: object, value: int) -> None:
    if not MIN_PART_SIZE <= value <= MAX_PART_SIZE:
        raise ValueError(f"S3 part size {value} is outside S3's bounds "
                         f"({MIN_PART_SIZE} bytes to 5 GiB)")


@frozen
class S3Settings:
    """Everything but the bucket. `None` credentials leave them to botocore's own chain
    (profiles in ~/.aws, web identity, instance metadata), as the AWS tools do.

    Bodies of `multipart_threshold` bytes or more go up as a multipart upload in parts of
    `part_size` bytes, `concurrency` parts at a time; smaller ones as one PUT."""

    endpoint_url: str | None = None
    region: str = "us-east-1"
    access_key_id: str | None = field(default=None, repr=False)
    secret_access_key: str | None = field(default=None, repr=False)
    session_token: str | None = field(default=None, repr=False)
    addressing_style: AddressingStyle = "auto"
    multipart_threshold: int = field(default=64 * MIB, validator=_positive)
    part_size: int = field(default=16 * MIB, validator=_part_size)
    concurrency: int = field(default=4, validator=_positive)
    connect_timeout: float = field(default=10.0, validator=_positive)
    read_timeout: float = field(default=60.0, validator=_positive)
    max_attempts: int = field(default=3, validator=_positive)

    @property
    def effective_addressing_style(self) -> AddressingStyle:
        """Path-style for a named endpoint (MinIO, moto and Ceph on a host of their own
        rarely resolve bucket subdomains), botocore's choice for AWS itself."""
        if self.addressing_style == "auto" and self.endpoint_url is not None:
            return "path"
        return self.addressing_style


def settings_from_environment(environ: Mapping[str, str]) -> S3Settings:
    """The settings the AWS tools read: AWS_ENDPOINT_URL_S3 (else AWS_ENDPOINT_URL),
    AWS_REGION (else AWS_DEFAULT_REGION), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
    AWS_SESSION_TOKEN. Empty values count as unset."""

    def value(*names: str) -> str | None:
        for name in names:
            if environ.get(name, "").strip():
                return environ[name].strip()
        return None

    endpoint = value("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
    if endpoint is not None:
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SheafError(ErrorKind.INVALID_URL,
                             f"the S3 endpoint {endpoint!r} (AWS_ENDPOINT_URL_S3 or "
                             "AWS_ENDPOINT_URL) is not an http:// or https:// URL")
    key_id = value("AWS_ACCESS_KEY_ID")
    secret = value("AWS_SECRET_ACCESS_KEY")
    if (key_id is None) != (secret is None):
        missing = "AWS_SECRET_ACCESS_KEY" if secret is None else "AWS_ACCESS_KEY_ID"
        raise SheafError(ErrorKind.STORAGE,
                         f"incomplete S3 credentials: {missing} is not set")
    return S3Settings(endpoint_url=endpoint,
                      region=value("AWS_REGION", "AWS_DEFAULT_REGION") or "us-east-1",
                      access_key_id=key_id, secret_access_key=secret,
                      session_token=value("AWS_SESSION_TOKEN"))
