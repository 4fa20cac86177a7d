"""`sebench train tasks` and `sebench train sft`, in process, with the tiny model."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from sebench.cli.main import app


def test_train_tasks_then_sft_writes_a_checkpoint_with_its_config(tiny_model, tmp_path):
    runner = CliRunner()
    tasks = runner.invoke(
        app,
        [
            "train",
            "tasks",
            "--out",
            str(tmp_path / "tasks"),
            "--train-per-function",
            "2",
            "--test-per-function",
            "1",
        ],
    )
    assert tasks.exit_code == 0, tasks.output
    train_file = tmp_path / "tasks" / "tasks_train.jsonl"
    assert len(train_file.read_text().splitlines()) == 12

    out = tmp_path / "ckpt"
    result = runner.invoke(
        app,
        [
            "train",
            "sft",
            "--mode",
            "open",
            "--data",
            str(train_file),
            "--out",
            str(out),
            "--model",
            str(tiny_model),
            "--steps",
            "1",
            "--batch-size",
            "2",
            "--freeze-fraction",
            "0.5",
            "--no-bf16",
        ],
    )
    assert result.exit_code == 0, result.output
    # Not a terminal: plain progress lines, and the precision it trained in.
    assert "training in " in result.output
    assert "training open-SFT 1/1  loss" in result.output
    record = json.loads((out / "sebench_sft.json").read_text())
    assert record["precision"]["name"] == "fp32"  # --no-bf16, whatever this CPU offers
    assert record["config"]["bf16"] is False
    assert "load_average" in record["machine"]
    assert record["arm"] == "open" and record["config"]["max_steps"] == 1
    assert (out / "model.safetensors").exists()
    examples = [json.loads(x) for x in (out / "sft_examples.jsonl").read_text().splitlines()]
    assert examples[0]["prompt"][-1]["content"].startswith("Docs:")


def test_train_sft_on_a_file_without_targets_fails_with_the_line(tmp_path):
    bad = tmp_path / "tasks.jsonl"
    bad.write_text(json.dumps({"task_id": "t", "split": "train"}) + "\n")
    result = CliRunner().invoke(
        app, ["train", "sft", "--mode", "closed", "--data", str(bad), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code != 0
    assert "tasks.jsonl:1" in str(result.exception)


def test_train_sft_on_official_rows_without_a_target_says_so(tmp_path, single_test_dev_path):
    result = CliRunner().invoke(
        app,
        ["train", "sft", "--mode", "closed", "--data", str(single_test_dev_path)]
        + ["--out", str(tmp_path / "o")],
    )
    assert result.exit_code != 0
    assert "no target answer" in str(result.exception)


@pytest.fixture
def train_file(seeded_lib, tmp_path):
    from sebench.data.rows import official_row
    from sebench.jsonl import write_jsonl
    from sebench.training.taskgen import TaskSetConfig, generate_tasks

    made = generate_tasks(
        seeded_lib.table, TaskSetConfig(train_per_function=1, test_per_function=1)
    )
    path = tmp_path / "tasks_train.jsonl"
    write_jsonl(path, [official_row(t) for t in made.train])
    return path


def test_train_sft_with_zero_steps_is_refused_with_a_message(train_file, tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "sebench.cli.main", "train", "sft", "--mode", "closed"]
        + ["--data", str(train_file), "--out", str(out), "--steps", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "max_steps must be at least 1" in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_interrupted_train_sft_says_that_nothing_was_saved(
    tiny_model, train_file, tmp_path, monkeypatch
):
    import sebench.training.sft

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sebench.training.sft, "train_sft", interrupted)
    result = CliRunner().invoke(
        app,
        ["train", "sft", "--mode", "closed", "--data", str(train_file)]
        + ["--out", str(tmp_path / "o"), "--model", str(tiny_model), "--steps", "1"],
    )
    assert result.exit_code == 130
    assert "nothing was saved" in result.output and "resume" not in result.output
