"""The official rules' static stage and judging (docs/grading.md, "Strict and official rules")."""

from __future__ import annotations

import pytest

from sebench.data.schema import Task
from sebench.grading.official_rules import first_def, official_judge, official_prepare
from sebench.grading.rules import Rules
from sebench.grading.sandbox.execution import CaseOutcome, ExecStatus, Execution
from sebench.grading.verdicts import OfficialCategory, VerdictKind

TASK = Task(
    task_id="t",
    split="single_test",
    query="mean",
    signature="def solve(a):",
    entry_point="solve",
    test_inputs=("a=[1, 2]", "a=[2, 4]"),
    expected=("1.5", "3.0"),
    selected_functions=("mean",),
)
SOLVE = "import zwc\n\ndef solve(a):\n    return float(zwc.kocito(a))\n"
HELPER = "def as_number(value):\n    return float(value)\n"


def fence(code: str, opening: str = "```python\n") -> str:
    return f"Answer:\n{opening}{code}```\n"


def prepared(code: str, opening: str = "```python\n", official_library=None):
    return official_prepare(TASK, fence(code, opening), official_library.table)


def test_first_textual_def_counts_even_in_a_comment():
    entry = first_def("# plan: def helper(x): use zwc\nimport zwc\ndef solve(a):\n    return 1\n")
    assert entry.name == "helper" and "zwc.kocito" not in entry.body
    one_liner = first_def("def f(x): return zwc.kocito(x)\n")
    assert one_liner.name == "f" and "return zwc.kocito(x)" in one_liner.body


PY = "```python\n"
NO_RETURN = SOLVE.replace("return ", "print")
BARE_RETURN = SOLVE.replace("return ", "zwc.kocito(a)\n    return\n    ")
DELEGATES = "import zwc\n\ndef solve(a):\n    return g(a)\n\ndef g(a):\n    return zwc.kocito(a)\n"
CONSTRUCTOR_ONLY = "import zwc\n\ndef solve(a):\n    return zwc.yitaf(a)\n"
HELPER_FIRST = "import zwc\n" + HELPER.replace("(value)\n", "(zwc.kocito(value))\n") + SOLVE


@pytest.mark.parametrize(
    ("code", "opening", "kind", "rule"),
    [
        (SOLVE, "```py\n", VerdictKind.NO_CODE, None),
        (SOLVE, "```python \n", VerdictKind.NO_CODE, None),
        (SOLVE.rstrip("\n"), PY, VerdictKind.SYNTAX_ERROR, None),  # the import glued on
        ("# def helper(x): zwc\n" + SOLVE, PY, VerdictKind.NO_LIBRARY, "no-library"),
        (NO_RETURN, PY, VerdictKind.NO_LIBRARY, "return"),
        (BARE_RETURN, PY, VerdictKind.NO_LIBRARY, "return"),
        (DELEGATES, PY, VerdictKind.NO_LIBRARY, "no-library"),
        (CONSTRUCTOR_ONLY, PY, VerdictKind.NO_LIBRARY, "no-library"),
        ("import numpy\n" + SOLVE, PY, VerdictKind.USES_NUMPY, None),
        ("import os\n" + SOLVE, PY, VerdictKind.POLICY, "forbidden-module"),  # policy stays on
        (HELPER_FIRST, PY, VerdictKind.RUNTIME_ERROR, "official-entry-signature"),
    ],
)
def test_static_rules(code, opening, kind, rule, official_library):
    verdict = prepared(code, opening, official_library).verdict
    assert verdict is not None and verdict.kind is kind, verdict
    assert rule is None or rule in (verdict.rule or ""), verdict


@pytest.mark.parametrize(
    "code",
    [
        SOLVE,
        "import zwc\n\ndef solve(a):\n    x = zwc.yitaf(a)\n    y = zwc.yitaf(a)\n    return 1.5\n",
        "import zwc as z\n\ndef solve(a):\n    return float(z.kocito(a))\n",
        "from zwc import kocito\n\ndef solve(a):\n    return float(kocito(a))\n",
        "import zwc\n\ndef solve(a):\n    if False:\n        zwc.kocito(a)\n    return 1.5\n",
    ],
)
def test_code_that_passes_the_static_rules_is_run(code, official_library):
    result = prepared(code, official_library=official_library)
    assert result.verdict is None and result.job.entry_point == "solve"
    assert result.job.code == code + "import zwc\n"


def _execution(printed: list[str], run_s: float) -> Execution:
    cases = tuple(CaseOutcome(p, None, None, 1, 1) for p in printed)
    return Execution(ExecStatus.OK, cases, None, timings={"run": run_s})


