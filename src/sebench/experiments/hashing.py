"""Content hashes: what decides whether a step's inputs are unchanged.

A file is hashed by its bytes, a folder by its files' relative names and bytes (sorted), a
config by its canonical JSON. A model folder is hashed by its small files (config, tokenizer)
and the names and sizes of its weight files: reading 16 GB of weights on every `plan` would cost
a minute, and a changed checkpoint with the same tensor shapes and file sizes is not something
a user produces by accident (documented in docs/experiments.md).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

CHUNK = 1 << 20
SMALL_FILE = 1 << 20  # model files up to this size are hashed by content
WEIGHTS = (".safetensors", ".bin", ".pt", ".pth", ".gguf")


def of_config(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def of_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def of_folder(folder: Path, *, skip: tuple[str, ...] = ()) -> str:
    """Names and bytes of every file under `folder` except those named in `skip`."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder).as_posix()
        if path.name in skip or "__pycache__" in relative:
            continue
        digest.update(relative.encode() + b"\0" + of_file(path).encode() + b"\0")
    return digest.hexdigest()


def of_model(folder: Path) -> str:
    """A model folder: small files by content, weight files by name and size (see above)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder).as_posix()
        size = path.stat().st_size
        if path.suffix in WEIGHTS or size > SMALL_FILE:
            digest.update(f"{relative}\0size={size}\0".encode())
        else:
            digest.update(relative.encode() + b"\0" + of_file(path).encode() + b"\0")
    return digest.hexdigest()


def of_path(path: Path) -> str:
    return of_folder(path) if path.is_dir() else of_file(path)
