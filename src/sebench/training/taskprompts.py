"""Prompts for the generated tasks: the closed book (the task alone) and the open book (a short
API-doc block, then the same task).

The two arms of the paradox differ only here: targets, example order and training settings are
identical. The benchmark's full prompts live in `sebench.prompts`; these are deliberately short
so that a 135M model trains on them in seconds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from enum import StrEnum

from sebench.data.schema import Task


class Arm(StrEnum):
    """Which book the model sees in its prompt."""

    CLOSED = "closed"
    OPEN = "open"


def task_text(task: Task) -> str:
    """The problem, then the signature to complete (tests call it with keyword arguments, so
    the parameter's name matters)."""
    return f"{task.query}\n{task.signature}"


# An explicit empty system message: without one, SmolLM2's chat template inserts its default
# ("You are a helpful AI assistant named SmolLM, ...", 16 tokens), a sixth of every closed-book
# training example. Both arms and every evaluation use the same one.
SYSTEM = {"role": "system", "content": ""}


def closed_messages(task: Task) -> list[dict[str, str]]:
    return [SYSTEM, {"role": "user", "content": task_text(task)}]


def open_messages(task: Task, distractors: Sequence[str] = ()) -> list[dict[str, str]]:
    """The API docs of the task's functions (and any distractor docs, shuffled in), then the task."""
    docs = list(task.extra.get("docs", ())) + [
        d for d in distractors if d not in task.extra.get("docs", ())
    ]
    random.Random(task.task_id).shuffle(docs)
    block = "\n".join(f"- {line}" for line in docs)
    return [SYSTEM, {"role": "user", "content": f"Docs:\n{block}\n\n{task_text(task)}"}]


def distractor_docs(task: Task, pool: Sequence[Task], count: int) -> list[str]:
    """`count` docs of other functions from `pool`, chosen deterministically per task."""
    if count <= 0:
        return []
    own = set(task.extra.get("docs", ()))
    seen: dict[str, None] = {}
    for other in pool:
        for line in other.extra.get("docs", ()):
            if line not in own:
                seen.setdefault(line)
    candidates = sorted(seen)
    # The constructor's doc is in every task's own docs, so it never appears as a distractor.
    return random.Random(f"{task.task_id}-distractors").sample(
        candidates, min(count, len(candidates))
    )


def messages(task: Task, arm: Arm, distractors: Sequence[str] = ()) -> list[dict[str, str]]:
    match arm:
        case Arm.CLOSED:
            return closed_messages(task)
        case Arm.OPEN:
            return open_messages(task, distractors)


def answer(task: Task) -> str:
    """The target response: one fenced python block with the task's reference program."""
    return f"```python\n{task.extra['target']}```"
