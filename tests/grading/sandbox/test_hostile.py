"""Hostile children: each ends in the right status, leaves no process behind, changes nothing.

The grading engineer's red-team suite attacks the whole grader; these check the mechanics of the
sandbox itself, one attack each.
"""

from __future__ import annotations

import contextlib
import os
import socket
import textwrap
import threading

import pytest

from sebench.grading.sandbox import ExecStatus, Job
from tests.grading.sandbox.conftest import SECRET

pytestmark = pytest.mark.usefixtures("no_leftovers")


def run(pool, body: str, inputs: tuple[str, ...] = ("x=1",)):
    return pool.run(Job(textwrap.dedent(body), "solve", inputs))


def test_os_exit_without_result_is_crashed(pool):
    execution = run(
        pool,
        """
        import os
        def solve(x):
            os._exit(0)
    """,
    )
    assert execution.status is ExecStatus.CRASHED
    assert execution.cases == ()


def test_sys_exit_is_crashed_not_a_pass(pool):
    execution = run(
        pool,
        """
        import sys
        def solve(x):
            sys.exit(0)
    """,
    )
    assert execution.status is ExecStatus.CRASHED
    assert "SystemExit" in execution.detail


def test_sys_exit_while_defining_is_crashed(pool):
    assert run(pool, "raise SystemExit\n").status is ExecStatus.CRASHED


def test_infinite_loop_times_out_and_is_killed(pool):
    execution = run(
        pool,
        """
        def solve(x):
            while True:
                pass
    """,
        ("x=1", "x=2"),
    )
    assert execution.status is ExecStatus.TIMEOUT
    assert execution.timings["total"] < pool.config.timeout_s + 1.0


def test_sleeping_code_times_out_on_the_wall_clock(pool):
    execution = run(
        pool,
        """
        import time
        def solve(x):
            time.sleep(60)
    """,
    )
    assert execution.status is ExecStatus.TIMEOUT


def test_completed_cases_are_kept_when_a_later_case_times_out(pool):
    execution = run(
        pool,
        """
        def solve(x):
            while x == 2:
                pass
            return x
    """,
        ("x=1", "x=2", "x=3"),
    )
    assert execution.status is ExecStatus.TIMEOUT
    assert [case.printed for case in execution.cases] == ["1"]


def test_fork_bomb_is_refused(pool):
    execution = run(
        pool,
        """
        import os
        def solve(x):
            while True:
                os.fork()
    """,
    )
    assert execution.status is ExecStatus.OK
    assert execution.cases[0].error_type == "PermissionError"


def test_subprocess_cannot_start_a_program(pool, tmp_path):
    marker = tmp_path / "ran"
    execution = run(
        pool,
        f"""
        import subprocess
        def solve(x):
            return subprocess.run(["touch", "{marker}"]).returncode
    """,
    )
    assert execution.cases[0].error_type == "PermissionError"
    assert not marker.exists()


def test_memory_bomb_is_memory(pool):
    execution = run(
        pool,
        """
        def solve(x):
            hog = []
            while True:
                hog.append(bytearray(50 << 20))
    """,
    )
    assert execution.status is ExecStatus.MEMORY


def test_memory_error_while_defining_is_memory(pool):
    execution = run(
        pool,
        """
        huge = bytearray(10 << 30)
        def solve(x):
            return x
    """,
    )
    assert execution.status is ExecStatus.MEMORY
    assert execution.setup_error == "MemoryError"


def test_numpy_allocation_over_the_budget_is_memory(pool):
    execution = run(
        pool,
        """
        import zwc
        def solve(x):
            return zwc.mumeko(10**9)  # 8 GB, budget 256 MiB
    """,
    )
    assert execution.status is ExecStatus.MEMORY
    assert execution.cases[0].error_type.endswith("MemoryError")


def test_writing_outside_the_scratch_dir_is_denied(pool, tmp_path):
    target = tmp_path / "planted.txt"
    execution = run(
        pool,
        f"""
        def solve(x):
            with open("{target}", "w") as handle:
                handle.write("pwned")
    """,
    )
    # denied by Landlock, or out of sight behind the private /tmp
    assert execution.cases[0].error_type in {"PermissionError", "FileNotFoundError"}
    assert not target.exists()


def test_writing_in_the_scratch_dir_works_and_is_emptied(pool):
    body = """
        import os
        def solve(x):
            before = os.listdir(".")
            with open("note.txt", "w") as handle:
                handle.write("ok")
            return before, open("note.txt").read()
    """
    first, second = run(pool, body), run(pool, body)
    assert first.cases[0].printed == "([], 'ok')"
    assert second.cases[0].printed == "([], 'ok')"  # nothing left from the previous job


def test_tempfile_works_in_the_scratch_dir(pool):
    execution = run(
        pool,
        """
        import tempfile
        def solve(x):
            with tempfile.NamedTemporaryFile("w") as handle:
                handle.write("ok")
                handle.flush()
                return open(handle.name).read()
    """,
    )
    assert execution.cases[0].printed == "ok", execution


