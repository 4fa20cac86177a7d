"""A memory of the library: short insights distilled from solved tasks, shown instead of the docs.

The paper's memory baseline (Expel-style, Zhao et al. 2023): at test time the model sees what an
agent wrote down about the library while it solved training tasks, not the library's docs. The
insights are made by `sebench memory build` (`sebench.training.insights`); this module holds the
file they are stored in and how a prompt shows them (prompt mode `memory`).

File (`insights.json`): `{"format": "sebench-memory/1", "package": "zwc", "insights": [{"text",
"importance", "sources"}], ...}` with the build's provenance and statistics beside them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.errors import InputError
from sebench.jsonl import write_json

MEMORY_FORMAT = "sebench-memory/1"


@dataclass(frozen=True)
class Insight:
    text: str  # one line about the library: a name, a signature, a usage pattern
    # Expel's vote count: 2 when added, +1 per upvote or edit, -1 per downvote, dropped at 0
    importance: int
    sources: tuple[str, ...]  # task ids of the solved tasks that added, edited or upvoted it

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "importance": self.importance, "sources": list(self.sources)}


@dataclass(frozen=True)
class Memory:
    package: str  # the library the insights are about; a prompt for another one is refused
    insights: tuple[Insight, ...]  # in the order shown, most important first
    source: str | None = None  # the file it was read from, recorded with the rollouts

    @property
    def digest(self) -> str:
        """Identifies the insights shown (the same file gives the same prompts)."""
        text = "\n".join(i.text for i in self.insights)
        return hashlib.sha256(f"{self.package}\n{text}".encode()).hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        """What a rollout records about the memory it showed."""
        return {"source": self.source, "insights": len(self.insights), "digest": self.digest}


def write_memory(path: str | Path, memory: Memory, **extra: Any) -> None:
    """Write `memory` (and `extra`: provenance, statistics) as one JSON file, atomically."""
    record = {
        "format": MEMORY_FORMAT,
        "package": memory.package,
        "insights": [i.to_dict() for i in memory.insights],
        **extra,
    }
    write_json(path, record)


def load_memory(path: str | Path) -> Memory:
    """The memory in `path`; a missing or malformed file is an `InputError` naming it."""
    path = Path(path)
    if not path.is_file():
        raise InputError(
            "no such file (expected insights made by `sebench memory build`)", path=str(path)
        )
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not JSON: {exc}", path=str(path)) from None
    if not isinstance(record, dict) or record.get("format") != MEMORY_FORMAT:
        raise InputError(
            f'not a memory file (no "format": "{MEMORY_FORMAT}"); make one with '
            "`sebench memory build`",
            path=str(path),
        )
    try:
        insights = tuple(
            Insight(
                text=str(row["text"]),
                importance=int(row.get("importance", 1)),
                sources=tuple(str(s) for s in row.get("sources", ())),
            )
            for row in record["insights"]
        )
        return Memory(package=str(record["package"]), insights=insights, source=str(path))
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"malformed memory file: {exc!r}", path=str(path)) from None
