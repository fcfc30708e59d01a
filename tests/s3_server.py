"""An S3-compatible server on loopback for the tests: moto's server mode, one per session.

Each test that asks for `s3_bucket` gets a fresh, empty bucket on it, so suites never see
each other's objects. Without moto installed, or when its server cannot start, the tests
that need it skip with the reason."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from typing import Any

import attrs
import pytest

from sheaf.adapters.blobs.s3.location import S3Location
from sheaf.adapters.blobs.s3.settings import S3Settings

ACCESS_KEY_ID = "sheaf-test-key"
SECRET_ACCESS_KEY = "sheaf-test-secret"  # moto accepts any pair unless told to check
REGION = "us-east-1"


@attrs.frozen
class S3Server:
    endpoint_url: str
    started_in: float
    """Seconds from the call to a listening server (reported by the tests, not asserted)."""

    def settings(self, **overrides: Any) -> S3Settings:
        base = S3Settings(endpoint_url=self.endpoint_url, region=REGION,
                          access_key_id=ACCESS_KEY_ID, secret_access_key=SECRET_ACCESS_KEY)
        return attrs.evolve(base, **overrides)

    def environment(self) -> dict[str, str]:
        """What a deployment would export to reach this server."""
        return {"AWS_ENDPOINT_URL_S3": self.endpoint_url, "AWS_REGION": REGION,
                "AWS_ACCESS_KEY_ID": ACCESS_KEY_ID,
                "AWS_SECRET_ACCESS_KEY": SECRET_ACCESS_KEY}

    def create_bucket(self) -> str:
        import boto3  # moto's own dependency, used only to prepare buckets

        name = f"sheaf-test-{uuid.uuid4().hex[:16]}"
        boto3.client("s3", endpoint_url=self.endpoint_url, region_name=REGION,
                     aws_access_key_id=ACCESS_KEY_ID,
                     aws_secret_access_key=SECRET_ACCESS_KEY).create_bucket(Bucket=name)
        return name

    def client(self) -> Any:
        """A plain boto3 client, for tests that look behind the adapter's back."""
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint_url, region_name=REGION,
                            aws_access_key_id=ACCESS_KEY_ID,
                            aws_secret_access_key=SECRET_ACCESS_KEY)


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    began = time.perf_counter()
    pytest.importorskip("aiobotocore", reason="aiobotocore (the s3 extra) is not installed")
    server_module = pytest.importorskip(
        "moto.server", reason="moto[server] (in the test extra) is not installed")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    try:
        server.start()
        host, port = server.get_host_and_port()
    except Exception as exc:  # any reason it cannot listen is a reason to skip
        pytest.skip(f"moto's S3 server could not start on 127.0.0.1: {exc}")
    try:
        yield S3Server(f"http://{host}:{port}", time.perf_counter() - began)
    finally:
        server.stop()


@pytest.fixture
def s3_bucket(s3_server: S3Server) -> S3Location:
    """A fresh bucket, addressed under a prefix so that keys outside it can be checked."""
    return S3Location(s3_server.create_bucket(), "kb/main")
