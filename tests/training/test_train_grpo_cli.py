"""`sebench train grpo` in process with the tiny model: SFT->RL from a `train sft` folder."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from typer.testing import CliRunner

from sebench.cli.main import app
from sebench.errors import SebenchError


def test_grpo_starts_from_an_sft_folder_and_records_the_ablation(tiny_model, tmp_path, one_thread):
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


def test_a_killed_run_continues_from_its_last_checkpoint(tiny_model, tmp_path, one_thread):
    """SIGKILL a run once it has saved a checkpoint; the same command continues from there."""
    runner = CliRunner()
    made = runner.invoke(
        app, ["train", "tasks", "--out", str(tmp_path / "tasks"), "--train-per-function", "1"]
    )
    assert made.exit_code == 0, made.output
    out = tmp_path / "rl"
    common = ["train", "grpo", "--mode", "closed", "--out", str(out), "--model", str(tiny_model)]
    common += ["--data", str(tmp_path / "tasks" / "tasks_train.jsonl"), "--workers", "1"]
    common += ["--prompts-per-step", "2", "--generations", "2", "--micro-batch", "4"]
    common += ["--max-new-tokens", "16", "--save-steps", "1"]
    run = subprocess.Popen(
        [sys.executable, "-m", "sebench.cli.main", *common, "--steps", "50"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 240
        while not (out / "checkpoints" / "checkpoint-1" / "trainer_state.json").is_file():
            assert run.poll() is None and time.monotonic() < deadline, "no checkpoint saved"
            time.sleep(0.2)
    finally:
        run.kill()
        run.wait()
    saved = max(
        int(p.name.split("-")[1])
        for p in (out / "checkpoints").glob("checkpoint-*")
        if (p / "trainer_state.json").is_file()
    )
    result = runner.invoke(app, [*common, "--steps", str(saved + 1)])
    assert result.exit_code == 0, result.output
    record = json.loads((out / "sebench_grpo.json").read_text())
    assert record["resumed_from"] == str(out / "checkpoints" / f"checkpoint-{saved}")
    log = [json.loads(x) for x in (out / "grpo_log.jsonl").read_text().splitlines()]
    assert [row["step"] for row in log] == list(range(1, saved + 2))
