"""`s3://bucket/prefix` parsing and the S3 settings read from the environment."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheaf.adapters.blobs.s3.location import S3Location, parse_s3_url
from sheaf.adapters.blobs.s3.settings import MIB, S3Settings, settings_from_environment
from sheaf.domain.errors import ErrorKind, SheafError


@pytest.mark.parametrize(("url", "bucket", "prefix"), [
    ("s3://my-bucket", "my-bucket", ""),
    ("s3://my-bucket/", "my-bucket", ""),
    ("S3://my.bucket.2/kb", "my.bucket.2", "kb"),
    ("s3://abc/team/kb/", "abc", "team/kb"),
    ("s3://abc//team///kb", "abc", "team/kb"),
    ("  s3://abc/a(1)/b_c!  ", "abc", "a(1)/b_c!"),
])
def test_valid_urls(url: str, bucket: str, prefix: str) -> None:
    assert parse_s3_url(url) == S3Location(bucket, prefix)


@pytest.mark.parametrize(("url", "names"), [
    ("https://bucket/prefix", "not an s3:// URL"),
    ("bucket/prefix", "not an s3:// URL"),
    ("s3:///prefix", "no bucket"),
    ("s3://ab", "not a valid bucket name"),
    ("s3://" + "a" * 64, "not a valid bucket name"),
    ("s3://My-Bucket", "not a valid bucket name"),
    ("s3://my_bucket", "not a valid bucket name"),
    ("s3://-bucket", "not a valid bucket name"),
    ("s3://bucket-", "not a valid bucket name"),
    ("s3://my..bucket", "not a valid bucket name"),
    ("s3://192.168.1.10", "not a valid bucket name"),
    ("s3://bucket:9000/kb", "no user, password or port"),
    ("s3://key:secret@bucket/kb", "no user, password or port"),
    ("s3://bucket/kb?region=eu-west-1", "no query or fragment"),
    ("s3://bucket/kb#x", "no query or fragment"),
    ("s3://bucket/kb/../other", "unsafe key prefix segment '..'"),
    ("s3://bucket/./kb", "unsafe key prefix segment '.'"),
    ("s3://bucket/k b", "unsafe key prefix segment"),
    ("s3://bucket/k%2Fb", "unsafe key prefix segment"),
])
def test_invalid_urls_name_what_is_wrong(url: str, names: str) -> None:
    with pytest.raises(SheafError) as caught:
        parse_s3_url(url)
    assert caught.value.kind is ErrorKind.INVALID_URL
    assert names in caught.value.message


_BUCKETS = st.from_regex(r"\A[a-z0-9]([a-z0-9-]{1,61})[a-z0-9]\Z")
_SEGMENTS = st.lists(st.from_regex(r"\A[A-Za-z0-9_-]{1,12}\Z"), max_size=4)


@given(_BUCKETS, _SEGMENTS, st.booleans())
def test_a_location_round_trips_through_its_url(bucket: str, segments: list[str],
                                                trailing: bool) -> None:
    url = f"s3://{bucket}/" + "/".join(segments) + ("/" if trailing else "")
    location = parse_s3_url(url)
    assert location == S3Location(bucket, "/".join(segments))
    assert parse_s3_url(location.url) == location
    key = location.key("raw", "ab", "abcd")
    assert key == "/".join([*segments, "raw", "ab", "abcd"])
    assert not key.startswith("/") and "//" not in key


def test_environment_precedence_and_defaults() -> None:
    assert settings_from_environment({}) == S3Settings()
    settings = settings_from_environment({
        "AWS_ENDPOINT_URL": "http://general:9000", "AWS_ENDPOINT_URL_S3": "http://s3:9000",
        "AWS_DEFAULT_REGION": "eu-west-1", "AWS_REGION": "eu-central-1",
        "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret",
        "AWS_SESSION_TOKEN": "token"})
    assert settings.endpoint_url == "http://s3:9000"
    assert settings.region == "eu-central-1"
    assert (settings.access_key_id, settings.secret_access_key, settings.session_token) == (
        "id", "secret", "token")
    assert "secret" not in repr(settings) and "token" not in repr(settings)
    fallback = settings_from_environment({"AWS_ENDPOINT_URL": "https://minio.internal",
                                          "AWS_ENDPOINT_URL_S3": " ",
                                          "AWS_DEFAULT_REGION": "ap-south-1"})
    assert fallback.endpoint_url == "https://minio.internal"
    assert fallback.region == "ap-south-1"


def test_a_named_endpoint_is_addressed_path_style() -> None:
    assert S3Settings().effective_addressing_style == "auto"
    assert S3Settings(endpoint_url="http://minio:9000").effective_addressing_style == "path"
    assert S3Settings(endpoint_url="http://x", addressing_style="virtual"
                      ).effective_addressing_style == "virtual"


@pytest.mark.parametrize(("environ", "kind", "names"), [
    ({"AWS_ENDPOINT_URL_S3": "minio:9000"}, ErrorKind.INVALID_URL, "AWS_ENDPOINT_URL_S3"),
    ({"AWS_ENDPOINT_URL": "ftp://host"}, ErrorKind.INVALID_URL, "not an http"),
    ({"AWS_ACCESS_KEY_ID": "id"}, ErrorKind.STORAGE, "AWS_SECRET_ACCESS_KEY is not set"),
    ({"AWS_SECRET_ACCESS_KEY": "s"}, ErrorKind.STORAGE, "AWS_ACCESS_KEY_ID is not set"),
])
def test_bad_environments_are_named(environ: dict[str, str], kind: ErrorKind,
                                    names: str) -> None:
    with pytest.raises(SheafError) as caught:
        settings_from_environment(environ)
    assert caught.value.kind is kind
    assert names in caught.value.message


@pytest.mark.parametrize("part_size", [5 * MIB - 1, 5 * 1024 * MIB + 1, 0])
def test_part_sizes_outside_s3s_bounds_are_refused(part_size: int) -> None:
    with pytest.raises(ValueError, match="part size"):
        S3Settings(part_size=part_size)


def test_thresholds_and_concurrency_must_be_positive() -> None:
    with pytest.raises(ValueError, match="multipart_threshold"):
        S3Settings(multipart_threshold=0)
    with pytest.raises(ValueError, match="concurrency"):
        S3Settings(concurrency=0)


def test_without_the_s3_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from sheaf.adapters.blobs.s3.blob_store import blob_stores_from_url

    monkeypatch.setitem(sys.modules, "aiobotocore.session", None)  # as if not installed
    monkeypatch.delitem(sys.modules, "sheaf.adapters.blobs.s3.connection", raising=False)
    with pytest.raises(SheafError) as caught:
        blob_stores_from_url("s3://bucket/kb", environ={})
    assert caught.value.kind is ErrorKind.STORAGE
    assert "pip install 'sheaf[s3]'" in caught.value.message
