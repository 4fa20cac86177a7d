"""`sebench tasks generate`: a file every command takes, and the coverage report beside it."""

from __future__ import annotations

import json
import subprocess
import sys


def _sebench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sebench.cli.main", *args], capture_output=True, text=True
    )


def test_generated_file_passes_data_check_and_validate(tmp_path, official_library) -> None:
    out = tmp_path / "tasks.jsonl"
    run = _sebench(
        "tasks", "generate", "--programmatic", "--out", str(out),
        "--functions", "cumsum,linalg.det", "--per-function", "2", "--multi", "1",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 5
    coverage = json.loads((tmp_path / "tasks.coverage.json").read_text())
    assert coverage["tasks_per_function"] == {"cumsum": 2, "linalg.det": 2}
    assert (tmp_path / "tasks.coverage.md").is_file()
    check = _sebench("data", "check", str(out), "--split", "train")
    assert check.returncode == 0, check.stdout
    validated = _sebench(
        "validate", "--data", str(out), "--split", "train", "--no-plain",
        "--lib", str(official_library.root), "--out-subset", str(tmp_path / "v.json"),
    )  # fmt: skip
    assert validated.returncode == 0, validated.stderr
    assert len(json.loads((tmp_path / "v.json").read_text())["task_ids"]) == 5


def test_without_a_generator_it_exits_2_saying_which(tmp_path) -> None:
    run = _sebench("tasks", "generate", "--out", str(tmp_path / "t.jsonl"))
    assert run.returncode == 2
    assert "--programmatic" in run.stderr
    assert not (tmp_path / "t.jsonl").exists()


def test_rows_made_for_a_library_train_with_sft(tmp_path, official_library) -> None:
    from typer.testing import CliRunner

    from sebench.cli.main import app
    from tests.helpers.tiny_model import tiny_model_dir

    out = tmp_path / "tasks.jsonl"
    made = _sebench(
        "tasks", "generate", "--programmatic", "--out", str(out), "--lib",
        str(official_library.root), "--functions", "sum,linalg.det", "--multi", "1",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    result = CliRunner().invoke(
        app,
        ["train", "sft", "--mode", "open", "--data", str(out), "--out", str(tmp_path / "ckpt"),
         "--model", str(tiny_model_dir(tmp_path)), "--steps", "1", "--batch-size", "2"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (tmp_path / "ckpt" / "model.safetensors").exists()
