"""Settings from the environment, overridden by command-line flags."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from sheaf.adapters.http_settings import DEFAULT_MAX_BYTES, HttpSettings

ENVIRONMENT = {
    "LOG_LEVEL": "log level: debug shows every routing decision (default warning)",
    "SHEAF_MAX_BYTES": f"largest body fetched, in bytes (default {DEFAULT_MAX_BYTES})",
    "SHEAF_TIMEOUT": "total seconds for one fetch, redirects included (default 60)",
    "SHEAF_ALLOW_PRIVATE_NETWORK": "1 to allow loopback and private addresses (default 0)",
    "SHEAF_STORE": "the DuckDB file (default $XDG_DATA_HOME/sheaf/sheaf.duckdb)",
    "SHEAF_EMBEDDER": "hashing (default), hashing:DIM, local, onnx:DIR, openai:MODEL, "
                      "ollama:MODEL or none",
    "SHEAF_EMBEDDINGS_URL": "the embeddings server (default https://api.openai.com/v1 for "
                            "openai, http://127.0.0.1:11434 for ollama)",
    "SHEAF_EMBEDDINGS_KEY": "its API key (openai: falls back to OPENAI_API_KEY)",
    "SHEAF_EMBEDDING_DIMENSION": "the model's dimension (asked of the server when unset)",
    "SHEAF_EMBEDDING_MAX_TOKENS": "the remote model's input limit, in tokens of about 4 "
                                  "characters (snippets are sized to fit it)",
    "SHEAF_LLM_BASE_URL": "an OpenAI-compatible chat API for enrichment, e.g. "
                          "http://127.0.0.1:11434/v1 (none: enrichment is off)",
    "SHEAF_LLM_MODEL": "the chat model's name",
    "SHEAF_LLM_API_KEY": "its API key (falls back to OPENAI_API_KEY)",
    "SHEAF_LLM_CONCURRENCY": "requests in flight at once (default 4)",
    "SHEAF_LLM_TOKEN_BUDGET": "tokens one run may spend on enrichment (default: no limit)",
}


def embedder_spec(flag: str | None = None) -> str:
    """--embedder, then SHEAF_EMBEDDER, then the offline default."""
    return flag or os.environ.get("SHEAF_EMBEDDER") or "hashing"


def store_path(flag: str | None = None) -> Path:
    """--store, then SHEAF_STORE, then the user's data directory."""
    chosen = flag or os.environ.get("SHEAF_STORE")
    if chosen:
        return Path(chosen).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "sheaf" / "sheaf.duckdb"


def http_settings(*, allow_private: bool = False, max_bytes: int | None = None,
                  timeout: float | None = None) -> HttpSettings:
    env_private = os.environ.get("SHEAF_ALLOW_PRIVATE_NETWORK", "").lower() in ("1", "true",
                                                                                  "yes")
    return HttpSettings(
        max_bytes=max_bytes or int(os.environ.get("SHEAF_MAX_BYTES") or DEFAULT_MAX_BYTES),
        total_timeout=timeout or float(os.environ.get("SHEAF_TIMEOUT") or 60),
        allow_private_network=allow_private or env_private,
    )


def configure_logging() -> None:
    level = os.environ.get("LOG_LEVEL", "warning").upper()
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.WARNING),
                        format="%(levelname)s %(name)s: %(message)s")
    # Library chatter (pdfminer colour warnings and the like) stays out of user output.
    for noisy in ("pdfminer", "asyncio", "aiohttp"):
        logging.getLogger(noisy).setLevel(max(logging.getLogger().level, logging.ERROR))
