"""The fork server's imports stay lean: every module with a fork handler costs every sample.

`threading` (imported by `queue`, `subprocess`, `logging`, `concurrent.futures`) registers a
handler that runs in each forked child and touches ~120 pages of the server's heap, each a
copy-on-write fault: measured here, it made every sample's fork 0.6 ms slower.
"""

from __future__ import annotations

import textwrap

import pytest

from sebench.grading.sandbox import Job, SandboxConfig, SandboxPool
from tests.grading.sandbox.conftest import BELOW_INTROSPECTION

HEAVY = ("threading", "logging", "subprocess", "concurrent.futures", "queue", "multiprocessing")

LIST_HEAVY = textwrap.dedent(f"""
    import sys
    def solve():
        return sorted(name for name in {HEAVY!r} if name in sys.modules)
""")


@pytest.mark.parametrize("allow_numpy", [False, True])  # True: NumPy-form tasks' pool
def test_the_server_a_child_is_forked_from_has_no_module_with_a_fork_handler(
    official_library, allow_numpy
):
    # `sys.modules` is the real one only below the introspection layer
    config = SandboxConfig(workers=1, allow_numpy=allow_numpy, layers=BELOW_INTROSPECTION)
    with SandboxPool(official_library, config) as pool:
        execution = pool.run(Job(LIST_HEAVY, "solve", ("",)))
    assert execution.cases[0].printed == "[]"
