"""Every usage error is one line (plus where help is) and exit code 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.cli_run import SRC, sebench


def test_cli_starts_without_click_installed() -> None:
    # typer >= 0.26 bundles its own click and no longer installs `click`: a core install has none
    code = (
        "import sys; sys.modules['click'] = None; sys.argv = ['sebench', '--help']; "
        "from sebench.cli.main import main; main()"
    )
    ran = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert "Usage" in ran.stdout


USAGE_ERRORS = {
    "missing argument": (["eval"], "Missing argument"),
    "bad choice": (["prompt", "show", "0", "--mode", "bogus"], "'--mode'"),
    "bad backend": (["rollout", "--backend", "bogus"], "'--backend'"),
    "unknown flag": (["--bogus"], "No such option"),
    "unknown flag of a command": (["validate", "--bogus"], "No such option"),
    "not an integer": (["lib", "build", "--seed", "x", "--out", "L"], "'--seed'"),
    "negative seed": (["lib", "build", "--seed", "-1", "--out", "L"], "'--seed'"),
    "zero timeout": (
        ["eval", "r.jsonl", "--out", "o", "--summary", "s", "--timeout", "0"],
        "'--timeout'",
    ),
    "negative timeout": (
        ["eval", "r.jsonl", "--out", "o", "--summary", "s", "--timeout", "-1"],
        "'--timeout'",
    ),
    "negative tolerance": (
        ["eval", "r.jsonl", "--out", "o", "--summary", "s", "--tolerance", "-1"],
        "'--tolerance'",
    ),
    "negative relative tolerance": (
        ["eval", "r.jsonl", "--out", "o", "--summary", "s", "--rel-tolerance", "-0.5"],
        "'--rel-tolerance'",
    ),
    "too many workers": (
        ["eval", "r.jsonl", "--out", "o", "--summary", "s", "--workers", "1000"],
        "'--workers'",
    ),
    "negative workers": (["validate", "--workers", "-1"], "'--workers'"),
    "negative library seed": (["validate", "--seed", "-3"], "'--seed'"),
    "workers of run": (["run", "--workers", "5000"], "'--workers'"),
    "workers of train grpo": (
        ["train", "grpo", "--mode", "closed", "--data", "d", "--out", "o", "--workers", "-2"],
        "'--workers'",
    ),
    "zero samples": (["rollout", "--samples", "0"], "'--samples'"),
    "zero tasks": (["run", "--tasks", "0"], "'--tasks'"),
    "top-p above one": (["rollout", "--top-p", "1.5"], "'--top-p'"),
    "zero concurrency": (["rollout", "--concurrency", "0"], "'--concurrency'"),
    "zero top-k": (["prompt", "show", "0", "--top-k", "0"], "'--top-k'"),
}


@pytest.mark.parametrize("args,says", USAGE_ERRORS.values(), ids=USAGE_ERRORS.keys())
def test_usage_error_is_one_line_and_exit_2(tmp_path: Path, args: list[str], says: str) -> None:
    (tmp_path / "r.jsonl").write_text('{"task_id": "t", "response": "x"}\n')
    ran = sebench(*args, cwd=tmp_path)
    assert ran.returncode == 2, ran.stderr
    assert "Traceback" not in ran.stderr
    lines = [line for line in ran.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("error: ") and says in lines[0], ran.stderr
    assert len(lines) <= 2, ran.stderr  # the message, and where help is
    if args[0] == "eval":
        assert not (tmp_path / "o").exists()  # refused before anything is written


def test_group_without_command_prints_its_help_and_exits_2() -> None:
    ran = sebench("lib")
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert "build" in ran.stdout + ran.stderr