def test_the_budget_includes_the_interpreter_start():
    assert official_judge(TASK, _execution(["1.5", "3.0"], 2.5), 3.0).correct
    late = official_judge(TASK, _execution(["1.5", "3.0"], 2.8), 3.0)
    assert late.kind is VerdictKind.TIMEOUT and late.official_category is OfficialCategory.EXE_ERROR


def test_judging_uses_the_official_comparator():
    assert official_judge(TASK, _execution(["[[1.5]]", "[3]"], 0.1), 3.0).correct
    wrong = official_judge(TASK, _execution(["1.5", "True"], 0.1), 3.0)
    assert wrong.official_category is OfficialCategory.RESULT_ERROR


def test_strict_verdicts_carry_the_official_rules_category(grader, official_library):
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig

    nested = fence("import zwc\n\ndef solve(a):\n    return [[float(zwc.kocito(a))]]\n")
    strict = grader.grade(TASK, nested)
    assert strict.kind is VerdictKind.WRONG_ANSWER
    assert strict.official_category is OfficialCategory.ACC
    assert strict.to_dict()["official"] == "acc"
    with Grader(official_library, SandboxConfig(workers=1), rules=Rules.OFFICIAL) as official:
        assert official.grade(TASK, nested).correct
        helper_first = fence("import zwc\n" + HELPER + SOLVE)
        # the helper is the entry function officially, and it calls no library function
        assert official.grade(TASK, helper_first).official_category is OfficialCategory.WITHOUT_ZWC
    assert grader.grade(TASK, helper_first).correct  # strict calls the task's function


def test_a_rebound_entry_function_is_run_not_decided_statically(official_library):
    rebound = "import zwc\n" + HELPER.replace("(value)\n", "(zwc.kocito(value))\n")
    rebound += "as_number = lambda a: float(zwc.kocito(a))\n" + SOLVE
    result = prepared(rebound, official_library=official_library)
    assert result.verdict is None and result.job.entry_point == "as_number"


@pytest.fixture(scope="module")
def official_grader(official_library):
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig

    with Grader(official_library, SandboxConfig(workers=1), rules=Rules.OFFICIAL) as official:
        yield official


def _named(code: str, official_library) -> str:
    for numpy_name in ("vectorize", "concatenate"):
        code = code.replace(f"<{numpy_name}>", official_library.table.entry(numpy_name).name)
    return code


ARRAY = "import zwc\n\ndef solve(a):\n    x = zwc.yitaf(a)\n"
# The official library's array has no unary operator; its `__array__` takes no dtype, so NumPy
# fails where it converts an array that the official library did not unwrap: nested in an
# argument, or an argument of a vectorized function (NumPy's own object, officially).
OFFICIAL_FAILURES = {
    "unary minus": ARRAY + "    return float(zwc.kocito(-(-x)))\n",
    "abs": ARRAY + "    return float(zwc.kocito(abs(x)))\n",
    "vectorize": ARRAY + "    def twice(v):\n        return v * 2\n"
    "    return float(zwc.kocito(zwc.<vectorize>(twice)(x))) / 2\n",
    "nested, dtype=": ARRAY + "    return float(zwc.kocito(zwc.yitaf([x, x], dtype=float)))\n",
    "caught by the program": ARRAY + "    try:\n        y = -x\n    except TypeError:\n"
    "        y = x * -1\n    return float(zwc.kocito(-y))\n",
}
OFFICIALLY_FINE = {
    "honest": SOLVE,
    "operators": ARRAY + "    return float(zwc.kocito((x - 0 * x) * 1 + x ** 1 - x))\n",
    "nested, no dtype": ARRAY + "    return float(zwc.kocito(zwc.<concatenate>([x, x])))\n",
}


@pytest.mark.parametrize("name", sorted(OFFICIAL_FAILURES))
def test_the_official_librarys_failures_are_exe_error_officially_only(
    name, grader, official_grader, official_library
):
    response = fence(_named(OFFICIAL_FAILURES[name], official_library))
    strict = grader.grade(TASK, response)
    assert strict.correct, strict  # this library goes on, and strict judges what it computed
    assert strict.official_category is OfficialCategory.EXE_ERROR
    official = official_grader.grade(TASK, response)
    assert official.kind is VerdictKind.RUNTIME_ERROR, official
    assert official.rule == "official-library-failure" and official.case == 0


@pytest.mark.parametrize("name", sorted(OFFICIALLY_FINE))
def test_code_the_official_library_runs_keeps_acc(name, grader, official_grader, official_library):
    response = fence(_named(OFFICIALLY_FINE[name], official_library))
    assert grader.grade(TASK, response).official_category is OfficialCategory.ACC
    assert official_grader.grade(TASK, response).correct
