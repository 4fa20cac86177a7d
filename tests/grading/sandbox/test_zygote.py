"""Each fork server forks a zygote once; the zygote forks every child (see zygote.py)."""

from __future__ import annotations

import os
import threading
import time

import pytest

from sebench.grading.sandbox import ExecStatus, Job, SandboxConfig, SandboxPool
from tests.grading.sandbox.conftest import children_of, leftovers

PARENT = "import os\ndef solve(x):\n    return os.getppid()\n"


def test_every_child_is_forked_by_the_zygote_never_by_the_server(pool):
    (zygote,) = pool.zygote_pids()
    (server,) = pool.server_pids()
    assert zygote != server
    assert children_of(server) == [zygote]  # nothing else, between jobs
    parents = {pool.run(Job(PARENT, "solve", ("x=1",))).cases[0].printed for _ in range(3)}
    assert parents == {str(zygote)}
    assert pool.zygote_pids() == [zygote]


def test_a_job_with_a_field_that_is_not_text_never_reaches_a_server(pool):
    servers = pool.server_pids()
    bad = Job("def solve(x):\n    return x\n", "solve", ("x=1",))
    object.__setattr__(bad, "test_inputs", (1,))
    with pytest.raises(TypeError):
        pool.run(bad)
    assert pool.server_pids() == servers
    assert pool.run(Job(PARENT, "solve", ("x=1",))).cases[0].printed == str(pool.zygote_pids()[0])


def test_a_dead_zygote_gives_infra_error_and_the_server_is_replaced(standin_library):
    with SandboxPool(standin_library, SandboxConfig(workers=1, timeout_s=3.0)) as fragile:
        (old_server,), (old_zygote,) = fragile.server_pids(), fragile.zygote_pids()
        outcome = {}
        sleeper = Job("import time\ndef solve(x):\n    time.sleep(2)\n", "solve", ("x=1",))
        thread = threading.Thread(target=lambda: outcome.update(e=fragile.run(sleeper)))
        thread.start()
        time.sleep(0.5)
        os.kill(old_zygote, 9)  # its child dies with it (PR_SET_PDEATHSIG)
        thread.join()
        assert outcome["e"].status is ExecStatus.INFRA_ERROR
        again = fragile.run(Job(PARENT, "solve", ("x=1",)))
        assert again.status is ExecStatus.OK
        assert fragile.server_pids() != [old_server]
        assert again.cases[0].printed == str(fragile.zygote_pids()[0])
        assert leftovers(fragile) == []


def test_a_child_dies_with_its_zygote_after_the_uid_drop(standin_library):
    """The server dead, nothing kills the child but its parent-death signal, which a uid change
    clears: the child sets it after the drop."""
    with SandboxPool(standin_library, SandboxConfig(workers=1, timeout_s=5.0)) as fragile:
        (server,), (zygote,) = fragile.server_pids(), fragile.zygote_pids()
        sleeper = Job("import time\ndef solve(x):\n    time.sleep(4)\n", "solve", ("x=1",))
        thread = threading.Thread(target=lambda: fragile.run(sleeper))
        thread.start()
        child = _wait_for(lambda: children_of(zygote))[0]
        os.kill(server, 9)  # the zygote dies with the server, and the child with the zygote
        assert _wait_for(lambda: not _alive(child)), f"child {child} outlived its zygote"
        thread.join()


def _wait_for(condition, within_s: float = 3.0):
    deadline = time.monotonic() + within_s
    while not (found := condition()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return found


def _alive(pid: int) -> bool:
    """Running or sleeping: not gone, not a zombie waiting for init to reap it."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False


def test_the_program_is_compiled_without_the_harness_future_flags(pool):
    """The harness's `from __future__ import annotations` must not reach the program: under
    `python` an annotation is evaluated when the `def` runs."""
    evaluated = pool.run(Job("def solve(x) -> undefined_name:\n    return x\n", "solve", ("1",)))
    assert evaluated.setup_error == "NameError"
    flags = pool.run(Job("def solve(x):\n    return solve.__code__.co_flags\n", "solve", ("1",)))
    assert int(flags.cases[0].printed) & 0x1000000 == 0  # CO_FUTURE_ANNOTATIONS


def test_a_program_the_compiler_refuses_is_a_setup_error_reported_by_the_child(pool):
    """`nonlocal` at module level parses but does not compile: a setup error, and the server
    goes on."""
    refused = pool.run(Job("nonlocal x\ndef solve(x):\n    return x\n", "solve", ("1",)))
    assert refused.status is ExecStatus.OK
    assert refused.setup_error == "SyntaxError"
    assert pool.run(Job(PARENT, "solve", ("x=1",))).cases[0].printed == str(pool.zygote_pids()[0])


# Fresh integers of several sizes: where they land is the state of the allocator's free lists
# for those sizes, which is what a child inherits from the zygote.
_LAYOUT = """
import time

def solve(x):
    for _ in range(x):
        time.sleep(0.0001)  # a voluntary context switch each
    probe = [7 ** 40 + i for i in range(8)] + [10 ** 9 + i for i in range(8)]
    return [id(value) % 100003 for value in probe] + [id(1.5 + x * 0.0)]
"""


def test_what_a_job_did_leaves_the_next_child_the_same_memory(standin_library):
    """A red team's: the zygote reaped each child with `wait4`, whose usage record made an int
    for each count above 256 (a job that slept 300 times had 300 context switches); freed, they
    reordered the next child's free lists, and a later job read the bit in `id()`s."""
    seen = []
    for sleeps in (0, 300):
        with SandboxPool(standin_library, SandboxConfig(workers=1)) as fresh:
            fresh.run(Job(_LAYOUT, "solve", (f"x={sleeps}",)))
            after = fresh.run(Job(_LAYOUT, "solve", ("x=0",)))
        assert after.status is ExecStatus.OK, after
        seen.append(after.cases[0].printed)
    assert seen[0] == seen[1]
