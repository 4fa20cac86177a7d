"""`sebench data`: check a data file, show a task."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

data_app = typer.Typer(
    help="Inspect the official data: check a file, show a task.", no_args_is_help=True
)

MAX_LISTED = 200  # problems printed; the counts always cover all of them


@data_app.command("check")
def check(
    file: Annotated[Path, typer.Argument(help="An official-format JSONL file (a split).")],
    split: Annotated[
        str | None,
        typer.Option(
            help="Split name for task ids (default: from the file name, else single_test)."
        ),
    ] = None,
    api_doc: Annotated[
        Path | None,
        typer.Option(
            "--api-doc", help="Also check that each task's selected functions are in this API doc."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """List every problem of FILE (not just the first) and its counts; exit 1 if any error."""
    from sebench.data.check import check_file
    from sebench.data.sources import infer_split

    known = _known_functions(api_doc) if api_doc is not None else None
    report = check_file(file, split or infer_split(file) or "single_test", known)
    out = Console(highlight=False, soft_wrap=True)
    if as_json:
        out.print_json(json.dumps(report.to_dict()))
    else:
        for problem in report.problems[:MAX_LISTED]:
            style = "red" if problem.severity.value == "error" else "yellow"
            out.print(f"[{style}]{problem}[/]", markup=True)
        if len(report.problems) > MAX_LISTED:
            out.print(f"... and {len(report.problems) - MAX_LISTED} more problems")
        table = Table(title=f"{file}", show_header=False)
        table.add_row("rows", str(report.rows))
        table.add_row("valid tasks", str(report.valid))
        table.add_row("errors / warnings", f"{report.errors} / {report.warnings}")
        table.add_row("functions covered", str(len(report.functions)))
        summary = report.cases_summary()
        if summary is not None:
            table.add_row(
                "test cases per task (min / median / max)",
                f"{summary[0]} / {summary[1]:g} / {summary[2]}",
            )
        out.print(table)
    if not report.ok:
        raise typer.Exit(1)


@data_app.command("show")
def show(
    source: Annotated[str, typer.Argument(help="A JSONL file, a data folder or a hub id.")],
    task: Annotated[str, typer.Argument(help="A task id, or a 0-based row index.")],
    split: Annotated[str | None, typer.Option(help="Split (default: from the file name).")] = None,
) -> None:
    """Print one task as loaded (typed fields, expected results per test case)."""
    from sebench.data.sources import infer_split, load
    from sebench.errors import SebenchError

    chosen = split or infer_split(source) or "single_test"
    tasks = load(chosen, source)
    found = next((t for t in tasks if t.task_id == task), None)
    if found is None and task.isdigit() and int(task) < len(tasks):
        found = tasks[int(task)]
    if found is None:
        raise SebenchError(f"{source}: no task '{task}' in split '{chosen}' ({len(tasks)} tasks)")
    Console().print_json(json.dumps(found.to_dict(), ensure_ascii=False))


def _known_functions(api_doc: Path) -> frozenset[str]:
    from sebench.jsonl import iter_jsonl

    names = []
    for _, row in iter_jsonl(api_doc):
        name = row.get("original_name")
        if isinstance(name, str):
            names.append(name)
    return frozenset(names) | frozenset(f"linalg.{n}" for n in names)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the top-level app."""
    app.add_typer(data_app, name="data")
