"""The grader end to end: real sandbox, real official library, a real task of the dev set."""

from __future__ import annotations

import sys

import pytest

from sebench.grading.verdicts import VerdictKind
from tests.grading.conftest import fenced

SHIFT = "compress_data_chunks"  # dev row 0: left shifts, expected `[12, 14, 120, 16]#...`


@pytest.fixture(scope="module")
def task(dev_tasks):
    found = next(t for t in dev_tasks if t.entry_point == SHIFT)
    return found


@pytest.fixture(scope="module")
def names(official_library):
    return official_library.table.numpy_to_library()


def grade(grader, task, code):
    return grader.grade(task, fenced(code))


def test_library_solution_is_correct(grader, task, names):
    code = (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n"
    )
    verdict = grade(grader, task, code)
    assert verdict.kind is VerdictKind.CORRECT, verdict


def test_wrong_result_is_wrong_answer_with_the_failing_case(grader, task, names):
    code = (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts) + 1\n"
    )
    verdict = grade(grader, task, code)
    assert verdict.kind is VerdictKind.WRONG_ANSWER
    assert verdict.case == 0


def test_exception_is_runtime_error_with_its_type(grader, task, names):
    code = (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    x = {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n"
        "    return {}['missing']\n"
    )
    verdict = grade(grader, task, code)
    assert verdict.kind is VerdictKind.RUNTIME_ERROR
    assert verdict.error_type == "KeyError"
    assert verdict.official_category.value == "exe_error"


def test_plain_python_is_no_library(grader, task):
    code = (
        f"def {SHIFT}(data_chunks, encoding_shifts):\n"
        "    return [c << s for c, s in zip(data_chunks, encoding_shifts)]\n"
    )
    assert grade(grader, task, code).kind is VerdictKind.NO_LIBRARY


def test_dead_library_call_is_no_library_at_run_time(grader, task, names):
    code = (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    if len(data_chunks) < 0:\n        {names['mean']}(data_chunks)\n"
        "    return [c << s for c, s in zip(data_chunks, encoding_shifts)]\n"
    )
    verdict = grade(grader, task, code)
    assert verdict.kind is VerdictKind.NO_LIBRARY
    assert verdict.rule == "no-library-call-at-run-time"


def test_constructor_only_is_no_library(grader, task, names):
    code = (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    a = {names['array']}(data_chunks)\n"
        "    return [int(c) << s for c, s in zip(a, encoding_shifts)]\n"
    )
    assert grade(grader, task, code).kind is VerdictKind.NO_LIBRARY


def test_numpy_code_that_also_calls_the_library_is_uses_numpy(grader, task, names):
    code = (
        f"import numpy as np\nimport zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    {names['mean']}(data_chunks)\n"
        "    return np.left_shift(data_chunks, encoding_shifts).tolist()\n"
    )
    verdict = grade(grader, task, code)
    assert verdict.kind is VerdictKind.USES_NUMPY
    assert verdict.rule == "numpy-import" and verdict.line == 1


def test_numpy_only_code_is_uses_numpy_but_officially_without_zwc(grader, task):
    # officially "no library call in the function" is decided before NumPy use; the kind still
    # says NumPy so that tables show a NumPy agent as uses_numpy
    code = (
        f"import numpy as np\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        "    return np.left_shift(data_chunks, encoding_shifts).tolist()\n"
    )
    verdict = grade(grader, task, code)
    assert verdict.kind is VerdictKind.USES_NUMPY
    assert verdict.rule is not None and verdict.line == 1
    assert verdict.official_category.value == "without_zwc"
    assert verdict.to_dict()["official"] == "without_zwc"


def test_no_code_and_syntax_error(grader, task):
    assert grader.grade(task, "I cannot solve this.").kind is VerdictKind.NO_CODE
    verdict = grade(grader, task, "def broken(:\n    pass")
    assert verdict.kind is VerdictKind.SYNTAX_ERROR and verdict.line == 1


@pytest.mark.parametrize(
    "raised",
    ["raise SyntaxError('no')", "class SyntaxError(Exception):\n    pass\nraise SyntaxError('no')"],
)
def test_a_syntax_error_raised_while_running_is_a_runtime_error(grader, task, names, raised):
    """Only compiling the program makes a syntax error: one the program raises (or an exception
    of its own so named) is a crash, officially `exe_error` (a red team's: the name alone made
    it `syntax_error`, officially `without_zwc`)."""
    code = (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n\n{raised}\n"
    )
    verdict = grade(grader, task, code)
    assert verdict.kind is VerdictKind.RUNTIME_ERROR, verdict
    assert verdict.official_category.value == "exe_error", verdict
    compiled_wrong = code.replace(raised, "return 2")  # parses; `return` outside a function
    verdict = grade(grader, task, compiled_wrong)
    assert verdict.kind is VerdictKind.SYNTAX_ERROR, verdict


def _from_deeper(frames: int, call):
    return call() if frames == 0 else _from_deeper(frames - 1, call)


@pytest.mark.parametrize("caller_frames", [0, 650])
def test_how_deep_code_may_nest_does_not_depend_on_the_callers_stack(
    grader, task, names, caller_frames
):
    """A red team's: the walk's RecursionError was the only bound, so a sum of ~490 terms was
    `correct` through the reward server and `policy` through `sebench eval`, whose stacks
    differ; TRL's trainer calls from deeper still. The bound is fixed now (`MAX_NESTING`), and
    the static stages run on the grader's own thread."""
    from sebench.grading.policy import MAX_NESTING

    def program(terms: int) -> str:
        return (
            f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
            f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n\n"
            f"def pad(v):\n    return {' + '.join(['v'] * terms)}\n"
        )

    below = _from_deeper(caller_frames, lambda: grade(grader, task, program(MAX_NESTING - 20)))
    above = _from_deeper(caller_frames, lambda: grade(grader, task, program(MAX_NESTING + 20)))
    assert below.kind is VerdictKind.CORRECT, below
    assert above.kind is VerdictKind.POLICY and above.rule == "too-deep", above


@pytest.mark.parametrize("quote", ['"{}"', "\"'{}'\""])
def test_a_string_annotation_nests_within_the_same_bound(grader, task, names, quote):
    """A red team's (NW): a string annotation is one node of the tree `MAX_NESTING` measures,
    and the policy parses it and walks it; that walk's only bound was its RecursionError, at
    the process's recursion limit, which a trainer raises (torch's inductor: 2,000). A local
    annotation of 600 union terms, never evaluated, was `correct` there and `policy` at the
    default limit. Now the annotation's depth counts against the same bound, whatever the
    limit, and in a string within a string too."""
    from sebench.grading.policy import MAX_NESTING

    def program(terms: int) -> str:
        annotation = quote.format("|".join(["int"] * terms))
        return (
            f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
            f"    note: {annotation} = 0\n"
            f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n"
        )

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4000))
    try:
        below = grade(grader, task, program(MAX_NESTING // 2))
        above = grade(grader, task, program(3 * MAX_NESTING))
    finally:
        sys.setrecursionlimit(limit)
    assert below.kind is VerdictKind.CORRECT, below
    assert above.kind is VerdictKind.POLICY and above.rule == "too-deep", above


def test_infinite_loop_is_timeout(grader, task, names):
    code = (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    {names['mean']}(data_chunks)\n    while True:\n        pass\n"
    )
    assert grade(grader, task, code).kind is VerdictKind.TIMEOUT


def test_missing_function_is_runtime_error(grader, task, names):
    code = f"import zwc\n\ndef other(x):\n    return {names['mean']}(x)\n"
    verdict = grade(grader, task, code)
    assert verdict.kind is VerdictKind.RUNTIME_ERROR and verdict.error_type == "NameError"


def test_grade_many_grades_every_item_once(grader, task, names):
    good = fenced(
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n"
    )
    items = [(task, good if i % 2 else "no code", i) for i in range(12)]
    seen = []
    results = list(grader.grade_many(items, on_result=lambda item, v: seen.append(item[2])))
    assert sorted(item[2] for item, _ in results) == list(range(12)) == sorted(seen)
    for item, verdict in results:
        expected = VerdictKind.CORRECT if item[2] % 2 else VerdictKind.NO_CODE
        assert verdict.kind is expected


def test_public_grade_function_reuses_one_warm_grader(task, names, official_library):
    import sebench

    code = fenced(
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n"
    )
    assert sebench.grade(task, code, official_library).correct
    assert not sebench.grade(task, "nothing", official_library).correct


def test_sandbox_failure_is_an_infra_error_never_a_pass(grader, task, names):
    from sebench.grading.sandbox import Execution

    code = (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n"
    )
    prepared = grader.prepare(task, fenced(code))
    verdict = grader.judge(task, prepared, Execution.infra_error("server died"))
    assert verdict.kind is VerdictKind.INFRA_ERROR and "server died" in verdict.detail
    assert verdict.official_category.value == "exe_error"


def test_killing_the_fork_server_mid_job_is_counted_not_dropped(official_library, task, names):
    """A response cannot take the grader down: a dead server is replaced and the run goes on."""
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig

    good = fenced(
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n"
    )
    with Grader(official_library, SandboxConfig(workers=1)) as fresh:
        servers = list(getattr(fresh._pool, "_servers", ()))
        if not servers:
            pytest.skip("the sandbox pool no longer exposes its servers")
        for server in servers:
            server.kill()
        verdicts = [fresh.grade(task, good) for _ in range(3)]
    assert all(v.kind in (VerdictKind.INFRA_ERROR, VerdictKind.CORRECT) for v in verdicts)
    assert verdicts[-1].kind is VerdictKind.CORRECT


def test_a_huge_code_block_is_refused_by_size_before_it_is_parsed(grader, task, names, monkeypatch):
    """A 4 MB block cost the grader process (outside the sandbox) 2 GB and 18 s in the static
    checks; it is refused by its size alone, and the parser never sees it."""
    import ast

    body = f"    x = {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n"
    code = f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n" + body * 70_000
    parsed = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: parsed.append(1) or real_parse(*a, **k))
    for response in (fenced(code), "thinking " * 200_000 + fenced("x = 1")):
        verdict = grader.prepare(task, response).verdict
        assert verdict is not None and verdict.kind is VerdictKind.POLICY, verdict
        assert verdict.rule == "response-too-large" and "limit" in verdict.detail
        assert verdict.official_category.value == "exe_error"
    assert parsed == []


def test_the_official_rules_block_is_refused_by_size_too(grader, task, names, monkeypatch):
    """The official rules read the last block opened by ```python, not the block the strict
    rules read: a red team hid a 1 MiB block behind a small honest ```py one (4 s and 942 MB in
    the grader process, under the strict rules too)."""
    import ast

    honest = (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n"
    )
    response = "```python\n" + "a\n" * 520_000 + "```\n\n```py\n" + honest + "```"
    parsed = []
    real_parse = ast.parse
    monkeypatch.setattr(
        ast, "parse", lambda *a, **k: parsed.append(len(a[0])) or real_parse(*a, **k)
    )
    verdict = grader.grade(task, response)
    assert max(parsed) < 10_000, "the huge block was parsed"
    assert verdict.official_category.value == "exe_error"  # the official rules' too-large


def test_the_static_checks_worn_out_by_the_text_are_a_refusal_not_an_infra_error(grader, task):
    """A string annotation the parser cannot hold (MemoryError) was an infra error, which RL
    leaves out of its group: a wrong answer could escape its 0 (a red team's)."""
    wrong = f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts: '" + "-" * 20_000 + "1'):\n"
    verdict = grader.grade(task, fenced(wrong + "    return [0]\n"))
    assert verdict.kind is not VerdictKind.INFRA_ERROR, verdict
    assert "annotation-code" in (verdict.rule or "") + (verdict.detail or ""), verdict


