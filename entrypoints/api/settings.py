"""One settings object, parsed once from flags and the environment (flags win).

Each group of settings belongs to one kind of service: a command that does not fetch
never reads the fetch limits, so `SHEAF_MAX_BYTES=25MB sheaf list` works while
`SHEAF_MAX_BYTES=25MB sheaf ingest URL` is a `configuration` error naming the variable.
"""

from __future__ import annotations

import enum
import logging
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

import attrs

from ...adapters.fetching.http_settings import DEFAULT_MAX_BYTES, HttpSettings
from ...domain.errors import ConfigurationError, configuration_error
from ...domain.store.ingestion import DEFAULT_SPACE
from .store_location import is_postgres_url, store_location


class Group(enum.Enum):
    """What a command uses, and so which variables it reads."""

    STORE = "store"
    EMBEDDER = "embedder"
    FETCH = "fetch"
    LANGUAGE_MODEL = "language_model"
    API = "api"
    QUEUE = "queue"


ALL_GROUPS = frozenset(Group)
READING = frozenset({Group.STORE, Group.EMBEDDER})
"""Commands over stored documents: no fetching, no language model."""

# Every variable sheaf reads: its name, the group that reads it ("-": every command) and
# what it means. The README's configuration table says the same.
_VARIABLES = f"""
LOG_LEVEL                   -               log level: debug shows every routing decision (default warning)
SHEAF_MAX_BYTES             fetch           largest body fetched, in bytes (default {DEFAULT_MAX_BYTES})
SHEAF_TIMEOUT               fetch           total seconds for one fetch, redirects included (default 60)
SHEAF_ALLOW_PRIVATE_NETWORK fetch           1 to allow loopback and private addresses (default 0)
SHEAF_STORE                 store           the DuckDB file (default $XDG_DATA_HOME/sheaf/sheaf.duckdb), or postgresql://... (libpq URL; PG* variables apply)
SHEAF_BLOBS                 store           s3://bucket/prefix for raw bytes and artifacts (AWS_* variables apply; default: the folder beside the DuckDB file)
XDG_DATA_HOME               store           where the default store lives (default ~/.local/share)
SHEAF_LOCK_WAIT             store           seconds to wait for a store another process holds and cannot serve this command (default 2)
SHEAF_HNSW_EF_SEARCH        store           hnsw.ef_search of a PostgreSQL store: HNSW candidates per search, 1 to 1000 (default 100)
SHEAF_EMBEDDER              embedder        hashing (default), hashing:DIM, local, onnx:DIR, openai:MODEL, ollama:MODEL or none
SHEAF_EMBEDDINGS_URL        embedder        the embeddings server (default https://api.openai.com/v1 for openai, http://127.0.0.1:11434 for ollama)
SHEAF_EMBEDDINGS_KEY        embedder        its API key (openai: falls back to OPENAI_API_KEY)
SHEAF_EMBEDDING_DIMENSION   embedder        the model's dimension (asked of the server when unset)
SHEAF_EMBEDDING_MAX_TOKENS  embedder        the remote model's input limit, in tokens of about 4 characters
SHEAF_LLM_BASE_URL          language_model  an OpenAI-compatible chat API for enrichment (none: enrichment is off)
SHEAF_LLM_MODEL             language_model  the chat model's name
SHEAF_LLM_API_KEY           language_model  its API key (falls back to OPENAI_API_KEY)
SHEAF_LLM_CONCURRENCY       language_model  requests in flight at once (default 4)
SHEAF_LLM_TOKEN_BUDGET      language_model  tokens one run may spend on enrichment (default: no limit)
SHEAF_QUEUE                 queue           the PostgreSQL database of the ingest queue, postgresql://... (`sheaf ingest --queue`, `sheaf worker`)
SHEAF_APPLICATION_NAME      -               first word of the application_name sheaf's PostgreSQL connections report (default none)
SHEAF_API_TOKEN             api             the bearer token `sheaf serve` and `sheaf mcp --http` require
SHEAF_API_TOKENS            api             tokens that reach one space: SPACE:read:TOKEN or SPACE:write:TOKEN entries (`sheaf serve --tokens`)
SHEAF_MCP_MAX_RESULT_TOKENS -               most tokens in one MCP tool result (default 8000)
"""  # noqa: E501
ENVIRONMENT: dict[str, tuple[Group | None, str]] = {
    name: (None if group == "-" else Group(group), meaning)
    for name, group, meaning in (line.split(maxsplit=2)
                                 for line in _VARIABLES.strip().splitlines())}
