"""RUN_DIR/manifest.json: the run-folder contract that `sebench report` reads.

    {"schema": 1, "name": str, "model": str,
     "library": {"kind": "official" | "seed", "seed": int | null, "hash": str},
     "expected": {REGIME: {"single": float | null, "multiple": float | null}},
     "arms": [{"regime": str, "seed": int, "split": "single" | "multiple",
               "results": "relative/path/results.jsonl", "summary": "relative/path/summary.json",
               "train_dir": "relative/path" | null, "status": "done" | "failed" | "pending"}]}

Paths are relative to RUN_DIR. It is rewritten atomically after every step, so a reader never
sees half of it. docs/experiments.md documents it; keep the two in step.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from sebench.jsonl import write_json

SCHEMA = 1
MANIFEST = "manifest.json"


class ArmStatus(StrEnum):
    DONE = "done"
    FAILED = "failed"
    PENDING = "pending"  # not run yet, interrupted, outdated, or its regime is not available


@dataclass(frozen=True)
class Arm:
    regime: str
    seed: int
    split: str
    results: str
    summary: str
    train_dir: str | None
    status: ArmStatus

    def to_dict(self) -> dict[str, Any]:
        row = asdict(self)
        row["status"] = self.status.value
        return row


@dataclass(frozen=True)
class Manifest:
    name: str
    model: str
    library_kind: str
    library_seed: int | None
    library_hash: str  # content hash of the built library ("" until it is built)
    expected: dict[str, dict[str, float | None]]
    arms: tuple[Arm, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "name": self.name,
            "model": self.model,
            "library": {
                "kind": self.library_kind,
                "seed": self.library_seed,
                "hash": self.library_hash,
            },
            "expected": self.expected,
            "arms": [arm.to_dict() for arm in self.arms],
        }


def write_manifest(run_dir: Path, manifest: Manifest) -> Path:
    path = run_dir / MANIFEST
    write_json(path, manifest.to_dict())
    return path
