"""`SandboxPool`: the grader's handle on N warm fork servers, safe to share between threads.

Each server is a fresh interpreter (`python -S -P -m sebench.grading.sandbox.server`) started
with a clean environment; it never sees an expected output. A server that dies or hangs is
replaced, and the job it held comes back as INFRA_ERROR, never dropped.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import tempfile
import threading
import time
from typing import TYPE_CHECKING, Protocol

from sebench.errors import SebenchError
from sebench.grading.sandbox import isolation, protocol, stores
from sebench.grading.sandbox.config import SandboxConfig
from sebench.grading.sandbox.execution import ExecStatus, Execution, Job

if TYPE_CHECKING:
    from pathlib import Path

STARTUP_TIMEOUT_S = 120.0  # importing NumPy and the library on a loaded 2-core machine
REPLY_MARGIN_S = 10.0  # beyond the job's timeout before a silent server counts as hung
MAX_REPLY_BYTES = 256 << 20  # far above any reply the server builds under the output cap


class LibraryLike(Protocol):
    """What the pool needs of a `sebench.library.library.Library`."""

    @property
    def root(self) -> Path: ...
    @property
    def package(self) -> str: ...
    @property
    def submodule(self) -> str: ...


class _Server:
    """One fork-server process and its pipes (used by one thread at a time)."""

    def __init__(self, library: LibraryLike, config: SandboxConfig, slot: int) -> None:
        self.slot = slot
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - the server's stderr, closed in close()
        self.process = subprocess.Popen(
            isolation.server_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=isolation.server_environment(),
            cwd="/",
            close_fds=True,
            start_new_session=True,  # Ctrl-C in the terminal reaches the grader, not the servers
        )
        self.reader = protocol.FrameReader(self.process.stdout.fileno(), max_frame=MAX_REPLY_BYTES)
        self.in_fd = self.process.stdin.fileno()
        try:
            self.hello = self._handshake(library, config)
        except BaseException:
            self.kill()
            self.log.close()
            raise

    def _handshake(self, library: LibraryLike, config: SandboxConfig) -> dict:
        protocol.write_frame(
            self.in_fd,
            {
                "config": config.to_dict(),
                "library": {
                    "root": str(library.root),
                    "package": library.package,
                    "submodule": library.submodule,
                },
            },
        )
        hello = self.reader.read(deadline=time.monotonic() + STARTUP_TIMEOUT_S)
        if hello is None or hello.get("kind") != "hello":
            raise OSError(f"sandbox server did not start: {self.log_tail()}")
        return hello

    def request(self, frame: bytes, timeout_s: float) -> dict:
        protocol.write_all(self.in_fd, frame)
        reply = self.reader.read(deadline=time.monotonic() + timeout_s + REPLY_MARGIN_S)
        if reply is None:
            raise OSError(f"sandbox server exited: {self.log_tail()}")
        return reply

    def ended_without_starting_a_job(self) -> bool:
        """Whether the server ended after a reply, its clean-up failed, before it forked for
        the next job (its exit status, EXIT_NEXT_JOB_NOT_STARTED)."""
        try:
            code = self.process.wait(timeout=1.0)  # it closed its end: it is exiting
        except subprocess.TimeoutExpired:
            return False
        return code == protocol.EXIT_NEXT_JOB_NOT_STARTED

    def log_tail(self) -> str:
        try:
            self.log.seek(0)
            text = self.log.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return "no log"
        return text[-1500:] or f"exit code {self.process.poll()}"

    def close(self, timeout: float = 5.0) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()  # EOF: the server finishes the job in hand and exits
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        self.process.stdout.close()
        self.log.close()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)  # the server and any child it forked
        self.process.wait()


class SandboxPool:
    """Run untrusted code against a library in warm, isolated fork servers.

    with SandboxPool(library, SandboxConfig(workers=2)) as pool:
        execution = pool.run(Job(code, "solve", ("x=[1, 2]",)))
    """

    def __init__(self, library: LibraryLike, config: SandboxConfig | None = None) -> None:
        self.library = library
        self.config = config or SandboxConfig()
        self._idle: queue.Queue[_Server] = queue.Queue()
        self._servers: list[_Server] = []
        self._lock = threading.Lock()
        self._closed = False
        self.layers: dict[str, bool] = {}
        self.details: dict[str, str] = {}
        self.warnings: list[str] = []

    def __enter__(self) -> SandboxPool:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self) -> None:
        count = self.config.worker_count
        started: list[_Server | BaseException] = [None] * count  # type: ignore[list-item]

        def start_one(slot: int) -> None:
            try:
                started[slot] = _Server(self.library, self.config, slot)
            except BaseException as exc:  # reported below, after every thread has finished
                started[slot] = exc

        threads = [threading.Thread(target=start_one, args=(slot,)) for slot in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        servers = [s for s in started if isinstance(s, _Server)]
        failures = [s for s in started if not isinstance(s, _Server)]
        if failures:
            for server in servers:
                server.kill()
            raise SebenchError(f"the sandbox could not start: {failures[0]}")
        first = servers[0].hello
        self.layers, self.details = dict(first["layers"]), dict(first["details"])
        self.warnings = list(first["warnings"])
        if (
            not any(self.layers.get(name) for name in isolation.CONTAINMENT)
            and not self.config.allow_unisolated
        ):
            for server in servers:
                server.close()
            raise SebenchError(
                "no isolation layer works on this machine (network namespace, uid drop, Landlock, "
                "seccomp; see `sebench doctor`), so untrusted code will not run: run as root or "
                "on a kernel with Landlock, install libseccomp2, or accept the risk with "
                "SandboxConfig(allow_unisolated=True)"
            )
        with self._lock:
            self._servers = servers
        for server in servers:
            self._idle.put(server)

    def run(self, job: Job) -> Execution:
        """Run one job; blocks until a server is free. Thread-safe."""
        if not job.entry_point.isidentifier():
            raise ValueError(f"entry point {job.entry_point!r} is not a Python identifier")
        if self._closed or not self._servers:
            raise RuntimeError("the sandbox pool is not running (use it as a context manager)")
        frame = protocol.encode_job(
            job.code if job.stores_guarded else stores.guarded(job.code),
            job.entry_point,
            job.test_inputs,
            job.perturbation,
            job.cases,
            job.evidence,
        )
        server = self._idle.get()
        if server.process.poll() is not None:
            # It ended after its last reply (its clean-up failed, or it was killed): this job
            # has not been sent, and is another sample's, which must not pay for it (a red
            # team's: the next job after a killed server was `infra_error`).
            server = self._replace(server)
        started = time.perf_counter()
        try:
            try:
                reply = server.request(frame, self.config.timeout_s)
            except protocol.FrameTimeout:
                raise
            except (OSError, protocol.ProtocolError):
                if not server.ended_without_starting_a_job():
                    raise
                # its clean-up after the last reply failed, before this job started (the
                # server's own word: a program cannot choose its exit status): a new server
                # runs it, once
                server = self._replace(server)
                reply = server.request(frame, self.config.timeout_s)
            execution = Execution.from_dict(reply)
            execution.timings["roundtrip"] = time.perf_counter() - started
            if execution.status is ExecStatus.INFRA_ERROR:
                # the server answered but failed the job itself (a child that could not be
                # isolated, an error of its own): what broke it would break the next job too
                # (a red team's `chmod 0` on its scratch dir failed every later job there)
                server = self._replace(server)
            return execution
        except (OSError, protocol.ProtocolError, KeyError, ValueError, TypeError) as exc:
            detail = f"sandbox server failed: {exc}"
            server = self._replace(server)
            return Execution.infra_error(detail)
        finally:
            self._idle.put(server)

    def _replace(self, server: _Server) -> _Server:
        """A fresh server in the dead one's slot (the dead one again if none can start)."""
        server.kill()
        if self._closed:
            return server
        try:
            replacement = _Server(self.library, self.config, server.slot)
        except (OSError, protocol.ProtocolError):
            return server  # the next job tries again and is reported as INFRA_ERROR meanwhile
        server.log.close()
        with self._lock:
            self._servers = [replacement if s is server else s for s in self._servers]
        return replacement

    def sandbox_uids(self) -> list[int]:
        """The uids children run as (empty without the uid-drop layer)."""
        with self._lock:
            return [s.hello["uid"] for s in self._servers if s.hello.get("uid") is not None]

    def server_pids(self) -> list[int]:
        with self._lock:
            return [server.process.pid for server in self._servers]

    def zygote_pids(self) -> list[int]:
        """The process in each server that forks the children (see zygote.py)."""
        with self._lock:
            return [server.hello["zygote_pid"] for server in self._servers]

    def close(self) -> None:
        """Stop every server, after the jobs in flight have finished (or their deadline)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            count = len(self._servers)
        wait_until = time.monotonic() + self.config.timeout_s + REPLY_MARGIN_S
        for _ in range(count):
            try:
                server = self._idle.get(timeout=max(0.0, wait_until - time.monotonic()))
            except queue.Empty:
                break
            server.close()
        with self._lock:
            leftovers = [s for s in self._servers if s.process.poll() is None]
        for server in leftovers:  # still busy past the deadline: hung
            server.kill()
