"""The official library, dev tasks and the tiny model for the rollout tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from sebench.data.schema import Task


@pytest.fixture(scope="session")
def official_lib(api_doc_path: Path):
    from sebench.library.cache import official_library

    return official_library(api_doc_path)


@pytest.fixture(scope="session")
def dev_tasks(single_test_dev_path: Path) -> list[Task]:
    from sebench.data.sources import load

    return load("single_test", single_test_dev_path)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    from tests.helpers.tiny_model import tiny_model_dir

    return tiny_model_dir(tmp_path_factory)
