"""`sebench validate`: grade the translated references of every task, write the verified subset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from sebench.cli.options import ApiDocOption, LibOption, RulesOption, WorkersOption
from sebench.grading.rules import Rules

MAX_LISTED = 60  # non-verified tasks listed on screen; the --report file has all of them


def validate(
    data: Annotated[
        str | None,
        typer.Option(
            "--data",
            help="A JSONL file, a data folder (official or hub layout) or a hub id "
            "(default: $SEBENCH_DATA, else the hub).",
        ),
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(
            help="Split to validate (default: from the file name; every split of a folder)."
        ),
    ] = None,
    lib: LibOption = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, help="Validate against a fresh library from this seed."),
    ] = None,
    api_doc: ApiDocOption = None,
    out_subset: Annotated[
        Path | None,
        typer.Option("--out-subset", help="Write the verified task ids here (JSON)."),
    ] = None,
    emit_responses: Annotated[
        Path | None,
        typer.Option(
            "--emit-responses",
            help="Also write the translated references as a responses file (official format).",
        ),
    ] = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write every task's outcome here (JSONL).")
    ] = None,
    workers: WorkersOption = 0,
    no_plain: Annotated[
        bool, typer.Option("--no-plain", help="Skip running the plain-Python references.")
    ] = False,
    rules: RulesOption = Rules.STRICT,
) -> None:
    """Translate and grade every task's NumPy reference; print the verified fraction per split."""
    from sebench.data.schema import SPLITS
    from sebench.data.sources import infer_split, load
    from sebench.errors import SebenchError
    from sebench.grading.sandbox.config import SandboxConfig
    from sebench.grading.validate import (
        ValidateConfig,
        write_report,
        write_responses,
        write_subset,
    )
    from sebench.grading.validate import validate as run_validation

    if lib is not None and seed is not None:
        raise SebenchError("give at most one of --lib DIR and --seed N")
    outputs = (
        (out_subset, "--out-subset"),
        (report, "--report"),
        (emit_responses, "--emit-responses"),
    )
    for path, option in outputs:
        if path is not None and path.is_dir():
            raise SebenchError(f"{path}: is a folder; {option} takes a file name")
    console = Console(highlight=False)
    library = _library(lib, seed, api_doc, data)
    if split is not None:
        splits = [split]
    elif data is not None and Path(data).is_file():
        splits = [infer_split(data) or "single_test"]
    else:
        splits = list(SPLITS)
    sandbox = SandboxConfig(workers=workers)
    config = ValidateConfig(run_plain=not no_plain, rules=rules)
    reports, all_tasks = [], []
    for name in splits:
        try:
            tasks = load(name, data)
        except SebenchError as exc:
            if len(splits) > 1 and "no data for split" in str(exc):
                continue
            raise
        with console.status(f"validating {len(tasks)} {name} tasks against {library.package}"):
            reports.append(run_validation(tasks, library, sandbox_config=sandbox, config=config))
        all_tasks += tasks
    if not reports:
        raise SebenchError(f"{data}: no split found to validate")
    if not all_tasks:  # an empty file is not 0.0% verified
        raise SebenchError(f"{data}: no tasks to validate (the data holds no rows)")
    if out_subset is not None:
        write_subset(out_subset, reports)
    if report is not None:
        write_report(report, reports)
    if emit_responses is not None:
        count = write_responses(emit_responses, all_tasks, reports)
        console.print(f"wrote {count} translated references to {emit_responses}")
    _render(console, reports, library)
    written = [f"verified task ids: {out_subset}"] if out_subset is not None else []
    written += [f"every task: {report}"] if report is not None else []
    if written:
        console.print("; ".join(written))


def _library(lib: Path | None, seed: int | None, api_doc: Path | None, data: str | None):
    from sebench.library.library import Library

    if lib is not None:
        return Library.load(lib)
    from sebench.library.cache import official_library, seeded_library

    if seed is not None:
        return seeded_library(seed)
    from sebench.data.sources import find_api_doc

    return official_library(api_doc or find_api_doc(data))


def _render(console: Console, reports, library) -> None:
    from sebench.grading.validate import Outcome

    origin = library.meta.get("origin", "custom")
    seed = library.meta.get("seed")
    which = f"seed {seed}" if seed is not None else origin
    table = Table(title=f"verified tasks ({library.package}, {which})")
    table.add_column("split")
    for column in (
        "tasks",
        "verified",
        "%",
        "transl. gap",
        "ref. wrong",
        "ref. error",
        "other",
        "plain ok",
    ):
        table.add_column(column, justify="right")
    for report in reports:
        counts = report.counts()
        other = (
            counts[Outcome.REFERENCE_WITHOUT_LIBRARY]
            + counts[Outcome.NO_REFERENCE]
            + counts[Outcome.INFRA_ERROR]
        )
        plain = report.plain_counts()
        table.add_row(
            report.split,
            str(len(report.tasks)),
            str(len(report.verified_ids)),
            f"{report.fraction:.1%}",
            str(counts[Outcome.TRANSLATOR_GAP]),
            str(counts[Outcome.REFERENCE_DISAGREES]),
            str(counts[Outcome.REFERENCE_ERROR]),
            str(other),
            str(plain["agrees"]),
        )
    failing = [v for report in reports for v in report.tasks if not v.verified]
    if failing:
        listing = Table(title="not verified", show_lines=False)
        listing.add_column("task")
        listing.add_column("outcome")
        listing.add_column("reason", overflow="fold")
        for v in failing[:MAX_LISTED]:
            style = "red" if v.outcome is Outcome.TRANSLATOR_GAP else ""
            listing.add_row(
                v.task_id,
                f"[{style}]{v.outcome.value}[/]" if style else v.outcome.value,
                v.detail or "",
            )
        console.print(listing)
        if len(failing) > MAX_LISTED:
            console.print(f"... and {len(failing) - MAX_LISTED} more (see --report)")
    console.print(table)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the top-level app."""
    app.command("validate")(validate)
