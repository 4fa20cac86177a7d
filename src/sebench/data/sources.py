"""Where the official tasks come from: one JSONL file, a local folder, or the Hugging Face hub.

`load(split, source)` accepts
- one JSONL file (rows in the official format),
- a local folder in the official repo's layout (`datasets/train/train.jsonl`,
  `datasets/test/single_test.jsonl`, `datasets/test/multiple_test.jsonl`,
  `datasets/train/api_doc.jsonl`), or the inner folders themselves, or one folder holding the files,
- a folder laid out like the hub dataset (a dataset repo: README with `configs:` or per-config data
  files), read through `datasets.load_dataset(folder, config)`,
- the hub repo id (`jintailin/SE-Bench`, the default), read through `datasets`, cached by it.

With no source, the folder named by the environment variable `SEBENCH_DATA` is tried first, so an
offline machine never reaches for the network.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import urllib.parse
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from sebench.data.rows import task_from_official_row
from sebench.data.schema import SPLITS, Task
from sebench.errors import InputError, SebenchError, require
from sebench.jsonl import iter_jsonl

HUB_REPO = "jintailin/SE-Bench"
# The dataset revision used unless one is passed. TODO(pin): replace "main" by the full commit
# sha of the hub dataset once checked online (this machine cannot reach the hub); a moving branch
# means a rerun may silently see different rows.
HUB_REVISION = "main"
DATA_ENV = "SEBENCH_DATA"

# Official repo layout, relative to its root; the first existing candidate wins.
_SPLIT_FILES: dict[str, tuple[str, ...]] = {
    "train": ("datasets/train/train.jsonl", "train/train.jsonl", "train.jsonl"),
    "single_test": (
        "datasets/test/single_test.jsonl",
        "test/single_test.jsonl",
        "single_test.jsonl",
    ),
    "multiple_test": (
        "datasets/test/multiple_test.jsonl",
        "test/multiple_test.jsonl",
        "multiple_test.jsonl",
    ),
}
_API_DOC_FILES = ("datasets/train/api_doc.jsonl", "train/api_doc.jsonl", "api_doc.jsonl")


def load(
    split: str, source: str | Path | None = None, *, revision: str | None = None
) -> list[Task]:
    """All tasks of `split` from `source` (file, folder, hub id; see the module docstring)."""
    _check_split(split)
    if source is None:
        env = os.environ.get(DATA_ENV)
        source = env if env else HUB_REPO
    path = Path(source).expanduser()
    if path.is_file():
        return load_file(path, split)
    if path.is_dir():
        local = _local_split_file(path, split)
        if local is not None:
            return load_file(local, split)
        if _looks_like_dataset_repo(path):
            return _load_hub(str(path), split, revision=None, label=str(path))
        raise SebenchError(
            f"{path}: no data for split '{split}': expected one of "
            f"{', '.join(_SPLIT_FILES[split])} (official layout) or a dataset folder with the "
            f"hub's layout; pass the JSONL file itself with --data FILE"
        )
    if _is_repo_id(str(source)):
        return _load_hub(str(source), split, revision=revision or HUB_REVISION, label=str(source))
    raise SebenchError(
        f"{source}: no such file or folder (and not a hub dataset id like '{HUB_REPO}'); "
        f"pass --data with a JSONL file, a data folder, or set {DATA_ENV} to a data folder"
    )


def load_file(path: str | Path, split: str) -> list[Task]:
    """Tasks from one JSONL file of official rows; the first malformed row raises `InputError`."""
    _check_split(split)
    rows = ((number, row) for number, row in iter_jsonl(path))
    return _tasks_from_rows(rows, split, path=str(path))


def infer_split(source: str | Path) -> str | None:
    """The split a file's name announces (`single_test_dev.jsonl` -> `single_test`), if any."""
    stem = Path(source).name.lower()
    # longest first: `single_test` must not be read as a `train` file because of a substring
    for split in sorted(SPLITS, key=len, reverse=True):
        if stem.startswith(split):
            return split
    return None


def find_api_doc(source: str | Path | None = None, *, fix: str = "pass --api-doc PATH") -> Path:
    """The `api_doc.jsonl` belonging to `source` (a file, a data folder, `SEBENCH_DATA`, the hub).

    `fix` ends each error message: how the calling command lets the user name the file."""
    if source is None:
        env = os.environ.get(DATA_ENV)
        source = env if env else HUB_REPO
    path = Path(source).expanduser()
    if path.is_file():
        if path.name.startswith("api_doc"):
            return path
        # a split file: its api doc sits next to it or in the official layout above it
        for folder in (path.parent, path.parent.parent, path.parent.parent.parent):
            found = _local_api_doc(folder)
            if found is not None:
                return found
        raise SebenchError(
            f"{path}: no api_doc.jsonl next to this file or in an official layout above it; {fix}"
        )
    if path.is_dir():
        found = _local_api_doc(path)
        if found is not None:
            return found
        raise SebenchError(
            f"{path}: no api_doc.jsonl (looked for {', '.join(_API_DOC_FILES)}); {fix}"
        )
    if _is_repo_id(str(source)):
        return _hub_api_doc(str(source), fix)
    raise SebenchError(f"{source}: no such file or folder; {fix}")


