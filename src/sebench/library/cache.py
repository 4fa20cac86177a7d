"""Libraries built once and reused: a cache folder keyed by what the library is built from.

The folder is `$SEBENCH_CACHE/libraries/<key>` (default `~/.cache/sebench/libraries/<key>`); the
key hashes the inputs (table origin, api_doc contents, sebench's runtime code), so a changed
input builds a new folder and a finished folder is never rebuilt. Builds go to a temporary
folder first and are renamed into place, so concurrent builders never see half a library.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from importlib import resources
from pathlib import Path

from sebench.library.build import build_library
from sebench.library.library import META_FILE, Library
from sebench.library.names import generate_table
from sebench.library.official import load_official_table
from sebench.library.table import NameTable


def cache_root() -> Path:
    base = os.environ.get("SEBENCH_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "sebench"
    return root / "libraries"


def official_library(api_doc_path: str | Path) -> Library:
    """The official `zwc` library, built from the official `api_doc.jsonl`."""
    data = Path(api_doc_path).read_bytes()
    key = _key("official", hashlib.sha256(data).hexdigest())
    return _cached(key, lambda: load_official_table(api_doc_path), api_doc_path, "official", None)


def seeded_library(
    seed: int, api_doc_path: str | Path | None = None, package: str = "zwc", submodule: str = "rfx"
) -> Library:
    """A fresh library from `seed` (docs renamed from `api_doc_path` when given)."""
    doc_hash = hashlib.sha256(Path(api_doc_path).read_bytes()).hexdigest() if api_doc_path else ""
    key = _key("seed", str(seed), package, submodule, doc_hash)
    return _cached(
        key,
        lambda: generate_table(seed, package=package, submodule=submodule),
        api_doc_path,
        "seed",
        seed,
    )


def _key(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in (*parts, _runtime_fingerprint()):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()[:16]


def _runtime_fingerprint() -> str:
    # the runtime and doc code: a changed library engine must not reuse an old build
    digest = hashlib.sha256()
    runtime = resources.files("sebench.library.runtime")
    for item in sorted(runtime.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".py"):
            digest.update(item.name.encode() + item.read_bytes())
    package = resources.files("sebench.library")
    for name in ("docs.py", "build.py", "names.py", "table.py", "official.py"):
        digest.update(name.encode() + package.joinpath(name).read_bytes())
    return digest.hexdigest()


def _cached(key: str, make_table, api_doc_path, origin: str, seed: int | None) -> Library:
    target = cache_root() / key
    if (target / META_FILE).exists():
        return Library.load(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    table: NameTable = make_table()
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=target.parent))
    try:
        build_library(table, tmp, api_doc_path=api_doc_path, origin=origin, seed=seed)
        try:
            tmp.rename(target)
        except OSError:  # another process finished first: use its build
            if not (target / META_FILE).exists():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return Library.load(target)
