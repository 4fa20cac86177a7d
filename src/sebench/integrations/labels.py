"""What an RL engine sends to name a sample's task: a task id, or the whole task row.

A task id is looked up in the tasks loaded at start (`--data`). A task row (the official row
format that `sebench` writes everywhere: `official_row`) travels as a JSON object, or as a
string holding one, so that an engine can grade tasks the service was never given; verl's
exported parquet carries its task this way (`reward_model.ground_truth`), so `compute_score`
needs no task file. A row is parsed by the same reader as the data files, so a malformed row is
refused with the same located message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from sebench.data.rows import official_row, task_from_official_row
from sebench.data.schema import SPLITS, Task
from sebench.errors import SebenchError

DEFAULT_SPLIT = "train"  # rows sent for RL are training tasks; the split never changes a verdict
PARSED_ROWS_KEPT = 4096  # a group's samples share one row: parse it once


class LabelError(SebenchError):
    """A label that names no task: unknown id, or a malformed row."""


def task_label(task: Task) -> str:
    """The self-contained label of `task`: its row as a JSON string (with its split)."""
    return json.dumps({**official_row(task), "split": task.split}, sort_keys=True)


class TaskLabels:
    """Resolves labels to tasks: ids against `tasks`, rows parsed (and cached) as they come."""

    def __init__(
        self, tasks: Mapping[str, Task] | None = None, load_hint: str = "start with --data"
    ) -> None:
        self.tasks = dict(tasks or {})
        self.load_hint = load_hint  # how this caller loads tasks, for the unknown-id message

    def resolve(self, label: Any, where: str = "label") -> Task:
        if isinstance(label, Mapping):
            return _row_task(json.dumps(label, sort_keys=True), where)
        if not isinstance(label, str):
            raise LabelError(
                f"{where}: expected a task id or a task row, got {type(label).__name__}"
            )
        if label.lstrip().startswith("{"):
            return _row_task(label, where)
        task = self.tasks.get(label)
        if task is None:
            known = f"{len(self.tasks)} loaded" if self.tasks else f"none loaded: {self.load_hint}"
            raise LabelError(f"{where}: unknown task id {label!r} ({known})")
        return task


def _row_task(text: str, where: str) -> Task:
    try:
        return _parse_row(text)
    except LabelError as exc:
        raise LabelError(f"{where}: {exc}") from None


@lru_cache(maxsize=PARSED_ROWS_KEPT)
def _parse_row(text: str) -> Task:
    try:
        row = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LabelError(f"a task row that is not valid JSON ({exc.msg})") from None
    if not isinstance(row, dict):
        raise LabelError("a task row must be a JSON object")
    split = row.get("split") if row.get("split") in SPLITS else DEFAULT_SPLIT
    try:
        return task_from_official_row(row, split)
    except SebenchError as exc:
        raise LabelError(f"a malformed task row: {exc}") from None
