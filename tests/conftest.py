"""Shared fixtures: the official data in ../shared, and libraries built once per session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["tests.fixtures_library"]

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(
    os.environ.get("SEBENCH_SHARED_DATA", REPO.parent / "shared" / "data" / "sebench")
)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "api_doc.jsonl").exists():
        pytest.skip(f"official data not found in {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def api_doc_path(shared_data: Path) -> Path:
    return shared_data / "api_doc.jsonl"


@pytest.fixture(scope="session")
def single_test_dev_path(shared_data: Path) -> Path:
    return shared_data / "single_test_dev.jsonl"
