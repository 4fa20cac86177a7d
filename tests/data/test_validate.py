"""`sebench validate`: translated references graded by the real grader, failures classified."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sebench.data.schema import Task
from sebench.data.sources import load_subset
from sebench.grading.validate import (
    Outcome,
    PlainOutcome,
    validate,
    write_responses,
    write_subset,
)


@pytest.fixture(scope="module")
def sandbox_config():
    from sebench.grading.sandbox import SandboxConfig

    return SandboxConfig(workers=2)


@pytest.fixture(scope="module")
def official_report(dev_tasks, official_library, sandbox_config):
    return validate(dev_tasks, official_library, sandbox_config=sandbox_config)


@pytest.fixture(scope="module")
def seeded_report(dev_tasks, seeded_library, sandbox_config):
    return validate(dev_tasks, seeded_library, sandbox_config=sandbox_config)


def _task(task_id: str, numpy_reference: str | None, inputs, expected, plain=None) -> Task:
    return Task(
        task_id=task_id,
        split="single_test",
        query="q",
        signature="def f(a):",
        entry_point="f",
        test_inputs=tuple(inputs),
        expected=tuple(expected),
        selected_functions=("mean",),
        numpy_reference=numpy_reference,
        plain_reference=plain,
    )


def test_dev_split_has_no_translator_gap_and_only_data_failures(official_report):
    counts = official_report.counts()
    assert counts["translator_gap"] == 0
    assert counts["infra_error"] == 0
    assert official_report.fraction >= 0.8
    for v in official_report.tasks:
        if not v.verified:
            assert v.outcome in (Outcome.REFERENCE_DISAGREES, Outcome.REFERENCE_ERROR), v
            assert v.numpy_agrees is False  # the NumPy original fails the same way
    assert official_report.unfaithful() == []


def test_verified_set_is_the_same_for_the_official_library_and_seed_1(
    official_report, seeded_report
):
    assert seeded_report.library["seed"] == 1
    assert official_report.verified_ids == seeded_report.verified_ids
    assert official_report.counts() == seeded_report.counts()


def test_plain_references_mostly_agree_with_the_ground_truth(official_report):
    plain = official_report.plain_counts()
    assert plain["agrees"] >= 0.9 * len(official_report.tasks)
    assert plain["missing"] == 0


def test_emitted_responses_of_verified_tasks_grade_correct_again(
    tmp_path,
    dev_tasks,
    official_report,
    seeded_report,
    official_library,
    seeded_library,
    sandbox_config,
):
    """The emitted file is the official custom format; re-grading it (a different grader
    instance, as any grader could) gives correct for every verified task, for both libraries."""
    from sebench.grading.grader import Grader

    by_id = {t.task_id: t for t in dev_tasks}
    for report, library in ((official_report, official_library), (seeded_report, seeded_library)):
        path = tmp_path / f"responses-{library.meta['origin']}.jsonl"
        assert write_responses(path, dev_tasks, [report]) == len(dev_tasks)
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for field in ("query", "function_name", "response", "test_cases", "right_exe_result"):
            assert all(field in row for row in rows), field
        verified = set(report.verified_ids)
        with Grader(library, sandbox_config) as grader:
            items = [(by_id[r["task_id"]], r["response"]) for r in rows if r["task_id"] in verified]
            verdicts = [verdict for _, verdict in grader.grade_many(items)]
        assert len(verdicts) == len(verified)
        assert all(v.correct for v in verdicts), [str(v) for v in verdicts if not v.correct]


def test_subset_file_round_trips_through_the_subset_loader(tmp_path, official_report):
    path = write_subset(tmp_path / "verified.json", [official_report])
    assert load_subset(path) == set(official_report.verified_ids)
    data = json.loads(path.read_text())
    assert data["splits"][0]["outcomes"]["verified"] == len(official_report.verified_ids)
    assert data["provenance"]["library"]["origin"] == "official"


def test_failures_are_classified_by_whose_fault_they_are(official_library, sandbox_config):
    mean_code = "import numpy as np\ndef f(a):\n    return float(np.mean(a))\n"
    tasks = [
        _task(
            "ok", mean_code, ["a=[1, 3]"], ["2.0"], plain="def f(a):\n    return sum(a) / len(a)\n"
        ),
        # the NumPy original passes, but the translation hits a method the library refuses
        _task(
            "gap",
            "import numpy as np\ndef f(a):\n    return np.abs(np.array(a)).tobytes().hex()[:2]\n",
            ["a=[1]"],
            ["01"],
        ),
        _task(
            "untranslatable",
            "import numpy as np\ndef f(a):\n    return np.random.rand()\n",
            ["a=1"],
            ["0.5"],
        ),
        _task("wrong", mean_code, ["a=[1, 3]"], ["5.0"], plain="def f(a):\n    return 5.0\n"),
        _task(
            "raises",
            "import numpy as np\ndef f(a):\n    return float(np.mean(a[5]))\n",
            ["a=[1, 3]"],
            ["2.0"],
        ),
        _task(
            "no-numpy", "import numpy as np\ndef f(a):\n    return sum(a)\n", ["a=[1, 3]"], ["4"]
        ),
        _task("missing", None, ["a=[1]"], ["1"]),
    ]
    report = validate(tasks, official_library, sandbox_config=sandbox_config)
    got = {v.task_id: v for v in report.tasks}
    assert got["ok"].outcome is Outcome.VERIFIED and got["ok"].plain is PlainOutcome.AGREES
    assert got["gap"].outcome is Outcome.TRANSLATOR_GAP
    assert "the NumPy original passes" in got["gap"].detail
    assert got["untranslatable"].outcome is Outcome.TRANSLATOR_GAP
    assert "numpy.random" in got["untranslatable"].detail
    assert got["wrong"].outcome is Outcome.REFERENCE_DISAGREES
    assert "right_exe_result has '5.0'" in got["wrong"].detail
    assert got["wrong"].plain is PlainOutcome.AGREES
    assert got["raises"].outcome is Outcome.REFERENCE_ERROR
    assert "IndexError" in got["raises"].detail
    assert got["no-numpy"].outcome is Outcome.REFERENCE_WITHOUT_LIBRARY
    assert got["missing"].outcome is Outcome.NO_REFERENCE
    assert report.verified_ids == ["ok"]


def test_cli_validate_prints_the_fraction_and_writes_the_files(tmp_path, single_test_dev_path):
    subset, responses = tmp_path / "verified.json", tmp_path / "responses.jsonl"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "sebench.cli.main",
            "validate",
            "--data",
            str(single_test_dev_path),
            "--out-subset",
            str(subset),
            "--emit-responses",
            str(responses),
            "--workers",
            "2",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**__import__("os").environ, "COLUMNS": "160"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    ids = load_subset(subset)
    rows = len(single_test_dev_path.read_text().splitlines())
    assert f"{len(ids) / rows:.1%}" in run.stdout
    assert len(responses.read_text().splitlines()) == rows


def test_cli_validate_fails_on_an_empty_data_file(tmp_path, official_library):
    empty = tmp_path / "single_test_empty.jsonl"
    empty.write_text("")
    run = subprocess.run(
        [sys.executable, "-m", "sebench.cli.main", "validate", "--data", str(empty)]
        + ["--lib", str(official_library.root), "--out-subset", str(tmp_path / "v.json")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**__import__("os").environ, "COLUMNS": "200"},
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert "no tasks" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "v.json").exists()
