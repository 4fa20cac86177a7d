"""`sebench report`: one self-contained HTML page and its Markdown twin from run folders."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def report_command(
    run_dirs: Annotated[
        list[Path],
        typer.Argument(
            help="Run folders (each with the manifest.json `sebench experiment run` writes); "
            "with two or more, every later run is compared with the first.",
        ),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Folder for report.html, report.md and figures/.")
    ],
) -> None:
    """Write the report of RUN_DIRS: the paper's table, verdicts, heatmap, curves, failures."""
    from rich.console import Console

    from sebench.reports.report import write_report

    files = write_report(run_dirs, out)
    console = Console()
    console.print(f"wrote {files.html}", highlight=False, soft_wrap=True)
    console.print(f"wrote {files.markdown} (+{len(files.figures)} figures)", highlight=False)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the top-level app."""
    app.command("report")(report_command)
