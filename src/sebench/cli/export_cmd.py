"""`sebench export verl|openrlhf`: tasks in an RL engine's data format (open and closed prompts,
aligned row by row)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sebench.cli.options import LibOption

DataOption = Annotated[
    list[str],
    typer.Option(
        "--data", help="Tasks: file or folder (repeatable; SPLIT=PATH to name the split)."
    ),
]


def register(app: typer.Typer) -> None:
    export = typer.Typer(help="Write tasks in an RL engine's data format.", no_args_is_help=True)
    app.add_typer(export, name="export")

    @export.command("verl")
    def verl(
        data: DataOption,
        out: Annotated[
            Path, typer.Option("--out", help="Folder for open.parquet and closed.parquet.")
        ],
        lib: LibOption = None,
    ) -> None:
        """Write open.parquet and closed.parquet: verl's rows (data_source, prompt, ability,
        reward_model.ground_truth, extra_info), row i of both the same task."""
        from sebench.integrations.verl_data import export_verl

        tasks, library = _load(data, lib)
        result = export_verl(tasks, library, out, data=list(data))
        _done(len(tasks), result.files.values())

    @export.command("openrlhf")
    def openrlhf(
        data: DataOption,
        out: Annotated[Path, typer.Option("--out", help="Folder for open.jsonl and closed.jsonl.")],
        lib: LibOption = None,
    ) -> None:
        """Write open.jsonl and closed.jsonl for OpenRLHF's --prompt_data (--input_key prompt
        --label_key label --apply_chat_template), row i of both the same task."""
        from sebench.integrations.openrlhf_data import export_openrlhf

        tasks, library = _load(data, lib)
        files = export_openrlhf(tasks, library, out, data=list(data))
        _done(len(tasks), files.values())


def _load(data: list[str], lib: Path | None):  # noqa: ANN202 - (tasks, Library), both lazy
    from sebench.grading.responses import load_tasks
    from sebench.grading.runner import default_library
    from sebench.library.library import Library

    tasks = list(load_tasks(data).values())
    return tasks, Library.load(lib) if lib is not None else default_library(data)


def _done(count: int, files) -> None:  # noqa: ANN001
    from rich.console import Console

    names = ", ".join(str(path) for path in files)
    Console(stderr=True, highlight=False).print(
        f"{count} tasks -> {names} (row i is the same task in both)"
    )
