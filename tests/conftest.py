"""Shared fixtures: data in the official format, and libraries built once per session.

The official data lives in `../shared/data/sebench` (or the folder named by SEBENCH_SHARED_DATA).
A public clone does not have it: there `shared_data` is a stand-in in the same format made by
`tests/helpers/standin_data.py` (a seeded library's api_doc and generated dev rows), so the tests
of our own code run everywhere. Tests of facts about the official files themselves (their row
counts, names and verdicts) ask for `official_data` and skip without it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest_plugins = ["tests.fixtures_library"]

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(
    os.environ.get("SEBENCH_SHARED_DATA", REPO.parent / "shared" / "data" / "sebench")
)


@pytest.fixture
def one_thread():
    """One PyTorch thread for the test, the count before it restored after: the tiny model's
    matrices are too small for two threads to help, and on a loaded machine they only contend."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(autouse=True)
def torch_threads_restored():
    """A test that changes PyTorch's thread count must put it back (`one_thread` does): one that
    left it at 1 made every later test train on one core, the real demo's too (367 s instead
    of ~230 s, over its five-minute limit)."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    yield
    if before is not None:
        after = sys.modules["torch"].get_num_threads()
        assert after == before, f"the test left PyTorch at {after} threads (was {before})"


def have_official_data() -> bool:
    return (SHARED_DATA / "api_doc.jsonl").exists()


@pytest.fixture(scope="session")
def official_data() -> Path:
    """The official files themselves, for tests of facts about them."""
    if not have_official_data():
        pytest.skip(f"needs the official data: not in {SHARED_DATA} (set SEBENCH_SHARED_DATA)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def official_api_doc_path(official_data: Path) -> Path:
    return official_data / "api_doc.jsonl"


@pytest.fixture(scope="session")
def official_dev_path(official_data: Path) -> Path:
    return official_data / "single_test_dev.jsonl"


@pytest.fixture(scope="session")
def shared_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder in the official format: the official one, else the stand-in."""
    if have_official_data():
        return SHARED_DATA
    from tests.helpers.standin_data import write_standin_data

    return write_standin_data(tmp_path_factory.mktemp("standin_data"))


@pytest.fixture(scope="session")
def api_doc_path(shared_data: Path) -> Path:
    return shared_data / "api_doc.jsonl"


@pytest.fixture(scope="session")
def single_test_dev_path(shared_data: Path) -> Path:
    return shared_data / "single_test_dev.jsonl"
