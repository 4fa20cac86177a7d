"""Fixtures for the sandbox mechanics: a tiny stand-in library and one warm pool per session.

The stand-in has what the sandbox relies on in a built library (`<package>`, `<package>.<sub>`,
`<package>._runtime` with call counters) and a metadata file at its root that children must not
read; it builds in milliseconds, so these tests do not depend on the library builder.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pytest

from sebench.grading.sandbox import SandboxConfig, SandboxPool, isolation

# Every layer but the audit hook's refusals: for tests that probe the layers below it from inside
# a child (through ctypes, frames, /proc), which the hook would refuse first.
BELOW_INTROSPECTION = tuple(name for name in isolation.LAYERS if name != "introspection")

# the library's real runtime: every call goes through `_runtime.call` (the grader's audit hook)
RUNTIME = (resources.files("sebench.library.runtime") / "_runtime.py").read_text()

PACKAGE = """
import numpy as _np
from . import _runtime
from . import rfx

class ZWCArray:
    def __init__(self, data):
        self._data = _np.asarray(data)
    def __str__(self):
        return str(self._data)
    def __neg__(self):
        _runtime.official_failure("unary -")  # as the real array reports it
        return ZWCArray(-self._data)

def _function(target, is_constructor):
    # as in a built library: the function closes over what it calls
    def function(*args):
        args = tuple(a._data if isinstance(a, ZWCArray) else a for a in args)
        return _runtime.call(target, is_constructor, args, {})
    return function

yitaf = _function(ZWCArray, True)
mumeko = _function(lambda n: ZWCArray(_np.ones(n)), False)  # numpy.ones
kocito = _function(_np.mean, False)
"""

SUBMODULE = """
import numpy as _np
from .. import _runtime

def _function(target):
    def function(*args):
        return _runtime.call(target, False, args, {})
    return function

quvohe = _function(_np.linalg.inv)
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


@pytest.fixture(scope="session")
def pool_below_introspection(standin_library: StandInLibrary):
    """A warm server whose children may use ctypes, frames and /proc: the layers below."""
    config = SandboxConfig(
        workers=1,
        timeout_s=1.5,
        memory_mb=256,
        max_output_bytes=64 << 10,
        layers=BELOW_INTROSPECTION,
    )
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


def waits_for_a_job(pid: int) -> bool:
    """A zygote forks each child before its job arrives: one per zygote waits, blocked reading
    the job pipe, and is no leftover."""
    try:
        return "pipe" in Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False


def leftovers(pool: SandboxPool, within_s: float = 5.0) -> list[int]:
    """Sandbox-uid processes, children of the zygotes and children of the servers other than
    their zygote, still there after `within_s`; not the child each zygote has waiting for the
    next job.

    A server reaps a job's child (killed before the reply) just after replying, so a test
    looking right after `run` returns may still see it dying: wait, briefly, for the reap.
    """
    deadline = time.monotonic() + within_s
    while True:
        zygotes = pool.zygote_pids()
        waiting = {child for z in zygotes for child in children_of(z) if waits_for_a_job(child)}
        found = [pid for pid in processes_of(pool.sandbox_uids()) if pid not in waiting]
        for pid in pool.server_pids() + zygotes:
            found += [c for c in children_of(pid) if c not in zygotes and c not in waiting]
        if not found or time.monotonic() > deadline:
            return sorted(set(found))
        time.sleep(0.01)


@pytest.fixture
def no_leftovers(pool):
    """After the test: no sandbox-uid process and no child of any server remains."""
    yield
    assert leftovers(pool) == []
