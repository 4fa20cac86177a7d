"""Fixtures for the grading tests: the official library, the dev tasks, one warm grader."""

from __future__ import annotations

import pytest

from tests.fixtures_library import official_library  # noqa: F401  (a session fixture)


@pytest.fixture(scope="session")
def dev_tasks(single_test_dev_path):
    from sebench.data.sources import load

    return load("single_test", single_test_dev_path)


@pytest.fixture(scope="session")
def grader(official_library):  # noqa: F811
    """One warm grader for the session (starting the sandbox servers costs about a second)."""
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig

    with Grader(official_library, SandboxConfig(workers=2)) as warm:
        yield warm


def fenced(code: str) -> str:
    return f"Here is my solution.\n\n```python\n{code}\n```\n"
