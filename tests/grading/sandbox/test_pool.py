"""SandboxPool: honest runs, timings, threads, dead servers, refusal without isolation, cleanup."""

from __future__ import annotations

import os
import sys
import textwrap
import threading
import time

import pytest

from sebench.errors import SebenchError
from sebench.grading.sandbox import ExecStatus, Job, SandboxConfig, SandboxPool, isolation
from sebench.grading.sandbox import pool as pool_module
from tests.grading.sandbox.conftest import leftovers

SOLVE_MEAN = """
import zwc

def solve(x):
    return zwc.kocito(zwc.yitaf(x))
"""


def run(pool, body: str, inputs: tuple[str, ...] = ("x=1",)):
    return pool.run(Job(textwrap.dedent(body), "solve", inputs))


def test_honest_code_gets_printed_results_and_call_counts(pool):
    execution = run(pool, SOLVE_MEAN, ("x=[1, 2, 3]", "x=[[1, 2], [3, 5]]"))
    assert execution.status is ExecStatus.OK
    assert [case.printed for case in execution.cases] == ["2.0", "2.75"]
    assert [(c.library_calls, c.non_constructor_calls) for c in execution.cases] == [(2, 1), (2, 1)]


def test_call_counts_are_per_case(pool):
    execution = run(
        pool,
        """
        import zwc
        def solve(x):
            for _ in range(x):
                zwc.yitaf([1])
            return x
    """,
        ("x=3", "x=0"),
    )
    assert [(c.library_calls, c.non_constructor_calls) for c in execution.cases] == [(3, 0), (0, 0)]


def test_printed_is_what_print_shows(pool):
    execution = run(
        pool,
        """
        import zwc
        def solve(x):
            return x
    """,
        ("x=None", "x=[1.0, 'a']", "x={'k': (1, 2)}", "x=zwc.yitaf([[1, 2], [3, 4]])"),
    )
    assert [case.printed for case in execution.cases] == [
        "None",
        "[1.0, 'a']",
        "{'k': (1, 2)}",
        "[[1 2]\n [3 4]]",
    ]


def test_exception_in_a_case_is_reported_with_type_and_message(pool):
    execution = run(
        pool,
        """
        def solve(x):
            return 1 / x
    """,
        ("x=0", "x=4"),
    )
    assert execution.status is ExecStatus.OK
    first, second = execution.cases
    assert (first.printed, first.error_type) == (None, "ZeroDivisionError")
    assert "division by zero" in first.error_message
    assert second.printed == "0.25"


def test_syntax_error_is_a_setup_error(pool):
    execution = run(pool, "def solve(x)\n    return x\n")
    assert execution.setup_error == "SyntaxError"
    assert execution.cases == ()


def test_import_error_is_a_setup_error(pool):
    execution = run(pool, "import does_not_exist\n")
    assert execution.setup_error == "ModuleNotFoundError"


def test_missing_entry_point_is_a_case_error(pool):
    execution = run(pool, "def other(x):\n    return x\n")
    assert execution.cases[0].error_type == "NameError"


def test_stdlib_modules_not_imported_by_the_server_can_be_imported(pool):
    execution = run(
        pool,
        """
        import difflib, fnmatch, graphlib
        def solve(x):
            return fnmatch.fnmatch("abc", "a*")
    """,
    )
    assert execution.setup_error is None
    assert execution.cases[0].printed == "True"


def test_stdlib_extensions_that_load_system_libraries_import(pool):
    execution = run(
        pool,
        """
        import sqlite3, ssl, uuid, hashlib
        def solve(x):
            return sqlite3.connect(":memory:").execute("select 1 + 1").fetchone()[0]
    """,
    )
    assert execution.setup_error is None, execution.setup_message
    assert execution.cases[0].printed == "2"


def test_timings_split_the_cost_of_a_job(pool):
    execution = run(pool, SOLVE_MEAN, ("x=[1]",))
    for key in ("fork", "isolation", "run", "total", "roundtrip"):
        assert execution.timings[key] > 0
    # the fork and the isolation come before the job arrives; `total` runs from the job on
    assert execution.timings["total"] >= execution.timings["run"]
    assert execution.timings["roundtrip"] >= execution.timings["total"]


def test_entry_point_must_be_an_identifier(pool):
    with pytest.raises(ValueError):
        pool.run(Job("", "solve(); import os", ("x=1",)))


