"""What a job creates outside its process stays inside the sandbox: IPC objects and scratch files.

SysV shared memory, message queues and semaphores, and POSIX message queues, live in an IPC
namespace, not in a folder: created in the host's, they would outlive the job (a 512 MiB segment
resident per sample). The scratch dir must have a total cap, or a job fills the host's disk.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from sebench.grading.sandbox import ExecStatus, Job, SandboxConfig, SandboxPool, isolation, zygote
from sebench.grading.sandbox.isolation import LAYERS
from tests.grading.sandbox.conftest import build_standin

# One key and one queue name per test run, so that objects of another run never confuse a check.
KEY = 0x5EB0000 + os.getpid() % 0x10000
QUEUE = f"/sebench-test-{os.getpid()}"

IPC_JOB = textwrap.dedent(
    f"""
    import ctypes, errno, os

    def solve(x):
        libc = ctypes.CDLL(None, use_errno=True)
        created = []

        def report(rc):
            created.append("ok" if rc >= 0 else errno.errorcode[ctypes.get_errno()])

        report(libc.shmget({KEY}, 1 << 20, 0o3600))  # IPC_CREAT | IPC_EXCL | 0600
        report(libc.msgget({KEY}, 0o3600))
        report(libc.semget({KEY}, 1, 0o3600))
        report(libc.mq_open({QUEUE.encode()!r}, os.O_CREAT | os.O_RDWR, 0o600, None))
        return ",".join(created)
    """
)

_libc = ctypes.CDLL(None, use_errno=True)


def host_ipc_objects() -> list[str]:
    """This run's SysV objects and POSIX queue in the host's IPC namespace (the test's own)."""
    found = []
    for kind in ("shm", "msg", "sem"):
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        found += [f"{kind} {line.split()[1]}" for line in lines if int(line.split()[0]) == KEY]
    queue = _libc.mq_open(QUEUE.encode(), os.O_RDONLY, 0, None)
    if queue >= 0:
        os.close(queue)
        found.append(f"mq {QUEUE}")
    return found


def remove_host_ipc_objects() -> None:
    """Clean up after a failing run, so that a leak found once is not found again."""
    ipc_rmid = 0
    for item in host_ipc_objects():
        kind, ident = item.split()
        if kind == "mq":
            _libc.mq_unlink(ident.encode())
        else:
            getattr(_libc, f"{kind}ctl")(int(ident), ipc_rmid, None)


@pytest.fixture
def no_host_ipc_objects():
    assert host_ipc_objects() == []
    yield
    try:
        assert host_ipc_objects() == [], "the job left IPC objects in the host's namespace"
    finally:
        remove_host_ipc_objects()


@pytest.fixture(scope="module")
def pool_without_seccomp(standin_library):
    """Every layer but seccomp (and introspection: the job uses ctypes): the IPC namespace alone
    must keep the objects in."""
    layers = tuple(name for name in LAYERS if name not in ("seccomp", "introspection"))
    config = SandboxConfig(workers=1, timeout_s=1.5, memory_mb=256, layers=layers)
    with SandboxPool(standin_library, config) as warm:
        yield warm


@pytest.mark.usefixtures("no_host_ipc_objects")
def test_ipc_objects_are_refused_and_none_reaches_the_host(pool_below_introspection):
    # the job reaches the syscalls through ctypes, which the introspection layer refuses
    pool = pool_below_introspection
    execution = pool.run(Job(IPC_JOB, "solve", ("x=1",)))
    assert execution.status is ExecStatus.OK, execution
    if pool.layers["seccomp"]:
        assert execution.cases[0].printed == "EPERM,EPERM,EPERM,EPERM"


@pytest.mark.usefixtures("no_host_ipc_objects")
def test_ipc_objects_made_without_seccomp_stay_in_the_servers_namespace(pool_without_seccomp):
    if not pool_without_seccomp.layers["ipc_namespace"]:
        pytest.skip("no IPC namespace here")
    # Twice, each creating with IPC_EXCL: the server removes what the first job made, so the
    # second starts from an empty namespace.
    for _ in range(2):
        execution = pool_without_seccomp.run(Job(IPC_JOB, "solve", ("x=1",)))
        assert execution.status is ExecStatus.OK, execution
        # SysV objects are created, but in the server's namespace (the POSIX queue may be refused
        # to the sandbox uid there: either way it is not in the host's, which the fixture checks)
        assert execution.cases[0].printed.startswith("ok,ok,ok,")


WRITE_JOB = textwrap.dedent(
    """
    import errno

    def solve(limit_mb):
        written, chunk = 0, b"x" * (1 << 20)
        try:
            for number in range(limit_mb):
                with open(f"fill-{number}", "wb") as handle:
                    handle.write(chunk)
                written += len(chunk)
        except OSError as exc:
            return f"{written >> 20} {errno.errorcode[exc.errno]}"
        return f"{written >> 20} none"
    """
)


def test_a_job_writing_past_the_scratch_cap_fails_cleanly(pool):
    if not pool.layers["scratch_cap"]:
        pytest.skip("no scratch cap here (no mount namespace)")
    cap = pool.config.scratch_mb
    execution = pool.run(Job(WRITE_JOB, "solve", (f"limit_mb={2 * cap}",)))
    assert execution.status is ExecStatus.OK, execution
    written, error = execution.cases[0].printed.split()
    assert error == "ENOSPC"
    assert int(written) <= cap
    # the next job starts with an empty scratch dir, so it has the whole cap again
    again = pool.run(Job(WRITE_JOB, "solve", ("limit_mb=4",)))
    assert again.cases[0].printed == "4 none"


# The other layout: a Python installation under /tmp (here NumPy, as a virtual environment or a
# `pip install --target` made there would put it) cannot be covered by a private /tmp, so the
# scratch folder is made in the host's /tmp. The script runs a pool whose servers import this
# NumPy, has a job write twice the cap, and prints what the job managed and how much of the
# host's /tmp the job used (MiB), seen from the grader's side of the mount namespace.
TMP_LAYOUT_SCRIPT = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    import numpy
    from sebench.grading.sandbox import Job, SandboxConfig, SandboxPool
    from tests.grading.sandbox.conftest import StandInLibrary

    assert numpy.__file__.startswith("/tmp/"), numpy.__file__

    def free_mb():
        stat = os.statvfs("/tmp")
        return stat.f_bavail * stat.f_frsize >> 20

    library = StandInLibrary(Path(sys.argv[1]))
    with SandboxPool(library, SandboxConfig(workers=1, scratch_mb=8)) as pool:
        assert "host's /tmp" in pool.details["scratch"], pool.details
        before = free_mb()
        execution = pool.run(Job(sys.argv[2], "solve", ("limit_mb=16",)))
        after = free_mb()
    print(execution.status.name, execution.cases[0].printed, before - after)
    """
)


@pytest.fixture(scope="module")
def numpy_under_tmp() -> Iterator[str]:
    import numpy

    site = Path(numpy.__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="sebench-site-", dir="/tmp") as folder:
        for name in ("numpy", "numpy.libs"):
            if (site / name).is_dir():
                shutil.copytree(site / name, Path(folder) / name, symlinks=True)
        yield folder


def test_scratch_is_capped_when_python_lives_under_tmp(numpy_under_tmp: str, tmp_path: Path):
    library = build_standin(tmp_path / "lib")
    repo = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", TMP_LAYOUT_SCRIPT, str(library.root), WRITE_JOB],
        capture_output=True,
        text=True,
        cwd=repo,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{numpy_under_tmp}:{repo}/src:{repo}"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    status, written, error, host_used_mb = done.stdout.split()
    assert (status, error) == ("OK", "ENOSPC")
    assert int(written) <= 8
    # other processes share the host's /tmp: allow some noise, far below the 16 MiB attempted
    assert int(host_used_mb) < 4


NEST_JOB = textwrap.dedent(
    """
    import os

    def solve(depth):
        os.chdir(os.environ["TMPDIR"])
        for _ in range(depth):
            os.mkdir("d")
            os.chdir("d")
        return len(os.listdir(os.environ["TMPDIR"]))
    """
)


def test_a_deeply_nested_scratch_tree_is_removed_and_the_server_goes_on(pool):
    """A job that nests 1,200 folders (a red team's): the clean-up once recursed per level,
    raised RecursionError and ended the server, so the next job on it was `infra_error`."""
    first = pool.run(Job(NEST_JOB, "solve", ("depth=1200",)))
    assert first.status is ExecStatus.OK, first
    for _ in range(pool.config.workers + 1):  # whichever server runs it
        after = pool.run(Job(NEST_JOB, "solve", ("depth=0",)))
        assert after.status is ExecStatus.OK and after.cases[0].printed == "0", after


# Nothing of one job may reach the next through the scratch dir or the results pipe, whatever the
# job does to them (a red team's, at the layers below the static policy: `os` and `fcntl`).
DEEP_JOB = textwrap.dedent(
    """
    import os

    def solve(depth):
        # by descriptors: the path to the bottom is longer than PATH_MAX
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
        for _ in range(depth):
            os.mkdir("a", dir_fd=fd)
            inner = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        secret = os.open("secret", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd)
        os.write(secret, b"left by an earlier job")
        os.close(secret)
        os.fchmod(fd, 0)  # the bottom folder, or the scratch dir itself
        return "made"
    """
)
LOOK_JOB = textwrap.dedent(
    """
    import os

    def solve():
        return repr(sorted(os.listdir(".")))
    """
)


def test_a_tree_nested_past_path_max_leaves_nothing_for_the_next_job(pool):
    """2,100 nested folders (a path of ~4,200 bytes) with a file at the bottom and the bottom
    folder closed (`chmod 0`): removal by path failed past PATH_MAX, and later jobs read the
    file back."""
    made = pool.run(Job(DEEP_JOB, "solve", ("depth=2100",)))
    assert made.status is ExecStatus.OK and made.cases[0].printed == "made", made
    for _ in range(pool.config.workers + 1):  # whichever server runs it
        after = pool.run(Job(LOOK_JOB, "solve", ("",)))
        assert after.status is ExecStatus.OK and after.cases[0].printed == "[]", after


def test_a_job_that_closes_its_own_scratch_dir_does_not_break_the_next(pool):
    """`chmod 0` on the scratch dir itself: the next child could not enter it, and every later
    job on that server was `infra_error`."""
    closed = pool.run(Job(DEEP_JOB, "solve", ("depth=0",)))
    assert closed.status is ExecStatus.OK, closed
    for _ in range(pool.config.workers + 1):
        after = pool.run(Job(LOOK_JOB, "solve", ("",)))
        assert after.status is ExecStatus.OK and after.cases[0].printed == "[]", after


PIPE_JOB = textwrap.dedent(
    """
    import fcntl, os

    def solve(change):
        results = 3  # the results pipe, shared by every child of a zygote
        if change:
            fcntl.fcntl(results, fcntl.F_SETFL, os.O_NONBLOCK | os.O_APPEND)
            fcntl.fcntl(results, fcntl.F_SETPIPE_SZ, 4096)
        flags = fcntl.fcntl(results, fcntl.F_GETFL) & (os.O_NONBLOCK | os.O_APPEND)
        # a result larger than the small pipe: written only if the pipe blocks
        return f"{flags} {fcntl.fcntl(results, fcntl.F_GETPIPE_SZ)} " + "x" * (0 if change else 30000)
    """
)


def test_each_child_finds_the_results_pipe_blocking_whatever_the_last_one_did(pool):
    """A child that makes the shared results pipe non-blocking and small: later honest children
    with large results failed to write them and ended `crashed`. (The size the next child finds
    is not compared here: where the host's pipes are over `fs.pipe-user-pages-soft` the kernel
    refuses to grow it back, and a small blocking pipe is only slower; the resetter's own test
    checks it.)"""
    changed = pool.run(Job(PIPE_JOB, "solve", ("change=True",)))
    assert changed.cases[0].printed == f"{os.O_NONBLOCK | os.O_APPEND} 4096 ", changed
    for _ in range(pool.config.workers + 1):
        after = pool.run(Job(PIPE_JOB, "solve", ("change=False",)))
        assert after.status is ExecStatus.OK, after
        flags, _size, large = after.cases[0].printed.split(" ")
        assert flags == "0" and large == "x" * 30000, after


def test_the_pipe_resetter_puts_back_flags_and_size():
    """The zygote's reset before each fork, on a real pipe: blocking again, and as large as it
    was made (this process may grow pipes, whatever the host's pipes hold)."""
    read, write = os.pipe()
    try:
        made = fcntl.fcntl(write, fcntl.F_GETPIPE_SZ)
        reset = zygote._pipe_resetter(write, made)
        fcntl.fcntl(write, fcntl.F_SETFL, os.O_NONBLOCK | os.O_APPEND)
        fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)
        reset()
        assert fcntl.fcntl(write, fcntl.F_GETFL) & (os.O_NONBLOCK | os.O_APPEND) == 0
        assert fcntl.fcntl(write, fcntl.F_GETPIPE_SZ) == made > 4096
    finally:
        os.close(read)
        os.close(write)


NESTED_FRAME_JOB = textwrap.dedent(
    """
    import os, struct

    def solve():
        body = b"[" * 5000
        os.write(3, struct.pack(">I", len(body)) + body)
        return "sent"
    """
)


def test_a_frame_nested_too_deep_is_the_childs_crash_not_the_servers(pool):
    """A frame of 5,000 `[` (no nonce needed: it is parsed before the nonce is checked) raised
    RecursionError in the server's decoder: `infra_error`, which RL leaves unscored, for a job
    that broke the protocol."""
    sent = pool.run(Job(NESTED_FRAME_JOB, "solve", ("",)))
    assert sent.status is ExecStatus.CRASHED and "nests too deep" in (sent.detail or ""), sent
    after = pool.run(Job(LOOK_JOB, "solve", ("",)))
    assert after.status is ExecStatus.OK, after


MANY_FILES_JOB = textwrap.dedent(
    """
    import os

    def solve():
        made = 0
        try:
            while made < 100_000:
                os.mkdir(f"d{made}")
                made += 1
        except OSError as exc:
            return f"{made} {exc.errno}"
        return f"{made} none"
    """
)


def test_the_scratch_dir_holds_a_bounded_number_of_files(pool):
    """The size cap bounds the data, not the kernel's memory for empty files and folders: a red
    team's job grew it by ~12 MB a job. A capped tmpfs runs out of inodes (ENOSPC)."""
    if not pool.layers.get("scratch_cap"):
        pytest.skip("no capped scratch dir on this machine (see `sebench doctor`)")
    many = pool.run(Job(MANY_FILES_JOB, "solve", ("",)))
    made, error = many.cases[0].printed.split()
    assert int(made) <= isolation.SCRATCH_INODES and error == str(errno.ENOSPC), many
    after = pool.run(Job(LOOK_JOB, "solve", ("",)))
    assert after.status is ExecStatus.OK and after.cases[0].printed == "[]", after


MARK_JOB = textwrap.dedent(
    """
    import os

    def solve(mark):
        if mark:
            try:  # refused by seccomp (times are a file's state that Landlock does not guard)
                os.utime(".", (mark, mark))
            except OSError:
                pass
            try:
                os.setxattr(".", "user.mark", b"x")
            except OSError:
                pass
        seen = os.stat(".")
        try:
            names = os.listxattr(".")
        except OSError:
            names = []
        return int(seen.st_mtime), int(seen.st_atime), names
    """
)


def test_nothing_a_job_writes_on_the_scratch_dir_itself_reaches_the_next(pool):
    """Its times and extended attributes outlived the job that set them: a red team marked the
    function it had found in the folder's mtime, and the next job on the server read it (the
    `os` it used is refused by the policy). Every job starts with the same values."""
    before = pool.run(Job(MARK_JOB, "solve", ("mark=0",)))
    marked = pool.run(Job(MARK_JOB, "solve", ("mark=123456",)))
    assert marked.status is ExecStatus.OK, marked
    if not pool.layers["seccomp"]:  # set, then put back by the server
        assert "123456" in marked.cases[0].printed, marked
    for _ in range(pool.config.workers + 1):
        after = pool.run(Job(MARK_JOB, "solve", ("mark=0",)))
        assert after.cases[0].printed == before.cases[0].printed, (before, after)


ATIME_JOB = textwrap.dedent(
    """
    import os

    def solve(path):
        before = os.stat(path).st_atime
        with open(path, "rb") as handle:
            handle.read(1)
        return os.stat(path).st_atime == before
    """
)


def test_reading_a_file_of_the_installation_leaves_no_mark(pool, tmp_path):
    """A read set a file's access time (the disk records it when older than the mtime), which
    any later job could read: a red team's channel from one job, or server, to the next. The
    installation is a read-only mount without access times in the server's namespace."""
    if not pool.layers["mount_namespace"]:
        pytest.skip("no mount namespace on this machine (doctor)")
    assert "without access times" in pool.details.get("file_times", ""), pool.details
    target = Path(textwrap.__file__)  # a stdlib file every child may read
    seen = target.stat()
    os.utime(target, ns=(seen.st_mtime_ns - 10**10, seen.st_mtime_ns))  # older than the mtime
    try:
        read = pool.run(Job(ATIME_JOB, "solve", (f"path={str(target)!r}",)))
        assert read.status is ExecStatus.OK and read.cases[0].printed == "True", read
    finally:
        os.utime(target, ns=(seen.st_atime_ns, seen.st_mtime_ns))


HELD_STATE_JOB = textwrap.dedent(
    """
    import ctypes, errno, fcntl, os, struct

    libc = ctypes.CDLL(None, use_errno=True)

    def outcome(call):
        try:
            call()
            return "ok"
        except OSError as error:
            return errno.errorcode[error.errno]

    def syscall(number, *args):
        if libc.syscall(number, *args) < 0:
            raise OSError(ctypes.get_errno(), "")

    def solve(x):
        lock = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 123456, 789, 0)
        open_file_lock = 37  # F_OFD_SETLK
        tries = {
            "ofd-lock 0": lambda: fcntl.fcntl(0, open_file_lock, lock),
            "ofd-lock 3": lambda: fcntl.fcntl(3, open_file_lock, lock),
            "posix-lock 0": lambda: fcntl.fcntl(0, fcntl.F_SETLK, lock),
            "read-lock": lambda: fcntl.fcntl(0, fcntl.F_GETLK, lock),
            "flock 0": lambda: fcntl.flock(0, fcntl.LOCK_EX | fcntl.LOCK_NB),
            "owner 3": lambda: fcntl.fcntl(3, fcntl.F_SETOWN, os.getppid()),
            "signal 3": lambda: fcntl.fcntl(3, 10, 9),  # F_SETSIG: SIGKILL
            "owner, high bits": lambda: syscall(72, 3, (1 << 32) | fcntl.F_SETOWN, 1),
            "lease": lambda: fcntl.fcntl(0, fcntl.F_SETLEASE, fcntl.F_RDLCK),
            "write hint": lambda: fcntl.fcntl(os.open(".", os.O_RDONLY), 1036, struct.pack("Q", 4)),
            "async 0": lambda: fcntl.ioctl(0, 0x5452, struct.pack("i", 1)),  # FIOASYNC
            "inode flags": lambda: fcntl.ioctl(os.open(".", os.O_RDONLY), 0x40086602, struct.pack("l", 0x40)),
            "times of .": lambda: os.utime(".", (1, 1)),
            "times of /dev/null": lambda: os.utime("/dev/null"),
            "mount_setattr": lambda: syscall(442, -100, b"/", 0, None, 0),
            "file_setattr": lambda: syscall(469, -100, b".", None, 0, 0),
        }
        return {name: outcome(call) for name, call in tries.items()}
    """
)


def test_no_state_of_a_shared_file_or_of_a_files_metadata_outlives_the_job(
    pool_below_introspection,
):
    """A red team's (NZ, below the policy, which refuses `os` and `fcntl`): fds 0-2 (one
    /dev/null) and 3 (the results pipe) are open files every child of a zygote shares, and a
    lock, an owner, a signal or flags set on them outlived the job (locks on /dev/null reached
    other servers and the host, two 64-bit numbers each); times and inode flags, which Landlock
    does not guard, carried marks between jobs and servers (`/dev/null`'s mtime). The filter
    refuses setting all of them (the command compared on its low 32 bits, as the kernel reads
    it), and the zygote puts 0-3's flags back before each fork."""
    pool = pool_below_introspection
    if not pool.layers["seccomp"]:
        pytest.skip("no seccomp here")
    execution = pool.run(Job(HELD_STATE_JOB, "solve", ("x=1",)))
    assert execution.status is ExecStatus.OK, execution
    outcomes = eval(execution.cases[0].printed)  # a dict of str: the job's own output
    assert set(outcomes.values()) == {"EPERM"}, outcomes


FLAGS_JOB = textwrap.dedent(
    """
    import fcntl, os

    def solve(change):
        if change:
            for fd in (0, 1, 2):
                fcntl.fcntl(fd, fcntl.F_SETFL, os.O_NONBLOCK | os.O_APPEND)
        return [fcntl.fcntl(fd, fcntl.F_GETFL) & (os.O_NONBLOCK | os.O_APPEND) for fd in (0, 1, 2)]
    """
)


def test_flags_set_on_the_shared_dev_null_do_not_reach_the_next_job(pool_below_introspection):
    """A red team's (NZ): `O_APPEND | O_NONBLOCK` set on fd 0 (the one /dev/null of every child)
    were read back by the next job. The zygote resets 0-2 as it does the results pipe."""
    pool = pool_below_introspection
    changed = pool.run(Job(FLAGS_JOB, "solve", ("change=True",)))
    assert changed.cases[0].printed == str([os.O_NONBLOCK | os.O_APPEND] * 3), changed
    for _ in range(pool.config.workers + 1):
        after = pool.run(Job(FLAGS_JOB, "solve", ("change=False",)))
        assert after.status is ExecStatus.OK and after.cases[0].printed == "[0, 0, 0]", after