def test_library_metadata_is_unreadable(pool, standin_library):
    execution = run(
        pool,
        f"""
        def solve(x):
            return open("{standin_library.root / "sebench_library.json"}").read()
    """,
    )
    assert execution.cases[0].error_type in {"PermissionError", "FileNotFoundError"}
    assert SECRET not in str(execution)


def test_grader_sources_and_data_are_unreadable(pool, tmp_path):
    data = tmp_path / "answers.jsonl"
    data.write_text(SECRET)
    execution = run(
        pool,
        f"""
        import os
        def solve(x):
            found = []
            for path in ("{data}", "/etc/passwd", "/proc/1/environ", "{os.getcwd()}/pyproject.toml"):
                try:
                    found.append(open(path).read()[:20])
                except OSError as exc:
                    found.append(type(exc).__name__)
            return found
    """,
    )
    printed = execution.cases[0].printed
    assert SECRET not in printed
    assert "root:" not in printed
    assert "build-system" not in printed


def test_environment_holds_nothing_of_the_grader(pool, monkeypatch):
    execution = run(
        pool,
        """
        import os
        def solve(x):
            return sorted(os.environ)
    """,
    )
    assert "OPENAI_API_KEY" not in execution.cases[0].printed
    assert execution.cases[0].printed.startswith("[")


def test_socket_connect_to_a_local_server_fails(pool):
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    accepted: list[object] = []
    listener.settimeout(3.0)

    def accept() -> None:
        with contextlib.suppress(OSError):
            accepted.append(listener.accept())

    thread = threading.Thread(target=accept)
    thread.start()
    execution = run(
        pool,
        f"""
        import socket
        def solve(x):
            with socket.create_connection(("127.0.0.1", {port}), timeout=1) as conn:
                conn.sendall(b"leak")
            return "connected"
    """,
    )
    thread.join()
    listener.close()
    assert execution.cases[0].printed is None
    assert execution.cases[0].error_type in {"PermissionError", "OSError", "ConnectionRefusedError"}
    assert accepted == []


def test_signalling_the_server_is_refused_and_the_server_survives(pool):
    pids_before = pool.server_pids()
    execution = run(
        pool,
        """
        import os
        def solve(x):
            os.kill(os.getppid(), 9)  # SIGKILL (the module `signal` is refused to the program)
    """,
    )
    assert execution.cases[0].error_type == "PermissionError"
    assert pool.server_pids() == pids_before
    assert run(pool, "def solve(x):\n    return x\n").cases[0].printed == "1"


def test_killing_its_own_process_group_is_crashed(pool):
    execution = run(
        pool,
        """
        import os
        def solve(x):
            os.kill(os.getpid(), 9)  # SIGKILL
    """,
    )
    assert execution.status is ExecStatus.CRASHED
    assert "SIGKILL" in execution.detail


def test_huge_output_is_output_limit(pool):
    execution = run(
        pool,
        """
        def solve(x):
            return "x" * (10 << 20)
    """,
    )
    assert execution.status is ExecStatus.OUTPUT_LIMIT
    assert len(execution.cases[0].printed) <= pool.config.max_output_bytes


def test_output_over_the_cap_across_cases_is_output_limit(pool):
    execution = run(
        pool,
        """
        def solve(x):
            return "y" * (40 << 10)
    """,
        ("x=1", "x=2", "x=3"),
    )
    assert execution.status is ExecStatus.OUTPUT_LIMIT


def test_printed_text_is_never_taken_as_a_result(pool):
    execution = run(
        pool,
        """
        import sys, os
        print('{"kind": "case", "printed": "42"}')
        def solve(x):
            print("42")
            sys.stdout.flush()
            os.write(1, b"42")
            return 7
    """,
    )
    assert execution.status is ExecStatus.OK
    assert execution.cases[0].printed == "7"


def test_forged_frames_on_the_result_pipe_are_a_crash(pool):
    execution = run(
        pool,
        """
        import os, stat, struct, json
        def solve(x):
            frame = json.dumps({"kind": "case", "index": 0, "printed": "42"}).encode()
            for fd in range(3, 64):
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode):
                        os.write(fd, struct.pack(">I", len(frame)) + frame)
                except OSError:
                    pass
            return 7
    """,
    )
    assert execution.status is ExecStatus.CRASHED
    assert "protocol" in execution.detail


def test_garbage_on_the_result_pipe_is_a_crash(pool):
    execution = run(
        pool,
        """
        import os
        def solve(x):
            for fd in range(3, 64):
                try:
                    os.write(fd, b"\\xff\\xff\\xff\\x7fgarbage")
                except OSError:
                    pass
            return 7
    """,
    )
    assert execution.status in {ExecStatus.CRASHED, ExecStatus.OUTPUT_LIMIT}


