"""The zygote: the one process of a fork server that forks, and that does little else.

After a `fork`, every page a process writes costs it a fault: a copy while the child lives
(~6 us on these machines), a trap after it is gone (~1 us). A server that forks and also follows
the child's frames, keeps the deadline, replies and cleans up writes ~300 pages per job, most of
them while the child lives. So the warm server forks this zygote once, at start: a copy of the
warm interpreter that reads the jobs from the grader, forks a child for each and reports on it.
The server (server.py) keeps all the other work and never forks again: its pages stay its own.

    server --ready--> zygote --fork--> child <--job-- grader;  child --frames--> server --reply--> grader

The child reads its job itself, after the fork: nothing of a job ever lives on the zygote's heap,
whose allocator would otherwise end each job a little differently from how it began it, and a
program could read that history in the addresses of its own objects (`id(object())`), a coin
that differs between its run and its reruns (a red team's, issue 12).

Between the server and the zygote (fixed-size messages):
    server -> zygote, `ready`:   b"N" + nonce    the last job is cleaned up (the zygote reaps
                                                 its child now); here is the nonce for the
                                                 next child's frames: fork it
    zygote -> server, `reports`: b"P" + pid, fork time
                                 b"E" + si_code, si_status   the child has exited; it is not
                                     reaped until `ready`, so its pid and process group stay
                                     taken and the server may still signal them
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import os
import signal
import struct
import time
import traceback
from collections.abc import Callable, Iterator
from typing import NoReturn

from sebench.grading.sandbox import audit, child, isolation, limits, protocol
from sebench.grading.sandbox.config import SandboxConfig

NONCE_CHARS = 32
REHEARSALS = 16  # rounds before the first real one: enough for the loop's code to settle
READY = b"N"
FORKED, EXITED = b"P", b"E"
_FORKED = struct.Struct("=id")  # pid, perf_counter() just before the fork
_EXITED = struct.Struct("=ii")  # si_code (CLD_EXITED, CLD_KILLED, ...), si_status


class ZygoteLost(OSError):
    """The zygote died or broke the protocol: the server cannot run jobs any more."""


class Zygote:
    """The server's handle on its zygote: one child at a time."""

    def __init__(self, pid: int, ready: int, reports: int) -> None:
        self.pid = pid
        self.ready = ready
        self.reports = reports  # readable while a child lives: it has exited

    def send_ready(self, nonce: str) -> None:
        protocol.write_all(self.ready, READY + nonce.encode("ascii"))

    def next_kind(self) -> bytes | None:
        """Wait for the next child's first report, FORKED; None once the zygote has ended."""
        return os.read(self.reports, 1) or None

    def forked(self) -> tuple[int, float]:
        """The rest of a FORKED report: (pid, fork time)."""
        return _FORKED.unpack(self._read(_FORKED.size))

    def exited(self) -> tuple[int, int]:
        """Wait for the child's EXITED report: (si_code, si_status)."""
        if self._read(1) != EXITED:
            raise ZygoteLost("zygote sent an unexpected report")
        return _EXITED.unpack(self._read(_EXITED.size))

    def close(self) -> None:
        """Stop the zygote (it holds nothing that needs a graceful exit); a child it still
        has dies with it (`die_with_parent`)."""
        for fd in (self.ready, self.reports):
            os.close(fd)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)

    def _read(self, size: int) -> bytes:
        data = _read_exactly(self.reports, size)
        if len(data) < size:
            raise ZygoteLost("zygote exited")
        return data


