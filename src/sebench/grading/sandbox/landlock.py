"""Landlock through ctypes: a file-system allow-list, TCP denial and signal scoping.

Landlock is an unprivileged Linux security module (kernel 5.13+; ABI 4 adds TCP, ABI 6 adds
scoping). A ruleset lists what stays allowed; everything else the ruleset "handles" is denied
once a process restricts itself, for it and all its descendants, root included. The server builds
the ruleset once (a file descriptor) and each child only calls `restrict_self`, about 0.1 ms.
"""

from __future__ import annotations

import ctypes
import os
import platform
from dataclasses import dataclass

# Syscall numbers are the same on every architecture that has Landlock (generic table).
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1

# File-system rights (include/uapi/linux/landlock.h) and the ABI that introduced each.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

READ_ONLY = READ_FILE | READ_DIR
SCRATCH = (
    READ_FILE | READ_DIR | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | TRUNCATE
)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long


def abi_version() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is absent or disabled."""
    if platform.system() != "Linux":
        return 0
    version = _syscall(
        _SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
    )
    return max(0, int(version))


def _handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


@dataclass(frozen=True)
class Ruleset:
    """A built ruleset: pass `fd` to `restrict_self` in the process to confine."""

    fd: int
    abi: int
    network: bool  # TCP bind/connect denied
    scoped: bool  # signals and abstract unix sockets limited to the sandbox's own domain


def build_ruleset(read_only: list[str], writable: list[str]) -> Ruleset:
    """A ruleset allowing reads under `read_only`, reads and writes under `writable`, no TCP."""
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available on this kernel")
    handled = _handled_fs(abi)
    attr = _RulesetAttr(
        handled,
        NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0,
        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0,
    )
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    fd = _syscall(
        _SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for paths, rights in ((read_only, READ_ONLY), (writable, SCRATCH)):
            for path in paths:
                _add_path(fd, path, rights & handled)
    except BaseException:
        os.close(fd)
        raise
    return Ruleset(fd=fd, abi=abi, network=abi >= 4, scoped=abi >= 6)


def _add_path(ruleset_fd: int, path: str, rights: int) -> None:
    target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        if not os.path.isdir(path):
            rights &= READ_FILE | WRITE_FILE | TRUNCATE | EXECUTE | IOCTL_DEV
        beneath = _PathBeneathAttr(rights, target)
        if (
            _syscall(
                _SYS_ADD_RULE,
                ctypes.c_int(ruleset_fd),
                ctypes.c_int(_RULE_PATH_BENEATH),
                ctypes.byref(beneath),
                ctypes.c_uint32(0),
            )
            < 0
        ):
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(target)


def restrict_self(ruleset: Ruleset) -> None:
    """Confine the calling process (needs no_new_privs or CAP_SYS_ADMIN; see isolation)."""
    if _syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset.fd), ctypes.c_uint32(0)) < 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
