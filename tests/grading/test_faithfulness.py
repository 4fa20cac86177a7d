"""The official rules against the official grader's own output.

`official_verdicts_dev.jsonl` holds 231 responses on the dev tasks (64 honest answers, the rest
realistic mutations, named by `kind`), each with the category the official grader's own code
printed for it. The official rules must give the same category except where docs/grading.md
lists a cause; the strict rules must carry the same official category.
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

HONEST = "oracle_entry_first"  # the honest answers: the task's function first, then its helpers

# Every remaining disagreement, with its cause (the same list is in docs/grading.md).
KNOWN_DISAGREEMENTS = {
    ("single_test-f7a5265c9e", 493): "import policy: `import os` is refused, never run",
    ("single_test-3aa17f81b6", 494): "import policy: `import os` is refused, never run",
    ("single_test-c937a26018", 497): "import policy: `import os` is refused, never run",
}
MIN_HONEST, MIN_MUTATED = 0.985, 0.95  # the bar


@pytest.fixture(scope="module")
def official_rows(official_data):
    path = official_data / "official_verdicts_dev.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def graded(official_rows, dev_tasks, official_library, grader):
    """(row, official-rules verdict, strict verdict) for every row."""
    from sebench.grading.grader import Grader
    from sebench.grading.rules import Rules
    from sebench.grading.sandbox import SandboxConfig

    tasks = {task.task_id: task for task in dev_tasks}
    items = [(tasks[row["task_id"]], row["response"], i) for i, row in enumerate(official_rows)]
    with Grader(official_library, SandboxConfig(workers=2), rules=Rules.OFFICIAL) as official:
        by_official = {item[2]: v for item, v in official.grade_many(items)}
    by_strict = {item[2]: v for item, v in grader.grade_many(items)}
    return [(row, by_official[i], by_strict[i]) for i, row in enumerate(official_rows)]


def test_official_rules_give_the_official_graders_categories(graded):
    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    disagreements = {}
    for row, verdict, _ in graded:
        agrees = verdict.official_category.value == row["official_category"]
        per_kind[row["kind"]][0] += agrees
        per_kind[row["kind"]][1] += 1
        if not agrees:
            disagreements[(row["task_id"], row["sample"])] = (
                f"{row['kind']}: official {row['official_category']}, ours {verdict}"
            )
    honest = per_kind[HONEST]
    mutated = [sum(v[i] for k, v in per_kind.items() if k != HONEST) for i in (0, 1)]
    for kind, (agree, total) in sorted(per_kind.items()):
        print(f"{kind:32s} {agree}/{total}")
    print(f"honest {honest[0]}/{honest[1]}, mutated {mutated[0]}/{mutated[1]}")
    unexplained = {k: v for k, v in disagreements.items() if k not in KNOWN_DISAGREEMENTS}
    assert not unexplained, "\n".join(unexplained.values())
    fixed = set(KNOWN_DISAGREEMENTS) - set(disagreements)
    assert not fixed, f"these now agree: drop them from the list and the docs: {fixed}"
    assert honest[0] / honest[1] >= MIN_HONEST
    assert mutated[0] / mutated[1] >= MIN_MUTATED


def test_strict_rules_carry_the_official_rules_category(graded):
    differ = [
        f"{row['kind']} {row['task_id']}: strict {strict}, official rules {official}"
        for row, official, strict in graded
        if strict.official_category is not official.official_category
    ]
    assert not differ, "\n".join(differ)


def test_the_official_verdicts_cover_every_category(graded):
    categories = {row["official_category"] for row, _, _ in graded}
    assert categories == {"acc", "result_error", "exe_error", "without_zwc", "numpy"}
