"""A small, independent reference of the official grader, for comparing against ours.

Used by the faithfulness tests (same official category for honest responses) and by
`benchmarks/grader_throughput.py` (the official approach's cost: one fresh interpreter per sample
that imports NumPy and the library). The official rules: a regex check for a library call inside
the function (any indented line, helpers included), a regex check for NumPy imports, then the
program run with the test calls appended, its stdout split on '#' and compared per test case
with the shared comparator (the official comparator's known bugs only matter for dict results
and cheats, not for honest responses). Never run this on hostile code: it has no sandbox.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from sebench.grading.compare import outputs_match

MARKER = "=====sebench-results====="


def official_category(task, response: str, library, timeout_s: float = 3.0) -> str:
    """`acc`, `without_zwc`, `numpy`, `result_error` or `exe_error`, by the official rules."""
    blocks = re.findall(r"```python\n(.*?)```", response, re.DOTALL)
    if not blocks:
        return "without_zwc"
    code = blocks[-1]
    try:
        compile(code, "<response>", "exec")
    except SyntaxError:
        return "without_zwc"
    constructor = library.table.constructor.rsplit(".", 1)[1]
    body = "\n".join(line for line in code.splitlines() if line[:1].isspace())
    if not [n for n in re.findall(r"zwc\.(?:\w+\.)?(\w+)\(", body) if n != constructor]:
        return "without_zwc"
    if re.search(r"^\s*(import numpy|from numpy)", code, re.MULTILINE):
        return "numpy"
    program = "\n".join(
        [
            code,
            "results = []",
            *[f"results.append({task.entry_point}({args}))" for args in task.test_inputs],
            f"print({MARKER!r})",
            "print('#'.join(str(r) for r in results))",
        ]
    )
    env = {**os.environ, "PYTHONPATH": str(library.root), "OPENBLAS_NUM_THREADS": "1"}
    try:
        run = subprocess.run(
            [sys.executable, "-c", program],
            capture_output=True,
            text=True,
            timeout=timeout_s + 2,  # + the interpreter's start
            env=env,
            cwd="/tmp",
        )
    except subprocess.TimeoutExpired:
        return "exe_error"
    if run.returncode != 0 or MARKER not in run.stdout:
        return "exe_error"
    printed = run.stdout.split(MARKER, 1)[1].strip().split("#")
    if len(printed) != len(task.expected):
        return "result_error"
    same = all(outputs_match(p, e) for p, e in zip(printed, task.expected, strict=True))
    return "acc" if same else "result_error"