def start(
    config: SandboxConfig,
    server: isolation.ServerIsolation,
    controls: audit.Controls,
    jobs: int,
    results: int,
) -> Zygote:
    """Fork the zygote from the warm, isolated server. It reads jobs from `jobs` (the grader's
    pipe) and its children write frames to `results`; `controls` drive the audit hook."""
    ready_read, ready = os.pipe()
    reports, reports_write = os.pipe()
    server_pid = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the zygote; it never returns
        log = 2  # the server's log, until the descriptors are renumbered
        try:
            isolation.die_with_parent()
            if os.getppid() != server_pid:  # the server died before the line above
                os._exit(1)
            ruleset = server.ruleset if server.layers["landlock"] else None
            # the job pipe is the children's (each reads its job, then closes it)
            shared = [results, jobs] + ([ruleset.fd] if ruleset else [])
            numbered = _number_descriptors(shared + [ready_read, reports_write, 2])
            results, jobs = numbered[:2]
            ready_read, reports_write, log = numbered[len(shared) :]
            if ruleset:
                ruleset = dataclasses.replace(ruleset, fd=numbered[2])
            # The zygote's mappings barely change between forks, so the limits are made once:
            # RLIMIT_AS is what it maps now plus the budget (see limits.rlimits).
            rlimits = limits.rlimits(config, limits.mapped_bytes())
            compiled = isolation.compiled_setup(config)[0]
            plan = isolation.enter_zygote(server, ruleset, rlimits, compiled)
            if ruleset and plan.ruleset is None:  # entered here: children inherit the domain
                os.close(ruleset.fd)
            first_private = 3 + len(shared)

            def prepare_child(nonce: str) -> Iterator[None]:
                budget = config.max_output_bytes
                return child.prepare(nonce, jobs, results, plan, controls, budget)

            def start_child(box: list[Iterator[None]]) -> NoReturn:
                _start_child(box, first_private)

            _serve(
                ready_read,
                reports_write,
                prepare_child,
                start_child,
                _pipe_resetter(results, fcntl.fcntl(results, fcntl.F_GETPIPE_SZ)),
            )
        except BaseException:
            with contextlib.suppress(BaseException):
                os.write(log, traceback.format_exc().encode())  # the server's log
        finally:
            os._exit(1)
    for fd in (ready_read, reports_write):
        os.close(fd)
    return Zygote(pid, ready, reports)


def _pipe_resetter(results: int, size: int) -> Callable[[], None]:
    """What puts the results pipe (and 0-2) back as it was, before each fork. Every child writes
    its frames into the same pipe, and its flags and size are the pipe's, not a child's: a red team
    made it non-blocking (`O_NONBLOCK`, or `ioctl(FIONBIO)`) or shrank it (`F_SETPIPE_SZ`), and
    later honest children, whose large frames then failed to write, ended `crashed`.
    The flags are what matters: the server reads while the child writes, so a small pipe that
    blocks costs only speed. That is why the size is put back only where the kernel allows:
    growing a pipe is refused (EPERM) to a user whose pipes already hold more than
    `fs.pipe-user-pages-soft`, which the server's user, shared with the host, can reach on a
    busy machine; ending the zygote there would turn one job's shrink into an `infra_error`."""
    control, set_flags, set_size = fcntl.fcntl, fcntl.F_SETFL, fcntl.F_SETPIPE_SZ
    refused = PermissionError
    # 0-2 are one /dev/null, open in every child too: flags set there (`O_APPEND`,
    # `O_NONBLOCK`) were read back by the next job (a red team's, NZ); the other state of a
    # shared open file (locks, owner, signal) the filter refuses to set (seccomp.py)
    shared = (0, 1, 2, results)

    def reset() -> None:
        for fd in shared:  # blocking; no O_ASYNC, no packet mode (O_DIRECT), no O_APPEND
            control(fd, set_flags, 0)
        try:  # noqa: SIM105 - `suppress` would make an object in every round (see `_serve`)
            control(results, set_size, size)
        except refused:
            pass

    return reset


