"""JSONL reading with located errors, and lossless append-and-resume writing.

Every long job (rollout, grading, validation) writes one JSON object per finished unit of work,
flushed at once, so a crash or Ctrl-C loses nothing and a rerun skips what is already there.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any

from sebench.errors import InputError


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; a bad line raises `InputError`."""
    path = Path(path)
    if not path.exists():
        raise InputError("no such file", path=str(path))
    if path.is_dir():
        raise InputError("is a folder, expected a .jsonl file", path=str(path))
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(
                    "not UTF-8 text (is this a binary file?)", path=str(path), line=number
                ) from None
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"invalid JSON ({exc.msg} at column {exc.colno})", path=str(path), line=number
                ) from None
            if not isinstance(obj, dict):
                raise InputError(
                    f"expected a JSON object, got {type(obj).__name__}", path=str(path), line=number
                )
            yield number, obj


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    return [obj for _, obj in iter_jsonl(path)]


def read_completed(path: str | Path, key: Callable[[dict[str, Any]], Hashable]) -> set[Hashable]:
    """Keys of the rows already written, for resuming; a torn last line (crash) is ignored."""
    path = Path(path)
    done: set[Hashable] = set()
    if not path.exists():
        return done
    if path.is_dir():
        raise InputError("is a folder, expected a .jsonl file to write", path=str(path))
    with path.open("rb") as handle:
        for raw in handle:
            try:
                done.add(key(json.loads(raw)))
            except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
                continue
    return done


class JsonlAppender:
    """Appends rows and flushes each one to disk as it is written.

    A torn last line left by a crash is cut before appending, so the file stays valid JSONL.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _truncate_torn_tail(self.path)
        self._handle = self.path.open("a", encoding="utf-8")

    def write(self, row: dict[str, Any]) -> None:
        self._handle.write(_dumps(row) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def write_all(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            self.write(row)

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_jsonl(path: str | Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write a whole file atomically (temp file, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(_dumps(row) + "\n")
    tmp.replace(path)


def write_json(path: str | Path, data: Any, *, indent: int = 2) -> Path:
    """Write one JSON document atomically (a temp file named by this process, then rename): a
    crash leaves the old file or the new one, never half of one, and two processes writing the
    same file never share a temp file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escaped, as UTF-8 cannot hold them
        text = json.dumps(data, indent=indent)
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def _dumps(row: dict[str, Any]) -> str:
    """Readable UTF-8 where possible; escaped where the text holds lone surrogates (model output
    and sandboxed programs can produce them, and UTF-8 cannot encode them)."""
    text = json.dumps(row, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(row)
    return text


def _truncate_torn_tail(path: Path) -> None:
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as handle:
        data = handle.read()
        if data.endswith(b"\n"):
            return
        cut = data.rfind(b"\n") + 1
        handle.truncate(cut)
