"""Fixtures for the sandbox mechanics: a tiny stand-in library and one warm pool per session.

The stand-in has what the sandbox relies on in a built library (`<package>`, `<package>.<sub>`,
`<package>._runtime` with call counters) and a metadata file at its root that children must not
read; it builds in milliseconds, so these tests do not depend on the library builder.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from sebench.grading.sandbox import SandboxConfig, SandboxPool

RUNTIME = """
_calls = 0
_non_constructor_calls = 0
def call_counts():
    return _calls, _non_constructor_calls
def reset_call_counts():
    global _calls, _non_constructor_calls
    _calls = _non_constructor_calls = 0
def _record(is_constructor):
    global _calls, _non_constructor_calls
    _calls += 1
    if not is_constructor:
        _non_constructor_calls += 1
"""

PACKAGE = """
import numpy as _np
from . import _runtime
from . import rfx

class ZWCArray:
    def __init__(self, data):
        self._data = _np.asarray(data)
    def __str__(self):
        return str(self._data)

def yitaf(x):
    _runtime._record(True)
    return ZWCArray(x)

def mumeko(n):  # numpy.ones
    _runtime._record(False)
    return ZWCArray(_np.ones(n))

def kocito(x):
    _runtime._record(False)
    return _np.mean(x._data if isinstance(x, ZWCArray) else x)
"""

SUBMODULE = """
import numpy as _np
from .. import _runtime

def quvohe(a):
    _runtime._record(False)
    return _np.linalg.inv(a)
"""

SECRET = "EXPECTED-OUTPUT-7f3a9c"


@dataclass(frozen=True)
class StandInLibrary:
    root: Path
    package: str = "zwc"
    submodule: str = "rfx"


def build_standin(root: Path) -> StandInLibrary:
    package = root / "zwc"
    (package / "rfx").mkdir(parents=True)
    (package / "__init__.py").write_text(PACKAGE)
    (package / "_runtime.py").write_text(RUNTIME)
    (package / "rfx" / "__init__.py").write_text(SUBMODULE)
    (root / "sebench_library.json").write_text(f'{{"secret": "{SECRET}"}}')
    return StandInLibrary(root)


@pytest.fixture(scope="session")
def standin_library(tmp_path_factory: pytest.TempPathFactory) -> StandInLibrary:
    return build_standin(tmp_path_factory.mktemp("standin_library"))


@pytest.fixture(scope="session")
def pool(standin_library: StandInLibrary):
    """One warm server; a short timeout and memory budget keep hostile tests quick."""
    config = SandboxConfig(workers=1, timeout_s=1.5, memory_mb=256, max_output_bytes=64 << 10)
    with SandboxPool(standin_library, config) as warm:
        yield warm


def processes_of(uids: list[int]) -> list[int]:
    """Processes running as one of these (sandbox) uids: a child or anything it left behind."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Uid:") and int(line.split()[1]) in uids:
                found.append(int(entry))
    return found


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(b")", 1)[1].split()[1]) == pid:
            found.append(int(entry))
    return found


def leftovers(pool: SandboxPool, within_s: float = 5.0) -> list[int]:
    """Sandbox-uid processes, children of the zygotes and children of the servers other than
    their zygote, still there after `within_s`.

    A server reaps a job's child (killed before the reply) just after replying, so a test
    looking right after `run` returns may still see it dying: wait, briefly, for the reap.
    """
    deadline = time.monotonic() + within_s
    while True:
        found = processes_of(pool.sandbox_uids())
        zygotes = pool.zygote_pids()
        for pid in pool.server_pids() + zygotes:
            found += [child for child in children_of(pid) if child not in zygotes]
        if not found or time.monotonic() > deadline:
            return sorted(set(found))
        time.sleep(0.01)


@pytest.fixture
def no_leftovers(pool):
    """After the test: no sandbox-uid process and no child of any server remains."""
    yield
    assert leftovers(pool) == []
