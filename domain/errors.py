"""The typed errors every layer raises and every entrypoint maps to exit codes or statuses."""

from __future__ import annotations

from .worded_enum import WordedEnum


class ErrorKind(WordedEnum):
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
    STORE_NOT_FOUND = "store_not_found"
    """A command that only reads was pointed at a store file that does not exist."""
    STORE_VERSION = "store_version"
    STORE_LOCKED = "store_locked"
    """Another process holds the store for writing and could not serve this request."""
    STORAGE = "storage"
    """The blob, artifact or knowledge store's service refused or could not be reached: a
    missing bucket, rejected credentials, an unreachable endpoint."""
    # embeddings and search
    EMBEDDING_MISMATCH = "embedding_mismatch"
    EMBEDDING_FAILED = "embedding_failed"
    INVALID_QUERY = "invalid_query"
    # enrichment
    LLM_FAILED = "llm_failed"
    TOKEN_BUDGET_SPENT = "token_budget_spent"
    # quotes
    QUOTE_NOT_FOUND = "quote_not_found"
    """A quote request by text that the document does not verify."""
    CLAIM_NOT_VERIFIED = "claim_not_verified"
    """A claim no stored passage verifies (its closest passages differ, or none is near)."""
    OUT_OF_RANGE = "out_of_range"
    # settings: a flag or an environment variable with a value sheaf cannot use
    CONFIGURATION = "configuration"
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
    """A failure sheaf understands: its kind, a human message, and where it happened.

    `SheafError(kind, message)` gives an instance of the kind's family (`NotFound`,
    `FetchError`, ...), so `except sheaf.NotFound` works whichever layer raised it."""

    def __new__(cls, kind: ErrorKind, *args: object, **kwargs: object) -> SheafError:
        family = _FAMILIES.get(kind, SheafError) if cls is SheafError else cls
        return super().__new__(family)

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

    def __reduce__(self) -> tuple[object, ...]:
        # The default pickles `args` (the message alone), which cannot rebuild the kind.
        return (SheafError, (self.kind, self.message), self.__dict__)

    def with_url(self, url: str) -> SheafError:
        """The same error, naming `url` when it did not name one yet."""
        if self.url is None:
            self.url = url
        return self


class FetchError(SheafError):
    """The bytes could not be obtained: HTTP statuses, timeouts, DNS, TLS, redirects."""


class BlockedAddress(FetchError):
    """A URL that resolves to a loopback, private or otherwise forbidden address, or a
    local path outside the folders a server may read."""


class TooLarge(SheafError):
    """A body, file or decoded stream over its size limit."""


class InvalidInput(SheafError):
    """A request sheaf cannot act on: a bad URL, query, argument or position."""


class NotFound(SheafError):
    """No such document, input file or passage."""


class UnsupportedContent(SheafError):
    """Bytes that arrived but cannot be read as text: unknown, empty, corrupt, encrypted,
    scanned without OCR, too complex or unsafe."""


class StoreError(SheafError):
    """The store refuses or fails: another schema version or embedding model, a space
    closed to ingestion, another process holding it (`store_locked`), or the blob
    storage (a bucket, its credentials) failing."""


class ModelError(SheafError):
    """An embedding or language model failed, or the token budget is spent."""


class ConfigurationError(InvalidInput):
    """A flag or environment variable whose value cannot be used; `variable` names it."""

    def __init__(self, kind: ErrorKind, message: str, *, variable: str | None = None,
                 **details: object) -> None:
        super().__init__(kind, message, **details)  # type: ignore[arg-type]
        self.variable = variable


class InternalError(SheafError):
    """A defect in sheaf itself."""


def first_failure(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first error inside a task group's exception group (nested groups opened), so
    callers of concurrent work see one typed error, not a group."""
    first = group.exceptions[0]
    return first_failure(first) if isinstance(first, BaseExceptionGroup) else first


def configuration_error(variable: str, message: str) -> ConfigurationError:
    """The typed error for a bad setting, naming the flag or environment variable."""
    return ConfigurationError(ErrorKind.CONFIGURATION, f"{variable}: {message}",
                              variable=variable)


_FAMILY_KINDS: dict[type[SheafError], frozenset[ErrorKind]] = {
    FetchError: frozenset({
        ErrorKind.NOT_FOUND, ErrorKind.GONE, ErrorKind.FORBIDDEN_OR_PAYWALLED,
        ErrorKind.RATE_LIMITED, ErrorKind.SERVER_ERROR, ErrorKind.HTTP_ERROR,
        ErrorKind.TIMEOUT, ErrorKind.DNS, ErrorKind.TLS, ErrorKind.CONNECTION,
        ErrorKind.TOO_MANY_REDIRECTS, ErrorKind.REDIRECT_LOOP}),
    BlockedAddress: frozenset({ErrorKind.BLOCKED_ADDRESS, ErrorKind.PATH_NOT_ALLOWED}),
    TooLarge: frozenset({ErrorKind.TOO_LARGE}),
    InvalidInput: frozenset({ErrorKind.INVALID_URL, ErrorKind.INVALID_QUERY,
                             ErrorKind.OUT_OF_RANGE}),
    NotFound: frozenset({ErrorKind.DOCUMENT_NOT_FOUND, ErrorKind.STORE_NOT_FOUND,
                         ErrorKind.QUOTE_NOT_FOUND, ErrorKind.CLAIM_NOT_VERIFIED,
                         ErrorKind.INPUT_NOT_FOUND}),
    UnsupportedContent: frozenset({
        ErrorKind.UNSUPPORTED_CONTENT, ErrorKind.EMPTY, ErrorKind.NOT_A_PDF,
        ErrorKind.CORRUPT, ErrorKind.ENCRYPTED, ErrorKind.WRONG_PASSWORD,
        ErrorKind.NO_TEXT_LAYER, ErrorKind.TOO_COMPLEX, ErrorKind.UNSAFE_CONTENT}),
    StoreError: frozenset({ErrorKind.STORE_VERSION, ErrorKind.STORE_LOCKED,
                           ErrorKind.EMBEDDING_MISMATCH,
                           ErrorKind.INGESTION_DISABLED, ErrorKind.STORAGE}),
    ModelError: frozenset({ErrorKind.EMBEDDING_FAILED, ErrorKind.LLM_FAILED,
                           ErrorKind.TOKEN_BUDGET_SPENT}),
    ConfigurationError: frozenset({ErrorKind.CONFIGURATION}),
    InternalError: frozenset({ErrorKind.INTERNAL}),
}
_FAMILIES: dict[ErrorKind, type[SheafError]] = {
    kind: family for family, kinds in _FAMILY_KINDS.items() for kind in kinds}


def family_of(kind: ErrorKind) -> type[SheafError]:
    """The subclass of `SheafError` that errors of `kind` are instances of."""
    return _FAMILIES[kind]
