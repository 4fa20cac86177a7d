"""Hardening found by the red team: the shared Landlock ruleset, inherited fds, lone surrogates,
the harness's sender on the stack, NumPy imported at run time. Each through a real pool."""

from __future__ import annotations

import signal
import struct
import subprocess
import textwrap
import time

import pytest

from sebench.grading.sandbox import ExecStatus, Job, isolation, protocol
from sebench.grading.sandbox.config import SandboxConfig
from tests.grading.sandbox.conftest import SECRET

pytestmark = pytest.mark.usefixtures("no_leftovers")


def run(pool, body: str, inputs: tuple[str, ...] = ("x=1",)):
    return pool.run(Job(textwrap.dedent(body), "solve", inputs))


def test_child_holds_only_stdio_and_the_result_pipe(pool):
    execution = run(
        pool,
        """
        import os, stat
        def solve(x):
            found = []
            for fd in range(4096):
                try:
                    mode = os.fstat(fd).st_mode
                except OSError:
                    continue
                kind = "chr" if stat.S_ISCHR(mode) else "fifo" if stat.S_ISFIFO(mode) else "other"
                found.append((fd, kind))
            return found
    """,
    )
    found = eval(execution.cases[0].printed)
    assert found[:3] == [(0, "chr"), (1, "chr"), (2, "chr")]
    assert [kind for _, kind in found[3:]] == ["fifo"], found  # the result pipe, nothing else


def test_the_streams_a_program_gets_from_sys_hold_no_descriptor(pool):
    """`sys.stdout` and the others lead to no file object, whose type opens any descriptor by
    number (a red team closed the result pipe that way); writing to them still works."""
    execution = run(
        pool,
        """
        import sys
        def solve(x):
            found = []
            for stream in (sys.stdin, sys.stdout, sys.stderr):
                try:
                    found.append(stream.fileno())
                except Exception as exc:
                    found.append(type(exc).__name__)
                found.append(hasattr(stream, "buffer"))
            sys.stdout.write("written")
            sys.stderr.write("written")
            return found
    """,
    )
    assert execution.status is ExecStatus.OK, execution
    assert eval(execution.cases[0].printed) == ["UnsupportedOperation", False] * 3


def test_landlock_system_calls_are_refused(pool_below_introspection):
    if not pool_below_introspection.layers["seccomp"]:
        pytest.skip("no seccomp layer here")
    execution = run(
        pool_below_introspection,
        """
        import ctypes
        def solve(x):
            libc = ctypes.CDLL(None, use_errno=True)
            found = []
            for number, args in ((444, (None, 0, 1)), (445, (3, 1, None, 0)), (446, (3, 0))):
                ctypes.set_errno(0)
                rc = libc.syscall(number, *args)
                found.append((rc, ctypes.get_errno()))
            return found
    """,
    )
    assert eval(execution.cases[0].printed) == [(-1, 1), (-1, 1), (-1, 1)]  # EPERM each


def test_a_job_cannot_widen_what_later_jobs_may_read(pool_below_introspection, standin_library):
    if not pool_below_introspection.layers["landlock"]:
        pytest.skip("no Landlock layer here")
    metadata = standin_library.root / "sebench_library.json"
    poison = run(
        pool_below_introspection,
        """
        import ctypes, os
        def solve(x):
            libc = ctypes.CDLL(None, use_errno=True)
            class PathBeneath(ctypes.Structure):
                _pack_ = 1
                _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]
            rule = PathBeneath(4 | 8, os.open("/", os.O_PATH))
            return [fd for fd in range(3, 256)
                    if libc.syscall(445, fd, 1, ctypes.byref(rule), 0) == 0]
    """,
    )
    assert poison.cases[0].printed == "[]", poison
    exploit = run(
        pool_below_introspection, f"def solve(x):\n    return open({str(metadata)!r}).read()\n"
    )
    assert exploit.cases[0].error_type in {"PermissionError", "FileNotFoundError"}
    assert SECRET not in str(exploit)


def test_lone_surrogates_are_results_and_the_server_survives(pool):
    before = pool.server_pids()
    execution = run(
        pool,
        """
        def solve(x):
            if x == 1:
                return "\\ud800"
            raise ValueError("\\udc80 bad")
    """,
        ("x=1", "x=2"),
    )
    assert execution.status is ExecStatus.OK, execution
    # escaped on arrival, so verdicts and JSONL files holding them can always be written
    assert execution.cases[0].printed == "\\ud800"
    assert execution.cases[1].error_type == "ValueError"
    assert execution.cases[1].error_message == "\\udc80 bad"
    assert pool.server_pids() == before


def test_frames_below_the_code_hold_neither_the_sender_nor_the_nonce(pool_below_introspection):
    execution = run(
        pool_below_introspection,
        """
        import re, sys
        def solve(x):
            leaks = []
            frame = sys._getframe()
            while frame is not None:
                for name, value in frame.f_locals.items():
                    if name in ("send", "nonce") or (
                        isinstance(value, str) and re.fullmatch("[0-9a-f]{32}", value)
                    ) or (
                        isinstance(value, bytes) and re.search(b"[0-9a-f]{32}", value)
                    ):
                        leaks.append((frame.f_code.co_name, name))
                    if isinstance(value, dict) and "nonce" in value:
                        leaks.append((frame.f_code.co_name, name + "['nonce']"))
                    cells = getattr(value, "__closure__", None) or ()
                    for cell in cells:
                        try:
                            content = cell.cell_contents
                        except ValueError:
                            continue
                        if isinstance(content, str) and re.fullmatch("[0-9a-f]{32}", content):
                            leaks.append((frame.f_code.co_name, name + " closure"))
                frame = frame.f_back
            return leaks
    """,
    )
    assert execution.cases[0].printed == "[]", execution


