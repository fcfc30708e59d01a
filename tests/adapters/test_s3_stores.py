"""The S3 blob and artifact stores beyond the port contracts: key layout, multipart
uploads and their abort, integrity, and the typed errors of a bucket, an endpoint or
credentials gone wrong (from moto on loopback, and from a loopback server answering as
S3 does when it refuses)."""

from __future__ import annotations

import hashlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from aiohttp import web

from sheaf.adapters.blobs.s3.location import S3Location
from sheaf.adapters.blobs.s3.settings import MIB
from sheaf.domain.errors import ErrorKind, SheafError
from tests.local_server import LocalServer
from tests.s3_server import S3Server

pytest.importorskip("aiobotocore", reason="aiobotocore (the s3 extra) is not installed")

from sheaf.adapters.blobs.s3.artifact_store import S3ArtifactStore
from sheaf.adapters.blobs.s3.blob_store import S3BlobStore, blob_stores_from_url

pytestmark = pytest.mark.anyio


def _keys(server: S3Server, bucket: str) -> list[str]:
    listed = server.client().list_objects_v2(Bucket=bucket)
    return sorted(item["Key"] for item in listed.get("Contents", []))


def _typed(caught: pytest.ExceptionInfo[SheafError]) -> SheafError:
    """The error, checked to carry no botocore exception along as its cause."""
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    return caught.value


async def test_keys_mirror_the_blob_folder_under_the_prefix(
        s3_server: S3Server, s3_bucket: S3Location) -> None:
    blobs, artifacts = blob_stores_from_url(f"s3://{s3_bucket.bucket}/{s3_bucket.prefix}/",
                                            environ=s3_server.environment())
    try:
        sha = await blobs.put(b"hello")
        await artifacts.write("default/src/v1", "document.md", b"# Title")
        assert _keys(s3_server, s3_bucket.bucket) == [
            f"kb/main/raw/{sha[:2]}/{sha}", "kb/main/versions/default/src/v1/document.md"]
        assert await blobs.get(sha) == b"hello"
    finally:
        await blobs.aclose()
        await artifacts.aclose()  # the shared connection: closing twice is harmless


async def test_a_bucket_root_holds_the_same_layout(s3_server: S3Server) -> None:
    bucket = s3_server.create_bucket()
    blobs = S3BlobStore(S3Location(bucket), s3_server.settings())
    try:
        sha = await blobs.put(b"x")
        assert _keys(s3_server, bucket) == [f"raw/{sha[:2]}/{sha}"]
    finally:
        await blobs.aclose()


@pytest.fixture
async def small_parts(s3_server: S3Server, s3_bucket: S3Location
                      ) -> AsyncIterator[tuple[S3BlobStore, S3ArtifactStore]]:
    """Stores that upload anything from 1 MiB up in parts of S3's smallest size, 5 MiB."""
    settings = s3_server.settings(multipart_threshold=1 * MIB, part_size=5 * MIB)
    blobs = S3BlobStore(s3_bucket, settings)
    artifacts = S3ArtifactStore(s3_bucket, settings)
    try:
        yield blobs, artifacts
    finally:
        await blobs.aclose()
        await artifacts.aclose()


@pytest.mark.parametrize(("size", "parts"), [(1 * MIB, 1), (11 * MIB + 7, 3),
                                             (10 * MIB, 2), (1 * MIB - 1, 0)])
