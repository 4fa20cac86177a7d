"""Malformed data: every problem listed with its location, in one line each; loading stops at the
first with file, line and field."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sebench.data.check import check_file
from sebench.data.sources import load
from sebench.errors import InputError


def _rows(single_test_dev_path: Path, count: int = 3) -> list[dict]:
    lines = single_test_dev_path.read_text().splitlines()[:count]
    return [json.loads(line) for line in lines]


def _write(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def _malformed(kind: str, tmp_path: Path, single_test_dev_path: Path) -> Path:
    """One file per kind of damage; the damage is always in line 2."""
    rows = _rows(single_test_dev_path)
    path = tmp_path / f"{kind}.jsonl"
    if kind == "truncated-json":
        text = json.dumps(rows[1])
        return _write(path, [rows[0], text[: len(text) // 2], rows[2]])
    if kind == "missing-field":
        del rows[1]["right_exe_result"]
    elif kind == "wrong-type":
        rows[1]["test_cases"] = 42
    elif kind == "count-mismatch":
        rows[1]["right_exe_result"] = "1#2"
    elif kind == "empty":
        path.write_text("")
        return path
    elif kind == "binary":
        path.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
        return path
    return _write(path, rows)


KINDS = ["truncated-json", "missing-field", "wrong-type", "count-mismatch", "empty", "binary"]
EXPECTED = {
    "truncated-json": (":2: ", "invalid JSON"),
    "missing-field": (":2: ", "field 'right_exe_result': is missing"),
    "wrong-type": (":2: ", "field 'test_cases': expected"),
    "count-mismatch": (":2: ", "'#'-separated results for 8 test cases"),
    "empty": ("empty.jsonl: ", "empty"),
    "binary": ("binary.jsonl:1: ", "binary"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_check_reports_the_damage_with_its_location(kind, tmp_path, single_test_dev_path):
    path = _malformed(kind, tmp_path, single_test_dev_path)
    report = check_file(path)
    assert not report.ok
    where, what = EXPECTED[kind]
    errors = [str(p) for p in report.problems if p.severity.value == "error"]
    assert any(where in e and what in e for e in errors), errors
    assert all("\n" not in e for e in errors)


@pytest.mark.parametrize("kind", [k for k in KINDS if k not in ("empty",)])
def test_loading_fails_at_the_damage_with_one_located_line(kind, tmp_path, single_test_dev_path):
    path = _malformed(kind, tmp_path, single_test_dev_path)
    with pytest.raises(InputError) as caught:
        load("single_test", path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:")
    if kind != "binary":
        assert message.startswith(f"{path}:2:")


def test_empty_file_loads_as_no_tasks_but_fails_the_check(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    assert load("single_test", path) == []
    assert not check_file(path).ok


def test_check_goes_on_past_the_first_problem(tmp_path, single_test_dev_path):
    rows = _rows(single_test_dev_path, 5)
    del rows[0]["query"]
    rows[0]["function_name"] = 7  # two problems in one row: both listed
    rows[3]["test_cases"] = "not json"
    path = _write(tmp_path / "many.jsonl", [*rows[:2], "{broken", *rows[2:]])
    report = check_file(path)
    text = "\n".join(str(p) for p in report.problems)
    assert ":1: error: field 'query': is missing" in text
    assert ":1: error: field 'function_name': expected str, got int" in text
    assert ":3: error: invalid JSON" in text
    assert ":5: error: field 'test_cases'" in text
    assert report.rows == 6 and report.valid == 3


def test_check_counts_rows_functions_and_cases(official_dev_path, official_api_doc_path):
    from sebench.cli.data_cmd import _known_functions

    known = _known_functions(official_api_doc_path)
    report = check_file(official_dev_path, known_functions=known)
    assert report.ok and report.problems == ()
    assert (report.rows, report.valid) == (64, 64)
    assert len(report.functions) == 64
    assert report.cases_summary() == (8, 8, 16)


def test_check_warns_about_functions_the_library_lacks(tmp_path, single_test_dev_path):
    rows = _rows(single_test_dev_path, 1)
    rows[0]["selected_functions"] = ["not_a_numpy_function"]
    report = check_file(_write(tmp_path / "x.jsonl", rows), known_functions=frozenset({"mean"}))
    assert report.ok  # a warning, the row still loads
    assert any("not in the library: not_a_numpy_function" in str(p) for p in report.problems)


def test_cli_data_check_lists_problems_and_exits_1(tmp_path, single_test_dev_path):
    path = _malformed("missing-field", tmp_path, single_test_dev_path)
    run = subprocess.run(
        [sys.executable, "-m", "sebench.cli.main", "data", "check", str(path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1
    assert f"{path}:2: error: field 'right_exe_result': is missing" in run.stdout.replace("\n", "")
    ok = subprocess.run(
        [sys.executable, "-m", "sebench.cli.main", "data", "check", str(single_test_dev_path)],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert str(len(single_test_dev_path.read_text().splitlines())) in ok.stdout