# Read by more than one group.
_SHARED = {"OPENAI_API_KEY": frozenset({Group.EMBEDDER, Group.LANGUAGE_MODEL}),
           "HOME": frozenset({Group.STORE})}
EMBEDDER_KINDS = ("hashing", "local", "onnx", "openai", "ollama", "none")


@attrs.frozen
class EmbedderSettings:
    """Which embedder, and what a remote one needs."""

    spec: str = "hashing"
    url: str | None = None
    api_key: str | None = None
    dimension: int | None = None
    max_tokens: int | None = None

    @property
    def kind(self) -> str:
        return self.spec.partition(":")[0]

    @property
    def argument(self) -> str:
        return self.spec.partition(":")[2]


@attrs.frozen
class LanguageModelSettings:
    """An OpenAI-compatible chat API for enrichment."""

    base_url: str
    model: str
    api_key: str | None = None
    concurrency: int = 4


@attrs.frozen
class Settings:
    """Everything a command or `Knowledge.open` is configured with."""

    store: Path
    """The DuckDB file; with `store_url`, only where local staging (uploads) lives."""
    space: str = DEFAULT_SPACE
    embedder: EmbedderSettings = EmbedderSettings()
    fetch: HttpSettings = attrs.field(factory=HttpSettings)
    language_model: LanguageModelSettings | None = None
    token_budget: int | None = None
    api_token: str | None = None
    log_level: str = "WARNING"
    store_url: str | None = None
    """A PostgreSQL store (`postgresql://...`) instead of the DuckDB file."""
    blobs: str | None = None
    """An S3 location (`s3://bucket/prefix`) for blobs and artifacts instead of the
    folder beside the DuckDB file."""
    queue: str | None = None
    """The ingest queue's PostgreSQL URL (ADR-0023); None: no queue configured."""

    @property
    def location(self) -> str:
        """The store as a person reads it (a PostgreSQL URL without its password)."""
        if self.store_url is None:
            return str(self.store)
        from ...adapters.store.postgres.location import shown_location

        return shown_location(self.store_url)
    lock_wait: float = 2.0
    """Seconds to wait, with backoff, for a store another process holds (ADR-0022)."""
    hnsw_ef_search: int | None = None
    """`hnsw.ef_search` of a PostgreSQL store's connections (None: the store's default,
    100): candidates its HNSW search keeps; more is slower and finds more of the true
    nearest (`make bench-pgvector` prints the trade)."""

    @classmethod
    def from_environment(cls, environ: Mapping[str, str], *,
                         groups: Iterable[Group] = ALL_GROUPS,
                         store: str | Path | None = None, space: str | None = None,
                         embedder: str | None = None, max_bytes: int | None = None,
                         timeout: float | None = None, allow_private: bool = False,
                         token_budget: int | None = None, api_token: str | None = None,
                         blobs: str | None = None, queue: str | None = None
                         ) -> Settings:
        """Flags (the keyword arguments) over `environ`, reading only the variables of
        `groups`; `ConfigurationError` names the first bad one."""
        used = frozenset(groups)
        env = _Environment(MappingProxyType({
            name: value for name, value in environ.items()
            if _group_of(name, used)}))
        fetch = HttpSettings(
            max_bytes=_positive(max_bytes, "--max-bytes") if max_bytes is not None
            else env.integer("SHEAF_MAX_BYTES") or DEFAULT_MAX_BYTES,
            total_timeout=_seconds(timeout, "--timeout") if timeout is not None
            else env.seconds("SHEAF_TIMEOUT") or 60.0,
            allow_private_network=allow_private or env.switch("SHEAF_ALLOW_PRIVATE_NETWORK"))
        path, url = _store(store, env)
        return cls(
            store=path, store_url=url, blobs=_blobs(blobs, env),
            space=space or DEFAULT_SPACE,
            embedder=_embedder(embedder, env),
            fetch=fetch,
            language_model=_language_model(env),
            token_budget=_positive(token_budget, "--token-budget")
            if token_budget is not None else env.integer("SHEAF_LLM_TOKEN_BUDGET"),
            api_token=api_token or env.get("SHEAF_API_TOKEN"),
            log_level=log_level_named(environ.get("LOG_LEVEL")),
            queue=_queue_url(queue, env),
            lock_wait=_lock_wait(env),
            hnsw_ef_search=_ef_search(env))

    def with_flags(self, *, store: str | Path | None = None, space: str | None = None,
                   embedder: str | None = None, max_bytes: int | None = None,
                   timeout: float | None = None, allow_private: bool = False,
                   token_budget: int | None = None, blobs: str | None = None) -> Settings:
        """These settings with the flags that are given put over them, each checked as
        `from_environment` checks a flag; what is not given stays as it is."""
        flags = Settings.from_environment(
            {}, store=store if store is not None else (self.store_url or self.store),
            embedder=embedder, max_bytes=max_bytes, timeout=timeout,
            token_budget=token_budget, blobs=blobs if blobs is not None else self.blobs)
        fetch = attrs.evolve(
            self.fetch,
            max_bytes=self.fetch.max_bytes if max_bytes is None else flags.fetch.max_bytes,
            total_timeout=(self.fetch.total_timeout if timeout is None
                           else flags.fetch.total_timeout),
            allow_private_network=self.fetch.allow_private_network or allow_private)
        # Without a --store flag the file's place stays as the environment made it (a
        # PostgreSQL store's local blob folder lies under XDG_DATA_HOME, which the
        # flags alone cannot see).
        return attrs.evolve(
            self, store=flags.store if store is not None else self.store,
            store_url=flags.store_url, blobs=flags.blobs,
            space=space or self.space,
            embedder=self.embedder if embedder is None else flags.embedder, fetch=fetch,
            token_budget=self.token_budget if token_budget is None else flags.token_budget)


