"""The warm fork server: `python -m sebench.grading.sandbox.server` (started by `SandboxPool`).

A fresh interpreter (never forked from the grader, which holds the expected outputs) imports
NumPy, the library and the stdlib modules solutions commonly use, sets up the isolation layers,
then serves jobs: for each, it forks a child (1-5 ms, instead of ~120 ms for a fresh interpreter
importing NumPy), enforces the wall-clock deadline and the output cap, and answers with one frame;
then, before reading the next job, it reaps the child and empties the scratch dir (`finish`).

Protocol on stdin/stdout (length-prefixed JSON, see protocol.py): first the grader sends
`{"config", "library": {"root", "package", "submodule"}}`, the server answers `hello`
with its layers; then each job `{"code", "entry_point", "inputs"}` gets one execution frame.
"""

from __future__ import annotations

import os
import signal
import sys

# Before NumPy is imported anywhere in this process: single-threaded BLAS (forks stay cheap and
# RLIMIT_AS does not trip over per-thread arenas).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import contextlib  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import secrets  # noqa: E402
import select  # noqa: E402
import shutil  # noqa: E402
import site  # noqa: E402 - under -S (see isolation.server_command) it only defines functions
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

from sebench.grading.sandbox import child, import_guard, isolation, limits, protocol  # noqa: E402
from sebench.grading.sandbox.config import SandboxConfig  # noqa: E402
from sebench.grading.sandbox.execution import ExecStatus  # noqa: E402

# Imported before any fork: a child may be unable to read the interpreter's folder (uid drop,
# Landlock), and importing an already-imported module needs no file access.
# Never `threading` (nor `queue`, `subprocess`, `logging`, which import it): its fork handler
# runs in every child and touches ~120 pages (copy-on-write faults), 0.6 ms per sample here;
# tests/grading/sandbox/test_server_imports.py keeps it out.
PREIMPORTS = (
    "math",
    "cmath",
    "statistics",
    "itertools",
    "functools",
    "collections",
    "collections.abc",
    "typing",
    "re",
    "json",
    "fractions",
    "decimal",
    "heapq",
    "bisect",
    "random",
    "operator",
    "copy",
    "string",
    "dataclasses",
    "datetime",
    "time",
    "numbers",
    "enum",
    "types",
    "array",
    "struct",
    "textwrap",
    "warnings",
    "contextlib",
    "abc",
    "io",
    "calendar",
    "_strptime",
    "unicodedata",
    "pprint",
    "weakref",
    "sys",
    "os",
)


def preimport(extra: tuple[str, ...] = ()) -> None:
    # The builtins `site` adds (`exit`, `quit`, `help`, ...): solutions graded officially have them.
    site.setquit()
    site.setcopyright()
    site.sethelper()
    for name in PREIMPORTS + extra:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


