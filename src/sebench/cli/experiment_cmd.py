"""`sebench experiment`: run a recipe into one run folder (`run`), preview it (`plan`), and
see what a run folder holds (`status`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from sebench.experiments.recipe import Recipe

experiment_app = typer.Typer(
    help="Run a recipe (model, library, data, regimes, seeds) into one run folder.",
    no_args_is_help=True,
)

RecipeArgument = Annotated[Path, typer.Argument(help="The recipe (TOML; docs/experiments.md).")]
OutOption = Annotated[
    Path | None, typer.Option("--out", help="The run folder (default: runs/NAME).")
]
SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", help="Override a recipe value: KEY=VALUE (repeatable)."),
]

_STYLE = {
    "run": "yellow",
    "resume": "yellow",
    "skip": "green",
    "skipped": "green",
    "done": "green",
    "failed": "red",
    "interrupted": "red",
    "running": "cyan",
    "blocked": "red",
    "outdated": "yellow",
}


def _styled(word: str) -> str:
    style = _STYLE.get(word)
    return f"[{style}]{word}[/]" if style else word


def _recipe(path: Path, overrides: list[str] | None) -> Recipe:
    from sebench.experiments.recipe import load_recipe, parse_override

    return load_recipe(path, dict(parse_override(text) for text in overrides or ()))


def _run_dir(recipe: Recipe, out: Path | None) -> Path:
    return out if out is not None else Path("runs") / recipe.name


@experiment_app.command("plan")
def plan_command(recipe: RecipeArgument, out: OutOption = None, set_: SetOption = None) -> None:
    """Print the steps of RECIPE and which of them a run would do now, skip or resume."""
    from sebench.experiments.plan import make_plan

    parsed = _recipe(recipe, set_)
    run_dir = _run_dir(parsed, out)
    plan = make_plan(parsed, run_dir)
    console = Console(highlight=False)
    table = Table(title=f"{parsed.name}: {len(plan.steps)} steps into {run_dir}")
    table.add_column("step")
    table.add_column("would")
    table.add_column("note", overflow="fold")
    for planned in plan.steps:
        decision = planned.decision.value
        note = f"input not found: {', '.join(planned.missing)}" if planned.missing else ""
        table.add_row(planned.step.id, _styled(decision), note)
    console.print(table)
    for regime, why in plan.unavailable.items():
        console.print(f"[yellow]{regime}: {why}[/] (its arms stay pending)")
    counts = {d: sum(p.decision.value == d for p in plan.steps) for d in ("run", "resume", "skip")}
    console.print(", ".join(f"{n} to {d}" for d, n in counts.items()))


@experiment_app.command("run")
def run_command(recipe: RecipeArgument, out: OutOption = None, set_: SetOption = None) -> None:
    """Run every step of RECIPE that is not done yet; rerun to resume after a kill."""
    from sebench.experiments.runner import Outcome, StepEvent, run_experiment

    parsed = _recipe(recipe, set_)
    run_dir = _run_dir(parsed, out)
    console = Console(highlight=False)
    for regime, why in _unavailable(parsed).items():
        console.print(f"[yellow]{regime}: {why}; its arms stay pending[/]")

    def on_event(event: StepEvent) -> None:
        step = event.planned.step.id
        if event.outcome is None:
            verb = "resuming" if event.planned.decision.value == "resume" else "running"
            console.print(f"{verb} {step}")
            return
        timing = f" ({event.wall_s:.1f} s)" if event.wall_s is not None else ""
        console.print(f"{_styled(event.outcome.value)} {step}{timing}")
        if event.error:
            console.print(f"  {event.error}", markup=False)

    from sebench.cli.progress import progress_view

    try:
        with progress_view(console) as show:
            result = run_experiment(
                parsed, run_dir, on_event, lambda step, done, total: show(step, done, total)
            )
    except KeyboardInterrupt:
        console.print(
            f"[yellow]interrupted: finished steps are kept in {run_dir}; rerun the same "
            "command to resume[/]"
        )
        raise SystemExit(130) from None
    _print_table(console, run_dir)
    console.print(f"run folder: {run_dir} (manifest: {result.manifest})")
    if result.failed:
        skipped = sum(o is Outcome.BLOCKED for o in result.outcomes.values())
        console.print(
            f"[red]{len(result.failed) - skipped} step(s) failed, {skipped} not run because of "
            "them; fix the cause and rerun (finished steps are skipped)[/]"
        )
        raise typer.Exit(1)


def _unavailable(recipe: Recipe) -> dict[str, str]:
    from sebench.experiments.regimes import REGIMES

    return {r: REGIMES[r].unavailable for r in recipe.regimes if REGIMES[r].unavailable}


@experiment_app.command("status")
def status_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder.")],
) -> None:
    """Print each step of the latest plan in RUN_DIR: done, running, failed, not started."""
    from sebench.experiments.status import run_status

    rows = run_status(run_dir)
    console = Console(highlight=False)
    table = Table(title=str(run_dir))
    table.add_column("step")
    table.add_column("state")
    table.add_column("wall s", justify="right")
    table.add_column("error", overflow="fold")
    for row in rows:
        wall = f"{row.wall_s:.1f}" if row.wall_s is not None else ""
        last_line = row.error.strip().splitlines()[-1] if row.error else ""
        table.add_row(row.id, _styled(row.state), wall, last_line)
    console.print(table)
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.state] = counts.get(row.state, 0) + 1
    console.print(", ".join(f"{n} {state}" for state, n in counts.items()))
    manifest = run_dir / "manifest.json"
    if manifest.is_file():
        arms = [arm["status"] for arm in json.loads(manifest.read_text())["arms"]]
        console.print(
            f"arms: {len(arms)} ("
            + ", ".join(f"{arms.count(s)} {s}" for s in ("done", "failed", "pending"))
            + ")"
        )


def register(app: typer.Typer) -> None:
    """Add `sebench experiment ...` to the top-level app."""
    app.add_typer(experiment_app, name="experiment")


def _print_table(console: Console, run_dir: Path) -> None:
    """The paper's table of what is done so far (the full report: RUN_DIR/report/report.html)."""
    from sebench.reports.markdown import paper_table_lines
    from sebench.reports.runs import load_run
    from sebench.reports.tables import paper_table

    run = load_run(run_dir)
    console.print("\n".join(paper_table_lines(paper_table(run), run.splits())), markup=False)
