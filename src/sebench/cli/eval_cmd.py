"""`sebench eval`: grade a responses file in the sandbox and write results and a summary."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from sebench.cli.options import (
    AllowUnisolatedOption,
    LibOption,
    RulesOption,
    SandboxTimeoutOption,
    WorkersOption,
)
from sebench.errors import SebenchError
from sebench.grading.rules import Rules


def eval_command(
    responses: Annotated[
        Path, typer.Argument(help="Responses JSONL (ours or the official format).")
    ],
    out: Annotated[Path, typer.Option("--out", help="Results JSONL (appended; resumable).")],
    summary: Annotated[Path, typer.Option("--summary", help="Summary JSON to write.")],
    lib: LibOption = None,
    data: Annotated[
        list[str] | None,
        typer.Option(
            "--data",
            help="Dataset file or folder with the tasks (repeatable; SPLIT=PATH to name the "
            "split). Default: $SEBENCH_DATA.",
        ),
    ] = None,
    workers: WorkersOption = 0,
    timeout: SandboxTimeoutOption = 3.0,
    tolerance: Annotated[
        float, typer.Option("--tolerance", min=0.0, help="Absolute tolerance (official: 1e-2).")
    ] = 1e-2,
    rel_tolerance: Annotated[
        float | None,
        typer.Option("--rel-tolerance", min=0.0, help="Also accept this relative error."),
    ] = None,
    subset: Annotated[
        Path | None, typer.Option("--subset", help="Grade only the task ids in this file.")
    ] = None,
    allow_unisolated: AllowUnisolatedOption = False,
    rules: RulesOption = Rules.STRICT,
) -> None:
    """Grade RESPONSES: append one result per sample to --out, write --summary."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from sebench.grading.runner import (
        EvalConfig,
        check_responses_path,
        default_library,
        evaluate,
    )

    # a mistyped path fails at once, before the library is found or built
    check_responses_path(responses)
    for path, option in ((out, "--out"), (summary, "--summary")):
        if path.is_dir():
            raise SebenchError(f"{path}: is a folder; {option} takes a file name")

    from sebench.grading.sandbox.config import SandboxConfig
    from sebench.library.library import Library

    console = Console(stderr=True, highlight=False)
    sources = tuple(data or ())
    if not sources and os.environ.get("SEBENCH_DATA"):
        sources = (os.environ["SEBENCH_DATA"],)
    config = EvalConfig(
        tolerance=tolerance,
        rel_tolerance=rel_tolerance,
        sandbox=SandboxConfig(
            timeout_s=timeout, workers=workers, allow_unisolated=allow_unisolated
        ),
        data=sources,
        subset=str(subset) if subset is not None else None,
        rules=rules,
    )
    # found (or built) before the progress bar starts, so a missing library is the only output
    library = Library.load(lib) if lib is not None else default_library(sources)
    counts = {"correct": 0}
    with Progress(
        TextColumn("[bold]grading"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f}/s  correct {task.fields[correct]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    ) as progress:
        bar = progress.add_task("grading", total=None, rate=0.0, correct=0)

        def on_progress(done: int, total: int, verdict) -> None:
            counts["correct"] += verdict.correct
            elapsed = progress.tasks[0].elapsed or 1e-9
            progress.update(
                bar, completed=done, total=total, rate=done / elapsed, correct=counts["correct"]
            )

        try:
            result = evaluate(
                responses, out, summary, library=library, config=config, on_progress=on_progress
            )
        except KeyboardInterrupt:
            # typer turns Ctrl-C into a return value that main() drops under
            # standalone_mode=False, so the exit code is set here
            progress.stop()
            console.print(
                f"[yellow]interrupted: every graded sample is saved in {out}; rerun the same "
                "command to resume[/]"
            )
            raise SystemExit(130) from None
    _render(console, result, summary)
    if not result["samples"]:  # an empty or all-bad file is not a score of 0.0%
        raise SebenchError(
            f"{responses}: nothing was graded ({result['bad_rows']} bad rows, no sample to grade)"
        )


def _render(console, result: dict, summary_path: Path) -> None:
    from rich.table import Table

    title = f"{result['samples']} samples, {result['tasks']} tasks, {result['rules']} rules"
    table = Table(title=title, show_header=False)
    low, high = result.get("accuracy_ci95", [0.0, 0.0])
    table.add_row("accuracy", f"{result['accuracy']:.3f}  (95% CI {low:.3f}-{high:.3f})")
    for name, value in result["official"].items():
        table.add_row(f"official rules: {name}", f"{value:.3f}")
    for mode, block in result.get("per_mode", {}).items():  # numpy: the NumPy-form upper bound
        table.add_row(f"mode {mode}", f"{block['accuracy']:.3f}  ({block['samples']} samples)")
    for name, count in result["verdicts"].items():
        if count:
            table.add_row(f"verdict {name}", str(count))
    for k, value in result["pass_at_k"].items():
        if k in ("1", "5", "8", "16", "32", "64") or k == max(result["pass_at_k"], key=int):
            table.add_row(f"pass@{k}", f"{value:.3f}")
    console.print(table)
    if result.get("bad_rows"):
        console.print(f"[yellow]{result['bad_rows']} bad rows (recorded in the results):[/]")
        for message in result["bad_row_errors"]:
            console.print(f"  {message}")
    if result.get("samples_naming_no_function") and result["rules"] == "strict":
        console.print(
            f"[yellow]{result['samples_naming_no_function']} samples are on tasks that name no "
            "function: there any library function counts as library use, a weaker check (a "
            "canary on any function passes); give those rows their selected_functions, or "
            "grade them with --data and their task_id[/]"
        )
    if result.get("unknown_functions"):
        names = ", ".join(
            f"{name} ({count})" for name, count in result["unknown_functions"].items()
        )
        console.print(
            f"[yellow]tasks name functions the library does not have: {names} (samples); "
            "they cannot show that an answer depends on the library (a task that names none the "
            "library has: its correct answers are no_library); check their selected_functions, "
            "or the library (--lib)[/]"
        )
    if result.get("infra_errors"):
        console.print(f"[red]{result['infra_errors']} infra errors (counted as failures)[/]")
    console.print(f"summary: {summary_path}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the top-level app."""
    app.command("eval")(eval_command)