def load_subset(path: str | Path) -> frozenset[str]:
    """Task ids from a subset filter file (`--subset`).

    Accepted: a JSON list of ids, a JSON object with a `task_ids` list (what `sebench validate`
    writes, with its provenance), or JSONL with one id string or `{"task_id": ...}` per line.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file (expected a subset file of task ids)", path=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text (is this a binary file?)", path=str(path)) from None
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        ids = whole.get("task_ids")
        if not isinstance(ids, list):
            raise InputError("expected a list of task ids", path=str(path), field="task_ids")
        return _id_set(ids, str(path))
    if isinstance(whole, list):
        return _id_set(whole, str(path))
    ids: list[Any] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"invalid JSON ({exc.msg} at column {exc.colno})", path=str(path), line=number
            ) from None
        if isinstance(item, dict):
            item = item.get("task_id")
        if not isinstance(item, str):
            raise InputError(
                'expected a task id string or {"task_id": ...}', path=str(path), line=number
            )
        ids.append(item)
    if not ids:
        raise InputError("is empty: no task ids", path=str(path))
    return frozenset(ids)


def filter_tasks(tasks: Sequence[Task], subset: Iterable[str] | None) -> list[Task]:
    """The tasks whose id is in `subset` (all of them when `subset` is None), in their order."""
    if subset is None:
        return list(tasks)
    wanted = frozenset(subset)
    return [task for task in tasks if task.task_id in wanted]


# -- internals -----------------------------------------------------------------------------


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise SebenchError(f"unknown split '{split}': choose one of {', '.join(SPLITS)}")


def _id_set(ids: list[Any], label: str) -> frozenset[str]:
    bad = [index for index, item in enumerate(ids) if not isinstance(item, str)]
    if bad:
        raise InputError(f"item {bad[0]} is not a task id string", path=label, field="task_ids")
    if not ids:
        raise InputError("is empty: no task ids", path=label, field="task_ids")
    return frozenset(ids)


def _tasks_from_rows(
    rows: Iterable[tuple[int | None, dict[str, Any]]], split: str, path: str | None
) -> list[Task]:
    tasks = [task_from_official_row(row, split, path=path, line=number) for number, row in rows]
    return _unique_ids(tasks)


def _unique_ids(tasks: list[Task]) -> list[Task]:
    """Identical rows share a content id; the 2nd, 3rd... copy gets `-2`, `-3` (stable by order)."""
    import dataclasses

    seen: Counter[str] = Counter()
    out = []
    for task in tasks:
        seen[task.task_id] += 1
        if seen[task.task_id] > 1:
            task = dataclasses.replace(task, task_id=f"{task.task_id}-{seen[task.task_id]}")
        out.append(task)
    return out


def _local_split_file(folder: Path, split: str) -> Path | None:
    for relative in _SPLIT_FILES[split]:
        candidate = folder / relative
        if candidate.is_file():
            return candidate
    return None


def _local_api_doc(folder: Path) -> Path | None:
    for relative in _API_DOC_FILES:
        candidate = folder / relative
        if candidate.is_file():
            return candidate
    return None


def _looks_like_dataset_repo(folder: Path) -> bool:
    readme = folder / "README.md"
    if readme.is_file() and "configs:" in readme.read_text(encoding="utf-8", errors="replace"):
        return True
    return any((folder / split).is_dir() for split in SPLITS)


def _is_repo_id(text: str) -> bool:
    parts = text.split("/")
    return (
        len(parts) == 2
        and all(parts)
        and not text.startswith((".", "~"))
        and not text.endswith((".jsonl", ".json"))
    )


def _load_hub(repo: str, split: str, *, revision: str | None, label: str) -> list[Task]:
    """One config of a dataset repo (hub id or local folder with the hub's layout)."""
    datasets = require("datasets", "data")
    if not Path(repo).is_dir():
        _require_hub_reachable(label)
    # A local folder is read through a cache of its own, dropped afterwards: datasets 5 keys its
    # cache of a local dataset repo by the folder's name and config alone, so another folder of
    # the same name (or this one, edited) was answered from a stale cache or refused.
    local = Path(repo).is_dir()
    with tempfile.TemporaryDirectory(prefix="sebench-datasets-") as scratch:
        try:
            dataset = datasets.load_dataset(
                repo, split, split="train", revision=revision, cache_dir=scratch if local else None
            )
            rows = [(index + 1, dict(row)) for index, row in enumerate(dataset)]
        except (FileNotFoundError, ConnectionError, ValueError, OSError) as exc:
            raise SebenchError(
                f"{label}: could not load config '{split}' ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}); offline? download the data "
                f"once and pass --data FOLDER or set {DATA_ENV}=FOLDER"
            ) from exc
    return _tasks_from_rows(iter(rows), split, path=f"{label}[{split}]")


def _hub_api_doc(repo: str, fix: str) -> Path:
    """The api doc file of a hub dataset repo, when the repo has one."""
    hub = require("huggingface_hub", "data")
    _require_hub_reachable(repo)
    for relative in _API_DOC_FILES:
        try:
            return Path(
                hub.hf_hub_download(repo, relative, repo_type="dataset", revision=HUB_REVISION)
            )
        except Exception:  # noqa: BLE001 - any miss (absent file, offline) means: try the next
            continue
    raise SebenchError(
        f"{repo}: the hub dataset has no api_doc.jsonl (the official repo's "
        f"datasets/train/api_doc.jsonl) that could be downloaded; {fix}, or set {DATA_ENV}=FOLDER"
    )


def _require_hub_reachable(label: str) -> None:
    """Fail at once on an offline machine, instead of after a minute of download retries."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
        return  # the hub libraries then answer from their cache, or fail fast themselves
    endpoint = urllib.parse.urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    host = endpoint.hostname or "huggingface.co"
    port = endpoint.port or (443 if endpoint.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as exc:
        raise SebenchError(
            f"{label}: the Hugging Face hub ({host}) cannot be reached ({exc.strerror or exc}); "
            f"offline? pass --data FOLDER with a downloaded copy, set {DATA_ENV}=FOLDER, or set "
            f"HF_HUB_OFFLINE=1 to use a cached copy"
        ) from None