async def test_bodies_from_the_threshold_go_up_in_parts(
        s3_server: S3Server, s3_bucket: S3Location,
        small_parts: tuple[S3BlobStore, S3ArtifactStore], size: int, parts: int) -> None:
    blobs, artifacts = small_parts
    data = hashlib.sha256(str(size).encode()).digest() * (size // 32) + b"z" * (size % 32)
    sha = await blobs.put(data)
    await artifacts.write("s/src/v1", "chunks.jsonl", data)
    assert await blobs.get(sha) == data
    assert await artifacts.read("s/src/v1", "chunks.jsonl") == data
    client = s3_server.client()
    for key in (f"kb/main/raw/{sha[:2]}/{sha}", "kb/main/versions/s/src/v1/chunks.jsonl"):
        etag = client.head_object(Bucket=s3_bucket.bucket, Key=key)["ETag"].strip('"')
        # A multipart object's ETag ends in "-<number of parts>"; a single PUT's does not.
        assert etag.endswith(f"-{parts}") if parts else "-" not in etag


async def test_a_failed_part_aborts_the_upload_and_leaves_nothing(
        s3_server: S3Server, s3_bucket: S3Location,
        small_parts: tuple[S3BlobStore, S3ArtifactStore],
        monkeypatch: pytest.MonkeyPatch) -> None:
    blobs, _ = small_parts
    client = await blobs._s3.client()
    real_upload_part = client.upload_part

    async def failing_second_part(**kwargs: Any) -> Any:
        if kwargs["PartNumber"] == 2:
            raise ConnectionResetError("connection reset by peer")
        return await real_upload_part(**kwargs)

    monkeypatch.setattr(client, "upload_part", failing_second_part)
    data = b"p" * (11 * MIB)
    with pytest.raises(SheafError) as caught:
        await blobs.put(data)
    error = _typed(caught)
    assert error.kind is ErrorKind.STORAGE
    assert "upload part 2 of" in error.message and "connection reset" in error.message
    sha = hashlib.sha256(data).hexdigest()
    assert not await blobs.has(sha)
    uploads = s3_server.client().list_multipart_uploads(Bucket=s3_bucket.bucket)
    assert not uploads.get("Uploads")


async def test_a_cancelled_upload_is_aborted_too(
        s3_server: S3Server, s3_bucket: S3Location,
        small_parts: tuple[S3BlobStore, S3ArtifactStore],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _, artifacts = small_parts
    client = await artifacts._s3.client()
    real_upload_part = client.upload_part
    first_part_sent = anyio.Event()

    async def stalling_second_part(**kwargs: Any) -> Any:
        if kwargs["PartNumber"] == 2:
            await first_part_sent.wait()
            await anyio.sleep_forever()
        answer = await real_upload_part(**kwargs)
        first_part_sent.set()
        return answer

    monkeypatch.setattr(client, "upload_part", stalling_second_part)
    async with anyio.create_task_group() as group:
        group.start_soon(artifacts.write, "s/src/v1", "chunks.jsonl", b"c" * (11 * MIB))
        await first_part_sent.wait()
        group.cancel_scope.cancel()  # as a timeout or a shutdown would
    assert await artifacts.read("s/src/v1", "chunks.jsonl") is None
    uploads = s3_server.client().list_multipart_uploads(Bucket=s3_bucket.bucket)
    assert not uploads.get("Uploads")


async def test_a_blob_changed_in_the_bucket_is_not_returned_as_itself(
        s3_server: S3Server, s3_bucket: S3Location) -> None:
    blobs = S3BlobStore(s3_bucket, s3_server.settings())
    try:
        sha = await blobs.put(b"original")
        s3_server.client().put_object(Bucket=s3_bucket.bucket,
                                      Key=s3_bucket.key("raw", sha[:2], sha), Body=b"forged")
        with pytest.raises(SheafError) as caught:
            await blobs.get(sha)
        assert caught.value.kind is ErrorKind.STORAGE
        assert "different sha256" in caught.value.message
    finally:
        await blobs.aclose()


async def test_put_skips_a_blob_already_present(s3_server: S3Server,
                                                s3_bucket: S3Location) -> None:
    blobs = S3BlobStore(s3_bucket, s3_server.settings())
    try:
        sha = await blobs.put(b"same bytes")
        key = s3_bucket.key("raw", sha[:2], sha)
        first = s3_server.client().head_object(Bucket=s3_bucket.bucket, Key=key)
        assert await blobs.put(b"same bytes") == sha
        again = s3_server.client().head_object(Bucket=s3_bucket.bucket, Key=key)
        assert again["LastModified"] == first["LastModified"]
    finally:
        await blobs.aclose()


async def test_delete_under_pages_through_more_than_one_listing(
        s3_server: S3Server, s3_bucket: S3Location) -> None:
    artifacts = S3ArtifactStore(s3_bucket, s3_server.settings())
    artifacts.page_size = 4  # S3's is 1,000: small pages cost fewer objects to test
    try:
        for n in range(11):  # pages of 4, 4 and 3 keys, deleted in batches of 4
            await artifacts.write(f"s/big/v{n}", "meta.json", b"{}")
        await artifacts.write("s/bigger/v1", "meta.json", b"{}")
        await artifacts.delete_under("s/big/")
        assert _keys(s3_server, s3_bucket.bucket) == ["kb/main/versions/s/bigger/v1/meta.json"]
    finally:
        await artifacts.aclose()


@pytest.mark.parametrize(("key", "name"), [("../x", "a"), ("s/../x", "a"), ("s", "a/b"),
                                           ("s", ".."), ("s//x", "a"), ("s x", "a")])
async def test_unsafe_artifact_names_are_refused(key: str, name: str) -> None:
    store = S3ArtifactStore(S3Location("bucket"))
    with pytest.raises(ValueError, match="unsafe artifact"):
        await store.write(key, name, b"")


async def test_not_a_sha256_is_not_found_without_a_request() -> None:
    store = S3BlobStore(S3Location("bucket"))
    with pytest.raises(SheafError) as caught:
        await store.get("../../etc/passwd")
    assert caught.value.kind is ErrorKind.DOCUMENT_NOT_FOUND


# --- failures, each a typed error naming what to fix -----------------------------------


async def test_a_missing_bucket_is_named(s3_server: S3Server) -> None:
    blobs, artifacts = blob_stores_from_url("s3://sheaf-no-such-bucket/kb",
                                            environ=s3_server.environment())
    try:
        for call in (blobs.put(b"x"), blobs.has("0" * 64), artifacts.read("k", "n")):
            with pytest.raises(SheafError) as caught:
                await call
            error = _typed(caught)
            assert error.kind is ErrorKind.STORAGE
            assert "'sheaf-no-such-bucket' does not exist" in error.message
            assert s3_server.endpoint_url in error.message
    finally:
        await blobs.aclose()


async def test_an_unreachable_endpoint_is_named(s3_server: S3Server) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    blobs = S3BlobStore(S3Location("bucket"), s3_server.settings(
        endpoint_url=endpoint, max_attempts=1, connect_timeout=2.0))
    try:
        with pytest.raises(SheafError) as caught:
            await blobs.put(b"x")
        error = _typed(caught)
        assert error.kind is ErrorKind.STORAGE
        assert f"cannot reach the S3 endpoint {endpoint}" in error.message
    finally:
        await blobs.aclose()


async def test_missing_credentials_are_named(s3_server: S3Server,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
                 "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                 "AWS_CONTAINER_CREDENTIALS_FULL_URI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent/config")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")  # no instance-metadata probe
    blobs = S3BlobStore(S3Location("bucket"), s3_server.settings(
        access_key_id=None, secret_access_key=None))
    try:
        with pytest.raises(SheafError) as caught:
            await blobs.put(b"x")
        error = _typed(caught)
        assert error.kind is ErrorKind.STORAGE
        assert "no S3 credentials" in error.message and "AWS_ACCESS_KEY_ID" in error.message
    finally:
        await blobs.aclose()


def _s3_error(status: int, code: str, message: str) -> web.Response:
    body = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
            f"<Message>{message}</Message><RequestId>1</RequestId></Error>")
    return web.Response(status=status, body=body.encode(), content_type="application/xml")


class RefusingS3(LocalServer):
    """Answers HeadBucket with `bucket_status` and every other request with one S3 error,
    as a real service does for bad keys, bad signatures or its own trouble."""

    def __init__(self, bucket_status: int, status: int = 403, code: str = "",
                 message: str = "", headers: dict[str, str] | None = None) -> None:
        super().__init__()
        self.answer = (bucket_status, status, code, message, headers or {})

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.path_qs, dict(request.headers)))
        bucket_status, status, code, message, headers = self.answer
        if request.method == "HEAD" and request.path.strip("/").count("/") == 0:
            return web.Response(status=bucket_status, headers=headers)
        return _s3_error(status, code, message)


