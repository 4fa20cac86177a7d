"""`sebench experiment run` end to end on the CPU recipe with the tiny random model: the run
folder's contract, skipping, rerunning what a changed value touches, failures and kills."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sebench.experiments import steps as step_functions
from sebench.experiments.plan import Decision, StepKind, make_plan
from sebench.experiments.recipe import load_recipe
from sebench.experiments.records import read_record
from sebench.experiments.runner import Outcome, run_experiment
from sebench.experiments.status import run_status
from tests.experiments.conftest import CPU_RECIPE, small

SRC = Path(__file__).resolve().parents[2] / "src"
ARM_KEYS = {"regime", "seed", "split", "results", "summary", "train_dir", "status"}


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    return copy


def _ran(result) -> set[str]:
    return {step for step, outcome in result.outcomes.items() if outcome is not Outcome.SKIPPED}


def test_the_run_folder_keeps_the_contract(finished, tiny_model):
    run_dir, result, seconds, _ = finished
    assert not result.failed, result.outcomes
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert set(manifest) == {"schema", "name", "model", "library", "expected", "arms"}
    assert manifest["schema"] == 1 and manifest["name"] == "cpu-smollm2"
    assert manifest["model"] == str(tiny_model)
    assert manifest["library"]["kind"] == "seed" and manifest["library"]["seed"] == 0
    assert len(manifest["library"]["hash"]) == 64
    assert [(a["regime"], a["split"], a["status"]) for a in manifest["arms"]] == [
        ("no-docs", "single", "done"),
        ("closed-sft", "single", "done"),
        ("sft-rl", "single", "done"),
    ]
    for arm in manifest["arms"]:
        assert set(arm) == ARM_KEYS and arm["seed"] == 0
        results = (run_dir / arm["results"]).read_text().splitlines()
        assert len(results) == 2 and "verdict" in json.loads(results[0])  # 2 tasks, 1 sample
        assert json.loads((run_dir / arm["summary"]).read_text())["samples"] == 2
    no_docs, sft, rl = manifest["arms"]
    assert no_docs["train_dir"] is None
    assert (run_dir / sft["train_dir"] / "sft_log.jsonl").is_file()  # training curves
    assert (run_dir / rl["train_dir"] / "grpo_log.jsonl").is_file()
    report = (run_dir / "report" / "report.md").read_text()
    assert "| closed-sft |" in report and (run_dir / "report" / "report.html").is_file()
    print(f"cut CPU recipe: {seconds:.1f} s")


def test_long_steps_report_their_progress(finished):
    reports = finished[3]
    last = {step: (done, total) for step, done, total in reports}
    assert last["rollout/no-docs/seed0/single"] == (2, 2)  # samples
    assert last["grade/sft-rl/seed0/single"] == (2, 2)
    assert last["train/closed-sft/seed0"] == (2, 2)  # optimizer steps
    assert last["train/sft-rl/seed0"] == (1, 1)


def test_each_step_records_its_provenance(finished):
    run_dir, _, _, _ = finished
    manifest = json.loads((run_dir / "manifest.json").read_text())
    grade = read_record(run_dir, "grade/sft-rl/seed0/single")
    assert grade.state == "done" and grade.wall_s is not None
    record = grade.provenance
    assert record["seed"] == 0 and "torch" in record["versions"]
    assert record["library_hash"] == manifest["library"]["hash"]
    assert len(record["generated_data_hash"]) == 64  # the generated test tasks
    assert record["isolation_layers"] and any(record["isolation_layers"].values())
    train = read_record(run_dir, "train/closed-sft/seed0").provenance
    assert train["config"]["settings"]["max_steps"] == 2 and "model" in train["inputs"]


def test_a_second_run_skips_every_step(finished, tiny_model):
    run_dir, _, _, _ = finished
    stamps = {p: p.stat().st_mtime_ns for p in run_dir.rglob("*") if p.is_file()}
    again = run_experiment(load_recipe(CPU_RECIPE, small(tiny_model)), run_dir)
    assert _ran(again) == set()
    changed = [p for p, t in stamps.items() if p.stat().st_mtime_ns != t]
    # the run rewrites only its own plan, recipe and manifest (with the same content)
    assert {p.name for p in changed} <= {"plan.json", "recipe.json", "manifest.json"}


def test_a_changed_value_reruns_only_the_steps_that_depend_on_it(finished, tiny_model, tmp_path):
    run_dir = _copy(finished[0], tmp_path)
    changed = small(tiny_model, **{"grpo.learning_rate": 3e-5})
    result = run_experiment(load_recipe(CPU_RECIPE, changed), run_dir)
    assert _ran(result) == {
        "train/sft-rl/seed0",
        "rollout/sft-rl/seed0/single",
        "grade/sft-rl/seed0/single",
        "report",
    }
    assert not result.failed


def test_a_failed_step_is_recorded_and_the_next_run_does_only_what_is_left(
    finished, tiny_model, tmp_path, monkeypatch
):
    run_dir = _copy(finished[0], tmp_path)
    recipe = load_recipe(CPU_RECIPE, small(tiny_model, **{"grading.timeout_s": 2.5}))
    real = step_functions.STEP_FUNCTIONS[StepKind.GRADE]

    def broken(step, context):
        if step.regime == "closed-sft":
            raise RuntimeError("disk full")
        return real(step, context)

    monkeypatch.setitem(step_functions.STEP_FUNCTIONS, StepKind.GRADE, broken)
    result = run_experiment(recipe, run_dir)
    assert result.failed == ["grade/closed-sft/seed0/single"]
    assert result.outcomes["report"] is Outcome.DONE  # the table shows what is done
    arms = json.loads((run_dir / "manifest.json").read_text())["arms"]
    assert [a["status"] for a in arms] == ["done", "failed", "done"]
    status = {row.id: row for row in run_status(run_dir)}
    assert status["grade/closed-sft/seed0/single"].state == "failed"
    assert "disk full" in status["grade/closed-sft/seed0/single"].error

    monkeypatch.setitem(step_functions.STEP_FUNCTIONS, StepKind.GRADE, real)
    again = run_experiment(recipe, run_dir)
    assert _ran(again) == {"grade/closed-sft/seed0/single", "report"}
    arms = json.loads((run_dir / "manifest.json").read_text())["arms"]
    assert [a["status"] for a in arms] == ["done", "done", "done"]


def test_a_killed_run_resumes_its_half_done_rollout(finished, tiny_model, tmp_path):
    run_dir = _copy(finished[0], tmp_path)
    # six test tasks generated one at a time: a kill lands between two of them
    values = small(
        tiny_model, **{"data.limit": 6, "backend.batch_size": 1, "sampling.max_new_tokens": 6}
    )
    args = [f"--set={key}={json.dumps(value)}" for key, value in values.items()]
    command = [sys.executable, "-m", "sebench.cli.main", "experiment", "run", str(CPU_RECIPE)]
    env = {**os.environ, "PYTHONPATH": str(SRC), "OMP_NUM_THREADS": "1"}
    child = subprocess.Popen(
        [*command, "--out", str(run_dir), *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    responses = run_dir / "arms/no-docs/seed0/single/responses.jsonl"
    deadline = time.monotonic() + 240

    def started() -> bool:  # the copy's old responses are removed when the step starts anew
        record = read_record(run_dir, "rollout/no-docs/seed0/single")
        return record.state == "running" and responses.is_file() and responses.read_text()

    try:
        while not started():
            assert child.poll() is None, child.stderr.read().decode()
            assert time.monotonic() < deadline, "the rollout never started"
            time.sleep(0.05)
        os.killpg(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    kept = responses.read_text().count("\n")
    assert 1 <= kept < 6
    states = {row.id: row.state for row in run_status(run_dir)}
    assert states["rollout/no-docs/seed0/single"] == "interrupted"
    plan = make_plan(load_recipe(CPU_RECIPE, values), run_dir).by_id()
    assert plan["rollout/no-docs/seed0/single"].decision is Decision.RESUME

    result = run_experiment(load_recipe(CPU_RECIPE, values), run_dir)
    assert not result.failed
    record = read_record(run_dir, "rollout/no-docs/seed0/single")
    assert record.result["resumed"] == kept and record.result["generated"] == 6 - kept
    assert "train/closed-sft/seed0" not in _ran(result)  # training did not depend on the change


@pytest.mark.slow
def test_every_regime_of_the_cpu_recipe_runs_with_the_tiny_model(tiny_model, tmp_path):
    # The shipped recipe as it is but for the model and the answer length: seven regimes.
    values = {"model": str(tiny_model), "sampling.max_new_tokens": 8}
    result = run_experiment(load_recipe(CPU_RECIPE, values), tmp_path / "run")
    assert not result.failed, result.outcomes
    arms = json.loads((tmp_path / "run" / "manifest.json").read_text())["arms"]
    assert [a["regime"] for a in arms] == list(load_recipe(CPU_RECIPE).regimes)
    assert all(a["status"] == "done" for a in arms)
