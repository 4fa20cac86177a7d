"""Tasks as OpenRLHF prompt data: JSONL rows with chat messages and the label the service reads.

OpenRLHF reads `--prompt_data` with `datasets`, takes each row's `--input_key` (chat messages,
rendered with the model's template under `--apply_chat_template`) and passes `--label_key` to
the reward as `labels[i]`. The label is the whole task row (JSON), so the reward service grades
it without a task file; `task_id` is kept beside it. Open and closed prompts go to two files,
aligned row by row as in the verl export (OpenRLHF itself samples and updates on one prompt).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sebench.data.schema import Task
from sebench.errors import SebenchError
from sebench.integrations.labels import task_label
from sebench.integrations.verl_data import VARIANTS
from sebench.jsonl import write_jsonl
from sebench.prompts.modes import PromptMode
from sebench.prompts.render import render_prompt
from sebench.provenance import provenance

INPUT_KEY = "prompt"  # --input_key
LABEL_KEY = "label"  # --label_key
RECORD_FILE = "sebench_export.json"


def openrlhf_rows(tasks: Sequence[Task], library: Any, mode: PromptMode) -> list[dict[str, Any]]:
    return [
        {
            INPUT_KEY: render_prompt(task, library, mode),
            LABEL_KEY: task_label(task),
            "task_id": task.task_id,
            "index": index,
        }
        for index, task in enumerate(tasks)
    ]


def export_openrlhf(
    tasks: Sequence[Task], library: Any, out_dir: str | Path, **record: Any
) -> dict[str, Path]:
    """Write `open.jsonl` and `closed.jsonl` (aligned) and a provenance record."""
    if not tasks:
        raise SebenchError("no tasks to export")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SebenchError(f"{out}: is a file; --out takes a folder")
    files = {}
    for mode in VARIANTS:
        files[mode.value] = out / f"{mode.value}.jsonl"
        write_jsonl(files[mode.value], openrlhf_rows(tasks, library, mode))
    keys = {"input_key": INPUT_KEY, "label_key": LABEL_KEY}
    (out / RECORD_FILE).write_text(
        json.dumps(
            provenance(
                rows=len(tasks), files={k: p.name for k, p in files.items()}, **keys, **record
            ),
            indent=2,
        )
    )
    return files
