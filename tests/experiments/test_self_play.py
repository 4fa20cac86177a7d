"""The self-play regime in an experiment: `sebench selfplay` as the arm's training step, its
last round's checkpoint tested like any trained arm."""

from __future__ import annotations

import json

from sebench.experiments.plan import train_dir
from sebench.experiments.recipe import load_recipe
from sebench.experiments.runner import run_experiment
from sebench.experiments.steps import SELF_PLAY_DIR
from tests.experiments.conftest import CPU_RECIPE, small


def test_a_self_play_arm_trains_by_rounds_and_is_tested_on_its_last_model(tmp_path, tiny_model):
    recipe = load_recipe(
        CPU_RECIPE,
        small(
            tiny_model,
            regimes=["no-docs", "self-play"],
            **{"selfplay.rounds": 1, "selfplay.functions": ["mean"], "selfplay.samples": 1},
        ),
    )
    run_dir = tmp_path / "run"
    result = run_experiment(recipe, run_dir)
    assert not result.failed, result.outcomes
    trained = run_dir / train_dir("self-play", 0)
    rounds = json.loads((trained / SELF_PLAY_DIR / "selfplay_config.json").read_text())
    assert rounds["config"]["writing"]["functions"] == ["mean"]
    assert (trained / SELF_PLAY_DIR / "round-1" / "round.json").is_file()
    # the random model keeps no task: its last model is the base model, tested as the arm
    assert (trained / "config.json").read_bytes() == (tiny_model / "config.json").read_bytes()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    arm = next(a for a in manifest["arms"] if a["regime"] == "self-play")
    assert arm["status"] == "done"
    assert json.loads((run_dir / arm["summary"]).read_text())["samples"] == 2