class Server:
    def __init__(self, config: SandboxConfig, library: dict) -> None:
        self.config = config
        sys.path.insert(0, library["root"])
        package = library["package"]
        importlib.import_module(package)
        importlib.import_module(f"{package}.{library['submodule']}")
        self.runtime = importlib.import_module(f"{package}._runtime")
        preimport()
        self.isolation = isolation.setup_server(config, protected=[library["root"]])
        sys.path.remove(library["root"])
        # Installed here, once, rather than in each child: the server imports nothing more, and
        # every child inherits the guard without paying for setting it up.
        import_guard.install((package,))
        # The server's environment (already free of the grader's variables) is the children's.
        os.environ["HOME"] = os.environ["TMPDIR"] = self.isolation.scratch
        # Objects that exist now are never collected: a collection in a child would otherwise
        # write to every object's header and copy the whole heap page by page (copy-on-write).
        gc.freeze()
        self._unreaped: int | None = None  # the last child: killed, reaped after the reply
        self.plan = self._plan()  # what the next child applies, made ahead of its job
        self.reap_seconds = 0.0  # how long the last `finish` took

    def hello(self) -> dict:
        return {
            "kind": "hello",
            "pid": os.getpid(),
            "layers": self.isolation.layers,
            "details": self.isolation.details,
            "warnings": self.isolation.warnings,
            "uid": self.isolation.uid if self.isolation.layers["uid_drop"] else None,
        }

    def run(self, job: dict) -> dict:
        if self._unreaped is not None:  # `finish` not called since the last job: never two
            self.finish()
        config, plan = self.config, self.plan
        inputs = job["inputs"]
        nonce = secrets.token_hex(16)
        read_fd, write_fd = os.pipe()
        t0 = time.perf_counter()
        deadline = time.monotonic() + config.timeout_s
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child; it never returns
            try:
                os.close(read_fd)
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                keep = [write_fd] + ([plan.ruleset.fd] if plan.ruleset else [])
                _close_all_but(keep + [0, 1, 2])
                job = {
                    "nonce": nonce,
                    "code": job["code"],
                    "entry_point": job["entry_point"],
                    "inputs": inputs,
                }
                # Only the child's sender may hold the nonce: not this frame, which stays below
                # the untrusted code on the stack (the parent's copy keeps its own).
                del nonce
                child.run(
                    job,
                    write_fd,
                    plan,
                    self.isolation.scratch,
                    self.runtime,
                    config.max_output_bytes,
                )
            finally:
                os._exit(child.EXIT_ISOLATION_FAILED)
        self._unreaped = pid
        os.close(write_fd)
        try:
            return self._collect(pid, read_fd, nonce, len(inputs), t0, deadline)
        finally:
            os.close(read_fd)

    def finish(self) -> None:
        """Reap the last child (killed already), clean up after it and plan the next child;
        the time it took goes with the next job's timings (`reaped_before`).

        Called after the reply is sent, and always before the next fork: no process or file of
        one job is left when the next job starts. The reap waits for the child's exit to free its
        memory (~0.7 ms), which thus overlaps the grader's own work instead of delaying the reply.
        """
        started = time.perf_counter()
        if self._unreaped is not None:
            pid, self._unreaped = self._unreaped, None
            _kill_group(pid)  # killed already, unless the job failed in the server itself
            os.waitpid(pid, 0)
        self._clean_up()
        self.plan = self._plan()
        self.reap_seconds = time.perf_counter() - started

    def _plan(self) -> isolation.ChildPlan:
        # Recomputed per job: the server's own mappings can grow slowly (caches, arenas).
        limits_now = limits.rlimits(self.config, limits.mapped_bytes())
        return isolation.plan_for_child(self.isolation, limits_now)

    def _collect(
        self, pid: int, read_fd: int, nonce: str, n_inputs: int, t0: float, deadline: float
    ) -> dict:
        # Bytes an honest child can send: the printed results (JSON may escape one byte to six),
        # each case's error message (same escaping) and the frame around it, start and end.
        per_case = 6 * child.MAX_ERROR_MESSAGE + 1024
        cap = 6 * self.config.max_output_bytes + n_inputs * per_case + (16 << 10)
        decoder = protocol.FrameDecoder(max_total=cap)
        cases: list[dict] = []
        state = {
            "start": None,
            "setup_error": None,
            "setup_message": None,
            "done": None,
            "abort": None,
            "memory": False,
            "output_limit": False,
            "violation": None,
            "isolation_failed": None,
        }
        eof = timed_out = over_cap = False
        try:
            while not eof and state["done"] is None and state["abort"] is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                readable, _, _ = select.select([read_fd], [], [], remaining)
                if not readable:
                    continue
                chunk = os.read(read_fd, 1 << 16)
                if not chunk:
                    eof = True
                    break
                try:
                    frames = decoder.feed(chunk)
                except protocol.FrameTooLarge:
                    over_cap = True
                    break
                except protocol.ProtocolError as exc:
                    state["violation"] = str(exc)
                    break
                for frame in frames:
                    if not self._accept(frame, nonce, n_inputs, cases, state):
                        break
                if state["violation"] or state["isolation_failed"]:
                    break
        finally:
            # Killed at once, even after "done" (the harness exits right after it anyway):
            # waiting for it to exit by itself only adds a scheduling delay to every job.
            _kill_group(pid)
        t_killed = time.perf_counter()

        def exit_status() -> tuple[int, float]:
            """Reap now: only a run that ended without a result needs how the child ended."""
            _, wait_status, usage = os.wait4(pid, 0)
            self._unreaped = None
            return wait_status, usage.ru_utime + usage.ru_stime

        start = state["start"] or {}
        timings = {"total": t_killed - t0, "reaped_before": self.reap_seconds}
        if start:
            timings["fork"] = start["t_start"] - t0
            timings["isolation"] = start["t_isolated"] - start["t_start"]
            end = (state["done"] or {}).get("t_end")
            if isinstance(end, float):
                timings["run"] = end - start["t_isolated"]
        status, detail = self._status(state, timed_out, over_cap, exit_status, len(cases))
        for case in cases:
            for key in ("kind", "index", "memory", "output_limit", "nonce"):
                case.pop(key, None)
        return {
            "status": status.value,
            "cases": cases,
            "setup_error": state["setup_error"],
            "setup_message": state["setup_message"],
            "detail": detail,
            "timings": timings,
        }

    def _accept(
        self, frame: dict, nonce: str, n_inputs: int, cases: list[dict], state: dict
    ) -> bool:
        """Check one frame's place in the sequence; False (and a violation) when out of order."""
        kind = frame.get("kind")
        if frame.get("nonce") != nonce:
            state["violation"] = "frame without the job's nonce"
            return False
        if kind == "isolation_failed" and state["start"] is None:
            state["isolation_failed"] = str(frame.get("error"))
            return False
        if state["start"] is None:
            if kind != "start" or not all(
                isinstance(frame.get(k), float) for k in ("t_start", "t_isolated")
            ):
                state["violation"] = "first frame is not the harness's start frame"
                return False
            state["start"] = frame
            return True
        ended = state["done"] is not None or state["abort"] is not None
        if ended:
            state["violation"] = "frame after the end of the run"
            return False
        if kind == "setup_error" and not cases and state["setup_error"] is None:
            state["setup_error"] = _text(frame.get("error_type"))
            state["setup_message"] = _text(frame.get("error_message"))
            state["memory"] = frame.get("memory") is True
            return True
        if (
            kind == "case"
            and state["setup_error"] is None
            and frame.get("index") == len(cases)
            and len(cases) < n_inputs
            and _valid_case(frame)
        ):
            cases.append(frame)
            state["memory"] |= frame["memory"] is True
            state["output_limit"] |= frame["output_limit"] is True
            return True
        if kind == "done":
            stopped_early = state["memory"] or state["output_limit"]
            if state["setup_error"] is None and len(cases) != n_inputs and not stopped_early:
                state["violation"] = "run ended before every case was reported"
                return False
            state["done"] = frame
            return True
        if kind == "abort":
            state["abort"] = _text(frame.get("error_type")) or "exit"
            return True
        state["violation"] = f"unexpected frame {kind!r}"
        return False

    def _status(
        self,
        state: dict,
        timed_out: bool,
        over_cap: bool,
        exit_status: Callable[[], tuple[int, float]],
        n_cases: int,
    ) -> tuple[ExecStatus, str | None]:
        if state["isolation_failed"]:
            return ExecStatus.INFRA_ERROR, f"isolation failed: {state['isolation_failed']}"
        if over_cap or state["output_limit"]:
            return (
                ExecStatus.OUTPUT_LIMIT,
                f"printed results over {self.config.max_output_bytes} bytes",
            )
        if state["memory"]:
            return ExecStatus.MEMORY, f"MemoryError under a {self.config.memory_mb} MiB budget"
        if state["violation"]:
            return ExecStatus.CRASHED, f"protocol violation: {state['violation']}"
        if timed_out:
            return (
                ExecStatus.TIMEOUT,
                f"wall clock over {self.config.timeout_s} s after {n_cases} case(s)",
            )
        if state["done"] is not None:
            return ExecStatus.OK, None
        if state["abort"] is not None:
            return ExecStatus.CRASHED, f"the program ended itself ({state['abort']})"
        wait_status, cpu_used = exit_status()
        if os.WIFSIGNALED(wait_status):
            sig = os.WTERMSIG(wait_status)
            if sig == signal.SIGXCPU or (
                sig == signal.SIGKILL and cpu_used >= self.config.cpu_limit_s
            ):
                return ExecStatus.TIMEOUT, f"CPU time over {self.config.cpu_limit_s} s"
            if state["start"] is None and sig == signal.SIGKILL:
                return ExecStatus.CRASHED, "killed before the harness started"
            return ExecStatus.CRASHED, f"killed by {signal.Signals(sig).name}"
        code = os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else -1
        if state["start"] is None and code == child.EXIT_ISOLATION_FAILED:
            return ExecStatus.INFRA_ERROR, "the child failed before reporting"
        return ExecStatus.CRASHED, f"exited with code {code} without a complete result"

    def _clean_up(self) -> None:
        """Reap reparented grandchildren and empty the scratch dir for the next job."""
        if not self.isolation.layers["seccomp"]:
            _kill_orphans()
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        scratch = self.isolation.scratch
        try:
            leftovers = os.listdir(scratch)
        except OSError:
            leftovers = []
        for name in leftovers:
            path = os.path.join(scratch, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _valid_case(frame: dict) -> bool:
    return (
        (frame.get("printed") is None or isinstance(frame.get("printed"), str))
        and (frame.get("error_type") is None or isinstance(frame.get("error_type"), str))
        and (frame.get("error_message") is None or isinstance(frame.get("error_message"), str))
        and isinstance(frame.get("library_calls"), int)
        and isinstance(frame.get("non_constructor_calls"), int)
        and isinstance(frame.get("memory"), bool)
        and isinstance(frame.get("output_limit"), bool)
    )


def _kill_group(pid: int) -> None:
    # The child is still unreaped here (a zombie at worst), so its pid cannot have been reused.
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)