@pytest.mark.parametrize(("server", "names"), [
    (RefusingS3(200, 403, "InvalidAccessKeyId", "The key does not exist"),
     "does not know the access key id (AWS_ACCESS_KEY_ID)"),
    (RefusingS3(200, 403, "SignatureDoesNotMatch", "The signature does not match"),
     "rejected the request signature: check AWS_SECRET_ACCESS_KEY"),
    (RefusingS3(200, 400, "ExpiredToken", "The token has expired"),
     "refused the session token (AWS_SESSION_TOKEN)"),
    (RefusingS3(200, 403, "AccessDenied", "Access Denied"), "denied the request to write"),
    (RefusingS3(403), "refused access to the bucket 'bucket' (HTTP 403)"),
    (RefusingS3(404), "the bucket 'bucket' does not exist"),
    (RefusingS3(301, headers={"x-amz-bucket-region": "eu-west-3"}),
     "is in region eu-west-3, not us-east-1 (set AWS_REGION=eu-west-3)"),
    (RefusingS3(200, 501, "NotImplemented", "A header you provided is not implemented"),
     "could not write s3://bucket/versions/s/src/v1/meta.json: NotImplemented"),
], ids=["key-id", "secret", "token", "denied", "bucket-403", "bucket-404", "region",
        "other"])
async def test_refusals_are_named(s3_server: S3Server, server: RefusingS3,
                                  names: str) -> None:
    await server.start()
    # A PUT, whose error answer has a body to read the code from (HEAD answers have none).
    artifacts = S3ArtifactStore(S3Location("bucket"), s3_server.settings(
        endpoint_url=server.url(""), max_attempts=1))
    try:
        with pytest.raises(SheafError) as caught:
            await artifacts.write("s/src/v1", "meta.json", b"{}")
        error = _typed(caught)
        assert error.kind is ErrorKind.STORAGE
        assert names in error.message
        assert "Traceback" not in str(error) and "botocore" not in str(error)
    finally:
        await artifacts.aclose()
        await server.stop()


async def test_a_server_error_is_retried_then_named(s3_server: S3Server) -> None:
    server = RefusingS3(200, 500, "InternalError", "We encountered an internal error")
    await server.start()
    artifacts = S3ArtifactStore(S3Location("bucket"), s3_server.settings(
        endpoint_url=server.url(""), max_attempts=2))
    try:
        with pytest.raises(SheafError) as caught:
            await artifacts.write("s/src/v1", "meta.json", b"{}")
        assert "InternalError: We encountered an internal error" in caught.value.message
        assert caught.value.status == 500
        writes = [path for path, _ in server.seen if "/versions/" in path]
        assert len(writes) == 2  # the first try and one retry
    finally:
        await artifacts.aclose()
        await server.stop()
