"""`sebench train grpo` in process with the tiny model: SFT->RL from a `train sft` folder."""

from __future__ import annotations

import json

import torch
from typer.testing import CliRunner

from sebench.cli.main import app
from sebench.errors import SebenchError


def test_grpo_starts_from_an_sft_folder_and_records_the_ablation(tiny_model, tmp_path):
    torch.set_num_threads(1)  # the tiny model gains nothing from a second thread
    runner = CliRunner()
    made = runner.invoke(
        app,
        ["train", "tasks", "--out", str(tmp_path / "tasks"), "--train-per-function", "1"],
    )
    assert made.exit_code == 0, made.output
    data = tmp_path / "tasks" / "tasks_train.jsonl"
    sft = tmp_path / "sft"
    trained = runner.invoke(
        app,
        ["train", "sft", "--mode", "closed", "--data", str(data), "--out", str(sft)]
        + ["--model", str(tiny_model), "--steps", "1", "--batch-size", "2"],
    )
    assert trained.exit_code == 0, trained.output

    out = tmp_path / "rl"
    result = runner.invoke(
        app,
        ["train", "grpo", "--mode", "closed", "--data", str(data), "--out", str(out)]
        + ["--init", str(sft), "--steps", "1", "--prompts-per-step", "2", "--generations", "2"]
        + ["--micro-batch", "4", "--max-new-tokens", "16", "--workers", "1", "--no-clip"]
        + ["--drop-negative-advantages"],
    )
    assert result.exit_code == 0, result.output
    assert "step 1/1  reward 0.000" in result.output  # plain lines when not on a terminal
    record = json.loads((out / "sebench_grpo.json").read_text())
    assert record["mode"] == "closed" and record["init"] == str(sft)
    assert record["init_sft"]["arm"] == "closed"
    assert record["config"]["clip_low"] == record["config"]["clip_high"] == 1e9
    assert record["config"]["drop_negative_advantages"] is True
    assert len((out / "grpo_log.jsonl").read_text().splitlines()) == 1
    assert (out / "model.safetensors").exists()


def test_grpo_names_a_missing_model_folder(tmp_path):
    data = tmp_path / "tasks.jsonl"
    data.write_text("")
    result = CliRunner().invoke(
        app,
        ["train", "grpo", "--mode", "open", "--data", str(data), "--out", str(tmp_path / "o")]
        + ["--init", str(tmp_path / "nowhere")],
    )
    # the error boundary (`sebench.cli.main.main`) turns this into one line and exit code 2
    assert isinstance(result.exception, SebenchError)
    assert "not a Hugging Face model folder" in str(result.exception)