def _kill_orphans() -> None:
    """Without seccomp a child can fork and `setsid` away from its group. The server is a child
    subreaper, so such processes become its children when their parent dies: kill and reap them,
    again and again, because killing one hands its own children to the server."""
    for _ in range(10_000):  # bounded: RLIMIT_NPROC (after the uid drop) bounds the tree
        orphans = _children()
        if not orphans:
            return
        for pid in orphans:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in orphans:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _children() -> list[int]:
    me = os.getpid()
    try:  # direct list (CONFIG_PROC_CHILDREN), else a scan of every process's parent
        with open(f"/proc/{me}/task/{me}/children", "rb") as handle:
            return [int(pid) for pid in handle.read().split()]
    except OSError:
        pass
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            found.append(int(entry))
    return found


def _close_all_but(keep: list[int]) -> None:
    low = 0
    for fd in sorted(set(keep)):
        if fd > low:
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to handle
    if argv[1:2] == ["--probe"]:
        return _probe()
    # Frames go to a private copy of stdout; fd 1 then points at stderr so a stray print (a
    # warning, a library message) cannot corrupt the protocol.
    out_fd, in_fd = os.dup(1), os.dup(0)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    reader = protocol.FrameReader(in_fd)
    setup = reader.read()
    if setup is None:
        return 0
    config = SandboxConfig.from_dict(setup["config"])
    server = Server(config, setup["library"])
    protocol.write_frame(out_fd, server.hello())
    try:
        while True:
            job = reader.read()
            if job is None:
                break
            protocol.write_all(out_fd, _reply(server, job))
            server.finish()
    except BrokenPipeError:
        pass
    finally:
        server.finish()
        server.isolation.close()
    return 0


def _reply(server: Server, job: dict) -> bytes:
    """The encoded reply to one job. Any failure (running it, encoding what a child sent) is
    that job's INFRA_ERROR: one job never takes the server down."""
    try:
        return protocol.encode(server.run(job))
    except Exception as exc:
        try:
            detail = f"server error: {type(exc).__name__}: {exc}"
        except Exception:
            detail = f"server error: {type(exc).__name__}"
        return protocol.encode(
            {
                "status": ExecStatus.INFRA_ERROR.value,
                "cases": [],
                "setup_error": None,
                "detail": detail,
                "timings": {},
            }
        )


def _probe() -> int:
    """Set up every layer as a server would (with a stand-in library) and print them as JSON."""
    preimport()
    iso = isolation.setup_server(SandboxConfig(), protected=[])
    report = {"layers": iso.layers, "details": iso.details, "warnings": iso.warnings}
    iso.close()
    sys.stdout.write(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