def test_numpy_cannot_be_imported_at_run_time_but_the_library_works(pool_below_introspection):
    execution = run(
        pool_below_introspection,
        """
        import builtins, importlib, zwc
        def solve(x):
            attempts = [
                lambda: __import__("numpy"),
                lambda: builtins.__import__("numpy.linalg", fromlist=["inv"]),
                lambda: importlib.import_module("numpy"),
                lambda: eval("__import__('numpy')"),
                lambda: exec("import numpy", {}),
                lambda: __import__("linalg", {"__name__": "numpy", "__package__": "numpy"},
                                   None, ["inv"], 1),
            ]
            refused = []
            for attempt in attempts:
                try:
                    refused.append(attempt() is None)
                except ImportError:
                    refused.append(True)
            mean = zwc.kocito(zwc.yitaf([1.0, 2.0]))
            return refused, str(mean), str(zwc.rfx.quvohe([[2.0, 0.0], [0.0, 4.0]]))
    """,
    )
    assert execution.status is ExecStatus.OK, execution
    refused, mean, inverse = eval(execution.cases[0].printed)
    assert refused == [True] * 6
    assert mean == "1.5"
    assert "0.25" in inverse


def test_importing_numpy_while_defining_is_an_import_error(pool):
    execution = run(pool, "import numpy as np\ndef solve(x):\n    return np.mean(x)\n")
    assert execution.setup_error == "ImportError"


def test_encode_escapes_lone_surrogates_and_decodes_them_back():
    message = {"printed": "\ud800 and \udc80", "text": "é 中"}
    frames = protocol.FrameDecoder().feed(protocol.encode(message))
    assert frames == [message]


def test_a_job_the_server_cannot_handle_is_infra_error_and_the_server_goes_on(standin_library):
    """A malformed job (here: no entry point) fails inside the server; the next job still runs."""
    process = subprocess.Popen(
        isolation.server_command(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=isolation.server_environment(),
        cwd="/",
    )
    try:
        out, reader = process.stdin.fileno(), protocol.FrameReader(process.stdout.fileno())
        library = {"root": str(standin_library.root), "package": "zwc", "submodule": "rfx"}
        config = SandboxConfig(workers=1, allow_unisolated=True).to_dict()
        protocol.write_frame(out, {"config": config, "library": library})
        assert reader.read(deadline=time.monotonic() + 120)["kind"] == "hello"
        code = b"def solve(x):\n    return x\n"
        only_code = struct.pack(">I", len(code)) + code
        protocol.write_all(out, protocol.JOB_HEADER.pack(len(only_code), 1) + only_code)
        broken = reader.read(deadline=time.monotonic() + 30)
        assert broken["status"] == ExecStatus.INFRA_ERROR.value
        protocol.write_all(out, protocol.encode_job(code.decode(), "solve", ["x=3"]))
        reply = reader.read(deadline=time.monotonic() + 30)
        assert reply["status"] == ExecStatus.OK.value
        assert reply["cases"][0]["printed"] == "3"
    finally:
        process.stdin.close()
        process.wait(30)
        process.stdout.close()


def test_a_child_killed_by_a_signal_without_a_name_is_reported_by_its_number():
    """Real-time signals have no member in `signal.Signals`: asking for one raised in the
    server, which ended the job as `infra_error` instead of a crash."""
    from sebench.grading.sandbox.server import signal_name

    assert signal_name(signal.SIGSEGV) == "SIGSEGV"
    assert signal_name(signal.SIGRTMIN + 1) == f"signal {int(signal.SIGRTMIN) + 1}"


def test_a_start_frame_and_a_large_first_result_read_at_once_are_within_the_cap(pool):
    """Until the start frame says how many cases follow, the server allows 16 KiB; the cap was
    checked per read, so when the server read late (under load: here it is stopped) and found
    the start frame and a 40 KB result together, an honest result was `output_limit`."""
    import os
    import threading

    server = pool.server_pids()[0]
    replies = []
    worker = threading.Thread(
        target=lambda: replies.append(
            pool.run(Job("def solve():\n    return 'x' * 40000\n", "solve", ("",)))
        )
    )
    os.kill(server, signal.SIGSTOP)
    try:
        worker.start()  # the child reads its job itself, writes all its frames and exits
        time.sleep(0.5)
    finally:
        os.kill(server, signal.SIGCONT)
    worker.join()
    assert replies[0].status is ExecStatus.OK, replies[0]
    assert replies[0].cases[0].printed == "x" * 40000


def test_the_decoder_reads_its_cap_again_before_each_frame():
    start, large = protocol.encode({"kind": "start"}), protocol.encode({"printed": "x" * 40000})
    decoder = protocol.FrameDecoder(max_total=16 << 10)
    taken = []
    for frame in decoder.frames(start + large):
        taken.append(frame)
        decoder.max_total = decoder.total + (64 << 10)  # as the server does after the start
    assert [len(frame) for frame in taken] == [1, 1]
    with pytest.raises(protocol.FrameTooLarge):  # the cap itself still holds
        protocol.FrameDecoder(max_total=16 << 10).feed(start + large)