def _group_of(name: str, used: frozenset[Group]) -> bool:
    if name in _SHARED:
        return bool(_SHARED[name] & used)
    entry = ENVIRONMENT.get(name)
    return entry is not None and (entry[0] is None or entry[0] in used)


@attrs.frozen
class _Environment:
    values: Mapping[str, str]

    def get(self, name: str) -> str | None:
        value = self.values.get(name)
        return value if value else None

    def integer(self, name: str) -> int | None:
        text = self.get(name)
        if text is None:
            return None
        try:
            value = int(text.strip())
        except ValueError:
            raise configuration_error(name, f"wants a whole number, not {text!r}") from None
        if value < 1:
            raise configuration_error(name, f"must be at least 1, not {text!r}")
        return value

    def seconds(self, name: str) -> float | None:
        text = self.get(name)
        if text is None:
            return None
        try:
            value = float(text.strip())
        except ValueError:
            raise configuration_error(name, f"wants seconds, not {text!r}") from None
        if not value > 0:
            raise configuration_error(name, f"must be more than 0 seconds, not {text!r}")
        return value

    def switch(self, name: str) -> bool:
        text = (self.get(name) or "0").strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off", ""):
            return False
        raise configuration_error(name, f"wants 1 or 0, not {text!r}")


def _positive(value: int, name: str) -> int:
    if value < 1:
        raise configuration_error(name, f"must be at least 1, not {value}")
    return value


def _seconds(value: float, name: str) -> float:
    if not value > 0:
        raise configuration_error(name, f"must be more than 0 seconds, not {value}")
    return value


def _ef_search(env: _Environment) -> int | None:
    value = env.integer("SHEAF_HNSW_EF_SEARCH")
    if value is not None and value > 1000:  # pgvector's own bound
        raise configuration_error("SHEAF_HNSW_EF_SEARCH", f"must be 1 to 1000, not {value}")
    return value


def _lock_wait(env: _Environment) -> float:
    text = env.get("SHEAF_LOCK_WAIT")
    if text is None:
        return 2.0
    try:
        value = float(text.strip())
    except ValueError:
        raise configuration_error("SHEAF_LOCK_WAIT", f"wants seconds, not {text!r}") from None
    if not value >= 0:
        raise configuration_error("SHEAF_LOCK_WAIT", f"must be 0 or more seconds, not {text!r}")
    return value


