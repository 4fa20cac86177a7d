"""A child enters its layers through the compiled helper (`_confine.c`) or the Python path:
both must leave it in exactly the same state."""

from __future__ import annotations

import os

import pytest

from sebench.grading.sandbox import (
    ExecStatus,
    Job,
    SandboxConfig,
    SandboxPool,
    isolation,
    landlock,
)
from tests.grading.sandbox.conftest import BELOW_INTROSPECTION, SECRET
from tests.grading.sandbox.test_isolation import in_child

# What a child can observe of its own confinement, one fact per line of the list.
STATE = """
import ctypes, os, resource, socket

def attempt(call):
    try:
        call()
        return "allowed"
    except OSError as exc:
        return type(exc).__name__

def fork_and_exit():
    if os.fork() == 0:
        os._exit(0)  # a grandchild, where a filter allows one: gone at once

def solve(x):
    death = ctypes.c_int()
    ctypes.CDLL(None).prctl(2, ctypes.byref(death), 0, 0, 0)  # PR_GET_PDEATHSIG
    limits = [resource.getrlimit(r) for r in (resource.RLIMIT_AS, resource.RLIMIT_CPU,
              resource.RLIMIT_FSIZE, resource.RLIMIT_NOFILE, resource.RLIMIT_CORE,
              resource.RLIMIT_NPROC)]
    return "|".join(str(fact) for fact in [
        len(set(os.getresuid())) == 1 and os.getresuid() == os.getresgid(),
        os.getgroups(),
        os.getsid(0) == os.getpid(),
        death.value,
        limits[1:],
        limits[0][0] > 0,
        os.getcwd() == os.environ["TMPDIR"],
        attempt(fork_and_exit),
        attempt(lambda: os.kill(os.getppid(), 0)),
        attempt(lambda: os.kill(os.getpid(), 0)),
        attempt(socket.socket),
        attempt(lambda: open(SECRET_PATH)),
        attempt(lambda: open("/proc/self/status").read()),
    ])
"""

needs_helper = pytest.mark.skipif(isolation._confine is None, reason="the helper is not built")


def observe(standin_library, compiled: bool, layers=None) -> tuple[str, str]:
    config = SandboxConfig(workers=1, compiled_setup=compiled, layers=layers or BELOW_INTROSPECTION)
    secret = standin_library.root / "sebench_library.json"
    assert SECRET in secret.read_text()
    code = f"SECRET_PATH = {str(secret)!r}\n{STATE}"
    with SandboxPool(standin_library, config) as pool:
        execution = pool.run(Job(code, "solve", ("x=1",)))
        assert execution.status is ExecStatus.OK, execution
        return execution.cases[0].printed, pool.details["child_setup"]


@needs_helper
def test_the_compiled_and_the_python_set_up_confine_a_child_alike(standin_library):
    compiled, compiled_note = observe(standin_library, compiled=True)
    python, python_note = observe(standin_library, compiled=False)
    assert compiled == python
    assert compiled_note.startswith("compiled helper")
    assert python_note.startswith("Python") and "disabled" in python_note
    facts = compiled.split("|")
    assert facts[2:4] == ["True", "9"]  # its own session; SIGKILL when the zygote dies
    assert facts[7] == "PermissionError" or not isolation.detect_layers()["seccomp"]  # fork


@needs_helper
@pytest.mark.parametrize("layers", [("landlock",), ("seccomp",)], ids=["landlock", "seccomp"])
def test_with_one_containment_layer_both_set_ups_agree(standin_library, layers):
    """Without seccomp each child enters Landlock itself (the zygote does not); without Landlock
    the zygote still loads the inherited filter."""
    if not isolation.detect_layers()[layers[0]]:
        pytest.skip(f"{layers[0]} is not available here")
    compiled, _ = observe(standin_library, compiled=True, layers=layers)
    python, _ = observe(standin_library, compiled=False, layers=layers)
    assert compiled == python
    fork, kill_parent, kill_self, sockets, secret = compiled.split("|")[7:12]
    if layers == ("landlock",):
        assert (fork, secret) == ("allowed", "PermissionError")
        if landlock.abi_version() >= 6:  # signals scoped to the child's own domain
            assert kill_parent == "PermissionError"
    else:
        assert (fork, kill_parent, kill_self, sockets) == (
            "PermissionError",
            "PermissionError",
            "allowed",
            "PermissionError",
        )


def test_without_the_helper_the_python_path_is_used_and_said(monkeypatch):
    monkeypatch.setattr(isolation, "_confine", None)
    compiled, note = isolation.compiled_setup(SandboxConfig())
    assert not compiled
    assert "not built" in note and "C compiler" in note


@needs_helper
def test_the_helper_names_the_step_that_failed():
    def enter_a_missing_folder() -> str:
        try:
            isolation._confine.enter((), -1, -1, None, (), b"/nonexistent/scratch")
        except OSError as exc:
            return f"{exc.errno == 2} {exc.strerror}"
        return "entered"

    assert in_child(enter_a_missing_folder) == "True chdir"


@needs_helper
def test_the_helper_refuses_a_pid_offset_outside_the_program():
    buffer = bytearray(8)

    def patch_outside() -> str:
        try:
            isolation._confine.enter((), -1, -1, buffer, (8,), os.fsencode("/"))
        except ValueError as exc:
            return str(exc)
        return "patched"

    assert in_child(patch_outside) == "pid offset outside the program"