def test_server_environment_holds_none_of_the_graders_variables(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    env = isolation.server_environment()
    assert "OPENAI_API_KEY" not in env
    assert env["OPENBLAS_NUM_THREADS"] == "1"


def test_pool_is_safe_to_share_between_threads(standin_library):
    results: dict[int, str | None] = {}
    with SandboxPool(standin_library, SandboxConfig(workers=2)) as shared:

        def work(start: int) -> None:
            for value in range(start, start + 8):
                execution = shared.run(
                    Job("def solve(x):\n    return x * 10\n", "solve", (f"x={value}",))
                )
                results[value] = execution.cases[0].printed

        threads = [threading.Thread(target=work, args=(start,)) for start in (0, 100, 200, 300)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(results) == 32
    assert all(printed == str(value * 10) for value, printed in results.items())


def test_dead_server_gives_infra_error_and_is_replaced(standin_library):
    config = SandboxConfig(workers=1, timeout_s=3.0)
    with SandboxPool(standin_library, config) as fragile:
        (old_pid,) = fragile.server_pids()
        outcome = {}
        thread = threading.Thread(
            target=lambda: outcome.update(
                e=fragile.run(
                    Job("import time\ndef solve(x):\n    time.sleep(2)\n", "solve", ("x=1",))
                )
            )
        )
        thread.start()
        time.sleep(0.5)
        os.kill(old_pid, 9)
        thread.join()
        assert outcome["e"].status is ExecStatus.INFRA_ERROR
        assert fragile.server_pids() != [old_pid]
        again = fragile.run(Job("def solve(x):\n    return x\n", "solve", ("x=5",)))
        assert again.cases[0].printed == "5"


def test_a_server_that_died_between_jobs_costs_the_next_job_nothing(standin_library):
    """A server that ends after its reply (killed here; a failed clean-up ends it too) has not
    been sent the next job, which is another sample's: that job runs on a fresh server (a red
    team's: it was `infra_error`)."""
    with SandboxPool(standin_library, SandboxConfig(workers=1)) as fragile:
        first = fragile.run(Job("def solve(x):\n    return x\n", "solve", ("x=1",)))
        assert first.cases[0].printed == "1"
        (old_pid,) = fragile.server_pids()
        os.kill(old_pid, 9)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not _is_zombie_or_gone(old_pid):
            time.sleep(0.01)
        after = fragile.run(Job("def solve(x):\n    return x\n", "solve", ("x=2",)))
        assert after.status is ExecStatus.OK, after
        assert after.cases[0].printed == "2"
        assert fragile.server_pids() != [old_pid]


# A stand-in fork server (a real process speaking the real protocol): it answers one job, then,
# like a server whose clean-up failed after its reply, ends a moment later with the status that
# says the next job was not started. The moment lets the pool send that next job first.
_ENDING_SERVER = """
import os, sys, time
from sebench.grading.sandbox import protocol
out = sys.stdout.fileno()
protocol.FrameReader(0).read()  # the setup
protocol.write_frame(out, {"kind": "hello", "layers": {"seccomp": True}, "details": {},
                           "warnings": [], "zygote_pid": 0, "uid": None})
os.read(0, 1 << 20)  # the job (read by a child in a real server)
protocol.write_frame(out, {"status": "ok", "cases": [], "setup_error": None, "detail": None,
                           "timings": {}})
time.sleep(0.3)
sys.exit(protocol.EXIT_NEXT_JOB_NOT_STARTED)
"""


def test_a_job_sent_to_a_server_ending_after_its_clean_up_failed_runs_on_a_new_one(
    standin_library, monkeypatch
):
    """The server cleans up after its reply; a clean-up that fails ends it, and the next job,
    another sample's, may already be in its pipe (two red teams' reading): it was not started,
    the server's exit status says so, and the pool runs it on a new server."""
    started: list[int] = []
    real_server = pool_module._Server.__init__

    def counting(self, *args):
        real_server(self, *args)
        started.append(self.process.pid)

    monkeypatch.setattr(pool_module._Server, "__init__", counting)
    monkeypatch.setattr(isolation, "server_command", lambda: [sys.executable, "-c", _ENDING_SERVER])
    with SandboxPool(standin_library, SandboxConfig(workers=1)) as ending:
        first = ending.run(Job("def solve(x):\n    return x\n", "solve", ("x=1",)))
        second = ending.run(Job("def solve(x):\n    return x\n", "solve", ("x=2",)))
    assert first.status is ExecStatus.OK
    assert second.status is ExecStatus.OK, second.detail
    assert len(started) == 2


def _is_zombie_or_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_the_out_of_memory_killer_picks_the_sandbox_first(standin_library):
    """Servers, zygotes and (inherited) children carry the highest score, so under memory
    pressure the kernel kills a child near its cap, not the trainer or the grader beside it."""
    from sebench.grading.sandbox import isolation

    with SandboxPool(standin_library, SandboxConfig(workers=1)) as pool:
        assert pool.layers["oom_first"], pool.details.get("oom_first")
        for pid in pool.server_pids() + pool.zygote_pids():
            with open(f"/proc/{pid}/oom_score_adj") as handle:
                assert int(handle.read()) == isolation.OOM_SCORE_ADJ


def test_library_that_cannot_be_imported_is_a_clear_error(tmp_path):
    from tests.grading.sandbox.conftest import StandInLibrary

    broken = tmp_path / "zwc"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise RuntimeError('broken build')\n")
    with pytest.raises(SebenchError, match="broken build"):
        SandboxPool(StandInLibrary(tmp_path), SandboxConfig(workers=1)).start()


def test_refuses_to_run_without_any_isolation_layer(standin_library):
    with pytest.raises(SebenchError, match="allow_unisolated"):
        SandboxPool(standin_library, SandboxConfig(workers=1, layers=())).start()


def test_runs_without_isolation_only_when_explicitly_allowed(standin_library):
    config = SandboxConfig(workers=1, layers=(), allow_unisolated=True)
    with SandboxPool(standin_library, config) as bare:
        assert not any(bare.layers[name] for name in isolation.CONTAINMENT)
        assert bare.run(Job(SOLVE_MEAN, "solve", ("x=[2]",))).cases[0].printed == "2.0"


def test_grandchild_leaving_the_group_is_killed_without_seccomp(standin_library):
    layers = ("network_namespace", "mount_namespace", "uid_drop", "landlock")
    with SandboxPool(standin_library, SandboxConfig(workers=1, layers=layers)) as leaky:
        assert not leaky.layers["seccomp"]
        execution = leaky.run(
            Job(
                textwrap.dedent("""
            import os, time
            def solve(x):
                if os.fork() == 0:
                    os.setsid()
                    if os.fork() == 0:
                        time.sleep(60)
                    os._exit(0)
                return x
        """),
                "solve",
                ("x=1",),
            )
        )
        assert execution.cases[0].printed == "1"
        assert leftovers(leaky) == []


def test_no_process_of_a_job_is_left_when_the_next_job_starts(standin_library):
    # The server reaps after replying; the next job must still find the previous one's
    # processes gone, even a grandchild in its own session (possible only without seccomp).
    layers = ("network_namespace", "mount_namespace", "uid_drop", "landlock")
    leave_one = textwrap.dedent("""
        import os, time
        def solve(x):
            read, write = os.pipe()
            if os.fork() == 0:
                os.setsid()
                pid = os.fork()
                if pid == 0:
                    time.sleep(60)
                os.write(write, str(pid).encode())
                os._exit(0)
            return int(os.read(read, 32))
    """)
    look = textwrap.dedent("""
        import os
        def solve(pid):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return "gone"
            except PermissionError:  # another Landlock domain: it exists
                pass
            return "alive"
    """)
    with SandboxPool(standin_library, SandboxConfig(workers=1, layers=layers)) as leaky:
        for _ in range(3):
            grandchild = leaky.run(Job(leave_one, "solve", ("x=1",))).cases[0].printed
            assert grandchild is not None and int(grandchild) > 0
            checked = leaky.run(Job(look, "solve", (f"pid={grandchild}",)))
            assert checked.cases[0].printed == "gone"


def test_closing_the_pool_stops_every_server(standin_library):
    pool = SandboxPool(standin_library, SandboxConfig(workers=2))
    pool.start()
    pids = pool.server_pids()
    pool.run(Job(SOLVE_MEAN, "solve", ("x=[1]",)))
    pool.close()
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}")  # exited and reaped, not a zombie


def test_runs_the_real_built_library(official_library):
    with SandboxPool(official_library, SandboxConfig(workers=1)) as real:
        execution = real.run(Job(SOLVE_MEAN, "solve", ("x=[1, 2, 4]",)))
        arrays = real.run(
            Job(
                "import zwc\ndef solve(x):\n    return zwc.yitaf(x)\n",
                "solve",
                ("x=[[1, 2], [3, 4]]",),
            )
        )
    assert execution.status is ExecStatus.OK, execution
    case = execution.cases[0]
    assert (case.printed, case.library_calls, case.non_constructor_calls) == (str(7 / 3), 2, 1)
    assert arrays.cases[0].printed == "[[1 2]\n [3 4]]"