def _store(flag: str | Path | None, env: _Environment) -> tuple[Path, str | None]:
    path, url = store_location(flag, env.get)
    return Path(path), url


def _blobs(flag: str | None, env: _Environment) -> str | None:
    chosen = (flag or env.get("SHEAF_BLOBS") or "").strip()
    if not chosen:
        return None
    from ...adapters.blobs.s3.location import parse_s3_url
    from ...domain.errors import SheafError

    try:
        parse_s3_url(chosen)
    except SheafError as exc:
        raise configuration_error("--blobs" if flag else "SHEAF_BLOBS",
                                  f"wants s3://bucket/prefix: {exc.message}") from None
    return chosen


def _queue_url(flag: str | None, env: _Environment) -> str | None:
    name = "--queue-url" if flag else "SHEAF_QUEUE"
    chosen = (flag or env.get("SHEAF_QUEUE") or "").strip()
    if not chosen:
        return None
    if not is_postgres_url(chosen):
        raise configuration_error(name, "wants a PostgreSQL URL, postgresql://user@host:port"
                                        f"/database, not {chosen.split('@')[-1]!r}")
    return chosen


def _embedder(flag: str | None, env: _Environment) -> EmbedderSettings:
    name = "--embedder" if flag else "SHEAF_EMBEDDER"
    spec = (flag or env.get("SHEAF_EMBEDDER") or "hashing").strip()
    kind, _, argument = spec.partition(":")
    if kind not in EMBEDDER_KINDS or (kind in ("openai", "ollama") and not argument) or (
            kind == "hashing" and argument and not argument.isdigit()) or (
            kind in ("local", "none") and argument):
        raise configuration_error(name, f"unknown embedder {spec!r}: use hashing, "
                                        "hashing:DIM, local, onnx:DIR, openai:MODEL, "
                                        "ollama:MODEL or none")
    return EmbedderSettings(spec, url=env.get("SHEAF_EMBEDDINGS_URL"),
                            api_key=env.get("SHEAF_EMBEDDINGS_KEY")
                            or (env.get("OPENAI_API_KEY") if kind == "openai" else None),
                            dimension=env.integer("SHEAF_EMBEDDING_DIMENSION"),
                            max_tokens=env.integer("SHEAF_EMBEDDING_MAX_TOKENS"))


def _language_model(env: _Environment) -> LanguageModelSettings | None:
    concurrency = env.integer("SHEAF_LLM_CONCURRENCY") or 4
    base_url = env.get("SHEAF_LLM_BASE_URL")
    if not base_url:
        return None
    model = env.get("SHEAF_LLM_MODEL")
    if not model:
        raise configuration_error("SHEAF_LLM_MODEL", "is needed when SHEAF_LLM_BASE_URL "
                                                     "is set")
    return LanguageModelSettings(base_url, model, env.get("SHEAF_LLM_API_KEY")
                                 or env.get("OPENAI_API_KEY"), concurrency)


_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def log_level_named(text: str | None) -> str:
    """The logging level `LOG_LEVEL` names (warning when unset), or a configuration error."""
    level = (text or "warning").strip().upper()
    if level not in _LEVELS:
        raise configuration_error("LOG_LEVEL", f"wants one of {', '.join(_LEVELS).lower()}, "
                                               f"not {text!r}")
    return level


class _CurrentStderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever `sys.stderr` is when a record is logged (a test runner swaps
    it), not the stream of the moment logging was configured."""

    @property
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, _: object) -> None:
        pass


_HANDLER = _CurrentStderr()
_HANDLER.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))


def configure_logging(level: str) -> None:
    """sheaf's log lines to stderr at `level`; library chatter (pdfminer's colour
    warnings and the like) stays out of user output."""
    root = logging.getLogger()
    if _HANDLER not in root.handlers:
        root.addHandler(_HANDLER)
    root.setLevel(getattr(logging, level))
    for noisy in ("pdfminer", "asyncio", "aiohttp"):
        logging.getLogger(noisy).setLevel(max(root.level, logging.ERROR))


__all__ = ["ConfigurationError", "EmbedderSettings", "Group", "LanguageModelSettings",
           "Settings", "configure_logging"]
