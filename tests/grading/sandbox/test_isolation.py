"""Isolation layers, each checked on its own in a forked test process, and their detection."""

from __future__ import annotations

import errno
import json
import os
import socket

import pytest
from typer.testing import CliRunner

from sebench.grading.sandbox import isolation, landlock, seccomp


def in_child(action) -> str:
    """Run `action()` in a forked process; return what it returned (a short string)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            result = action()
        except BaseException as exc:  # reported, not raised, in the child
            result = f"raised {type(exc).__name__}"
        os.write(write, str(result).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        text = pipe.read().decode()
    os.waitpid(pid, 0)
    return text


def errno_of(call) -> str:
    try:
        call()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "allowed"


needs_seccomp = pytest.mark.skipif(not seccomp.available(), reason="libseccomp not installed")
needs_landlock = pytest.mark.skipif(landlock.abi_version() < 1, reason="no Landlock here")


@needs_seccomp
def test_seccomp_refuses_fork_exec_and_sockets_but_not_threads():
    filters = seccomp.prepare()

    def confined() -> str:
        isolation.prctl(38, 1)  # no_new_privs
        seccomp.load(filters.inherited, os.getpid())  # as the zygote does
        seccomp.load(filters.own, os.getpid())  # as each child does
        import threading

        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        return ",".join(
            [
                errno_of(os.fork),
                errno_of(lambda: os.execv("/bin/true", ["true"])),
                errno_of(socket.socket),
                errno_of(lambda: os.kill(os.getppid(), 0)),
                errno_of(lambda: os.kill(os.getpid(), 0)),
            ]
        )

    assert in_child(confined) == "EPERM,EPERM,EPERM,EPERM,allowed"


@needs_seccomp
def test_the_inherited_filter_lets_the_zygote_fork_and_nothing_else_through():
    filters = seccomp.prepare()

    def zygote() -> str:
        isolation.prctl(38, 1)
        seccomp.load(filters.inherited, os.getpid())
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        forked = os.waitpid(pid, 0)[1] >> 8 == 7
        return ",".join(
            [
                "forked" if forked else "no fork",
                errno_of(lambda: os.execv("/bin/true", ["true"])),
                errno_of(socket.socket),
            ]
        )

    assert in_child(zygote) == "forked,EPERM,EPERM"


@needs_seccomp
def test_a_call_newer_than_the_filter_knows_answers_enosys():
    """The refused calls are a list, so a call a newer kernel adds was allowed until listed (a
    red team found seven on 6.18: `mount_setattr`, `file_setattr`, ...). Every call numbered
    above the last one reviewed answers ENOSYS, as on a kernel without it: shown with the line
    drawn lower, below `getrandom` (318), which then answers ENOSYS while older calls run."""

    def confined(last: int) -> str:
        isolation.prctl(38, 1)  # no_new_privs
        seccomp.load(seccomp.newer_calls(last), os.getpid())
        return ",".join([errno_of(lambda: os.getrandom(1)), errno_of(os.getppid)])

    assert in_child(lambda: confined(300)) == "ENOSYS,allowed"
    assert in_child(lambda: confined(seccomp.LAST_REVIEWED_CALL)) == "allowed,allowed"
    # the filters a zygote loads include it
    filters = seccomp.prepare()
    assert filters.newer.code == seccomp.newer_calls().code


@needs_landlock
def test_landlock_allows_only_the_listed_folders(tmp_path):
    allowed, scratch, secret = tmp_path / "allowed", tmp_path / "scratch", tmp_path / "secret.txt"
    allowed.mkdir()
    scratch.mkdir()
    (allowed / "ok.txt").write_text("ok")
    secret.write_text("answers")
    ruleset = landlock.build_ruleset([str(allowed)], [str(scratch)])

    def confined() -> str:
        isolation.prctl(38, 1)
        landlock.restrict_self(ruleset)
        return ",".join(
            [
                errno_of(lambda: open(allowed / "ok.txt").read()),
                errno_of(lambda: open(secret).read()),
                errno_of(lambda: open(allowed / "new.txt", "w")),
                errno_of(lambda: open(scratch / "new.txt", "w").write("x")),
            ]
        )

    try:
        assert in_child(confined) == "allowed,EACCES,EACCES,allowed"
    finally:
        os.close(ruleset.fd)


def test_read_only_paths_never_include_the_current_folder_or_sys_path_zero():
    paths = isolation.read_only_paths()
    assert os.getcwd() not in paths
    assert all(not os.getcwd().startswith(path + os.sep) for path in paths)


def test_detect_layers_names_every_layer():
    layers = isolation.detect_layers()
    assert set(layers) == set(isolation.LAYERS)
    assert all(isinstance(active, bool) for active in layers.values())
    assert layers["rlimits"] and layers["process_group"]


def test_doctor_reports_the_layers_as_json():
    from sebench.cli.main import app

    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert set(report["layers"]) == set(isolation.LAYERS)
    assert report["untrusted_code_allowed"] == any(
        report["layers"][name] for name in isolation.CONTAINMENT
    )


def test_doctor_prints_a_table():
    from sebench.cli.main import app

    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    for name in isolation.LAYERS:
        assert name in result.output
