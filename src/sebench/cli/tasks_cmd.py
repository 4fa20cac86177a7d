"""`sebench tasks`: generate tasks in the official schema."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from sebench.data.generate.programmatic import FrameSplit

tasks_app = typer.Typer(
    help="Generate tasks (official schema) for the library.", no_args_is_help=True
)

MAX_ROWS = 40  # functions listed on screen; the coverage files list all of them


@tasks_app.command("generate")
def generate(
    out: Annotated[Path, typer.Option("--out", help="Where to write the tasks (JSONL).")],
    programmatic: Annotated[
        bool,
        typer.Option("--programmatic", help="Generate from built-in input profiles (no model)."),
    ] = False,
    lib: Annotated[
        Path | None,
        typer.Option(
            "--lib",
            help="A built library folder: its functions, and training targets in its names.",
        ),
    ] = None,
    api_doc: Annotated[
        Path | None,
        typer.Option(
            "--api-doc",
            help="The official api_doc.jsonl: training targets for the official library.",
        ),
    ] = None,
    functions: Annotated[
        str, typer.Option(help="Comma-separated NumPy names (`mean,linalg.inv`) or `all`.")
    ] = "all",
    per_function: Annotated[int, typer.Option(help="Single-function tasks per function.")] = 2,
    multi: Annotated[int, typer.Option(help="Multi-function tasks (>= 3 functions each).")] = 0,
    cases: Annotated[int, typer.Option(help="Test inputs per task (at least 5).")] = 8,
    seed: Annotated[int, typer.Option(help="Random seed: the same seed writes the same file.")] = 0,
    split_frames: Annotated[
        FrameSplit,
        typer.Option(
            "--split-frames",
            help="Query frames and nouns: training ones, held-out test ones, or either.",
        ),
    ] = FrameSplit.TRAIN,
) -> None:
    """Write tasks for the library's functions with NumPy references and executed outputs."""
    from sebench.data.generate.programmatic import GenerateConfig, write_tasks
    from sebench.data.generate.programmatic import generate as run_generate
    from sebench.data.generate.targets import with_targets
    from sebench.errors import SebenchError

    if not programmatic:
        raise SebenchError("choose a generator: --programmatic (the only one so far)")
    if lib is not None and api_doc is not None:
        raise SebenchError("give at most one of --lib DIR and --api-doc FILE")
    library = _library(lib, api_doc)
    names = (
        list(library.table.numpy_to_library()) if library is not None else list(_all_functions())
    )
    wanted = (
        None
        if functions.strip() == "all"
        else tuple(name.strip() for name in functions.split(",") if name.strip())
    )
    config = GenerateConfig(
        functions=wanted,
        per_function=per_function,
        multi=multi,
        cases=cases,
        seed=seed,
        split_frames=split_frames,
    )
    console = Console(highlight=False)
    with console.status("generating tasks") as status:
        generated = run_generate(
            names,
            config,
            on_progress=lambda done, total: status.update(f"running references {done}/{total}"),
        )
        if library is not None:
            status.update(f"translating the references for {library.package}")
            generated = dataclasses.replace(generated, tasks=with_targets(generated.tasks, library))
        paths = write_tasks(out, generated)
    _render(console, generated.coverage)
    console.print(
        f"wrote {len(generated.tasks)} tasks to {paths[0]}; coverage: {paths[1]}, {paths[2]}"
    )


def _all_functions() -> tuple[str, ...]:
    from sebench.library.catalog import ALL

    return ALL


def _library(lib: Path | None, api_doc: Path | None):
    if lib is not None:
        from sebench.library.library import Library

        return Library.load(lib)
    if api_doc is not None:
        from sebench.library.cache import official_library

        return official_library(api_doc)
    return None


def _render(console: Console, coverage) -> None:
    table = Table(title=f"coverage: {coverage.covered} functions with tasks")
    table.add_column("function")
    table.add_column("tasks", justify="right")
    table.add_column("why none", overflow="fold")
    rows = [(name, "0", why) for name, why in coverage.missing.items()]
    rows += [(name, str(count), "") for name, count in sorted(coverage.tasks.items()) if count]
    for row in rows[:MAX_ROWS]:
        table.add_row(*row)
    if len(rows) > MAX_ROWS:
        table.add_row(f"... {len(rows) - MAX_ROWS} more", "", "")
    table.add_row("[bold]multi-function[/]", str(coverage.multi), "")
    console.print(table)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the top-level app."""
    app.add_typer(tasks_app, name="tasks")
