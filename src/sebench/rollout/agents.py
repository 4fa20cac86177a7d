"""Reference agents: responses without a model, to show what the benchmark measures.

- ORACLE: the task's NumPy reference translated to the library (`sebench.data.translate`);
  it should score near 100%, showing the tasks are solvable with the library.
- NUMPY: the NumPy reference as is; it must score 0 with the verdict "uses numpy".
- PLAIN_PYTHON: the plain-Python reference (`right_code`); it must score 0 with "no library".

Each answers in the format a model would: a fenced python block.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from enum import StrEnum
from typing import Any

from sebench.data.schema import Task
from sebench.rollout.backend import ChatRequest, Completion, FinishReason, SamplingConfig


class AgentKind(StrEnum):
    ORACLE = "oracle"
    NUMPY = "numpy-agent"
    PLAIN_PYTHON = "plain-python-agent"


def fenced(code: str) -> str:
    return f"```python\n{code.strip()}\n```"


class ReferenceAgent:
    """A `Backend` that answers each request from its task's reference solution."""

    def __init__(
        self, kind: AgentKind | str, tasks: Sequence[Task] | Mapping[str, Task], library: Any = None
    ) -> None:
        self.kind = AgentKind(kind)
        if self.kind == AgentKind.ORACLE and library is None:
            raise ValueError("the oracle needs the library whose names it translates into")
        self.library = library
        self._tasks = dict(tasks) if isinstance(tasks, Mapping) else {t.task_id: t for t in tasks}

    @property
    def model_name(self) -> str:
        return str(self.kind)

    def answer(self, task: Task) -> str:
        """The agent's response text for `task` (no code block when it has nothing to offer)."""
        match self.kind:
            case AgentKind.NUMPY:
                code = task.numpy_reference
            case AgentKind.PLAIN_PYTHON:
                code = task.plain_reference
            case AgentKind.ORACLE:
                if task.numpy_reference is None:
                    return "The task has no NumPy reference to translate."
                from sebench.data.translate import to_library

                translation = to_library(task.numpy_reference, self.library.table)
                if translation.code is None:
                    return "The NumPy reference could not be translated: " + "; ".join(
                        translation.problems
                    )
                code = translation.code
        if not code:
            return "The task has no reference solution of this kind."
        return fenced(code)

    def generate(
        self, requests: Sequence[ChatRequest], sampling: SamplingConfig
    ) -> Iterator[Completion]:
        for request in requests:
            start = time.monotonic()
            task = self._tasks.get(request.task_id)
            if task is None:
                yield Completion.failed(request, f"unknown task {request.task_id}", 0.0)
                continue
            yield Completion(
                task_id=request.task_id,
                sample=request.sample,
                text=self.answer(task),
                finish_reason=FinishReason.STOP,
                prompt_tokens=None,
                completion_tokens=None,
                latency_s=time.monotonic() - start,
                seed=request.seed,
                mode=request.mode,
            )

    def close(self) -> None:
        pass
