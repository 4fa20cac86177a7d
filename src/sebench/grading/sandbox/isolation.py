"""Isolation layers: set up once in the fork server, entered by every child, reported by `doctor`.

What the layers protect against (each is detected, and only the ones that work are used):
- `rlimits`: memory (address space), CPU time, file size, open files, core dumps, processes.
- `process_group`: each child leads its own session, so a deadline kills it and everything it
  started; the server is a child subreaper (`subreaper`), so even grandchildren that start their
  own session are reparented to it and reaped.
- `network_namespace`: the server lives in a fresh network namespace (only a down loopback), so
  no child reaches any host, 127.0.0.1 included.
- `mount_namespace`: private mounts for the server: a size-capped tmpfs as the scratch dir, and
  the folder that hides the interpreter from other users (e.g. /root) replaced by a tmpfs that
  shows only the Python installation.
- `ipc_namespace`: the server and its children live in their own IPC namespace, so a SysV
  segment, queue or semaphore, or a POSIX message queue, that gets past seccomp (which refuses
  the calls) is never in the host's and vanishes with the server.
- `scratch_cap`: the scratch dir is a size-capped tmpfs in every layout (a private /tmp, or, when
  the interpreter lives under /tmp, a tmpfs mounted on the scratch folder itself), so a job can
  never fill the host's disk; without a mount namespace only the per-file size limit applies.
- `uid_drop`: children run as a dedicated unprivileged uid per server (root servers only), so
  file permissions and RLIMIT_NPROC apply and no capability is left.
- `landlock`: read-only access to the Python installation, one writable scratch dir, nothing else
  (the library's metadata, the grader's sources, the data and the answers are unreadable); no TCP;
  no signals or abstract sockets outside the sandbox.
- `seccomp`: no exec, no new processes, no sockets, no ptrace, no signals to others, no
  kernel-facing calls (see seccomp.py).
What they do not protect against: code reading its own process (the library's internals, NumPy
behind it, the harness's memory) — the static policy refuses those tricks before running; CPU
time of other processes on the machine (the children compete with the grader for cores).
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import shutil
import signal
import stat
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sebench.grading.sandbox import landlock, seccomp
from sebench.grading.sandbox.config import SandboxConfig

try:  # the child's set-up in C, built by setup.py where a C compiler exists (see _confine.c)
    from sebench.grading.sandbox import _confine
except ImportError:
    _confine = None

LAYERS = (
    "rlimits",
    "process_group",
    "subreaper",
    "network_namespace",
    "mount_namespace",
    "ipc_namespace",
    "scratch_cap",
    "uid_drop",
    "landlock",
    "seccomp",
    "introspection",
    "fixed_layout",
    "fixed_clock",
    "oom_first",
)
# The layers that confine what code can reach; rlimits and process groups only bound resources.
CONTAINMENT = ("network_namespace", "uid_drop", "landlock", "seccomp")
# Files and folders the scratch tmpfs may hold at once: the size cap bounds their data, not the
# kernel's memory for them (a red team's job of empty nested folders grew ~12 MB a job).
# Honest programs make a few files, if any.
SCRATCH_INODES = 4096
OOM_SCORE_ADJ = 1000  # the most: chosen first by the out-of-memory killer

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER, _PR_SET_NO_NEW_PRIVS = 1, 36, 38
_CLONE_NEWNS, _CLONE_NEWIPC = 0x00020000, 0x08000000
_CLONE_NEWUSER, _CLONE_NEWNET = 0x10000000, 0x40000000
_MNT_DETACH, _IPC_RMID = 2, 0
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
_MS_RDONLY, _MS_REMOUNT, _MS_NOATIME, _MS_NODIRATIME = 1, 32, 1024, 2048
_ADDR_NO_RANDOMIZE, _PERSONALITY_QUERY = 0x0040000, 0xFFFFFFFF
FIXED_LAYOUT_FLAG = "--fixed-layout"  # the last argument of a server that re-executed itself
_layout_refused: list[str] = []  # why this server could not fix its layout

_libc = ctypes.CDLL(None, use_errno=True)
_libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
]
_libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
]


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def prctl(option: int, value: int) -> None:
    _check(_libc.prctl(option, value, 0, 0, 0), f"prctl({option})")


def die_with_parent() -> None:
    """SIGKILL the calling process when its parent dies (server -> zygote -> child)."""
    prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None
) -> None:
    def enc(text: str | None) -> bytes | None:
        return None if text is None else text.encode()

    _check(_libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


# System shared libraries: C extensions of the stdlib (ssl, sqlite3, uuid, curses) load them
# when imported; nothing in them is specific to this machine's users or to the benchmark.
SYSTEM_LIBRARIES = (
    "/lib",
    "/lib64",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local/lib",
    "/etc/ld.so.cache",
)


def read_only_paths() -> list[str]:
    """The Python installation (stdlib, compiled modules, site-packages) and the system's shared
    libraries, nothing else.

    Built from sysconfig and the location of NumPy, never from sys.path (whose entries can be
    the grader's own folder or the library's root).
    """
    import numpy

    paths = sysconfig.get_paths()
    found = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    found.add(str(Path(numpy.__file__).resolve().parent.parent))
    found.update(SYSTEM_LIBRARIES)
    existing = sorted({os.path.realpath(p) for p in found if os.path.exists(p)})
    minimal = [
        p for p in existing if not any(p != q and p.startswith(q + os.sep) for q in existing)
    ]
    return minimal


def _inside(path: str, roots: list[str]) -> bool:
    path = os.path.realpath(path)
    return any(path == root or path.startswith(root + os.sep) for root in roots)


@dataclass
class ServerIsolation:
    """What one fork server set up; `layers` lists the layers every child will enter."""

    scratch: str
    base: str
    uid: int | None
    ruleset: landlock.Ruleset | None
    seccomp_filters: seccomp.Filters | None
    layers: dict[str, bool] = field(default_factory=dict)
    details: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    base_mounted: bool = False  # a private tmpfs mounted on a folder of the host's /tmp

    def close(self) -> None:
        if self.ruleset is not None:
            os.close(self.ruleset.fd)
        if self.base == "/tmp":  # the private tmpfs: gone with the namespace
            shutil.rmtree(self.scratch, ignore_errors=True)
            return
        if self.base_mounted:  # the tmpfs goes with the namespace; the host's folder stays
            _libc.umount2(self.base.encode(), _MNT_DETACH)
        shutil.rmtree(self.base, ignore_errors=True)


def exec_with_fixed_layout() -> None:
    """Start this process again (`execv`) with address space layout randomisation off, once.

    Why: the rule "the answer depends on the library" compares a program's first run with
    reruns that may run on another server, and where memory lies is a coin a program can read
    (`id(object())`, an object's default `repr` or `hash`, the order of a set of objects): each
    server had its own random layout, and an answer right on one server in seven was `correct`
    now and then. With the layout fixed, every server starts alike, and so does every child of
    a job (it reads its job itself, after the fork, and the zygote's rounds are alike:
    zygote.py). The price: a native memory bug in NumPy would find fixed addresses; the
    containment layers do not rest on them. Where `personality` is refused (some container
    runtimes), the server goes on with a random layout and `fixed_layout` is off in `sebench
    doctor`."""
    if sys.argv[-1:] == [FIXED_LAYOUT_FLAG]:
        return
    current = _libc.personality(ctypes.c_ulong(_PERSONALITY_QUERY))
    if current != -1 and current & _ADDR_NO_RANDOMIZE:
        return  # started so (`setarch -R`)
    if current != -1 and _libc.personality(ctypes.c_ulong(current | _ADDR_NO_RANDOMIZE)) != -1:
        os.execv(sys.executable, [*sys.orig_argv, FIXED_LAYOUT_FLAG])
    _layout_refused.append(f"personality: {os.strerror(ctypes.get_errno()) or 'refused'}")


def fixed_layout() -> bool:
    return bool(_libc.personality(ctypes.c_ulong(_PERSONALITY_QUERY)) & _ADDR_NO_RANDOMIZE)


def setup_server(
    config: SandboxConfig, protected: list[str], clock_refused: str | None = "not set up"
) -> ServerIsolation:
    """Prepare every layer in the (fresh, single-threaded) server process.

    `protected` are paths children must not read (the library root with its metadata); a warning
    is added when the allow-list would include one of them. `clock_refused`: why NumPy's C
    clock could not be fixed (`determinism.fix_numpy_clock`), None when it was.
    """
    layers = dict.fromkeys(LAYERS, False)
    details: dict[str, str] = {}
    warnings: list[str] = []
    layers["rlimits"] = True
    layers["process_group"] = True
    # an audit hook, installed by the server itself (audit.py): works wherever Python runs
    layers["introspection"] = config.wants("introspection")
    layers["fixed_layout"] = fixed_layout()
    layers["fixed_clock"] = clock_refused is None
    if clock_refused is not None:
        details["fixed_clock"] = clock_refused
    if not layers["fixed_layout"]:
        details["fixed_layout"] = "; ".join(_layout_refused) or "not started by the server"
    try:
        # Under memory pressure the kernel's out-of-memory killer picks the sandbox (its
        # largest process: a child near its memory cap) before the trainer or the grader beside
        # it; children inherit it. A red team's note: one worker per core, ~1 GiB a child.
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write(str(OOM_SCORE_ADJ))
        layers["oom_first"] = True
    except OSError as exc:
        details["oom_first"] = str(exc)
    try:
        prctl(_PR_SET_CHILD_SUBREAPER, 1)
        layers["subreaper"] = True
    except OSError as exc:
        details["subreaper"] = str(exc)

    is_root = os.geteuid() == 0
    flags = _CLONE_NEWNET | _CLONE_NEWNS | (0 if is_root else _CLONE_NEWUSER)
    uid, gid = os.geteuid(), os.getegid()
    if not config.wants("network_namespace"):
        details["network_namespace"] = "disabled in the config"
    elif _libc.unshare(flags) == 0:
        if not is_root:  # map ourselves into the new user namespace: one uid, no uid drop
            Path("/proc/self/setgroups").write_text("deny")
            Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
            Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
        layers["network_namespace"] = True
        try:
            if not config.wants("mount_namespace"):
                raise OSError("disabled in the config")
            _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
            layers["mount_namespace"] = True
        except OSError as exc:
            details["mount_namespace"] = str(exc)
    else:
        details["network_namespace"] = f"unshare: {os.strerror(ctypes.get_errno())}"
    # Separate from the call above: it works as root, and inside the user namespace made above.
    if not config.wants("ipc_namespace"):
        details["ipc_namespace"] = "disabled in the config"
    elif _libc.unshare(_CLONE_NEWIPC) == 0:
        layers["ipc_namespace"] = True
    else:
        details["ipc_namespace"] = f"unshare: {os.strerror(ctypes.get_errno())}"

    sandbox_uid = None
    if config.drop_uid and config.wants("uid_drop") and is_root:
        # One uid per server, unique on the machine while the server lives (pids are), so two
        # graders never share a uid: RLIMIT_NPROC and file ownership stay per server.
        sandbox_uid = config.uid_base + os.getpid()
    elif not (config.drop_uid and config.wants("uid_drop")):
        details["uid_drop"] = "disabled in the config"
    else:
        details["uid_drop"] = "the server is not root"

    read_only = read_only_paths()
    base = None
    base_mounted = False
    hidden_by_tmpfs = [p for p in read_only if _inside(p, ["/tmp"])]
    scratch_tmpfs = f"size={config.scratch_mb}m,nr_inodes={SCRATCH_INODES},mode=0711"
    wants_cap = config.wants("scratch_cap")
    if not wants_cap:
        details["scratch_cap"] = "disabled in the config"
    elif not layers["mount_namespace"]:
        details["scratch_cap"] = (
            "off: no mount namespace; only the per-file size limit "
            f"({config.max_file_bytes >> 20} MiB) and {config.max_open_files} open files"
        )
    if layers["mount_namespace"] and hidden_by_tmpfs:
        # A Python installation under /tmp (a virtual environment made there) would vanish
        # under a private /tmp; Landlock still keeps the rest of the host's /tmp unreadable.
        details["scratch"] = f"a folder in the host's /tmp (Python lives in {hidden_by_tmpfs[0]})"
    elif layers["mount_namespace"] and wants_cap:
        # A private /tmp: the scratch dir lives on a size-capped tmpfs that vanishes with the
        # namespace, even when the server is killed, and the host's /tmp is out of sight.
        try:
            _mount("tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, scratch_tmpfs)
            base = "/tmp"
            layers["scratch_cap"] = True
            details["scratch"] = f"a private /tmp (tmpfs of {config.scratch_mb} MiB)"
        except OSError as exc:
            details["scratch"] = f"a folder in the host's /tmp ({exc})"
    if base is None:
        base = tempfile.mkdtemp(prefix="sebench-sandbox-")
        if layers["mount_namespace"] and wants_cap:
            # The host's /tmp stays (Python lives there), but the folder itself becomes a
            # size-capped tmpfs seen only in this namespace: the cap holds in this layout too.
            try:
                _mount("tmpfs", base, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, scratch_tmpfs)
                base_mounted = True
                layers["scratch_cap"] = True
                details["scratch"] += f", a private tmpfs of {config.scratch_mb} MiB"
            except OSError as exc:
                details["scratch_cap"] = f"off: {exc}"
        os.chmod(base, 0o711)  # traversable, not listable, for the sandbox uid
    if layers["scratch_cap"]:
        details["scratch_cap"] = (
            f"{config.scratch_mb} MiB and {SCRATCH_INODES} files in all, on a private tmpfs"
        )
    scratch = os.path.join(base, "scratch")
    os.mkdir(scratch, 0o700)
    # The children's tempfile module must not use a directory cached before (the host's /tmp).
    tempfile.tempdir = scratch
    if sandbox_uid is not None:
        os.chown(scratch, sandbox_uid, sandbox_uid)
        if layers["mount_namespace"]:
            _reveal_interpreter(read_only, details)
    if layers["mount_namespace"]:
        _freeze_access_times(read_only, details)

    ruleset = None
    abi = landlock.abi_version() if config.wants("landlock") else 0
    if abi >= 1:
        for path in protected:
            if _inside(path, read_only):
                warnings.append(
                    f"{path} is inside the Python installation, which children may "
                    "read: build the library elsewhere to keep its metadata private"
                )
        ruleset = landlock.build_ruleset(read_only, [scratch])
        details["landlock"] = f"ABI {abi}" + ("" if ruleset.scoped else " (signals not scoped)")
    else:
        details["landlock"] = (
            "not supported by this kernel" if config.wants("landlock") else "disabled in the config"
        )
    filters = None
    try:
        if not config.wants("seccomp"):
            raise OSError("disabled in the config")
        filters = seccomp.prepare()
        if filters is None:
            details["seccomp"] = "libseccomp not found (apt-get install libseccomp2)"
    except OSError as exc:
        details["seccomp"] = str(exc)
    isolation = ServerIsolation(
        scratch=scratch,
        base=base,
        uid=sandbox_uid,
        ruleset=ruleset,
        seccomp_filters=filters,
        layers=layers,
        details=details,
        warnings=warnings,
        base_mounted=base_mounted,
    )
    # Needed by seccomp and Landlock in every child: set once here, inherited through each fork
    # (the server never execs anything, the only thing it changes).
    prctl(_PR_SET_NO_NEW_PRIVS, 1)
    _probe_child_layers(isolation)
    described = {
        "rlimits": f"memory {config.memory_mb} MiB over the server's, CPU {config.cpu_limit_s} s, "
        f"files {config.max_file_bytes >> 20} MiB, {config.max_open_files} open files, no core",
        "process_group": "a session per child, killed as a group after each job",
        "network_namespace": "no network: a namespace with only a down loopback",
        "mount_namespace": "private mounts for the scratch dir and the interpreter, read-only "
        "and without access times",
        "ipc_namespace": "SysV IPC and POSIX message queues private to the server",
        "seccomp": "exec, new processes, sockets, ptrace, signals to others, signal handlers, IPC "
        "refused",
        "fixed_layout": "every server and child lays out its memory alike (no address a "
        "program reads differs between its runs)",
        "fixed_clock": "NumPy's own reads of the C clock ('now', 'today') give the virtual "
        "epoch, as the time module does in a child",
        "introspection": "an audit hook refuses frames, gc, tracing, ctypes, code rewriting; "
        "attribute names held by dataclass fields and cached properties fixed, wraps copies no "
        "module; no special names from data in Enum members, copy states or dataclass fields; "
        "the standard library's methods take their own class's instances only; ABCs answer "
        "for NumPy's classes from a fixed table; "
        "modules and the classes that exist before it read-only to the program; "
        "every subscript store through a guard (no program code inside a store's C path); "
        "OrderedDict equality, deque.index, defaultdict's factory call, iter(f, sentinel) "
        "and itertools' count, accumulate, groupby, chain, islice, cycle, zip_longest and "
        "pairwise in Python (no program code inside their C loops); no garbage collection "
        "while the program runs",
    }
    for name, text in described.items():
        if isolation.layers[name]:
            isolation.details.setdefault(name, text)
    isolation.details["child_setup"] = compiled_setup(config)[1]
    return isolation


def remove_ipc_objects() -> int:
    """Remove every SysV shared memory segment, message queue and semaphore set of the calling
    process's IPC namespace; return how many. Only for a server in its own namespace
    (`ipc_namespace`) whose children could make them (no seccomp): what one job made must not
    stay for the next (a 512 MiB segment each)."""
    removed = 0
    for kind in ("shm", "msg", "sem"):
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        control = getattr(_libc, f"{kind}ctl")
        for line in lines:
            fields = line.split()
            # shmctl/msgctl(id, IPC_RMID, NULL); semctl(id, 0, IPC_RMID)
            args = (
                (int(fields[1]), 0, _IPC_RMID)
                if kind == "sem"
                else (int(fields[1]), _IPC_RMID, None)
            )
            if control(*args) == 0:
                removed += 1
    return removed


def _reveal_interpreter(read_only: list[str], details: dict[str, str]) -> None:
    """Make the Python installation readable for the sandbox uid when a parent folder is not.

    On these machines the interpreter lives under /root (mode 0700): a child running as another
    uid could not import any module the server had not imported. In the server's private mount
    namespace, the closed folder is covered by a tmpfs (0755) showing only the installation,
    bind-mounted back at the same paths. The rest of that folder disappears for children.
    """
    closed: list[str] = []
    for path in read_only:
        if not os.path.isdir(path):
            continue
        parts = Path(path).parts
        for depth in range(1, len(parts)):
            ancestor = str(Path(*parts[: depth + 1]))
            if not os.stat(ancestor).st_mode & stat.S_IXOTH:
                if not any(_inside(ancestor, [c]) for c in closed):
                    closed.append(ancestor)
                break
    if not closed:
        details["interpreter"] = "readable by the sandbox uid"
        return
    hidden = [path for path in read_only if _inside(path, closed) and os.path.isdir(path)]
    fds = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in hidden}
    try:
        for folder in closed:
            _mount("tmpfs", folder, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=1m,mode=0755")
        for path, fd in fds.items():
            os.makedirs(path, 0o755, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", path, None, _MS_BIND | _MS_REC)
        details["interpreter"] = (
            f"shown to the sandbox uid through a tmpfs over {', '.join(closed)}"
        )
    finally:
        for fd in fds.values():
            os.close(fd)


def _freeze_access_times(read_only: list[str], details: dict[str, str]) -> None:
    """Reading a file sets its access time (on a disk mounted `relatime`, when it is older than
    the file's mtime): a red team marked files of the installation in one job and read the mark
    in a later one, on any server (with the `os` the policy refuses). In the server's mount
    namespace each read-only folder becomes a read-only mount of its own that records no
    access time; where the kernel refuses, `details["file_times"]` says so."""
    done: list[str] = []
    try:
        for path in sorted(read_only, key=len):  # an outer folder covers the ones inside it
            if not os.path.isdir(path) or _inside(path, done):
                continue
            _mount(path, path, None, _MS_BIND | _MS_REC)
            flags = _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOATIME | _MS_NODIRATIME
            _mount("none", path, None, flags)
            done.append(path)
    except OSError as exc:
        details["file_times"] = f"access times recorded under {path}: {exc}"
        return
    details["file_times"] = "the Python installation: read-only mounts without access times"


@dataclass(frozen=True)
class ChildPlan:
    """What a child applies right after the fork (made once, in the zygote: enter_zygote)."""

    uid: int | None
    ruleset: landlock.Ruleset | None  # None when the zygote entered Landlock (enter_zygote)
    seccomp_program: seccomp.Program | None  # the child's own part of the filter
    limits: dict[int, tuple[int, int]]
    scratch: str
    # The same plan as the arguments of the compiled set-up (`_confine.enter`); None: Python.
    compiled: tuple | None = None


def enter_zygote(
    isolation: ServerIsolation,
    ruleset: landlock.Ruleset | None,
    limits: dict[int, tuple[int, int]],
    compiled: bool,
) -> ChildPlan:
    """Confine the calling zygote with the layers its children can inherit through `fork`, and
    plan the rest for each child. `ruleset` is the server's, with the zygote's fd number;
    `compiled`: children use the compiled set-up (see `compiled_setup`).

    Filters and Landlock domains survive `fork`, and loading them costs each child ~0.25 ms, so
    the zygote loads the inherited part of the seccomp filter and, together with it, Landlock.
    Only together: children then share the zygote's Landlock domain, where Landlock alone would
    let them signal and trace the zygote, which the filter refuses. Without seccomp, each child
    enters a Landlock domain of its own, below the zygote's. Raises if a layer fails.
    """
    seccomp_on = isolation.layers["seccomp"]
    if seccomp_on:
        if isolation.layers["landlock"]:
            landlock.restrict_self(ruleset)
        seccomp.load_inherited(isolation.seccomp_filters, os.getpid())
    plan = ChildPlan(
        uid=isolation.uid if isolation.layers["uid_drop"] else None,
        ruleset=ruleset if isolation.layers["landlock"] and not seccomp_on else None,
        seccomp_program=isolation.seccomp_filters.own if seccomp_on else None,
        limits=limits,
        scratch=isolation.scratch,
    )
    if not compiled:
        return plan
    program = plan.seccomp_program
    return dataclasses.replace(
        plan,
        compiled=(
            tuple((which, soft, hard) for which, (soft, hard) in limits.items()),
            -1 if plan.uid is None else plan.uid,
            -1 if plan.ruleset is None else plan.ruleset.fd,
            None if program is None else program.buffer,
            () if program is None else program.pid_offsets,
            os.fsencode(plan.scratch),
        ),
    )


def compiled_setup(config: SandboxConfig) -> tuple[bool, str]:
    """Whether children enter their layers through the compiled helper, and why (for doctor)."""
    if not config.compiled_setup:
        return False, "Python (ctypes): the compiled helper is disabled in the config"
    if _confine is None:
        return False, (
            "Python (ctypes): the compiled helper was not built (install with a C compiler "
            "for ~0.4 ms less per sample)"
        )
    return True, "compiled helper (sebench.grading.sandbox._confine)"


def enter_child(plan: ChildPlan) -> None:
    """Confine the calling (freshly forked) process and enter the scratch dir. Raises if any
    planned layer fails."""
    if plan.compiled is not None:
        _confine.enter(*plan.compiled)  # the same steps, in the same order, in C
        return
    import resource

    os.setsid()
    for which, pair in plan.limits.items():
        resource.setrlimit(which, pair)
    if plan.uid is not None:
        os.setgroups([])
        os.setresgid(plan.uid, plan.uid, plan.uid)
        os.setresuid(plan.uid, plan.uid, plan.uid)
    die_with_parent()  # after the uid drop: changing uid clears the parent-death signal
    # no_new_privs, which seccomp and Landlock need, is the server's (setup_server), inherited.
    if plan.ruleset is not None:
        landlock.restrict_self(plan.ruleset)
        # The ruleset fd is the server's, shared by every later child: left open, code could
        # add rules to it (landlock_add_rule) and widen what the next children may read.
        os.close(plan.ruleset.fd)
    if plan.seccomp_program is not None:
        seccomp.load(plan.seccomp_program, os.getpid())
    os.chdir(plan.scratch)


def _probe_child_layers(isolation: ServerIsolation) -> None:
    """Try uid drop, Landlock and seccomp in a throwaway child and keep only those that work."""
    candidates = {
        "uid_drop": isolation.uid is not None,
        "landlock": isolation.ruleset is not None,
        "seccomp": isolation.seccomp_filters is not None,
    }
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked probe
        os.close(read)
        ok = []
        try:
            os.setsid()
            if candidates["uid_drop"]:
                try:
                    os.setgroups([])
                    os.setresgid(isolation.uid, isolation.uid, isolation.uid)
                    os.setresuid(isolation.uid, isolation.uid, isolation.uid)
                    try:
                        os.listdir(sysconfig.get_paths()["stdlib"])
                        ok.append("uid_drop")
                    except OSError:
                        ok.append("uid_drop:unreadable")
                except OSError:
                    pass
            if candidates["landlock"]:
                try:
                    landlock.restrict_self(isolation.ruleset)
                    ok.append("landlock")
                except OSError:
                    pass
            if candidates["seccomp"]:
                try:
                    seccomp.load_inherited(isolation.seccomp_filters, os.getpid())
                    seccomp.load(isolation.seccomp_filters.own, os.getpid())
                    ok.append("seccomp")
                except OSError:
                    pass
            os.write(write, ",".join(ok).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        working = set(pipe.read().decode().split(","))
    os.waitpid(pid, 0)
    for name, wanted in candidates.items():
        isolation.layers[name] = wanted and name in working
        if wanted and name not in working:
            isolation.details.setdefault(name, "refused by the kernel in a test child")
    if "uid_drop:unreadable" in working:
        # Dropping the uid would make every module not imported before the fork unimportable
        # (wrong runtime errors on honest code): keep the uid, and say so.
        isolation.details["uid_drop"] = (
            "off: the sandbox uid cannot read the Python installation (it lives in a closed "
            "folder and no mount namespace is available to reveal it)"
        )
    if isolation.layers["uid_drop"]:
        isolation.details.setdefault("uid_drop", f"uid {isolation.uid}")


def describe() -> tuple[dict[str, bool], dict[str, str], list[str]]:
    """Set up the layers in a throwaway fresh interpreter and report them (for `doctor`)."""
    import subprocess  # not at the top: the fork server imports this module (see server.py)

    result = subprocess.run(
        server_command("--probe"),
        capture_output=True,
        text=True,
        timeout=120,
        env=server_environment(),
        cwd="/",
    )
    if result.returncode != 0:
        raise OSError(f"isolation probe failed: {result.stderr.strip()[-2000:]}")
    import json

    report = json.loads(result.stdout)
    return report["layers"], report["details"], report["warnings"]


def detect_layers() -> dict[str, bool]:
    """Which isolation layers a fork server on this machine would use (name -> active)."""
    return describe()[0]


def interpreter_command(*args: str) -> list[str]:
    """A fresh interpreter started as the fork servers are (never a fork of the grader).

    `-S`: no `site`, so no `.pth` file of the environment runs in it. Some import `threading`
    (seen on CI: a certifi hook), whose fork handler would cost every sample ~0.6 ms; the path it
    needs comes from `server_environment` instead. `-P`: no folder of the grader's (its working
    directory) on the path.
    """
    return [sys.executable, "-S", "-P", *args]


def server_command(*args: str) -> list[str]:
    """How a fork server is started."""
    return interpreter_command("-m", "sebench.grading.sandbox.server", *args)


def server_environment() -> dict[str, str]:
    """The environment of a fork server: nothing of the grader's (no keys, no tokens), and a
    path holding exactly what the server imports beyond the stdlib: sebench and NumPy."""
    import importlib.util

    import sebench

    roots = [Path(sebench.__file__).resolve().parent.parent]
    numpy = importlib.util.find_spec("numpy")
    if numpy is not None and numpy.origin:
        roots.append(Path(numpy.origin).resolve().parent.parent)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(map(str, roots))),
        "PYTHONDONTWRITEBYTECODE": "1",
        # single-threaded BLAS before NumPy loads: forks stay cheap, RLIMIT_AS does not break it
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        # One string hash for every server: a program's run and its perturbed reruns (which may
        # land on another server) iterate sets and dicts in the same order, so that order is no
        # coin a program can toss to answer the rerun differently (Grader.confirm_dependence).
        "PYTHONHASHSEED": "0",
    }
    for key in ("LANG", "LC_ALL", "SYSTEMROOT"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env