def test_the_static_checks_stay_fast_on_texts_made_to_slow_them(grader, task):
    """A red team's 64 KiB: 100 classes each deriving from all the earlier ones and ~4,900
    calls (the Enum check walked the class lattice per call: 54 s), and a comment of chains
    that are no calls (the official library check restarted at each link: 23.7 s)."""
    import time

    from sebench.grading.official_rules import official_prepare

    def official(task, response):
        return official_prepare(task, response, grader.table)

    classes = "".join(
        f"class A{i}({', '.join(f'A{j}' for j in range(i)) or 'object'}):\n    pass\n"
        for i in range(100)
    )
    lattice = classes + f"def {SHIFT}(data_chunks, encoding_shifts):\n" + "    A99(1, 1)\n" * 4_000
    chains = f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n    # " + "a. " * 20_000
    for stage, code in ((grader.prepare, lattice), (official, chains + "\n    return [0]\n")):
        started = time.perf_counter()
        stage(task, fenced(code))
        assert time.perf_counter() - started < 5, f"{stage.__name__} too slow"


def test_the_size_limits_are_configurable(official_library, task, names):
    from sebench.grading.grader import Grader

    code = (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts)\n"
    )
    small = Grader(official_library, max_code_chars=40)
    assert small.prepare(task, fenced(code)).verdict.rule == "response-too-large"
    roomy = Grader(official_library, max_response_chars=len(fenced(code)))
    assert roomy.prepare(task, fenced(code)).verdict is None


