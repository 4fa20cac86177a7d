"""`sebench experiment plan|status` as a user runs them (a real subprocess), and its errors."""

from __future__ import annotations

import json

from tests.cli.cli_run import sebench
from tests.experiments.conftest import CPU_RECIPE, small


def test_plan_lists_the_steps_and_what_a_run_would_do(tmp_path):
    done = sebench(
        "experiment",
        "plan",
        CPU_RECIPE,
        "--out",
        tmp_path / "run",
        "--set",
        'regimes=["no-docs", "closed-sft"]',
    )
    assert done.returncode == 0, done.stderr
    for step in ("library", "data", "train/closed-sft/seed0", "grade/no-docs/seed0/single"):
        assert step in done.stdout
    assert "8 to run, 0 to resume, 0 to skip" in done.stdout.replace("\n", " ")


def test_plan_of_a_finished_run_skips_everything(finished, tiny_model):
    run_dir, _, _, _ = finished
    overrides = [f"--set={k}={json.dumps(v)}" for k, v in small(tiny_model).items()]
    done = sebench("experiment", "plan", CPU_RECIPE, "--out", run_dir, *overrides)
    assert done.returncode == 0, done.stderr
    assert "0 to run, 0 to resume, 11 to skip" in done.stdout.replace("\n", " ")


def test_status_shows_each_step_done(finished):
    run_dir, _, _, _ = finished
    done = sebench("experiment", "status", run_dir)
    assert done.returncode == 0, done.stderr
    assert "train/sft-rl/seed0" in done.stdout and "11 done" in done.stdout
    assert "arms: 3 (3 done, 0 failed, 0 pending)" in done.stdout


def test_a_bad_recipe_is_one_line_and_exit_2(tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text('name = "r"\nregimes = ["no-docs"]\n[sft]\nmax_step = 3\n')
    done = sebench("experiment", "run", recipe)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "field 'sft.max_step': unknown key" in lines[0], done.stderr
    assert not (tmp_path / "runs").exists()


def test_status_of_a_folder_that_is_not_a_run(tmp_path):
    done = sebench("experiment", "status", tmp_path)
    assert done.returncode == 2 and "not a run folder" in done.stderr
