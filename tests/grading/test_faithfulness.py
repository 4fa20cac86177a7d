"""Honest responses land in the same official category under our grader and the official rules.

`official_category` below is a small, independent reference of the official grader: a regex
check for a library call inside the function, a regex check for NumPy imports, then the program
run in a fresh `python` process (the library on PYTHONPATH) with the test calls appended, its
stdout split on '#' and compared per test case (with the shared comparator: the official
comparator's known bugs only matter for dict results and cheats, not for these responses).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from sebench.grading.compare import outputs_match
from tests.grading.conftest import fenced

MARKER = "=====sebench-results====="


def official_category(task, response: str, library) -> str:
    blocks = re.findall(r"```python\n(.*?)```", response, re.DOTALL)
    if not blocks:
        return "without_zwc"
    code = blocks[-1]
    constructor = library.table.constructor.rsplit(".", 1)[1]
    # "inside the function": any indented line (a function body, helpers included)
    body = "\n".join(line for line in code.splitlines() if line[:1].isspace())
    calls = [name for name in re.findall(r"zwc\.(?:\w+\.)?(\w+)\(", body) if name != constructor]
    try:
        compile(code, "<response>", "exec")
    except SyntaxError:
        return "without_zwc"
    if not calls:
        return "without_zwc"
    if re.search(r"^\s*(import numpy|from numpy)", code, re.MULTILINE):
        return "numpy"
    harness = [code, "results = []"]
    harness += [f"results.append({task.entry_point}({args}))" for args in task.test_inputs]
    harness += [f"print({MARKER!r})", "print('#'.join(str(r) for r in results))"]
    env = {**os.environ, "PYTHONPATH": str(library.root), "OPENBLAS_NUM_THREADS": "1"}
    try:
        run = subprocess.run(
            [sys.executable, "-c", "\n".join(harness)],
            capture_output=True,
            text=True,
            timeout=3 + 5,
            env=env,
            cwd="/tmp",
        )  # + interpreter start
    except subprocess.TimeoutExpired:
        return "exe_error"
    if run.returncode != 0 or MARKER not in run.stdout:
        return "exe_error"
    printed = run.stdout.split(MARKER, 1)[1].strip().split("#")
    if len(printed) != len(task.expected):
        return "result_error"
    ok = all(outputs_match(p, e) for p, e in zip(printed, task.expected, strict=True))
    return "acc" if ok else "result_error"


def _rename(code: str, entry: str) -> str:
    return re.sub(rf"\bdef {entry}\(", f"def {entry}_inner(", code)


def honest_responses(task, library) -> dict[str, str]:
    """Library translation, wrong answer, crash, NumPy (with and without the library), plain."""
    from sebench.data.translate import to_library

    entry = task.entry_point
    names = library.table.numpy_to_library()
    out = {}
    translated = to_library(task.numpy_reference or "", library.table).code
    if translated:
        out["translated"] = translated
        inner = _rename(translated, entry)
        out["wrong"] = inner + (
            f"\n\ndef {entry}(*args, **kwargs):\n"
            f"    {names['mean']}([1.0])\n"
            f"    return [{entry}_inner(*args, **kwargs), 'extra']\n"
        )
        out["crash"] = inner + (
            f"\n\ndef {entry}(*args, **kwargs):\n"
            f"    {names['mean']}([1.0])\n"
            f"    {entry}_inner(*args, **kwargs)\n"
            "    raise ValueError('bad input')\n"
        )
    if task.numpy_reference:
        out["numpy"] = task.numpy_reference
        out["numpy+library"] = (
            "import zwc\n"
            + _rename(task.numpy_reference, entry)
            + (
                f"\n\ndef {entry}(*args, **kwargs):\n    {names['mean']}([1.0])\n"
                f"    return {entry}_inner(*args, **kwargs)\n"
            )
        )
    if task.plain_reference and "numpy" not in task.plain_reference:
        out["plain"] = task.plain_reference
    return out


@pytest.mark.slow
def test_honest_responses_get_the_official_category(dev_tasks, grader, official_library):
    cases = []
    for index, task in enumerate(dev_tasks):
        for kind, code in honest_responses(task, official_library).items():
            if kind == "translated" or index < 12:  # every task's translation; the rest on 12
                cases.append((task, fenced(code), kind))
    with ThreadPoolExecutor(max_workers=2) as threads:
        expected = list(
            threads.map(lambda case: official_category(case[0], case[1], official_library), cases)
        )
    verdicts = {}
    for (task, _, kind), verdict in grader.grade_many(cases):
        verdicts[(task.task_id, kind)] = verdict
    mismatches = []
    for (task, _, kind), official in zip(cases, expected, strict=True):
        verdict = verdicts[(task.task_id, kind)]
        if verdict.official_category.value != official:
            mismatches.append(f"{task.task_id} {kind}: official {official}, ours {verdict}")
    counts = {}
    for official in expected:
        counts[official] = counts.get(official, 0) + 1
    print(f"{len(cases)} honest responses, official categories {counts}")
    assert counts.get("acc", 0) >= 40 and len(counts) == 5, counts
    assert not mismatches, "\n".join(mismatches)
