"""Fixtures for the training tests: a fresh library (no external data needed), the tiny model,
one warm grader, and a small generated task set."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def seeded_lib():
    from sebench.library.cache import seeded_library

    return seeded_library(0)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    from tests.helpers.tiny_model import tiny_model_dir

    return tiny_model_dir(tmp_path_factory)


@pytest.fixture(scope="session")
def grader(seeded_lib):
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig

    with Grader(seeded_lib, SandboxConfig(workers=2)) as warm:
        yield warm


@pytest.fixture(scope="session")
def task_set(seeded_lib):
    from sebench.training.taskgen import TaskSetConfig, generate_tasks

    return generate_tasks(
        seeded_lib.table, TaskSetConfig(train_per_function=20, test_per_function=8)
    )