NUMPY_SHIFT = (
    f"import numpy as np\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
    "    return np.left_shift(np.array(data_chunks), np.array(encoding_shifts))\n"
)


def test_a_numpy_answer_to_a_numpy_form_task_is_correct(grader, task):
    """The paper's upper bound: NumPy allowed, the library not required, results printed from
    NumPy objects compared as data; the same answer is `uses_numpy` otherwise."""
    assert grader.grade(task, fenced(NUMPY_SHIFT), numpy_form=True).kind is VerdictKind.CORRECT
    assert grader.grade(task, fenced(NUMPY_SHIFT)).kind is VerdictKind.USES_NUMPY
    wrong = NUMPY_SHIFT.replace("np.left_shift", "np.right_shift")
    verdict = grader.grade(task, fenced(wrong), numpy_form=True)
    assert verdict.kind is VerdictKind.WRONG_ANSWER and verdict.case == 0


def test_a_plain_python_answer_to_a_numpy_form_task_needs_no_library(grader, task):
    plain = (
        f"def {SHIFT}(data_chunks, encoding_shifts):\n"
        "    return [a << b for a, b in zip(data_chunks, encoding_shifts)]\n"
    )
    assert grader.grade(task, fenced(plain), numpy_form=True).kind is VerdictKind.CORRECT
    assert grader.grade(task, fenced(plain)).kind is VerdictKind.NO_LIBRARY


def test_numpy_form_tasks_run_under_the_same_policy_and_sandbox(grader, task):
    dynamic = f"def {SHIFT}(data_chunks, encoding_shifts):\n    return __import__('os')\n"
    verdict = grader.grade(task, fenced(dynamic), numpy_form=True)
    assert verdict.kind is VerdictKind.POLICY and verdict.rule == "dunder-name"
    slow = (
        f"import numpy as np\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        "    while True:\n        np.zeros(3)\n"
    )
    assert grader.grade(task, fenced(slow), numpy_form=True).kind is VerdictKind.TIMEOUT
    escape = (
        f"import numpy as np\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        "    return np.loadtxt('/etc/passwd', dtype=str, delimiter='\\n')[:2]\n"
    )
    verdict = grader.grade(task, fenced(escape), numpy_form=True)
    assert verdict.kind is VerdictKind.RUNTIME_ERROR, verdict
    assert verdict.error_type in ("PermissionError", "FileNotFoundError")  # the isolation layers
