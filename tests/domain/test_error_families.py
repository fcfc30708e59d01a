"""Every error kind belongs to exactly one family; `SheafError(kind, ...)` is an instance
of it wherever it is raised, keeps its kind, and survives pickling."""

from __future__ import annotations

import pickle

import pytest

from sheaf.domain import errors
from sheaf.domain.errors import ErrorKind, SheafError, configuration_error, family_of

FAMILIES = (errors.FetchError, errors.BlockedAddress, errors.TooLarge, errors.InvalidInput,
            errors.NotFound, errors.UnsupportedContent, errors.StoreError,
            errors.ModelError, errors.ConfigurationError, errors.InternalError)


@pytest.mark.parametrize("kind", list(ErrorKind))
def test_each_kind_is_raised_as_its_family(kind: ErrorKind) -> None:
    family = family_of(kind)
    assert family in FAMILIES
    with pytest.raises(family) as caught:
        raise SheafError(kind, "what went wrong", url="https://example.org/", status=500)
    error = caught.value
    assert type(error) is family and isinstance(error, SheafError)
    assert error.kind is kind and error.message == "what went wrong"
    assert str(error).startswith(f"{kind.value}: what went wrong")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is family and copy.kind is kind and copy.url == error.url
    assert copy.status == 500


def test_families_that_share_no_kind_do_not_catch_each_other() -> None:
    assert not isinstance(SheafError(ErrorKind.DOCUMENT_NOT_FOUND, "x"), errors.FetchError)
    assert isinstance(SheafError(ErrorKind.BLOCKED_ADDRESS, "x"), errors.FetchError)
    assert not isinstance(SheafError(ErrorKind.NOT_FOUND, "x"), errors.NotFound)  # HTTP 404


def test_a_configuration_error_names_its_variable() -> None:
    error = configuration_error("SHEAF_TIMEOUT", "wants seconds, not 'soon'")
    assert isinstance(error, errors.ConfigurationError) and error.variable == "SHEAF_TIMEOUT"
    assert str(error) == "configuration: SHEAF_TIMEOUT: wants seconds, not 'soon'"
