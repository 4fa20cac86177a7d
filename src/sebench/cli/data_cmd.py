"""`sebench data`: check a data file, show a task, make the SFT data of the paper (`sft`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from sebench.cli.options import (
    AllowUnisolatedOption,
    ApiDocOption,
    ApiKeyEnvOption,
    BaseUrlOption,
    BatchSizeOption,
    ConcurrencyOption,
    DeviceOption,
    LibOption,
    ModelOption,
    RetriesOption,
    ThinkingOption,
    TimeoutOption,
    WorkersOption,
    backend_options,
)
from sebench.cli.rollout_cmd import BackendKind

data_app = typer.Typer(
    help="Inspect data (check a file, show a task) and make SFT data from a model's answers.",
    no_args_is_help=True,
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


@data_app.command("sft")
def sft(
    data: Annotated[Path, typer.Option(help="Training tasks, a JSONL file of official rows.")],
    out: Annotated[
        Path, typer.Option(help="SFT data JSONL to write (side files next to it; resumed).")
    ],
    model: ModelOption = None,
    backend: Annotated[
        BackendKind, typer.Option(help="Where the answers come from.")
    ] = BackendKind.HF,
    samples: Annotated[
        int, typer.Option("-k", "--samples", min=1, help="Open-book samples per task (official 5).")
    ] = 5,
    temperature: Annotated[float, typer.Option(min=0.0, help="Official: 0.6.")] = 0.6,
    max_new_tokens: Annotated[int, typer.Option(min=1, help="Official: 8192.")] = 8192,
    thinking: ThinkingOption = None,
    seed: Annotated[int, typer.Option(help="Base seed; per-sample seeds derive from it.")] = 0,
    split: Annotated[
        str | None,
        typer.Option(help="Split of the tasks (default: from the file name, else train)."),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N tasks.")] = None,
    base_url: BaseUrlOption = None,
    api_key_env: ApiKeyEnvOption = "OPENAI_API_KEY",
    concurrency: ConcurrencyOption = 32,
    timeout: TimeoutOption = 900.0,
    max_retries: RetriesOption = 6,
    batch_size: BatchSizeOption = 8,
    device: DeviceOption = None,
    lib: LibOption = None,
    api_doc: ApiDocOption = None,
    workers: WorkersOption = 0,
    allow_unisolated: AllowUnisolatedOption = False,
) -> None:
    """Sample open-book answers, grade them, keep the correct ones with both their open and
    closed prompts (for `sebench train sft --mode open|closed --data OUT`); exit 1 if none is kept."""
    from sebench.cli.progress import progress_view
    from sebench.cli.rollout_cmd import (
        describe,
        fail_if_nothing_succeeded,
        make_backend,
        resolve_library,
        stop_on_interrupt,
    )
    from sebench.data.sources import infer_split, load_file
    from sebench.grading.runner import EvalConfig
    from sebench.grading.sandbox.config import SandboxConfig
    from sebench.rollout.backend import SamplingConfig
    from sebench.training.sft_pipeline import SFTDataConfig, SFTDataProgress, build_sft_data

    console = Console(stderr=True, highlight=False)
    config = SFTDataConfig(
        samples=samples,
        seed=seed,
        sampling=SamplingConfig(
            temperature=temperature, max_new_tokens=max_new_tokens, enable_thinking=thinking
        ),
        limit=limit,
        grading=EvalConfig(
            sandbox=SandboxConfig(workers=workers, allow_unisolated=allow_unisolated)
        ),
    )
    chosen_split = split or infer_split(data) or "train"
    tasks = load_file(data, chosen_split)
    library = resolve_library(lib, data, api_doc)
    options = backend_options(
        model, base_url, api_key_env, concurrency, timeout, max_retries, batch_size, device
    )
    engine = make_backend(backend, options, tasks=tasks, library=library)
    try:
        with progress_view(console) as show:

            def on_progress(update: SFTDataProgress) -> None:
                verb = "sampling" if update.stage == "rollout" else "grading"
                show(f"{verb} {engine.model_name}", update.done, update.total)

            summary = build_sft_data(
                tasks,
                library,
                engine,
                out,
                config,
                on_progress=on_progress,
                extra_meta={"backend": str(backend), "data": str(data), "split": chosen_split},
                source=str(data),
            )
    except KeyboardInterrupt:
        stop_on_interrupt(console, out.parent)
    finally:
        engine.close()
    console.print(describe(summary.rollout))
    fail_if_nothing_succeeded(summary.rollout)  # a server that never answered: exit 2, say why
    table = Table(title=str(out), show_header=False)
    table.add_row("tasks", str(summary.tasks))
    table.add_row("samples", str(summary.samples))
    table.add_row("kept (correct)", str(summary.kept))
    for verdict, count in summary.verdicts.items():
        table.add_row(f"  {verdict}", str(count))
    table.add_row("tasks with no kept answer", str(len(summary.tasks_without_kept)))
    Console(highlight=False).print(table)
    if summary.tasks_without_kept:
        listed = ", ".join(summary.tasks_without_kept[:10])
        more = len(summary.tasks_without_kept) - 10
        console.print(f"no kept answer: {listed}" + (f" and {more} more" if more > 0 else ""))
    if not summary.kept:
        console.print(
            f"[red]no answer was kept[/] ({summary.samples} samples, none correct): "
            "nothing to train on"
        )
        raise typer.Exit(1)


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
