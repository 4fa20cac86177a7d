"""A seccomp filter through ctypes and the system's libseccomp (no Python package needed).

The filter allows everything except the system calls that let code leave its box: starting
programs (`execve`), new processes (`fork`, `clone` without `CLONE_THREAD`; `clone3` answers
ENOSYS so the C library falls back to `clone`, which can be inspected), sockets, debugging other
processes (`ptrace`, `process_vm_*`), signals to any process but itself, changing another
process's limits, priority, CPUs or memory (`prlimit64`, `setpriority`, `sched_set*`, ...;
where the uid cannot be dropped the kernel would allow them on the grader), and the kernel-facing
calls (mounts, namespaces, modules, BPF, keyrings, io_uring, Landlock rulesets), and
inter-process communication objects that outlive a process (SysV shared memory, message queues
and semaphores, POSIX message queues: created in the IPC namespace, not in the scratch dir, they
would stay after the job, a 512 MiB segment resident per sample), and what a file keeps beyond
its contents that outlives the job (times, inode flags; locks, owners and signals of open files
every child shares: `FCNTL_COMMANDS`, `IOCTL_COMMANDS`). Refused calls fail with EPERM, so the
code sees an ordinary Python exception.

It comes in two parts, because loading a filter costs the kernel time in proportion to its size
(~0.15 ms for the whole filter on these machines, a sample's biggest isolation cost):
- `Filters.inherited`, the kernel-facing calls, is loaded once by the zygote (zygote.py): filters
  survive `fork`, so every child has it without loading anything;
- `Filters.own`, new processes and signals to others, is loaded by each child: the zygote must
  still fork, and "itself" is each child's own pid.
libseccomp compiles rules to BPF in about 2 ms, so the server compiles both once (`own` with a
placeholder pid) and each child patches its pid into its copy and loads it with one prctl.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

_ALLOW = 0x7FFF0000
_CMP_NE, _CMP_MASKED_EQ = 1, 7
_CLONE_THREAD = 0x00010000
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
# Stands for "the child's own pid" in the compiled program; no real pid is this large
# (pid_max is at most 2**22) and no other constant of the filter has this value.
_PLACEHOLDER_PID = 0x3EB3C4A1
_INSTRUCTION = struct.Struct("=HBBI")  # struct sock_filter: code, jt, jf, k


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


# New processes: refused by the child's own filter (clone only without CLONE_THREAD).
PROCESS_CREATION = ("fork", "vfork", "clone", "clone3")
# Refused by the inherited filter.
DENIED = (
    "execve",
    "execveat",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "mknod",
    "mknodat",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "pidfd_open",
    "pidfd_getfd",
    "pidfd_send_signal",
    "tkill",
    "kcmp",
    "acct",
    "quotactl",
    "name_to_handle_at",
    "open_by_handle_at",
    "iopl",
    "ioperm",
    "process_madvise",
    "fanotify_init",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsmount",
    "fspick",
    # another process's events, counters and samples (same uid): nothing a solution measures
    "perf_event_open",
    # IPC objects live in the (server's) IPC namespace, not in the child: refused so that no
    # job leaves one for the next (POSIX shared memory is a file, under Landlock's rules).
    "shmget",
    "shmat",
    "shmctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    # Landlock is entered before the filter loads; code must not build or edit rulesets.
    "landlock_create_ruleset",
    "landlock_add_rule",
    "landlock_restrict_self",
    # the newer mount calls: without root the server keeps a user namespace's capabilities,
    # and a red team's child cleared a read-only bind mount's flag (`mount_setattr`, NZ)
    "mount_setattr",
    "open_tree_attr",
    "fsconfig",
    "quotactl_fd",
    "listmount",
    "statmount",
    "listns",
    # What a file keeps beyond its contents, where Landlock does not look: its times (a red
    # team's job wrote 8 bits into the times of world-writable `/dev/null`, `/dev/shm`, ...,
    # read back by a job of another server, NZ), its inode flags, and `flock` locks on a file
    # open in every child (`/dev/null`, the results pipe: held past the job, seen by the next).
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "file_setattr",
    "flock",
)
# Numbers for calls an old libseccomp may not know by name (the same on every architecture).
_FALLBACK_NUMBERS = {
    "fsconfig": 431,
    "mount_setattr": 442,
    "quotactl_fd": 443,
    "landlock_create_ruleset": 444,
    "landlock_add_rule": 445,
    "landlock_restrict_self": 446,
    "statmount": 457,
    "listmount": 458,
    "open_tree_attr": 467,
    "file_setattr": 469,
    "listns": 470,
}
# `fcntl` and `ioctl` commands refused by the inherited filter (compared on the low 32 bits: the
# kernel reads the command as an unsigned int). Locks, a signal or owner for I/O events, leases
# and notifications, write-life hints: state of an open file, not of the process, so on a file
# every child shares (its /dev/null, the results pipe) it outlived the job, and locks on
# `/dev/null` reached other servers and the host (a red team's, NZ: two numbers of 64 bits a
# lock; `F_SETOWN` with `F_SETSIG` had the kernel kill the zygote where the uid is the server's).
# The file flags (`F_SETFL`) are the zygote's to reset before each fork (zygote.py).
FCNTL_COMMANDS = {
    "F_GETLK": 5,
    "F_SETLK": 6,
    "F_SETLKW": 7,
    "F_SETOWN": 8,
    "F_SETSIG": 10,
    "F_SETOWN_EX": 15,
    "F_OFD_GETLK": 36,
    "F_OFD_SETLK": 37,
    "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024,
    "F_NOTIFY": 1026,
    "F_SET_RW_HINT": 1036,
    "F_SET_FILE_RW_HINT": 1038,
}
IOCTL_COMMANDS = {
    "FIOASYNC": 0x5452,
    "FIOSETOWN": 0x8901,
    "SIOCSPGRP": 0x8902,
    "FS_IOC_SETFLAGS": 0x40086602,
    "FS_IOC_FSSETXATTR": 0x401C5820,
}
_LOW_32 = 0xFFFFFFFF
# Calls whose first argument is a pid: allowed only when it is the calling process itself.
SELF_ONLY = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")
# Calls that change another process's limits, priority, CPUs or memory when given its pid, and
# the caller's own when given 0: refused by the inherited filter for any pid but 0. Where the
# server cannot drop its uid, a child has the grader's uid, and the kernel let a red team's job
# set the grader's CPU limit to 1 s (the grader was killed), its open-file limit to 20 (the next
# job an `infra_error`), its niceness and its CPUs; with the uid dropped the kernel refuses them.
OWN_PROCESS_ONLY = (
    "prlimit64",
    "sched_setaffinity",
    "sched_setparam",
    "sched_setscheduler",
    "sched_setattr",
    "migrate_pages",
    "move_pages",
)
# The same for calls that name their target by (which, who): allowed only for "this process"
# (`which`, here PRIO_PROCESS and IOPRIO_WHO_PROCESS) with `who` 0.
PROCESS_TARGETED = {"setpriority": 0, "ioprio_set": 1}
# Installing a signal handler: refused by the child's own filter. A Python handler receives the
# frame that was running, the harness's included, and no audit event announces it (audit.py).
SIGNAL_HANDLERS = ("rt_sigaction", "sigaction", "signal")


_libc = ctypes.CDLL(None, use_errno=True)
_libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_ulong,
    ctypes.c_void_p,
    ctypes.c_ulong,
    ctypes.c_ulong,
]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


@cache
def _library() -> ctypes.CDLL | None:
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        # `ctypes.util` imports subprocess, hence threading, whose fork handler costs every
        # fork of the server: only when the soname alone is not found.
        from ctypes.util import find_library

        name = find_library("seccomp")
        if name is None:
            return None
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError:
            return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_arch_native.restype = ctypes.c_uint32
    return lib


def available() -> bool:
    """libseccomp can be loaded (the kernel side is checked by actually loading a filter)."""
    return _library() is not None


@cache
def _numbers() -> tuple[dict[str, int], ...]:
    # Resolved once in the server, so a child does no name lookups.
    lib = _library()
    assert lib is not None

    def resolve(names: tuple[str, ...]) -> dict[str, int]:
        found = {}
        for name in names:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number >= 0:
                found[name] = number
            elif name in _FALLBACK_NUMBERS:
                found[name] = _FALLBACK_NUMBERS[name]
        return found

    return (
        resolve(DENIED),
        resolve(PROCESS_CREATION),
        resolve(SELF_ONLY),
        resolve(SIGNAL_HANDLERS),
        resolve(OWN_PROCESS_ONLY),
        resolve(tuple(PROCESS_TARGETED)),
        resolve(("fcntl", "ioctl")),
    )


@dataclass(frozen=True)
class Program:
    """A compiled filter: BPF bytes and where the placeholder pid sits in them (if anywhere).

    `buffer` and `fprog` are the ready-made C structures; a forked child owns a copy-on-write
    copy of them, so it patches its pid in place and loads without allocating.
    """

    code: bytes
    pid_offsets: tuple[int, ...]
    buffer: ctypes.Array = field(repr=False, compare=False)
    fprog: _SockFprog = field(repr=False, compare=False)


@dataclass(frozen=True)
class Filters:
    """The filter's parts (see the module's docstring)."""

    inherited: Program  # loaded once by the zygote
    own: Program  # loaded by each child, with its pid
    newer: Program  # loaded once by the zygote, with `inherited`: calls newer than this file


# The highest system call number this file was reviewed against (`listns`, Linux 6.18; from
# 424 on, every architecture numbers new calls alike). The list above refuses what it names, so
# a call a newer kernel adds would be allowed until someone lists it (a red team found seven
# such on 6.18, NZ): every call numbered above this one answers ENOSYS instead, as on a kernel
# that lacks it, which the C library already expects of new calls.
LAST_REVIEWED_CALL = 470
_X32_BIT = 0x40000000  # the x32 ABI's calls, numbered from here: the libseccomp filter's


def newer_calls(last: int = LAST_REVIEWED_CALL) -> Program:
    """A filter (plain BPF, a few instructions) that answers ENOSYS to every system call of the
    native architecture numbered above `last`, and leaves every other call to the other
    filters."""
    lib = _library()
    assert lib is not None
    native = lib.seccomp_arch_native()
    allow, enosys = _ALLOW, _errno_action(errno.ENOSYS)
    load_word, jump_eq, jump_ge, jump_gt, ret = 0x20, 0x15, 0x35, 0x25, 0x06
    program = [
        (load_word, 0, 0, 4),  # seccomp_data.arch
        (jump_eq, 0, 3, native),  # another architecture: allowed here
        (load_word, 0, 0, 0),  # seccomp_data.nr
        (jump_ge, 1, 0, _X32_BIT),  # x32: allowed here
        (jump_gt, 1, 0, last),
        (ret, 0, 0, allow),
        (ret, 0, 0, enosys),
    ]
    code = b"".join(_INSTRUCTION.pack(*instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _SockFprog(len(program), ctypes.addressof(buffer))
    return Program(code, (), buffer, fprog)


def load_inherited(filters: Filters, pid: int) -> None:
    """Load the parts every child inherits from the zygote: the kernel-facing calls and the
    newer ones."""
    load(filters.newer, pid)
    load(filters.inherited, pid)


def prepare() -> Filters | None:
    """Compile both parts once (in the server, before any fork); None without libseccomp."""
    if _library() is None:
        return None
    denied, creation, self_only, handlers, own_process, targeted, commanded = _numbers()

    def inherited(add: _AddRule) -> None:
        eperm = _errno_action(errno.EPERM)
        for number in denied.values():
            add(eperm, number)
        for name, commands in (("fcntl", FCNTL_COMMANDS), ("ioctl", IOCTL_COMMANDS)):
            for command in commands.values():  # a rule each: either refuses
                add(eperm, commanded[name], _ArgCmp(1, _CMP_MASKED_EQ, _LOW_32, command))
        # pid 0 is the caller on every path through the zygote's fork (no pid to patch in)
        for number in own_process.values():
            add(eperm, number, _ArgCmp(0, _CMP_NE, 0, 0))
        for name, number in targeted.items():  # two rules: either condition refuses
            add(eperm, number, _ArgCmp(0, _CMP_NE, PROCESS_TARGETED[name], 0))
            add(eperm, number, _ArgCmp(1, _CMP_NE, 0, 0))

    def own(add: _AddRule) -> None:
        eperm = _errno_action(errno.EPERM)
        for name, number in creation.items():
            if name == "clone":
                add(eperm, number, _ArgCmp(0, _CMP_MASKED_EQ, _CLONE_THREAD, 0))
            elif name == "clone3":
                add(_errno_action(errno.ENOSYS), number)
            else:
                add(eperm, number)
        for number in self_only.values():
            add(eperm, number, _ArgCmp(0, _CMP_NE, _PLACEHOLDER_PID, 0))
        for number in handlers.values():
            add(eperm, number)

    own_program = _compile(own)
    if not own_program.pid_offsets:
        raise OSError(errno.EINVAL, "seccomp program has no place for the pid")
    return Filters(inherited=_compile(inherited), own=own_program, newer=newer_calls())


_AddRule = Callable[..., None]  # add(action, syscall number, *conditions)


def _compile(rules: Callable[[_AddRule], None]) -> Program:
    """Export the BPF of a filter that allows all but `rules`; find the placeholder pid in it."""
    lib = _library()
    assert lib is not None
    ctx = lib.seccomp_init(_ALLOW)
    if not ctx:
        raise OSError(errno.ENOMEM, "seccomp_init failed")
    read, write = os.pipe()
    try:

        def add(action: int, number: int, *conditions: _ArgCmp) -> None:
            array = (_ArgCmp * max(1, len(conditions)))(*conditions)
            rc = lib.seccomp_rule_add_array(ctx, action, number, len(conditions), array)
            if rc < 0:
                raise OSError(-rc, f"seccomp_rule_add failed for syscall {number}")

        rules(add)
        rc = lib.seccomp_export_bpf(ctx, write)
        if rc < 0:
            raise OSError(-rc, "seccomp_export_bpf failed")
        os.close(write)
        write = -1
        code = b""
        while chunk := os.read(read, 1 << 16):
            code += chunk
    finally:
        lib.seccomp_release(ctx)
        os.close(read)
        if write >= 0:
            os.close(write)
    if not code:
        raise OSError(errno.EINVAL, "seccomp program could not be exported")
    offsets = tuple(
        offset + 4
        for offset in range(0, len(code), _INSTRUCTION.size)
        if _INSTRUCTION.unpack_from(code, offset)[3] == _PLACEHOLDER_PID
    )
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _SockFprog(len(code) // _INSTRUCTION.size, ctypes.addressof(buffer))
    return Program(code, offsets, buffer, fprog)


def load(program: Program, own_pid: int) -> None:
    """Load a compiled filter, with `own_pid` patched in, into the calling process.

    Needs no_new_privs (set by the caller); raises OSError when the kernel refuses.
    """
    for offset in program.pid_offsets:
        struct.pack_into("=I", program.buffer, offset, own_pid)
    if _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(program.fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
