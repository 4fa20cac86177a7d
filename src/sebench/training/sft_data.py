"""SFT examples: a prompt (chat messages) and the completion to learn.

Two sources, one example type:
- generated tasks with their target answers (`sebench train tasks`): one example per task; the
  closed and open arms are built from the same tasks in the same order with the same targets;
- the SFT data file of `sebench data sft` (`sebench.training.sft_pipeline`): one example per kept
  answer, whose row holds both prompts; the arm picks which one is trained.

Examples are stored as JSONL rows `{"task_id", "arm", "prompt", "completion"}` in TRL's
conversational prompt-completion format.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.data.schema import Task
from sebench.errors import InputError
from sebench.jsonl import iter_jsonl, write_jsonl
from sebench.training.taskprompts import Arm, answer, distractor_docs, messages

# The `format` field of every row `sebench data sft` writes.
SFT_DATA_FORMAT = "sebench-sft-data/1"


@dataclass(frozen=True)
class SFTExample:
    task_id: str
    arm: Arm
    prompt: list[dict[str, str]]  # chat messages before the answer
    completion: list[dict[str, str]]  # the assistant's answer

    def to_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "arm": self.arm.value,
            "prompt": self.prompt,
            "completion": self.completion,
        }


def build_examples(tasks: Sequence[Task], arm: Arm, *, distractors: int = 0) -> list[SFTExample]:
    """One example per task, in the tasks' order."""
    examples = []
    for task in tasks:
        if "target" not in task.extra:
            raise InputError(f"task {task.task_id} has no target answer (extra.target)")
        noise = distractor_docs(task, tasks, distractors) if arm is Arm.OPEN else []
        examples.append(
            SFTExample(
                task_id=task.task_id,
                arm=arm,
                prompt=messages(task, arm, noise),
                completion=[{"role": "assistant", "content": answer(task)}],
            )
        )
    return examples


def write_examples(path: str | Path, examples: Iterable[SFTExample]) -> None:
    write_jsonl(path, [e.to_dict() for e in examples])


def is_sft_data(path: str | Path) -> bool:
    """True when `path` is a file written by `sebench data sft` (its first row says so)."""
    for _, row in iter_jsonl(path):
        return row.get("format") == SFT_DATA_FORMAT
    return False


def read_sft_data(path: str | Path, arm: Arm) -> list[SFTExample]:
    """The examples of a `sebench data sft` file: each kept answer under its `arm` prompt."""
    examples = []
    for line, row in iter_jsonl(path):
        try:
            prompt = row["prompts"][arm.value]
            completion = row["completion"]
            if not (isinstance(prompt, list) and prompt and isinstance(completion, list)):
                raise ValueError(f"'prompts.{arm.value}' and 'completion' must be message lists")
            examples.append(
                SFTExample(
                    task_id=str(row["task_id"]),
                    arm=arm,
                    prompt=list(prompt),
                    completion=list(completion),
                )
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise InputError(
                f"not a row of `sebench data sft`: {exc}", path=str(path), line=line
            ) from None
    if not examples:
        raise InputError("no kept answers to train on", path=str(path))
    return examples


def read_examples(path: str | Path) -> list[SFTExample]:
    examples = []
    for line, row in iter_jsonl(path):
        try:
            examples.append(
                SFTExample(
                    task_id=str(row["task_id"]),
                    arm=Arm(row["arm"]),
                    prompt=list(row["prompt"]),
                    completion=list(row["completion"]),
                )
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise InputError(f"not an SFT example: {exc}", path=str(path), line=line) from None
    return examples
