"""Fixtures for the data tests: the built libraries (official and seed 1) and the dev tasks."""

from __future__ import annotations

import pytest

from tests.fixtures_library import official_library, seeded_library  # noqa: F401


@pytest.fixture(scope="session")
def dev_tasks(single_test_dev_path):
    from sebench.data.sources import load

    return load("single_test", single_test_dev_path)
