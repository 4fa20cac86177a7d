"""Fixtures for the experiment tests: the shipped recipes, the tiny model, small overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

RECIPES = Path(__file__).resolve().parents[2] / "recipes" / "experiments"
CPU_RECIPE = RECIPES / "cpu-smollm2.toml"
GPU_RECIPE = RECIPES / "qwen3-8b-paper.toml"


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    from tests.helpers.tiny_model import tiny_model_dir

    return tiny_model_dir(tmp_path_factory)


def small(tiny_model: Path, **more: object) -> dict[str, object]:
    """The CPU recipe cut to what a test needs: the tiny model, three regimes (a reference row,
    SFT, and RL after SFT), two test tasks, short answers."""
    return {
        "model": str(tiny_model),
        "regimes": ["no-docs", "closed-sft", "sft-rl"],
        "data.limit": 2,
        "sampling.max_new_tokens": 8,
        **more,
    }


@pytest.fixture(scope="session")
def finished(tmp_path_factory, tiny_model):
    """One run of the cut CPU recipe: (run folder, result, seconds, progress reports). Shared:
    tests that change it work on a copy."""
    import time

    import torch

    from sebench.experiments.recipe import load_recipe
    from sebench.experiments.runner import run_experiment

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the tiny model: one thread is faster; restored below
    run_dir = tmp_path_factory.mktemp("experiment") / "run"
    started = time.perf_counter()
    reports: list[tuple[str, int, int]] = []
    try:
        result = run_experiment(
            load_recipe(CPU_RECIPE, small(tiny_model)),
            run_dir,
            on_progress=lambda step, done, total: reports.append((step, done, total)),
        )
    finally:
        torch.set_num_threads(threads)
    return run_dir, result, time.perf_counter() - started, reports
