"""`sebench tasks`: generate tasks in the official schema."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from sebench.cli.options import (
    ApiKeyEnvOption,
    BackendOptions,
    ConcurrencyOption,
    RetriesOption,
    TimeoutOption,
    backend_options,
)
from sebench.cli.progress import progress_view
from sebench.cli.rollout_cmd import (
    BackendKind,
    make_backend,
    resolve_library,
    stop_on_interrupt,
)
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
    backend: Annotated[
        BackendKind | None,
        typer.Option(
            help="Model-written tasks: the generator's backend (openai: a server; hf: a local "
            "checkpoint)."
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(help="The generator: served model name (openai) or checkpoint (hf)."),
    ] = None,
    base_url: Annotated[
        list[str] | None,
        typer.Option(
            "--base-url",
            help="The generator's OpenAI-compatible server (repeat to spread the load); "
            "default http://127.0.0.1:8000/v1.",
        ),
    ] = None,
    solver: Annotated[
        list[str] | None,
        typer.Option(
            "--solver",
            help="A consensus solver as URL=MODEL (repeat; official: 3, all must pass); "
            "default: the generator itself.",
        ),
    ] = None,
    rejects: Annotated[
        Path | None,
        typer.Option(help="Dropped tasks with stage and reason (default: OUT.rejects.jsonl)."),
    ] = None,
    batch: Annotated[
        int, typer.Option(min=1, help="Model-written: requests per batch (a kill loses one).")
    ] = 16,
    api_key_env: ApiKeyEnvOption = "OPENAI_API_KEY",
    concurrency: ConcurrencyOption = 32,
    timeout: TimeoutOption = 900.0,
    max_retries: RetriesOption = 6,
) -> None:
    """Write tasks for the library's functions with NumPy references and executed outputs.

    `--programmatic`: from built-in input profiles, no model. `--backend openai|hf`: written by
    a model from the NumPy docs, kept only through the consensus pipeline (docs/tasks.md).
    """
    from sebench.data.generate.programmatic import GenerateConfig, write_tasks
    from sebench.data.generate.programmatic import generate as run_generate
    from sebench.data.generate.targets import with_targets
    from sebench.errors import SebenchError

    if programmatic == (backend is not None):
        raise SebenchError(
            "choose one generator: --programmatic, or --backend openai|hf --model M (model-written)"
        )
    if lib is not None and api_doc is not None:
        raise SebenchError("give at most one of --lib DIR and --api-doc FILE")
    if backend is not None:
        options = backend_options(
            model,
            base_url,
            api_key_env,
            concurrency,
            timeout,
            max_retries,
            batch_size=8,
            device=None,
        )
        _model_written(
            out,
            rejects,
            backend,
            options,
            tuple(solver or ()),
            lib,
            api_doc,
            functions,
            per_function,
            multi,
            cases,
            seed,
            batch,
        )
        return
    library = _library(lib, api_doc)
    names = (
        list(library.table.numpy_to_library()) if library is not None else list(_all_functions())
    )
    config = GenerateConfig(
        functions=_wanted(functions),
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


def _model_written(
    out: Path,
    rejects: Path | None,
    kind: BackendKind,
    options: BackendOptions,
    solver_specs: tuple[str, ...],
    lib: Path | None,
    api_doc: Path | None,
    functions: str,
    per_function: int,
    multi: int,
    cases: int,
    seed: int,
    batch: int,
) -> None:
    from sebench.errors import SebenchError
    from sebench.training.task_writing import ModelTasksConfig, generate_model_tasks, write_summary

    if kind not in (BackendKind.OPENAI, BackendKind.HF):
        raise SebenchError(f"--backend {kind} cannot write tasks; use openai or hf")
    console = Console(stderr=True, highlight=False)
    solvers = [_solver(spec, options) for spec in solver_specs]  # bad specs fail before loading
    library = resolve_library(lib, None, api_doc)
    generator = make_backend(kind, options, tasks=[], library=library)
    solvers = solvers or [generator]
    config = ModelTasksConfig(
        functions=_wanted(functions),
        per_function=per_function,
        multi=multi,
        cases=cases,
        seed=seed,
        batch=batch,
    )
    try:
        with progress_view(console) as view:

            def show(update) -> None:
                extra = f"{update.kept} kept, {update.rejected} rejected"
                view("writing tasks", update.done, update.total, extra)

            summary = generate_model_tasks(
                generator, solvers, library, out, config, rejects=rejects, on_progress=show
            )
    except KeyboardInterrupt:
        stop_on_interrupt(console, out)
    finally:
        for engine in {id(e): e for e in (generator, *solvers)}.values():
            engine.close()
    summary_path = write_summary(summary, generator, solvers)
    table = Table(title=f"model-written tasks ({generator.model_name})")
    table.add_column("stage")
    table.add_column("rejected", justify="right")
    for stage, count in summary.rejected.items():
        table.add_row(stage, str(count))
    console.print(table)
    console.print(
        f"{summary.kept} kept in {summary.path} ({summary.resumed} requests done before), "
        f"{sum(summary.rejected.values())} rejected in {summary.rejects_path}; "
        f"summary: {summary_path}"
    )
    if summary.failed:
        console.print(
            f"[red]{summary.failed} requests failed for good[/] (rerun to retry them); "
            f"first error: {summary.first_error}"
        )
        if summary.failed == summary.total - summary.resumed:
            raise SebenchError(f"every request failed; first error: {summary.first_error}")


def _solver(spec: str, options: BackendOptions):
    """`URL=MODEL` -> an OpenAI-compatible backend with the generator's connection options."""
    from sebench.errors import SebenchError

    url, sep, name = spec.rpartition("=")
    if not sep or not name or not url.startswith(("http://", "https://")):
        raise SebenchError(
            f"--solver {spec!r}: expected URL=MODEL, e.g. http://127.0.0.1:8001/v1=Qwen/Qwen3-8B"
        )
    solver_options = dataclasses.replace(options, model=name, base_urls=(url,))
    return make_backend(BackendKind.OPENAI, solver_options, tasks=[], library=None)


def _wanted(functions: str) -> tuple[str, ...] | None:
    if functions.strip() == "all":
        return None
    return tuple(name.strip() for name in functions.split(",") if name.strip())


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
