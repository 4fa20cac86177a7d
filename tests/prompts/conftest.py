"""Libraries and tasks for the prompt tests: the official library and a fresh-seed one."""

from __future__ import annotations

from pathlib import Path

import pytest

from sebench.data.schema import Task


@pytest.fixture(scope="session")
def official_lib(api_doc_path: Path):
    from sebench.library.cache import official_library

    return official_library(api_doc_path)


@pytest.fixture(scope="session")
def seeded_lib(api_doc_path: Path):
    from sebench.library.cache import seeded_library

    # Other package and submodule names: nothing in a prompt may assume "zwc" / "rfx".
    return seeded_library(11, api_doc_path, package="quvar", submodule="lomi")


@pytest.fixture(scope="session")
def dev_tasks(single_test_dev_path: Path) -> list[Task]:
    from sebench.data.sources import load

    return load("single_test", single_test_dev_path)


def task_with(tasks: list[Task], function: str) -> Task:
    return next(t for t in tasks if function in t.selected_functions)
