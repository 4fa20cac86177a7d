"""`evaluate` and `sebench eval`: results, summary, resume, bad rows, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from sebench.grading.runner import EvalConfig, evaluate
from sebench.grading.sandbox import SandboxConfig
from tests.grading.conftest import fenced


@pytest.fixture(scope="module")
def responses(dev_tasks, official_library):
    """Honest library translations of the first 6 dev tasks, 2 samples each, plus junk."""
    from sebench.data.translate import to_library

    rows = []
    for task in dev_tasks[:6]:
        code = to_library(task.numpy_reference, official_library.table).code
        rows.append({"task_id": task.task_id, "response": fenced(code), "model": "ref"})
        rows.append({"task_id": task.task_id, "response": "no idea", "model": "ref"})
    return rows


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def config(single_test_dev_path, **extra):
    return EvalConfig(sandbox=SandboxConfig(workers=2), data=(str(single_test_dev_path),), **extra)


def test_evaluate_writes_one_result_per_sample_and_a_summary(
    tmp_path, responses, single_test_dev_path, official_library
):
    path = write(tmp_path / "responses.jsonl", responses)
    progress = []
    summary = evaluate(
        path,
        tmp_path / "results.jsonl",
        tmp_path / "summary.json",
        library=official_library,
        config=config(single_test_dev_path),
        on_progress=lambda done, total, v: progress.append((done, total)),
    )
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 12 and progress[-1] == (12, 12)
    assert {(r["task_id"], r["sample"]) for r in rows} == {
        (r["task_id"], i) for r in responses[::2] for i in (0, 1)
    }
    assert all(r["model"] == "ref" and r["split"] == "single_test" for r in rows)
    assert all(r["functions"][0].startswith("zwc.") for r in rows)
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk["samples"] == summary["samples"] == 12 and summary["tasks"] == 6
    for key in (
        "accuracy",
        "accuracy_ci95",
        "verdicts",
        "official",
        "pass_at_k",
        "per_function",
        "per_split",
        "provenance",
    ):
        assert key in summary, key
    assert summary["verdicts"]["no_code"] == 6
    assert summary["samples_naming_no_function"] == 0
    assert summary["official"]["without_zwc"] >= 0.5
    assert set(summary["pass_at_k"]) == {"1", "2"}
    assert summary["provenance"]["versions"]["numpy"]


def test_rerun_grades_only_missing_samples(
    tmp_path, responses, single_test_dev_path, official_library
):
    path = write(tmp_path / "responses.jsonl", responses)
    out, summary_path = tmp_path / "results.jsonl", tmp_path / "summary.json"
    first = evaluate(
        path, out, summary_path, library=official_library, config=config(single_test_dev_path)
    )
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:5]) + "\n" + lines[5][:10])  # lose 7 rows, one torn
    graded = []
    second = evaluate(
        path,
        out,
        summary_path,
        library=official_library,
        config=config(single_test_dev_path),
        on_progress=lambda done, total, v: graded.append(total),
    )
    assert graded and graded[-1] == 7
    assert len(out.read_text().splitlines()) == 12
    assert second["verdicts"] == first["verdicts"] and second["missing"] == 0
    evaluate(
        path,
        out,
        summary_path,
        library=official_library,
        config=config(single_test_dev_path),
        on_progress=lambda *a: pytest.fail("nothing should be regraded"),
    )


def test_a_changed_response_or_setting_is_graded_again_not_answered_by_an_older_verdict(
    tmp_path, responses, single_test_dev_path, official_library
):
    """A red team's: an honest response graded into `--out`, then a wrong one for the same
    task and sample into the same file: the old `correct` stood (the resume keyed samples by
    task, mode and sample alone). A result counts only for what it graded."""
    out, summary_path = tmp_path / "results.jsonl", tmp_path / "summary.json"
    honest = write(tmp_path / "honest.jsonl", [responses[0]])
    wrong = write(tmp_path / "wrong.jsonl", [{**responses[0], "response": fenced("x = 1")}])
    first = evaluate(
        honest, out, summary_path, library=official_library, config=config(single_test_dev_path)
    )
    assert first["accuracy"] == 1.0
    second = evaluate(
        wrong, out, summary_path, library=official_library, config=config(single_test_dev_path)
    )
    assert second["accuracy"] == 0.0 and second["samples"] == 1, second["verdicts"]
    again = evaluate(  # back to the honest response: its own row answers, nothing is graded
        honest,
        out,
        summary_path,
        library=official_library,
        config=config(single_test_dev_path),
        on_progress=lambda *a: pytest.fail("the honest row's result is in the file"),
    )
    assert again["accuracy"] == 1.0
    # ...and the file's last row of the sample is the honest one's again, as reports read it
    last = json.loads(out.read_text().splitlines()[-1])
    assert last["verdict"] == "correct", last
    graded = []
    evaluate(  # another setting the verdict depends on: graded again
        honest,
        out,
        summary_path,
        library=official_library,
        config=config(single_test_dev_path, tolerance=0.5),
        on_progress=lambda done, total, v: graded.append(total),
    )
    assert graded == [1]
    evaluate(  # the worker count is no such setting
        honest,
        out,
        summary_path,
        library=official_library,
        config=EvalConfig(
            sandbox=SandboxConfig(workers=1), data=(str(single_test_dev_path),), tolerance=0.5
        ),
        on_progress=lambda *a: pytest.fail("workers do not change a verdict"),
    )


def test_bad_rows_are_recorded_once_and_the_rest_is_graded(
    tmp_path, responses, single_test_dev_path, official_library
):
    rows = [responses[1], {"task_id": "missing-task", "response": "x"}, responses[3]]
    path = write(tmp_path / "responses.jsonl", rows)
    path.write_text(path.read_text() + "{broken\n")
    out = tmp_path / "results.jsonl"
    for _ in range(2):
        summary = evaluate(
            path,
            out,
            tmp_path / "s.json",
            library=official_library,
            config=config(single_test_dev_path),
        )
    assert summary["samples"] == 2 and summary["bad_rows"] == 2
    assert any(":2: field 'task_id'" in e for e in summary["bad_row_errors"])
    assert any(":4: not a JSON line" in e for e in summary["bad_row_errors"])


def test_subset_limits_grading_to_listed_tasks(
    tmp_path, responses, single_test_dev_path, official_library
):
    path = write(tmp_path / "responses.jsonl", responses)
    subset = tmp_path / "subset.json"
    subset.write_text(json.dumps([responses[0]["task_id"]]))
    summary = evaluate(
        path,
        tmp_path / "r.jsonl",
        tmp_path / "s.json",
        library=official_library,
        config=config(single_test_dev_path, subset=str(subset)),
    )
    assert summary["samples"] == 2 and summary["tasks"] == 1


def test_official_format_rows_are_graded_without_data(
    tmp_path, single_test_dev_path, official_library, dev_tasks
):
    from sebench.data.translate import to_library

    with open(single_test_dev_path, encoding="utf-8") as handle:
        row = json.loads(handle.readline())
    code = to_library(dev_tasks[0].numpy_reference, official_library.table).code
    custom = {k: row[k] for k in ("query", "test_cases", "right_exe_result", "function_name")}
    path = write(tmp_path / "responses.jsonl", [{**custom, "response": fenced(code)}])
    summary = evaluate(
        path,
        tmp_path / "r.jsonl",
        tmp_path / "s.json",
        library=official_library,
        config=EvalConfig(sandbox=SandboxConfig(workers=1)),
    )
    assert summary["verdicts"]["correct"] == 1
    # the row names no function: its check of library use is the weaker one, and said so
    assert summary["samples_naming_no_function"] == 1
    named = {**custom, "selected_functions": row["selected_functions"]}
    write(tmp_path / "named.jsonl", [{**named, "response": fenced(code)}])
    summary = evaluate(
        tmp_path / "named.jsonl",
        tmp_path / "r2.jsonl",
        tmp_path / "s2.json",
        library=official_library,
        config=EvalConfig(sandbox=SandboxConfig(workers=1)),
    )
    assert summary["verdicts"]["correct"] == 1 and summary["samples_naming_no_function"] == 0
    assert summary["unknown_functions"] == {}
    # a row that names a function the library lacks: its answers cannot show library use, and
    # the summary names what to fix (the CLI prints it)
    misnamed = {
        **custom,
        "selected_functions": [name.upper() for name in row["selected_functions"]],
    }
    write(tmp_path / "misnamed.jsonl", [{**misnamed, "response": fenced(code)}])
    summary = evaluate(
        tmp_path / "misnamed.jsonl",
        tmp_path / "r3.jsonl",
        tmp_path / "s3.json",
        library=official_library,
        config=EvalConfig(sandbox=SandboxConfig(workers=1)),
    )
    assert summary["verdicts"]["no_library"] == 1
    assert summary["unknown_functions"] == {row["selected_functions"][0].upper(): 1}


def test_same_task_and_sample_under_two_modes_are_both_graded_and_resumed(
    tmp_path, responses, single_test_dev_path, official_library
):
    good, junk = responses[0], responses[1]
    rows = [
        {**good, "sample": 0, "mode": "closed"},
        {**junk, "sample": 0, "mode": "open"},
        {**junk, "sample": 1, "mode": "closed"},
        {**good, "sample": 1, "mode": "open"},
        {**junk, "sample": 1, "mode": "open"},  # a true duplicate: a bad row
    ]
    path = write(tmp_path / "responses.jsonl", rows)
    out, summary_path = tmp_path / "results.jsonl", tmp_path / "summary.json"
    first = evaluate(
        path, out, summary_path, library=official_library, config=config(single_test_dev_path)
    )
    results = [json.loads(line) for line in out.read_text().splitlines()]
    graded = {(r["mode"], r["sample"]): r["verdict"] for r in results if "verdict" in r}
    assert graded == {
        ("closed", 0): "correct",
        ("open", 0): "no_code",
        ("closed", 1): "no_code",
        ("open", 1): "correct",
    }
    assert first["samples"] == 4 and first["bad_rows"] == 1 and first["missing"] == 0
    assert any("duplicate sample 1" in e and "mode open" in e for e in first["bad_row_errors"])
    assert set(first["per_mode"]) == {"closed", "open"}
    assert first["per_mode"]["closed"]["samples"] == 2
    assert first["per_mode"]["open"]["accuracy"] == 0.5
    # lose the open mode's results: only those are graded again
    kept = [line for line in out.read_text().splitlines() if '"open"' not in line]
    out.write_text("\n".join(kept) + "\n")
    regraded = []
    second = evaluate(
        path,
        out,
        summary_path,
        library=official_library,
        config=config(single_test_dev_path),
        on_progress=lambda done, total, v: regraded.append(v.kind.value),
    )
    assert sorted(regraded) == ["correct", "no_code"]
    assert second["verdicts"] == first["verdicts"] and second["missing"] == 0


def test_failed_rollout_request_is_an_infra_error_not_no_code(
    tmp_path, responses, single_test_dev_path, official_library
):
    rows = [
        {**responses[0], "sample": 0, "error": None},
        {**responses[0], "sample": 1, "response": "", "error": "APIConnectionError: refused"},
    ]
    path = write(tmp_path / "responses.jsonl", rows)
    out = tmp_path / "results.jsonl"
    summary = evaluate(
        path,
        out,
        tmp_path / "s.json",
        library=official_library,
        config=config(single_test_dev_path),
    )
    results = {r["sample"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert results[0]["verdict"] == "correct"
    assert results[1]["verdict"] == "infra_error"
    assert results[1]["detail"] == "rollout: APIConnectionError: refused"
    assert summary["samples"] == 2 and summary["infra_errors"] == 1
    assert summary["verdicts"]["no_code"] == 0 and summary["bad_rows"] == 0


def test_numpy_code_is_uses_numpy_in_results_and_without_zwc_in_the_summary(
    tmp_path, dev_tasks, single_test_dev_path, official_library
):
    task = dev_tasks[0]
    rows = [{"task_id": task.task_id, "response": fenced(task.numpy_reference)}]
    path = write(tmp_path / "responses.jsonl", rows)
    out = tmp_path / "results.jsonl"
    summary = evaluate(
        path,
        out,
        tmp_path / "s.json",
        library=official_library,
        config=config(single_test_dev_path),
    )
    (row,) = map(json.loads, out.read_text().splitlines())
    assert row["verdict"] == "uses_numpy" and row["official"] == "without_zwc"
    assert summary["verdicts"]["uses_numpy"] == 1
    assert summary["official"]["without_zwc"] == 1.0 and summary["official"]["numpy"] == 0.0
    assert "per_mode" not in summary


def _cli(*args, env=None):
    return [sys.executable, "-m", "sebench.cli.main", "eval", *map(str, args)]


def test_cli_reports_bad_input_in_one_line_with_exit_code_2(tmp_path, official_library):
    result = subprocess.run(
        _cli(
            tmp_path / "absent.jsonl",
            "--out",
            tmp_path / "o.jsonl",
            "--summary",
            tmp_path / "s.json",
            "--lib",
            official_library.root,
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "absent.jsonl" in result.stderr and "Traceback" not in result.stderr


def test_cli_ctrl_c_leaves_a_valid_resumable_results_file(
    tmp_path, dev_tasks, single_test_dev_path, official_library
):
    task = dev_tasks[0]
    names = official_library.table.numpy_to_library()
    slow = fenced(
        f"import zwc\n\ndef {task.entry_point}(data_chunks, encoding_shifts):\n"
        f"    {names['mean']}(data_chunks)\n    while True:\n        pass\n"
    )
    rows = [{"task_id": task.task_id, "response": slow, "sample": i} for i in range(6)]
    path = write(tmp_path / "responses.jsonl", rows)
    out, summary = tmp_path / "results.jsonl", tmp_path / "summary.json"
    args = _cli(
        path,
        "--out",
        out,
        "--summary",
        summary,
        "--lib",
        official_library.root,
        "--data",
        single_test_dev_path,
        "--workers",
        1,
        "--timeout",
        1,
    )
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or not out.read_text().strip()):
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "resume" in stderr
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    assert 1 <= len(kept) < 6 and all(r["verdict"] == "timeout" for r in kept)
    finished = subprocess.run(
        args, capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "120"}
    )
    assert finished.returncode == 0, finished.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["sample"] for r in rows) == list(range(6))
    assert json.loads(summary.read_text())["verdicts"]["timeout"] == 6


@pytest.mark.parametrize("kind", ["missing", "folder"])
def test_cli_fails_at_once_on_a_missing_responses_file_without_looking_for_the_library(
    tmp_path, kind
):
    target = tmp_path / "absent.jsonl"
    if kind == "folder":
        target.mkdir()
    # no --lib and no data anywhere: reaching the library lookup would give another error
    env = {k: v for k, v in os.environ.items() if k != "SEBENCH_DATA"}
    env.update(HOME=str(tmp_path / "home"), SEBENCH_CACHE=str(tmp_path / "cache"))
    result = subprocess.run(
        _cli(target, "--out", tmp_path / "o.jsonl", "--summary", tmp_path / "s.json"),
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(target) in lines[0] and "api_doc" not in lines[0]
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "cache").exists()


@pytest.mark.parametrize("content", ["", "not json\n{}\n"])
def test_cli_fails_when_nothing_was_graded(tmp_path, official_library, content):
    """An empty responses file, or one whose every row is bad, is not a 0.0% score."""
    path = tmp_path / "responses.jsonl"
    path.write_text(content)
    result = subprocess.run(
        _cli(
            path,
            "--out",
            tmp_path / "o.jsonl",
            "--summary",
            tmp_path / "s.json",
            "--lib",
            official_library.root,
        ),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert result.returncode == 2, result.stderr
    assert "nothing was graded" in result.stderr and "Traceback" not in result.stderr
    if content:
        assert "2 bad rows" in result.stderr


def test_numpy_mode_rows_are_graded_as_numpy_form_tasks_and_shown_per_mode(
    tmp_path, dev_tasks, single_test_dev_path, official_library
):
    """The paper's upper-bound row: a NumPy answer to a `mode: numpy` row can be correct; the
    same answer under `closed` is `uses_numpy`. The summary shows each mode."""
    task = next(t for t in dev_tasks if t.entry_point == "compress_data_chunks")
    answer = fenced(
        "import numpy as np\n\ndef compress_data_chunks(data_chunks, encoding_shifts):\n"
        "    return np.left_shift(np.array(data_chunks), np.array(encoding_shifts))\n"
    )
    rows = [
        {"task_id": task.task_id, "response": answer, "mode": "numpy"},
        {"task_id": task.task_id, "response": answer, "mode": "closed"},
    ]
    path = write(tmp_path / "responses.jsonl", rows)
    out = tmp_path / "results.jsonl"
    summary = evaluate(
        path,
        out,
        tmp_path / "s.json",
        library=official_library,
        config=config(single_test_dev_path),
    )
    verdicts = {r["mode"]: r["verdict"] for r in map(json.loads, out.read_text().splitlines())}
    assert verdicts == {"numpy": "correct", "closed": "uses_numpy"}
    assert summary["per_mode"]["numpy"]["accuracy"] == 1.0
    assert summary["per_mode"]["numpy"]["official"]["acc"] == 1.0
    assert summary["per_mode"]["closed"]["accuracy"] == 0.0
    only_numpy = write(tmp_path / "numpy_only.jsonl", rows[:1])
    alone = evaluate(
        only_numpy,
        tmp_path / "r2.jsonl",
        tmp_path / "s2.json",
        library=official_library,
        config=config(single_test_dev_path),
    )
    assert set(alone["per_mode"]) == {"numpy"}  # shown even when it is the only mode


def test_cli_shows_the_accuracy_of_each_mode(
    tmp_path, dev_tasks, single_test_dev_path, official_library
):
    task = next(t for t in dev_tasks if t.entry_point == "compress_data_chunks")
    answer = fenced(
        "import numpy as np\n\ndef compress_data_chunks(data_chunks, encoding_shifts):\n"
        "    return np.left_shift(np.array(data_chunks), np.array(encoding_shifts))\n"
    )
    path = write(
        tmp_path / "r.jsonl", [{"task_id": task.task_id, "response": answer, "mode": "numpy"}]
    )
    result = subprocess.run(
        _cli(path, "--out", tmp_path / "o.jsonl", "--summary", tmp_path / "s.json")
        + ["--lib", str(official_library.root), "--data", str(single_test_dev_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert result.returncode == 0, result.stderr
    assert "mode numpy" in result.stderr and "1.000  (1 samples)" in result.stderr


def test_rows_carry_both_rules_and_the_summary_names_its_rules(
    tmp_path, responses, single_test_dev_path, official_library
):
    from sebench.grading.rules import Rules

    path = write(tmp_path / "responses.jsonl", responses[:4])
    summaries = {}
    for rules in Rules:
        out = tmp_path / f"{rules}.jsonl"
        summaries[rules] = evaluate(
            path,
            out,
            tmp_path / f"{rules}.json",
            library=official_library,
            config=config(single_test_dev_path, rules=rules),
        )
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert all(row["verdict"] and row["official"] for row in rows)
        assert summaries[rules]["rules"] == rules.value
        assert summaries[rules]["provenance"]["config"]["rules"] == rules.value
    # the official fractions are the official rules' whichever rules decide the verdicts
    assert summaries[Rules.STRICT]["official"] == summaries[Rules.OFFICIAL]["official"]
    official = summaries[Rules.OFFICIAL]
    assert official["accuracy"] == official["official"]["acc"]
