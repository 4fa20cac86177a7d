"""`sebench experiment status`: what a run folder holds: each step done, running, failed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sebench.errors import SebenchError
from sebench.experiments.records import StepState, read_record
from sebench.experiments.runner import PLAN_FILE

NOT_STARTED = "not started"
OUTDATED = "outdated"  # done under other inputs or config than the latest run planned


@dataclass(frozen=True)
class StepStatus:
    id: str
    kind: str
    state: str  # a StepState value, NOT_STARTED or OUTDATED
    wall_s: float | None = None
    error: str | None = None


def run_status(run_dir: Path) -> list[StepStatus]:
    plan_path = run_dir / PLAN_FILE
    if not plan_path.is_file():
        raise SebenchError(
            f"{run_dir}: not a run folder (no {PLAN_FILE}); start one with "
            "`sebench experiment run RECIPE.toml --out RUN_DIR`"
        )
    rows = []
    for entry in json.loads(plan_path.read_text(encoding="utf-8")):
        record = read_record(run_dir, entry["id"])
        if record is None:
            rows.append(StepStatus(entry["id"], entry["kind"], NOT_STARTED))
            continue
        state = record.state.value
        if record.key != entry["key"]:
            state = OUTDATED
        elif record.state is StepState.RUNNING and not record.process_alive():
            state = StepState.INTERRUPTED.value  # its process was killed
        rows.append(StepStatus(entry["id"], entry["kind"], state, record.wall_s, record.error))
    return rows
