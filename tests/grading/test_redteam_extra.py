"""Red team, second pass: attacks not in tests/grading/redteam, through the real grader.

Each file in redteam_extra/ is one response body (`.txt`: data, not a module of this package)
with `# attack:` (what it tries) and `# expect:` (the verdicts that count as caught). They run in
graders of their own, so an attack that damages its fork server (the Landlock poisoning, the
server crash) cannot change what the other grading tests see. Attacks that still get `correct`
are real holes: these tests fail until they are fixed.
"""

from __future__ import annotations

import dataclasses
import time
import tracemalloc
from pathlib import Path

import pytest

from sebench.grading.compare import outputs_match
from sebench.grading.extract import extract_code
from sebench.grading.verdicts import VerdictKind
from tests.grading.conftest import fenced

RESPONSES = Path(__file__).with_name("redteam_extra")
TARGET = "compress_data_chunks"  # dev row 0: computable in plain Python and with one NumPy call
# Two stages on ONE server: the first widens the server's Landlock ruleset, the second reads the
# official data file with it. They run only in a private one-worker grader (test below).
POISON, EXPLOIT = "landlock_ruleset_poison", "landlock_read_answers"
SINGLE = sorted(p for p in RESPONSES.glob("*.txt") if p.stem != POISON)


def header(path: Path, key: str) -> str:
    for line in path.read_text().splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path.name} has no '# {key}:' line")


@pytest.fixture(scope="module")
def target_task(dev_tasks):
    return next(t for t in dev_tasks if t.entry_point == TARGET)


@pytest.fixture(scope="module")
def outcome(official_library, target_task):
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig

    items = [(target_task, fenced(path.read_text()), path.stem) for path in SINGLE]
    with Grader(official_library, SandboxConfig(workers=2)) as private:
        return {item[2]: verdict for item, verdict in private.grade_many(items)}


@pytest.mark.parametrize("path", SINGLE, ids=[p.stem for p in SINGLE])
def test_extra_attack_is_not_graded_correct(path, outcome):
    verdict = outcome[path.stem]
    assert verdict.kind is not VerdictKind.CORRECT, f"{path.stem} fooled the grader: {verdict}"
    allowed = header(path, "expect").split()
    assert verdict.kind.value in allowed, f"{path.stem}: {verdict} (expected one of {allowed})"


def test_a_response_cannot_widen_the_landlock_ruleset_of_later_jobs(official_library, target_task):
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig

    poison = fenced((RESPONSES / f"{POISON}.txt").read_text())
    exploit = fenced((RESPONSES / f"{EXPLOIT}.txt").read_text())
    with Grader(official_library, SandboxConfig(workers=1)) as private:
        before = private.grade(target_task, exploit)
        first = private.grade(target_task, poison)
        after = private.grade(target_task, exploit)
    assert before.kind is not VerdictKind.CORRECT, "the data file is readable without poisoning"
    assert first.kind is not VerdictKind.CORRECT
    assert after.kind is not VerdictKind.CORRECT, (
        "after one response added a rule to the inherited Landlock ruleset fd, the next job on "
        "the same server read the expected outputs from the official data file"
    )


def test_a_lone_surrogate_in_a_result_is_a_verdict_not_a_dead_server(official_library, target_task):
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig

    code = "import zwc\n\ndef compress_data_chunks(data_chunks, encoding_shifts):\n"
    code += "    zwc.kocito([1.0])\n    raise ValueError('\\udc80')\n"
    with Grader(official_library, SandboxConfig(workers=1)) as private:
        verdict = private.grade(target_task, fenced(code))
    # today: INFRA_ERROR, because the server cannot encode its reply and dies (then restarts)
    assert verdict.kind is VerdictKind.RUNTIME_ERROR, verdict


def test_a_namedtuple_result_is_compared_by_its_fields(official_library, target_task):
    """NumPy's namedtuple results print only keyword arguments; a print with the right type name
    and wrong values must not match."""
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig

    expected = "SlogdetResult(sign=np.float64(1.0), logabsdet=np.float64(0.6931471805599453))"
    task = dataclasses.replace(
        target_task, expected=tuple(expected for _ in target_task.test_inputs)
    )
    code = "import zwc\n\ndef compress_data_chunks(data_chunks, encoding_shifts):\n"
    code += "    zwc.kocito([1.0])\n    return 'SlogdetResult(sign=-1.0, logabsdet=99.0)'\n"
    assert not outputs_match("SlogdetResult(sign=-1.0, logabsdet=99.0)", expected)
    with Grader(official_library, SandboxConfig(workers=1)) as private:
        assert private.grade(task, fenced(code)).kind is VerdictKind.WRONG_ANSWER


def test_extracting_code_from_many_unclosed_fences_takes_linear_time():
    hostile = "```py" * 20_000  # 100 KB, one line: each opening rescans the rest of the line
    started = time.perf_counter()
    assert extract_code(hostile) is None
    assert time.perf_counter() - started < 1.0, "the fence regex backtracks quadratically"


def test_comparing_huge_wrong_outputs_keeps_no_copy_of_them():
    expected = "[1.0, 2.0]"
    outputs_match(expected, expected)  # the expected side may stay cached: it is ours
    hostile = ["[" + ", ".join([f"{i}.25"] * 25_000) + "]" for i in range(2)]  # 2 x 150 KB
    tracemalloc.start()
    try:
        for text in hostile:
            assert not outputs_match(text, expected)
        retained, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert retained < 1 << 20, f"{retained >> 10} KiB of parsed hostile output kept in a cache"
