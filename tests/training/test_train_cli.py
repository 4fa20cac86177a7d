"""`sebench train tasks` and `sebench train sft`, in process, with the tiny model."""

from __future__ import annotations

import json

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
        ],
    )
    assert result.exit_code == 0, result.output
    record = json.loads((out / "sebench_sft.json").read_text())
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
