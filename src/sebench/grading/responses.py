"""Responses to grade, in either of the two row formats, joined with their tasks.

- Ours (what `sebench rollout` writes): `task_id`, `response`, optional `sample`, plus rollout
  metadata; the task comes from the dataset rows given with `--data`.
- The official custom format: `query`, `response`, `test_cases`, `right_exe_result`, optionally
  `function_name`; the row carries its own task, unless it also has a `task_id` found in the
  dataset rows (what `sebench validate --emit-responses` writes): then that task is used.

A bad row becomes a `BadRow` naming file and line; it never stops the others.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sebench.data.rows import task_from_official_row
from sebench.data.schema import SPLITS, Task
from sebench.errors import InputError, SebenchError

# Rollout metadata carried from a response row into its result row.
METADATA_FIELDS = ("finish_reason", "completion_tokens", "latency_s", "model", "mode", "seed")
CUSTOM_SPLIT = "custom"  # split of tasks that come inside official custom rows
SampleKey = tuple[str, str | None, int]  # (task_id, prompt mode or None, sample)


@dataclass(frozen=True)
class Item:
    """One sample to grade."""

    task: Task
    sample: int
    response: str | None
    line: int  # line in the responses file
    metadata: dict[str, Any] = field(default_factory=dict)
    rollout_error: str | None = None  # the request failed for good: nothing to grade

    @property
    def mode(self) -> str | None:
        mode = self.metadata.get("mode")
        return None if mode is None else str(mode)

    @property
    def key(self) -> SampleKey:
        # one rollout file may hold several prompt modes of the same task and sample
        return (self.task.task_id, self.mode, self.sample)


@dataclass(frozen=True)
class BadRow:
    """A row that could not be turned into a sample; `message` names file and line."""

    path: str
    line: int
    message: str

    @property
    def key(self) -> tuple[str, None, int]:
        return ("!bad-row", None, self.line)


def read_responses(
    path: str | Path, tasks: Mapping[str, Task] | None = None
) -> Iterator[Item | BadRow]:
    """Items (and bad rows) of a responses file, in file order.

    `tasks` maps task ids to tasks for rows in our format; without it such rows are bad rows.
    A row without `sample` gets the number of earlier rows of the same task and prompt mode
    (0, 1, 2, ...). A row whose `error` is set (the rollout request failed for good) is an item
    with `rollout_error`, graded as an infra error, never as a missing answer.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file (expected a responses .jsonl)", path=str(path))
    seen: Counter[tuple[str, str | None]] = Counter()
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw.decode("utf-8"))
                if not isinstance(row, dict):
                    raise InputError(
                        f"expected a JSON object, got {type(row).__name__}",
                        path=str(path),
                        line=number,
                    )
                item = _item_from_row(row, tasks, seen, str(path), number)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                yield BadRow(str(path), number, f"{path}:{number}: not a JSON line ({exc})")
                continue
            except InputError as exc:
                yield BadRow(str(path), number, str(exc))
                continue
            yield item


def _item_from_row(
    row: dict[str, Any],
    tasks: Mapping[str, Task] | None,
    seen: Counter[tuple[str, str | None]],
    path: str,
    line: int,
) -> Item:
    where = {"path": path, "line": line}
    if "response" not in row:
        raise InputError("is missing", field="response", **where)
    response = row["response"]
    if response is not None and not isinstance(response, str):
        raise InputError(
            f"expected a string, got {type(response).__name__}", field="response", **where
        )
    if "task_id" in row and "right_exe_result" not in row:
        task_id = row["task_id"]
        if not isinstance(task_id, str):
            raise InputError("expected a string", field="task_id", **where)
        if tasks is None:
            raise InputError(
                "rows in the task_id format need the dataset: pass --data FILE",
                field="task_id",
                **where,
            )
        task = tasks.get(task_id)
        if task is None:
            raise InputError(
                f"unknown task id {task_id!r} (not in the --data rows)", field="task_id", **where
            )
    elif "query" in row and "right_exe_result" in row:
        known = row.get("task_id")
        if tasks is not None and isinstance(known, str) and known in tasks:
            # e.g. `validate --emit-responses` rows: the dataset's task keeps its split and its
            # functions, which the custom fields do not carry
            task = tasks[known]
        else:
            task = _custom_task(row, path, line)
    else:
        raise InputError(
            "neither format: expected 'task_id' + 'response', or the official 'query', "
            "'response', 'test_cases', 'right_exe_result'",
            **where,
        )
    mode = row.get("mode")
    if mode is not None and not isinstance(mode, str):
        raise InputError(f"expected a string, got {type(mode).__name__}", field="mode", **where)
    counter = (task.task_id, mode)
    sample = row.get("sample")
    if sample is None:
        sample = seen[counter]
    elif not isinstance(sample, int) or isinstance(sample, bool) or sample < 0:
        raise InputError("expected a non-negative integer", field="sample", **where)
    seen[counter] += 1
    metadata = {k: row[k] for k in METADATA_FIELDS if k in row}
    error = row.get("error")
    return Item(
        task=task,
        sample=sample,
        response=response,
        line=line,
        metadata=metadata,
        rollout_error=str(error) if error else None,
    )


def _custom_task(row: dict[str, Any], path: str, line: int) -> Task:
    named = isinstance(row.get("function_name"), str) and row["function_name"].strip()
    source = row if named else {**row, "function_name": "def unnamed():"}
    split = row.get("split") if row.get("split") in SPLITS else CUSTOM_SPLIT
    task = task_from_official_row(source, split, path=path, line=line)
    if not named:
        # the official rule then applies: the function the response's code defines first
        task = dataclasses.replace(task, signature="", entry_point="")
    return task


def load_tasks(data: Sequence[str | Path]) -> dict[str, Task]:
    """Tasks from dataset files or folders, by task id. A file's split comes from `SPLIT=PATH`,
    else its name (`single_test_dev.jsonl` -> single_test), else single_test (as `sebench rollout`
    does); a folder gives every split in it."""
    from sebench.data import sources

    tasks: dict[str, Task] = {}
    for spec in data:
        split, _, location = str(spec).rpartition("=") if "=" in str(spec) else ("", "", spec)
        location = Path(location)
        if split and split not in SPLITS:
            raise SebenchError(f"--data {spec}: unknown split '{split}' (one of {SPLITS})")
        if location.is_dir() and not split:
            found = []
            for name in SPLITS:
                try:
                    found += sources.load(name, location)
                except SebenchError:
                    continue
            if not found:  # no official layout: every JSONL whose name announces a split
                for path in sorted(location.glob("*.jsonl")):
                    named = sources.infer_split(path)
                    if named is not None:
                        found += sources.load(named, path)
            if not found:
                raise SebenchError(f"--data {location}: no split files found in this folder")
        else:
            # the same default as `sebench rollout`, so task ids agree
            split = split or sources.infer_split(location) or "single_test"
            found = sources.load(split, location)
        for task in found:
            tasks[task.task_id] = task
    return tasks