def _serve(
    ready: int,
    reports: int,
    prepare_child: Callable[[str], Iterator[None]],
    start_child: Callable[[list[Iterator[None]]], NoReturn],
    reset_results: Callable[[], None],
) -> NoReturn:
    """The zygote's loop: everything it writes between two forks is in these lines, the same
    few objects in every round (no job data: the child reads its job)."""
    write, fork, waitid = os.write, os.fork, os.waitid
    perf, exit_now = time.perf_counter, os._exit
    pack_forked, pack_exited = _FORKED.pack, _EXITED.pack
    exited_flags, exited, by_pid = os.WEXITED | os.WNOWAIT, os.WEXITED, os.P_PID
    # Every round makes and frees the same objects at the same points, so that each child
    # starts from the same state: where a program's objects lie, or how deep it may recurse,
    # would otherwise tell its first run from its reruns. The first rounds are rehearsals (a
    # child that exits at once, nothing reported): a first round finds the allocator's free
    # lists as no later round does, and the interpreter specialises this loop's code over its
    # first rounds (the depth a child's program could recurse to moved by one, measured).
    previous, reap, rehearsals = int("4194304"), False, REHEARSALS
    while True:
        rehearsal = rehearsals > 0
        # the server cleans up after the last child before it sends the next nonce
        go = READY + b"0" * NONCE_CHARS if rehearsal else _read_exactly(ready, 1 + NONCE_CHARS)
        if len(go) != 1 + NONCE_CHARS or go[:1] != READY:
            exit_now(0)
        nonce = go[1:].decode("ascii")
        del go
        if reap:
            # a zombie since its EXITED report: returns at once. Not `wait4`: its usage record
            # made an int object for each count above 256 and freed them into the next child's
            # free lists, so a child that slept 300 times (context switches) left a later
            # child's `id()`s otherwise (a red team's: a mark from one job to the next). What
            # `waitid` makes does not depend on the child: a pid, a uid, and an exit status,
            # code and signal below 256 (small ints are shared)
            waitid(by_pid, previous, exited)
        del previous
        reset_results()  # raises if the flags cannot be set: the zygote ends, and its server
        # The child's run travels in a list that the child empties: this frame stays on the
        # child's stack, below the untrusted code, so it keeps neither the run nor the nonce.
        box = [prepare_child(nonce)]
        del nonce
        t0 = perf()
        pid = fork()
        if pid == 0:
            if rehearsal:
                exit_now(0)
            start_child(box)
        report = FORKED + pack_forked(pid, t0)
        if not rehearsal:
            write(reports, report)
        info = waitid(by_pid, pid, exited_flags)
        report = EXITED + pack_exited(info.si_code, info.si_status)
        if not rehearsal:
            write(reports, report)
        box.clear()  # freed only now: while the child lived, each page written was a copy
        del box, info, t0, report
        previous, reap, rehearsals = pid, True, max(rehearsals - 1, 0)
        del pid


def _start_child(box: list[Iterator[None]], first_private: int) -> NoReturn:
    """The first steps of a child: nothing of the zygote's left open, then `child.run`."""
    try:
        # the zygote's own: reports could be forged (the job pipe is shared: the child reads
        # its job, then closes it)
        os.closerange(first_private, 1 << 16)
        child.run(box)
    finally:
        os._exit(child.EXIT_ISOLATION_FAILED)


def _read_exactly(fd: int, size: int) -> bytes:
    """`size` bytes from a trusted peer, fewer only at the end of the stream."""
    data = os.read(fd, size)
    while data and len(data) < size:
        more = os.read(fd, size - len(data))
        if not more:
            break
        data += more
    return data


def _number_descriptors(wanted: list[int]) -> list[int]:
    """Give `wanted` the numbers 3, 4, ... in order, point 0-2 at /dev/null and close the rest.

    Done once in the zygote so that each child, which inherits all of it, needs no more than
    one `closerange` to keep only the descriptors shared with it (listed first)."""
    floor = max(wanted) + 1  # copies above every wanted number: none is overwritten below
    copies = [fcntl.fcntl(fd, fcntl.F_DUPFD, floor) for fd in wanted]
    os.closerange(0, floor)
    devnull = os.open(os.devnull, os.O_RDWR)  # 0, the lowest free number
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    numbers = list(range(3, 3 + len(wanted)))
    for copy, number in zip(copies, numbers, strict=True):
        os.dup2(copy, number)
    os.closerange(3 + len(wanted), 1 << 16)  # the copies, and whatever else was open
    return numbers
