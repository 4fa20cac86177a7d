"""Paths as a user types them: relative libraries grade, wrong kinds of paths are messages, and
commands write only what they are asked to."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from sebench.library.library import Library
from tests.cli.cli_run import sebench, write_tasks


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A folder with a seeded library `L` and the tiny task file `tasks.jsonl`, as a user has."""
    built = sebench("lib", "build", "--seed", "3", "--out", "L", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    write_tasks(tmp_path / "tasks.jsonl")
    return tmp_path


def _responses(workdir: Path) -> Path:
    """Correct answers in the library, in our responses format."""
    names = Library.load(workdir / "L").table.numpy_to_library()
    tasks = [json.loads(line) for line in (workdir / "tasks.jsonl").read_text().splitlines()]
    validated = sebench(
        "validate", "--data", "tasks.jsonl", "--lib", "L", "--report", "report.jsonl", cwd=workdir
    )
    assert validated.returncode == 0, validated.stderr
    ids = [json.loads(line)["task_id"] for line in (workdir / "report.jsonl").open()]
    code = [
        f"import {names['mean'].split('.')[0]}\n\ndef average(xs):\n"
        f"    return float({names['mean']}({names['mean'].split('.')[0]}.ZWCArray(xs)))\n",
        f"import {names['mean'].split('.')[0]}\n\ndef determinant(m):\n"
        f"    return round(float({names['linalg.det']}(m)), 6)\n",
    ]
    assert len(ids) == len(tasks) == len(code)
    path = workdir / "responses.jsonl"
    rows = [
        {"task_id": i, "sample": 0, "response": f"```python\n{c}```"}
        for i, c in zip(ids, code, strict=True)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _eval(workdir: Path) -> subprocess.CompletedProcess[str]:
    """`sebench eval` of `_responses` on `tasks.jsonl` with the library `L`, as a user types it."""
    ran = sebench(
        "eval",
        "responses.jsonl",
        "--lib",
        "L",
        "--data",
        "tasks.jsonl",
        "--out",
        "results.jsonl",
        "--summary",
        "summary.json",
        cwd=workdir,
    )
    assert ran.returncode == 0, ran.stderr
    return ran


def test_library_root_is_absolute_whatever_the_caller_gives(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workdir)
    library = Library.load("L")
    assert library.root.is_absolute() and library.root == (workdir / "L").resolve()


def test_relative_lib_grades_and_validates(workdir: Path) -> None:
    _responses(workdir)
    _eval(workdir)
    summary = json.loads((workdir / "summary.json").read_text())
    assert summary["accuracy"] == 1.0, (workdir / "results.jsonl").read_text()


def test_eval_names_the_functions_a_task_names_that_the_library_lacks(workdir: Path) -> None:
    """Such a task's answers cannot show library use (they are `no_library`): said, not hidden."""
    _responses(workdir)
    tasks = [json.loads(line) for line in (workdir / "tasks.jsonl").read_text().splitlines()]
    tasks[0]["selected_functions"] = ["Mean"]
    (workdir / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    ran = _eval(workdir)
    assert "does not have: Mean (1)" in " ".join(ran.stderr.split()), ran.stderr
    summary = json.loads((workdir / "summary.json").read_text())
    assert summary["unknown_functions"] == {"Mean": 1} and summary["verdicts"]["no_library"] == 1


def test_per_function_is_keyed_by_library_names_also_for_bare_linalg_names(
    workdir: Path,
) -> None:
    _responses(workdir)
    _eval(workdir)
    names = Library.load(workdir / "L").table.numpy_to_library()
    per_function = json.loads((workdir / "summary.json").read_text())["per_function"]
    assert sorted(per_function) == sorted([names["mean"], names["linalg.det"]])


def test_validate_writes_nothing_unasked(workdir: Path) -> None:
    before = sorted(p.name for p in workdir.iterdir())
    ran = sebench("validate", "--data", "tasks.jsonl", "--lib", "L", cwd=workdir)
    assert ran.returncode == 0, ran.stderr
    assert "2 " in ran.stdout and "100.0%" in ran.stdout
    assert sorted(p.name for p in workdir.iterdir()) == before


def test_validate_writes_the_subset_where_asked(workdir: Path) -> None:
    ran = sebench(
        "validate", "--data", "tasks.jsonl", "--lib", "L", "--out-subset", "ids.json", cwd=workdir
    )
    assert ran.returncode == 0, ran.stderr
    assert len(json.loads((workdir / "ids.json").read_text())["task_ids"]) == 2


def _refused(ran, says: str) -> None:
    assert ran.returncode == 2, ran.stderr
    assert "Traceback" not in ran.stderr
    assert ran.stderr.startswith("error: ") and says in ran.stderr, ran.stderr


@pytest.mark.parametrize("option", ["--out", "--summary"])
def test_eval_output_that_is_a_folder_is_a_message(workdir: Path, option: str) -> None:
    (workdir / "folder").mkdir()
    paths = {"--out": "results.jsonl", "--summary": "summary.json", option: "folder"}
    ran = sebench(
        "eval", "tasks.jsonl", "--lib", "L", *(x for kv in paths.items() for x in kv), cwd=workdir
    )
    _refused(ran, f"folder: is a folder; {option}")


def test_eval_without_library_or_data_names_its_own_options(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text('{"task_id": "t", "response": "x"}\n')
    (tmp_path / "data").mkdir()
    ran = sebench(
        "eval",
        "r.jsonl",
        "--out",
        "o.jsonl",
        "--summary",
        "s.json",
        cwd=tmp_path,
        env={"SEBENCH_DATA": str(tmp_path / "data")},
    )
    _refused(ran, "--lib DIR")
    assert "--api-doc" not in ran.stderr  # eval has no such option


def test_lib_build_into_a_file_is_a_message(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    _refused(sebench("lib", "build", "--seed", "3", "--out", "afile", cwd=tmp_path), "is a file")


def test_lib_build_does_not_overwrite_a_library_without_force(workdir: Path) -> None:
    table = (workdir / "L" / "sebench_library.json").read_text()
    _refused(sebench("lib", "build", "--seed", "4", "--out", "L", cwd=workdir), "--force")
    assert (workdir / "L" / "sebench_library.json").read_text() == table
    forced = sebench("lib", "build", "--seed", "4", "--out", "L", "--force", cwd=workdir)
    assert forced.returncode == 0, forced.stderr
    assert Library.load(workdir / "L").meta["seed"] == 4


@pytest.mark.parametrize("package", ["numpy", "os", "json", "pytest", "sebench"])
def test_lib_build_refuses_a_package_that_shadows_a_module(tmp_path: Path, package: str) -> None:
    ran = sebench("lib", "build", "--seed", "3", "--out", "L", "--package", package, cwd=tmp_path)
    _refused(ran, f"{package!r} is an importable module")
    assert not (tmp_path / "L").exists()


@pytest.mark.parametrize("package", ["1x", "a-b", "class", "_hidden"])
def test_lib_build_refuses_a_package_that_is_not_an_identifier(
    tmp_path: Path, package: str
) -> None:
    ran = sebench("lib", "build", "--seed", "3", "--out", "L", "--package", package, cwd=tmp_path)
    _refused(ran, "not a usable public Python name")
