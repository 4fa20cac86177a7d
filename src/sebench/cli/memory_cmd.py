"""`sebench memory build`: the memory baseline's insights, distilled by a model from solved tasks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from sebench.cli.options import (
    ApiDocOption,
    ApiKeyEnvOption,
    BaseUrlOption,
    BatchSizeOption,
    ConcurrencyOption,
    DeviceOption,
    ModelOption,
    RetriesOption,
    ThinkingOption,
    TimeoutOption,
    backend_options,
)
from sebench.cli.rollout_cmd import BackendKind
from sebench.training.insights import MemoryBuildConfig

DEFAULT = MemoryBuildConfig()
MODEL_BACKENDS = (BackendKind.HF, BackendKind.OPENAI, BackendKind.VLLM)

memory_app = typer.Typer(
    help="The memory baseline: insights about the library, shown instead of the docs.",
    no_args_is_help=True,
)


@memory_app.command("build")
def build(
    data: Annotated[
        Path,
        typer.Option(
            help="Solved training tasks: the output of `sebench data sft`, or rows with "
            "`query` and `response`."
        ),
    ],
    out: Annotated[Path, typer.Option(help="Insights JSON to write.")],
    model: ModelOption = None,
    backend: Annotated[
        BackendKind, typer.Option(help="The model that writes the insights.")
    ] = BackendKind.HF,
    tasks_per_call: Annotated[
        int, typer.Option(min=1, help="Solved tasks shown per model call.")
    ] = DEFAULT.batch_size,
    max_chars: Annotated[
        int, typer.Option(min=1, help="Cap on the whole memory, in characters.")
    ] = DEFAULT.max_chars,
    max_insight_chars: Annotated[
        int, typer.Option(min=1, help="Longest insight accepted, in characters.")
    ] = DEFAULT.max_insight_chars,
    temperature: Annotated[float, typer.Option(min=0.0)] = DEFAULT.sampling.temperature,
    max_new_tokens: Annotated[int, typer.Option(min=1)] = DEFAULT.sampling.max_new_tokens,
    thinking: ThinkingOption = None,
    seed: Annotated[int, typer.Option()] = DEFAULT.seed,
    base_url: BaseUrlOption = None,
    api_key_env: ApiKeyEnvOption = "OPENAI_API_KEY",
    concurrency: ConcurrencyOption = 1,
    timeout: TimeoutOption = 900.0,
    max_retries: RetriesOption = 6,
    batch_size: BatchSizeOption = 1,
    device: DeviceOption = None,
    lib: Annotated[
        Path | None,
        typer.Option(
            help="A built library folder (default: the one `sebench data sft` recorded next to "
            "--data, else the official library)."
        ),
    ] = None,
    api_doc: ApiDocOption = None,
) -> None:
    """Let a model read solved tasks in batches and keep a short list of insights about the
    library (Expel's ADD / EDIT / UPVOTE / DOWNVOTE); shown by prompt mode `memory`."""
    from sebench.cli.progress import progress_view
    from sebench.cli.rollout_cmd import make_backend, resolve_library
    from sebench.errors import SebenchError
    from sebench.rollout.backend import SamplingConfig
    from sebench.training.insights import (
        MemoryBuildProgress,
        build_memory,
        read_solved,
        save_memory,
    )

    if backend not in MODEL_BACKENDS:
        raise SebenchError(
            f"--backend {backend}: a reference agent writes no insights; use "
            + ", ".join(str(k) for k in MODEL_BACKENDS)
        )
    config = MemoryBuildConfig(
        batch_size=tasks_per_call,
        max_chars=max_chars,
        max_insight_chars=max_insight_chars,
        sampling=SamplingConfig(
            temperature=temperature, max_new_tokens=max_new_tokens, enable_thinking=thinking
        ),
        seed=seed,
    )
    console = Console(stderr=True, highlight=False)
    solved = read_solved(data)
    library = resolve_library(lib or _recorded_library(data, api_doc), None, api_doc)
    options = backend_options(
        model, base_url, api_key_env, concurrency, timeout, max_retries, batch_size, device
    )
    engine = make_backend(backend, options, tasks=[], library=library)
    # each batch's answer is kept here as it comes: a rerun asks only for the missing batches
    journal = out.with_suffix(".journal.jsonl")
    if journal.exists():
        console.print(f"continuing the build kept in {journal}")
    try:
        with progress_view(console) as show:

            def on_progress(update: MemoryBuildProgress) -> None:
                show(
                    f"distilling insights ({engine.model_name})",
                    update.batch,
                    update.batches,
                    f"{update.insights} insights",
                )

            result = build_memory(
                solved, library.package, engine, config, journal=journal, on_progress=on_progress
            )
    finally:
        engine.close()
    save_memory(
        out,
        result,
        config,
        model=engine.model_name,
        backend=str(backend),
        data=str(data),
        solved_tasks=len(solved),
        library={"package": library.package, "root": str(library.root)},
    )
    journal.unlink(missing_ok=True)
    ops = ", ".join(f"{k} {v}" for k, v in sorted(result.operations.items())) or "none"
    console.print(
        f"{out}: {len(result.memory.insights)} insights from {len(solved)} solved tasks "
        f"({ops}; {result.merged} near-duplicate ADDs merged, {result.dropped_for_length} cut "
        f"by --max-chars)"
    )
    if not result.memory.insights:
        console.print("[red]the model wrote no usable insight[/]")
        raise typer.Exit(1)


def _recorded_library(data: Path, api_doc: Path | None) -> Path | None:
    """The library `sebench data sft` made `data` with (its summary records the folder), unless
    --api-doc names one."""
    import json

    from sebench.training.sft_pipeline import side_path

    summary = side_path(data, "summary.json")
    if api_doc is not None or not summary.is_file():
        return None
    try:
        root = json.loads(summary.read_text())["provenance"]["library"]["root"]
    except (json.JSONDecodeError, KeyError, TypeError):
        return None
    return Path(root) if Path(root).is_dir() else None


def register(app: typer.Typer) -> None:
    app.add_typer(memory_app, name="memory")
