"""`sebench lib build / lint / show` through the real console script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _sebench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sebench.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_build_official_then_show_and_lint(tmp_path: Path, official_api_doc_path) -> None:
    out = tmp_path / "L"
    built = _sebench("lib", "build", "--official", official_api_doc_path, "--out", out)
    assert built.returncode == 0, built.stderr
    shown = _sebench("lib", "show", out, "mean")
    assert shown.returncode == 0 and shown.stdout.startswith("zwc.kocito")
    table = _sebench("lib", "show", out)
    assert "zwc.rfx.quvohe" in table.stdout and "linalg.inv" in table.stdout
    linted = _sebench("lib", "lint", out, "--official", official_api_doc_path)
    assert linted.returncode == 1 and "unknown-reference" in linted.stdout  # official leaks


def test_build_seed_lints_clean(tmp_path: Path, api_doc_path) -> None:
    out = tmp_path / "S"
    built = _sebench(
        "lib",
        "build",
        "--seed",
        "7",
        "--api-doc",
        api_doc_path,
        "--out",
        out,
        "--package",
        "qex",
        "--submodule",
        "lin",
    )
    assert built.returncode == 0, built.stderr
    assert (out / "qex" / "__init__.py").exists()
    linted = _sebench("lib", "lint", out, "--official", api_doc_path)
    assert linted.returncode == 0, linted.stdout


def test_user_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    both = _sebench("lib", "build", "--out", tmp_path / "x")
    assert both.returncode == 2 and "exactly one of" in both.stderr
    missing = _sebench("lib", "show", tmp_path)
    assert missing.returncode == 2 and "not a built library" in missing.stderr
