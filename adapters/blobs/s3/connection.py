"""One open S3 client for one bucket: opened on first use, checked once, closed once.

Every call goes through `S3Connection`, which turns botocore's and aiohttp's exceptions
into `SheafError(STORAGE)` naming the bucket, the endpoint and what to set, and which
uploads large bodies in parts."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

import aiohttp
import anyio
from aiobotocore.config import AioConfig
from aiobotocore.session import get_session
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionError,
    HTTPClientError,
    NoCredentialsError,
    PartialCredentialsError,
)

from ....domain.errors import ErrorKind, SheafError
from .location import S3Location
from .settings import MAX_PARTS, S3Settings

if TYPE_CHECKING:
    from types_aiobotocore_s3 import S3Client

_AWS = "the AWS S3 endpoint"
_CREDENTIALS = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
_MISSING_KEY = frozenset({"NoSuchKey", "404", "NotFound"})


class S3Connection:
    """A lazily opened aiobotocore client bound to `location`'s bucket.

    The first call checks the bucket (HeadBucket) so that a missing bucket, a wrong
    region or refused credentials fail at once with their cause, not as a puzzling 404 on
    the first blob. `aclose` is idempotent; a call after it opens a new client."""

    def __init__(self, location: S3Location, settings: S3Settings) -> None:
        self.location = location
        self.settings = settings
        self._client: S3Client | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._lock = anyio.Lock()

    @property
    def endpoint(self) -> str:
        return self.settings.endpoint_url or _AWS

    async def client(self) -> S3Client:
        if self._client is not None:
            return self._client
        async with self._lock:
            if self._client is None:
                self._client = await self._open()
        return self._client

    async def _open(self) -> S3Client:
        s = self.settings
        config = AioConfig(
            connect_timeout=s.connect_timeout, read_timeout=s.read_timeout,
            retries={"total_max_attempts": s.max_attempts, "mode": "standard"},
            max_pool_connections=max(10, s.concurrency * 2),
            s3={"addressing_style": s.effective_addressing_style},
        )
        stack = contextlib.AsyncExitStack()
        try:
            with self.translating("open a client for"):
                client: S3Client = await stack.enter_async_context(
                    get_session().create_client(
                        "s3", region_name=s.region, endpoint_url=s.endpoint_url,
                        aws_access_key_id=s.access_key_id,
                        aws_secret_access_key=s.secret_access_key,
                        aws_session_token=s.session_token, config=config))
            await self._check_bucket(client)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await stack.aclose()
            raise
        self._stack = stack
        return client

    async def _check_bucket(self, client: S3Client) -> None:
        bucket = self.location.bucket
        try:
            with self.translating("reach the bucket of"):
                await client.head_bucket(Bucket=bucket)
        except _ServiceError as error:
            # HEAD answers carry no error body: the status alone tells what went wrong.
            if error.status == 404:
                raise SheafError(ErrorKind.STORAGE,
                                 f"the bucket {bucket!r} does not exist at {self.endpoint} "
                                 "(create it, or check the s3:// URL and "
                                 "AWS_ENDPOINT_URL_S3)", status=404) from None
            if error.status in (301, 400) and error.region:
                raise SheafError(ErrorKind.STORAGE,
                                 f"the bucket {bucket!r} is in region {error.region}, not "
                                 f"{self.settings.region} (set AWS_REGION={error.region})",
                                 status=error.status) from None
            if error.status == 403:
                raise SheafError(ErrorKind.STORAGE,
                                 f"{self.endpoint} refused access to the bucket {bucket!r} "
                                 f"(HTTP 403): check {_CREDENTIALS}, and that they may "
                                 "list, read, write and delete objects in it",
                                 status=403) from None
            raise

    async def aclose(self) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is not None:
            await stack.aclose()

    @contextlib.contextmanager
    def translating(self, action: str, key: str | None = None) -> Iterator[None]:
        """Run a block, turning transport and service failures into `SheafError`."""
        where = f"s3://{self.location.bucket}/{key}" if key else self.location.url
        try:
            yield
        except SheafError:
            raise
        except ClientError as exc:
            raise self._service_error(exc, action, where) from None
        except (NoCredentialsError, PartialCredentialsError):
            raise SheafError(ErrorKind.STORAGE,
                             f"no S3 credentials to {action} {where}: set {_CREDENTIALS} "
                             "(or AWS_PROFILE)") from None
        except (ConnectionError, HTTPClientError, aiohttp.ClientError, OSError) as exc:
            raise SheafError(ErrorKind.STORAGE,
                             f"cannot reach the S3 endpoint {self.endpoint} to {action} "
                             f"{where}: {_first_line(exc)}") from None
        except BotoCoreError as exc:
            raise SheafError(ErrorKind.STORAGE,
                             f"could not {action} {where}: {_first_line(exc)}") from None

    def _service_error(self, exc: ClientError, action: str, where: str) -> _ServiceError:
        response: dict[str, Any] = dict(exc.response)
        error = response.get("Error", {})
        meta = response.get("ResponseMetadata", {})
        code = str(error.get("Code", ""))
        status = meta.get("HTTPStatusCode")
        region = (meta.get("HTTPHeaders") or {}).get("x-amz-bucket-region") or error.get(
            "Region")
        if code == "NoSuchBucket":
            message = (f"the bucket {self.location.bucket!r} does not exist at "
                       f"{self.endpoint}")
        elif code == "InvalidAccessKeyId":
            message = (f"{self.endpoint} does not know the access key id "
                       "(AWS_ACCESS_KEY_ID)")
        elif code == "SignatureDoesNotMatch":
            message = (f"{self.endpoint} rejected the request signature: check "
                       "AWS_SECRET_ACCESS_KEY")
        elif code in ("ExpiredToken", "InvalidToken", "TokenRefreshRequired"):
            message = f"{self.endpoint} refused the session token (AWS_SESSION_TOKEN)"
        elif code == "AccessDenied" or status == 403:
            message = f"{self.endpoint} denied the request to {action} {where}"
        else:
            detail = str(error.get("Message") or code or "no detail")
            message = f"could not {action} {where}: {code or 'error'}: {detail}"
        result = _ServiceError(message, status=status if isinstance(status, int) else None)
        result.code = code
        result.region = str(region) if region else None
        return result

    async def upload(self, key: str, data: bytes, **extra: str) -> None:
        """Put `data` at `key`: one PUT below the threshold, else a multipart upload that
        is aborted on any failure, so the object is whole or absent either way."""
        client = await self.client()
        bucket = self.location.bucket
        if len(data) < self.settings.multipart_threshold:
            with self.translating("write", key):
                await client.put_object(Bucket=bucket, Key=key, Body=data, **extra)  # type: ignore[arg-type]
            return
        part_size = max(self.settings.part_size, -(-len(data) // MAX_PARTS))
        with self.translating("start a multipart upload of", key):
            started = await client.create_multipart_upload(Bucket=bucket, Key=key)
        upload_id = started["UploadId"]
        etags: dict[int, str] = {}
        limit = anyio.CapacityLimiter(self.settings.concurrency)

        async def send(number: int, offset: int) -> None:
            async with limit:
                with self.translating(f"upload part {number} of", key):
                    sent = await client.upload_part(
                        Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number,
                        Body=data[offset:offset + part_size])
                etags[number] = sent["ETag"]

        try:
            async with anyio.create_task_group() as group:
                for number, offset in enumerate(range(0, len(data), part_size), start=1):
                    group.start_soon(send, number, offset)
            with self.translating("complete the multipart upload of", key):
                await client.complete_multipart_upload(
                    Bucket=bucket, Key=key, UploadId=upload_id,
                    MultipartUpload={"Parts": [{"ETag": etags[n], "PartNumber": n}
                                               for n in sorted(etags)]})
        except BaseException as exc:
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                await client.abort_multipart_upload(Bucket=bucket, Key=key,
                                                    UploadId=upload_id)
            if isinstance(exc, BaseExceptionGroup):
                raise _first_sheaf_error(exc) from None
            raise

    async def download(self, key: str) -> bytes | None:
        """The object's bytes, or None when there is no object at `key`."""
        client = await self.client()
        try:
            with self.translating("read", key):
                response = await client.get_object(Bucket=self.location.bucket, Key=key)
                async with response["Body"] as body:
                    return await body.read()
        except _ServiceError as error:
            if error.code in _MISSING_KEY:
                return None
            raise

    async def exists(self, key: str) -> bool:
        client = await self.client()
        try:
            with self.translating("look up", key):
                await client.head_object(Bucket=self.location.bucket, Key=key)
        except _ServiceError as error:
            if error.status == 404:
                return False
            raise
        return True

    async def remove(self, key: str) -> None:
        client = await self.client()
        with self.translating("delete", key):
            await client.delete_object(Bucket=self.location.bucket, Key=key)

    async def keys_under(self, prefix: str, page_size: int = 1000
                         ) -> AsyncIterator[list[str]]:
        """The keys starting with `prefix`, a page (at most 1,000) at a time."""
        client = await self.client()
        paginator = client.get_paginator("list_objects_v2")
        with self.translating("list", prefix):
            async for page in paginator.paginate(
                    Bucket=self.location.bucket, Prefix=prefix,
                    PaginationConfig={"PageSize": page_size}):
                keys = [item["Key"] for item in page.get("Contents", []) if "Key" in item]
                if keys:
                    yield keys

    async def remove_many(self, keys: list[str]) -> None:
        """Delete up to 1,000 keys in one request; any key the server refused is an error."""
        client = await self.client()
        with self.translating("delete objects under", keys[0] if keys else None):
            answer = await client.delete_objects(
                Bucket=self.location.bucket,
                Delete={"Objects": [{"Key": k} for k in keys], "Quiet": True})
        refused = answer.get("Errors") or []
        if refused:
            first = refused[0]
            raise SheafError(ErrorKind.STORAGE,
                             f"{self.endpoint} refused to delete {len(refused)} object(s), "
                             f"first s3://{self.location.bucket}/{first.get('Key')}: "
                             f"{first.get('Code')}: {first.get('Message')}")


class _ServiceError(SheafError):
    """A storage error that still knows the service's code and the bucket's region, so
    callers can tell "no such key" (an answer) from a failure."""

    def __init__(self, message: str, *, status: int | None) -> None:
        super().__init__(ErrorKind.STORAGE, message, status=status)
        self.code = ""
        self.region: str | None = None


def _first_sheaf_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            return _first_sheaf_error(exc)
        if isinstance(exc, SheafError):
            return exc
    return group.exceptions[0]


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
