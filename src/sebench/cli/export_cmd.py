"""`sebench export verl`: tasks as the parquet files verl trains on (open and closed, aligned)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    export = typer.Typer(help="Write tasks in an RL engine's data format.", no_args_is_help=True)
    app.add_typer(export, name="export")

    @export.command("verl")
    def verl(
        data: Annotated[
            list[str],
            typer.Option(
                "--data", help="Tasks: file or folder (repeatable; SPLIT=PATH to name the split)."
            ),
        ],
        out: Annotated[
            Path, typer.Option("--out", help="Folder for open.parquet and closed.parquet.")
        ],
        lib: Annotated[
            Path | None,
            typer.Option(
                "--lib", help="A library built by `sebench lib build` (default: official)."
            ),
        ] = None,
    ) -> None:
        """Write open.parquet and closed.parquet: verl's rows (data_source, prompt, ability,
        reward_model.ground_truth, extra_info), row i of both the same task."""
        from rich.console import Console

        from sebench.grading.responses import load_tasks
        from sebench.grading.runner import default_library
        from sebench.integrations.verl_data import export_verl
        from sebench.library.library import Library

        tasks = load_tasks(data)
        library = Library.load(lib) if lib is not None else default_library(data)
        result = export_verl(list(tasks.values()), library, out, data=list(data))
        files = ", ".join(str(path) for path in result.files.values())
        Console(stderr=True, highlight=False).print(
            f"{result.rows} tasks -> {files} (row i is the same task in both); "
            f"record: {result.record}"
        )
