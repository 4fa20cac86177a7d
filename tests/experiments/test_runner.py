"""What `run` refuses before any step starts: a missing input, a second run on the same folder."""

from __future__ import annotations

import fcntl

import pytest

from sebench.errors import SebenchError
from sebench.experiments.recipe import load_recipe
from sebench.experiments.runner import LOCK_FILE, run_experiment

RECIPE = """
name = "g"
regimes = ["no-docs"]
[library]
seed = 0
[data]
single = "missing/single_test.jsonl"
"""


def test_a_missing_input_stops_the_run_before_any_step(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text(RECIPE)
    run_dir = tmp_path / "run"
    with pytest.raises(SebenchError, match=r"input not found: .*missing/single_test.jsonl"):
        run_experiment(load_recipe(path), run_dir)
    assert not (run_dir / "steps").exists()


def test_a_second_run_on_the_same_folder_is_refused(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text(RECIPE)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    with (run_dir / LOCK_FILE).open("a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a running `run` holds it
        with pytest.raises(SebenchError, match="another `sebench experiment run` is using"):
            run_experiment(load_recipe(path), run_dir)
