"""Red team: hostile responses through the real grader, official library, a real dev task.

Each file in responses/ is one response body (wrapped in a python fence here) that makes a real
attempt: if its trick worked it would print the right results while using the library as little
as possible. Its header says what it tries (`# attack:`) and which verdicts count as caught
(`# expect:`). Every one must end non-correct, the whole batch must finish, and nothing outside
the sandbox may change (marker files, the library's files).
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from sebench.grading.verdicts import VerdictKind
from tests.conftest import have_official_data
from tests.grading.conftest import fenced

RESPONSES = Path(__file__).with_name("responses")
ATTACKS = sorted(RESPONSES.glob("*.py"))
TARGET = "compress_data_chunks"  # dev row 0; its answer is computable in plain Python
MARKERS = [Path("/tmp/sebench-redteam-marker"), Path.home() / "sebench-redteam-marker"]
# Attacks that only a library fix can stop, kept as strict xfails until it lands (none now:
# `numpy_scalar_leak` was one until the library wrapped the scalars it returns).
LIBRARY_GAPS: dict[str, str] = {}


def header(path: Path, key: str) -> str:
    for line in path.read_text().splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path.name} has no '# {key}:' line")


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def outcome(grader, dev_tasks, official_library):
    task = next(t for t in dev_tasks if t.entry_point == TARGET)
    for marker in MARKERS:
        marker.unlink(missing_ok=True)
    before = tree_digest(official_library.root)
    items = [(task, fenced(path.read_text()), path.stem) for path in ATTACKS]
    started = time.monotonic()
    verdicts = {item[2]: verdict for item, verdict in grader.grade_many(items)}
    elapsed = time.monotonic() - started
    return {
        "verdicts": verdicts,
        "elapsed": elapsed,
        "before": before,
        "after": tree_digest(official_library.root),
    }


def test_there_are_at_least_thirty_distinct_attacks():
    assert len(ATTACKS) >= 30
    assert all(header(path, "attack") for path in ATTACKS)


@pytest.mark.parametrize("path", ATTACKS, ids=[p.stem for p in ATTACKS])
def test_attack_is_not_graded_correct(path, outcome, request):
    if path.stem in LIBRARY_GAPS:
        request.applymarker(pytest.mark.xfail(reason=LIBRARY_GAPS[path.stem], strict=True))
    verdict = outcome["verdicts"][path.stem]
    assert verdict.kind is not VerdictKind.CORRECT, f"{path.stem} fooled the grader"
    if (
        not have_official_data()
        and verdict.kind is VerdictKind.RUNTIME_ERROR
        and "has no attribute" in (verdict.detail or "")
    ):
        pytest.skip("needs the official data: the attack calls a function by its official name")
    allowed = header(path, "expect").split()
    assert verdict.kind.value in allowed, f"{path.stem}: {verdict} (expected one of {allowed})"


def test_the_whole_batch_finishes_in_bounded_time(outcome):
    assert len(outcome["verdicts"]) == len(ATTACKS)
    assert outcome["elapsed"] < 120


def test_nothing_outside_the_sandbox_changed(outcome):
    assert outcome["after"] == outcome["before"], "the library's files were modified"
    for marker in MARKERS:
        assert not marker.exists(), f"{marker} was written"


def test_grader_still_grades_honest_code_after_the_attacks(
    outcome, grader, dev_tasks, official_library
):
    task = next(t for t in dev_tasks if t.entry_point == TARGET)
    shift = official_library.table.numpy_to_library()["bitwise_left_shift"]
    code = (
        f"import zwc\n\ndef {TARGET}(data_chunks, encoding_shifts):\n"
        f"    return {shift}(data_chunks, encoding_shifts)\n"
    )
    assert grader.grade(task, fenced(code)).kind is VerdictKind.CORRECT
