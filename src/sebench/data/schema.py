"""The typed task: one benchmark problem, whatever source it came from.

Official rows (hub, local folder or JSONL) and generated rows (the demo's task generator) all
become a `Task`. The expected results are split per test case from `right_exe_result`, the
official ground truth; the `output` strings inside `test_cases` are never used for grading.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from typing import Any

SPLITS = ("train", "single_test", "multiple_test")

_SIGNATURE = re.compile(r"^\s*def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def entry_point_of(signature: str) -> str | None:
    """The function name in a signature line such as `def solve(x1, x2):`."""
    match = _SIGNATURE.match(signature or "")
    return match.group(1) if match else None


def make_task_id(split: str, query: str, signature: str, expected: str) -> str:
    """A stable id from the row's content (the official `1func_query_id` is not unique)."""
    digest = hashlib.sha1(f"{query}\x00{signature}\x00{expected}".encode()).hexdigest()[:10]
    return f"{split}-{digest}"


@dataclass(frozen=True)
class Task:
    task_id: str
    split: str
    query: str
    signature: str  # the official `function_name`: `def solve(x1, x2):`
    entry_point: str  # `solve`
    test_inputs: tuple[str, ...]  # keyword-argument text pasted into the call: `x1=[1, 2], x2=3`
    expected: tuple[str, ...]  # one printed result per test case (from `right_exe_result`)
    selected_functions: tuple[
        str, ...
    ]  # NumPy names the task is built around: `mean`, `linalg.inv`
    numpy_reference: str | None = None  # `example_output`: a NumPy solution
    plain_reference: str | None = None  # `right_code` without its harness: a plain-Python solution
    example_input: str | None = None
    example_output: str | None = None  # the model-written example output (shown in prompts only)
    source_id: str | None = None  # the official `1func_query_id`, when there is one
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def right_exe_result(self) -> str:
        return "#".join(self.expected)

    def to_dict(self) -> dict[str, Any]:
        row = asdict(self)
        row["test_inputs"] = list(self.test_inputs)
        row["expected"] = list(self.expected)
        row["selected_functions"] = list(self.selected_functions)
        return row
