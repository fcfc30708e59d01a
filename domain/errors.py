"""The typed errors every layer raises and every entrypoint maps to exit codes or statuses."""

from __future__ import annotations

import enum


class ErrorKind(enum.Enum):
    """What went wrong, as a stable machine-readable word."""

    # fetching
    NOT_FOUND = "not_found"
    GONE = "gone"
    FORBIDDEN_OR_PAYWALLED = "forbidden_or_paywalled"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    HTTP_ERROR = "http_error"
    TIMEOUT = "timeout"
    DNS = "dns"
    TLS = "tls"
    CONNECTION = "connection"
    TOO_LARGE = "too_large"
    BLOCKED_ADDRESS = "blocked_address"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    REDIRECT_LOOP = "redirect_loop"
    INVALID_URL = "invalid_url"
    # content
    UNSUPPORTED_CONTENT = "unsupported_content"
    EMPTY = "empty"
    NOT_A_PDF = "not_a_pdf"
    CORRUPT = "corrupt"
    ENCRYPTED = "encrypted"
    WRONG_PASSWORD = "wrong_password"
    NO_TEXT_LAYER = "no_text_layer"
    TOO_COMPLEX = "too_complex"
    UNSAFE_CONTENT = "unsafe_content"
    """A container or markup that tries to harm the reader: a ZIP bomb, a member path
    leaving the archive, XML entity declarations."""
    # local input
    INPUT_NOT_FOUND = "input_not_found"
    PATH_NOT_ALLOWED = "path_not_allowed"
    """A local path outside the folders a server was started to read."""
    # knowledge store
    INGESTION_DISABLED = "ingestion_disabled"
    DOCUMENT_NOT_FOUND = "document_not_found"
    STORE_VERSION = "store_version"
    # embeddings and search
    EMBEDDING_MISMATCH = "embedding_mismatch"
    EMBEDDING_FAILED = "embedding_failed"
    INVALID_QUERY = "invalid_query"
    # enrichment
    LLM_FAILED = "llm_failed"
    TOKEN_BUDGET_SPENT = "token_budget_spent"
    # quotes
    QUOTE_NOT_FOUND = "quote_not_found"
    OUT_OF_RANGE = "out_of_range"
    # a defect in sheaf itself, reported for one source rather than ending a batch
    INTERNAL = "internal"

    @property
    def is_fetch_failure(self) -> bool:
        """True for failures to obtain bytes; False for bytes that could not be used."""
        return self in _FETCH_KINDS


_FETCH_KINDS = frozenset(
    {
        ErrorKind.NOT_FOUND,
        ErrorKind.GONE,
        ErrorKind.FORBIDDEN_OR_PAYWALLED,
        ErrorKind.RATE_LIMITED,
        ErrorKind.SERVER_ERROR,
        ErrorKind.HTTP_ERROR,
        ErrorKind.TIMEOUT,
        ErrorKind.DNS,
        ErrorKind.TLS,
        ErrorKind.CONNECTION,
        ErrorKind.TOO_LARGE,
        ErrorKind.BLOCKED_ADDRESS,
        ErrorKind.TOO_MANY_REDIRECTS,
        ErrorKind.REDIRECT_LOOP,
        ErrorKind.INVALID_URL,
        ErrorKind.INPUT_NOT_FOUND,
        ErrorKind.PATH_NOT_ALLOWED,
    }
)


class SheafError(Exception):
    """A failure sheaf understands: its kind, a human message, and where it happened."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        url: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.url = url
        self.status = status
        self.retry_after = retry_after

    def __str__(self) -> str:
        parts = [f"{self.kind.value}: {self.message}"]
        if self.status is not None:
            parts.append(f"(HTTP {self.status})")
        if self.url is not None:
            parts.append(f"[{self.url}]")
        return " ".join(parts)

    def with_url(self, url: str) -> SheafError:
        """The same error, naming `url` when it did not name one yet."""
        if self.url is None:
            self.url = url
        return self


def first_failure(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first error inside a task group's exception group (nested groups opened), so
    callers of concurrent work see one typed error, not a group."""
    first = group.exceptions[0]
    return first_failure(first) if isinstance(first, BaseExceptionGroup) else first
