"""The command reference in docs/cli.md is generated from the code and kept current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_docs_cli_md_matches_the_commands(tmp_path: Path) -> None:
    fresh = tmp_path / "cli.md"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "typer",
            "sebench.cli.main",
            "utils",
            "docs",
            "--name",
            "sebench",
            "--title",
            "sebench command reference",
            "--output",
            str(fresh),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    committed = (REPO / "docs" / "cli.md").read_text()
    assert fresh.read_text() == committed, "docs/cli.md is stale: run scripts/gen_cli_docs.sh"
