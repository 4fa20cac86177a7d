"""Honest responses land in the same official category under our grader and the official rules.

The official rules come from `tests/helpers/official_reference.py`, a small independent
reference of the official grader (also the official approach in the throughput benchmark).
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.grading.conftest import fenced
from tests.helpers.official_reference import official_category


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
