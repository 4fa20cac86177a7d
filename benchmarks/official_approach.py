"""The official approach's cost, for `grader_throughput.py`: not a model of its verdicts.

One fresh interpreter per sample that imports NumPy and the library, runs the program with the
test calls appended and prints the results, after a regex check for a library call and for NumPy
imports; the printed results are compared with sebench's comparator. Its categories are only
there so that the work done is the same kind of work: whether sebench gives the official
grader's categories is tested against the official grader's own output
(`tests/grading/test_faithfulness.py`). Never run this on hostile code: it has no sandbox.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from sebench.grading.compare import outputs_match

MARKER = "=====sebench-results====="


def run_official_approach(task, response: str, library, timeout_s: float = 3.0) -> str:
    """Grade one sample the official way (a fresh interpreter); returns a category name."""
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
