"""Tasks as the parquet rows verl reads, in an open and a closed variant aligned row by row.

verl's documented row (docs/preparation/prepare_data.rst): `data_source` (the reward function's
key), `prompt` (chat messages, to which its dataset applies the chat template), `ability`,
`reward_model` (`{"style": "rule", "ground_truth": ...}`, handed to the reward function) and
`extra_info`. Its own preprocessing scripts write them with `datasets.Dataset.to_parquet`;
here pyarrow (which `datasets`, the `data` extra, installs) writes the same Arrow table directly,
without datasets' import time and progress bars.

The two files hold the same tasks in the same order: row i of `open.parquet` (the prompt with
the task's docs) and row i of `closed.parquet` (the task alone) are the same task, with the same
ground truth. Open-RL trains on `open.parquet`; Closed-RL samples from the open prompt and
updates on the closed one (`sebench train grpo --mode closed`), which needs both prompts of each
task: `extra_info.index` pairs them. `ground_truth` is the whole task row (JSON), so
`compute_score` grades without a task file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.data.schema import Task
from sebench.errors import SebenchError, require
from sebench.integrations.labels import task_label
from sebench.prompts.modes import PromptMode
from sebench.prompts.render import render_prompt
from sebench.provenance import provenance

DATA_SOURCE = "sebench"
ABILITY = "code"
VARIANTS = (PromptMode.OPEN, PromptMode.CLOSED)
RECORD_FILE = "sebench_export.json"


@dataclass(frozen=True)
class VerlExport:
    files: dict[str, Path]  # variant -> parquet file
    rows: int
    record: Path


def verl_rows(tasks: Sequence[Task], library: Any, mode: PromptMode) -> list[dict[str, Any]]:
    """One verl row per task, in `tasks` order."""
    return [
        {
            "data_source": f"{DATA_SOURCE}/{mode.value}",
            "prompt": render_prompt(task, library, mode),
            "ability": ABILITY,
            "reward_model": {"style": "rule", "ground_truth": task_label(task)},
            "extra_info": {
                "index": index,
                "task_id": task.task_id,
                "split": task.split,
                "variant": mode.value,
            },
        }
        for index, task in enumerate(tasks)
    ]


def export_verl(
    tasks: Sequence[Task], library: Any, out_dir: str | Path, **record: Any
) -> VerlExport:
    """Write `open.parquet` and `closed.parquet` (aligned) and a provenance record."""
    if not tasks:
        raise SebenchError("no tasks to export")
    pa = require("pyarrow", "data")
    parquet = require("pyarrow.parquet", "data")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SebenchError(f"{out}: is a file; --out takes a folder")
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for mode in VARIANTS:
        path = out / f"{mode.value}.parquet"
        parquet.write_table(pa.Table.from_pylist(verl_rows(tasks, library, mode)), path)
        files[mode.value] = path
    record_path = out / RECORD_FILE
    record_path.write_text(
        json.dumps(
            provenance(
                rows=len(tasks),
                files={name: path.name for name, path in files.items()},
                library={
                    "root": str(library.root),
                    "package": library.package,
                    **{k: library.meta.get(k) for k in ("origin", "seed", "docs_source")},
                },
                **record,
            ),
            indent=2,
        )
    )
    return VerlExport(files, len(tasks), record_path)
