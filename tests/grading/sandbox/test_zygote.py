"""Each fork server forks a zygote once; the zygote forks every child (see zygote.py)."""

from __future__ import annotations

import os
import threading
import time

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


def test_a_malformed_job_does_not_stop_the_zygote(pool):
    bad = Job("def solve(x):\n    return x\n", "solve", ("x=1",))
    object.__setattr__(bad, "test_inputs", (1,))  # not text: the zygote refuses it
    assert pool.run(bad).status is ExecStatus.INFRA_ERROR
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
