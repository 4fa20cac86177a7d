"""Step records: what each step of a run did, one JSON file per step in RUN_DIR/steps/.

A record holds the step's key (the hash of its inputs and config: a step is skipped when its
record is `done` under the same key), its state, the process that ran it, wall time, the error
of a failed step, what it produced (`result`) and its provenance. Records are written
atomically, so a kill leaves either the old record or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from sebench.jsonl import write_json

STEPS_DIR = "steps"


class StepState(StrEnum):
    RUNNING = "running"  # started; if its process is gone it was killed (`interrupted` in status)
    DONE = "done"
    FAILED = "failed"
    INTERRUPTED = "interrupted"  # Ctrl-C: stopped cleanly, resumable


@dataclass
class StepRecord:
    step: str
    key: str
    state: StepState
    pid: int
    started: str
    wall_s: float | None = None
    error: str | None = None
    result: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        row = asdict(self)
        row["state"] = self.state.value
        return row

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> StepRecord:
        return cls(**{**row, "state": StepState(row["state"])})

    def process_alive(self) -> bool:
        """Whether the process that wrote a `running` record still runs (on this machine)."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # another user's process: it exists
            return True
        return True


def record_path(run_dir: Path, step_id: str) -> Path:
    return run_dir / STEPS_DIR / (step_id.replace("/", "--") + ".json")


def read_record(run_dir: Path, step_id: str) -> StepRecord | None:
    path = record_path(run_dir, step_id)
    if not path.is_file():
        return None
    try:
        return StepRecord.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, KeyError, TypeError, ValueError):
        return None  # unreadable: as if the step never ran, so it runs again


def write_record(run_dir: Path, record: StepRecord) -> None:
    write_json(record_path(run_dir, record.step), record.to_dict())