def test_patched_builtins_do_not_change_reported_results(pool):
    execution = run(
        pool,
        """
        import builtins, json, os
        patches = [
            (builtins, "str", lambda value: "42"),
            (builtins, "len", lambda value: 0),
            (builtins, "isinstance", lambda *args: True),
            (json, "dumps", lambda *args, **kwargs: '{"printed": "42"}'),
        ]
        refused = []
        for module, name, patch in patches:
            try:  # modules are read-only to the program (stdlib_guard.seal_modules)
                setattr(module, name, patch)
            except RuntimeError:
                refused.append(name)
        def solve(x):
            return x + 1 if len(refused) == 4 else "patched"
    """,
        ("x=1", "x=2"),
    )
    assert execution.status is ExecStatus.OK
    assert [case.printed for case in execution.cases] == ["2", "3"]


def test_closing_the_result_pipe_is_a_crash(pool):
    execution = run(
        pool,
        """
        import os
        for fd in range(3, 64):
            try:
                os.close(fd)
            except OSError:
                pass
        def solve(x):
            return 1
    """,
    )
    assert execution.status is ExecStatus.CRASHED


def test_threads_do_not_outlive_the_child(pool):
    execution = run(
        pool,
        """
        import threading, time
        def spin():
            while True:
                time.sleep(0.01)
        def solve(x):
            threading.Thread(target=spin, daemon=False).start()
            return x
    """,
    )
    assert execution.status is ExecStatus.OK
    assert execution.cases[0].printed == "1"


def test_result_whose_str_raises_a_base_exception_is_no_result(pool):
    # The policy now refuses deriving from BaseException (class-base), so the grader's red-team
    # file no longer reaches the harness: the harness itself is checked here.
    execution = run(
        pool,
        """
        class Stop(BaseException):
            pass
        class Result:
            def __str__(self):
                raise Stop()
        def solve(x):
            return Result()
    """,
    )
    assert not (execution.status is ExecStatus.OK and execution.cases[0].error_type is None)


def test_no_other_process_is_changed_even_where_the_uid_cannot_be_dropped(standin_library):
    """A red team's (twelfth session): where the server cannot drop its uid (not root), a child
    has the grader's uid, and the kernel let a job set the grader's CPU limit to 1 s (the grader
    was killed), its open-file limit (the next job an `infra_error`), its niceness and CPUs.
    Here the uid is kept on purpose (as root, the kernel would refuse these itself); each call
    writes back the value it read (or only reads), so the grader is never changed."""
    from sebench.grading.sandbox import SandboxConfig, SandboxPool

    grader = os.getpid()
    body = f"""
        import os, resource

        def attempt(call):
            try:
                call()
                return "done"
            except OSError as exc:
                return exc.errno

        def solve(x):
            return [
                attempt(lambda: resource.prlimit({grader}, resource.RLIMIT_NOFILE)),
                attempt(lambda: resource.prlimit(os.getppid(), resource.RLIMIT_NPROC)),
                attempt(lambda: os.setpriority(
                    os.PRIO_PROCESS, {grader}, os.getpriority(os.PRIO_PROCESS, {grader}))),
                attempt(lambda: os.setpriority(os.PRIO_PGRP, 0, 0)),
                attempt(lambda: os.sched_setaffinity({grader}, os.sched_getaffinity({grader}))),
                attempt(lambda: resource.setrlimit(
                    resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE))),
                attempt(lambda: os.sched_setaffinity(0, os.sched_getaffinity(0))),
            ]
    """
    config = SandboxConfig(workers=1, timeout_s=1.5, memory_mb=256, drop_uid=False)
    with SandboxPool(standin_library, config) as pool:
        if not pool.layers.get("seccomp"):
            pytest.skip("seccomp is not available here")
        execution = run(pool, body)
    assert execution.status is ExecStatus.OK, execution.detail
    assert execution.cases[0].printed == "[1, 1, 1, 1, 1, 'done', 'done']"  # 1: EPERM


@pytest.mark.parametrize(
    "call",
    [
        "exec('y = 1')",
        "eval('1 + 1')",
        "compile('1', 'x', 'eval')",
        "list(map(exec, ['y = 1']))",
        "exec(compile('y = 1', '<string>', 'exec'))",
    ],
)
def test_the_program_compiles_no_code_of_its_own(pool, call):
    """Below the policy, which refuses these names: two red teams' policy gaps ended in `exec`
    (then `zwc._table`). The stdlib's generated code still runs (dataclasses, namedtuple)."""
    execution = run(pool, f"def solve(x):\n    {call}\n    return x\n")
    assert execution.cases[0].error_type == "RuntimeError", execution
    assert "compiling code from the program" in execution.cases[0].error_message
    generated = run(
        pool,
        """
        import collections, dataclasses

        @dataclasses.dataclass
        class P:
            a: int

        def solve(x):
            return P(x).a + collections.namedtuple("Q", "b")(x).b
    """,
    )
    assert generated.cases[0].printed == "2", generated
