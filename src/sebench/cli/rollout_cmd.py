"""`sebench rollout`: get responses from a model server, a local checkpoint or a reference agent.

Also home of the pieces `sebench prompt` and `sebench run` share: finding tasks and the library,
choosing a backend (one `match`), and the progress bar.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sebench.cli.options import (
    ApiDocOption,
    ApiKeyEnvOption,
    BackendOptions,
    BatchSizeOption,
    ConcurrencyOption,
    DataSourceOption,
    DeviceOption,
    LibOption,
    MemoryOption,
    ModelOption,
    RetriesOption,
    ThinkingOption,
    TimeoutOption,
    backend_options,
)
from sebench.prompts.modes import PromptMode

if TYPE_CHECKING:
    from sebench.data.schema import Task
    from sebench.rollout.backend import Backend
    from sebench.rollout.runner import RolloutProgress, RolloutSummary


class BackendKind(StrEnum):
    HF = "hf"  # a local transformers checkpoint (default: SmolLM2-135M-Instruct)
    OPENAI = "openai"  # any OpenAI-compatible server: vLLM, SGLang, hosted APIs
    VLLM = "vllm"  # vLLM's offline engine (GPU; `pip install 'sebench[vllm]'`)
    ORACLE = "oracle"
    NUMPY_AGENT = "numpy-agent"
    PLAIN_AGENT = "plain-python-agent"


def split_of(task_id: str | None, data: str | Path | None, split: str | None) -> str:
    from sebench.data.schema import SPLITS
    from sebench.data.sources import infer_split

    if split:
        return split
    for name in sorted(SPLITS, key=len, reverse=True):
        if task_id and task_id.startswith(f"{name}-"):
            return name
    return (infer_split(data) if data else None) or "single_test"


def find_task(task_id: str, data: str | None, split: str | None) -> Task:
    from sebench.data.sources import load
    from sebench.errors import SebenchError

    chosen = split_of(task_id, data, split)
    tasks = load(chosen, data)
    found = next((t for t in tasks if t.task_id == task_id), None)
    if found is None and task_id.isdigit() and int(task_id) < len(tasks):
        found = tasks[int(task_id)]
    if found is None:
        raise SebenchError(
            f"no task '{task_id}' in split '{chosen}' ({len(tasks)} tasks); "
            "`sebench data show` lists them"
        )
    return found


def resolve_library(lib: Path | None, data: str | Path | None, api_doc: Path | None) -> Any:
    """The library named by --lib, else the official one built from the data's api_doc.jsonl."""
    if lib is not None:
        from sebench.library.library import Library

        return Library.load(lib)
    from sebench.data.sources import find_api_doc
    from sebench.library.cache import official_library

    return official_library(api_doc or find_api_doc(data))


def make_backend(
    kind: BackendKind, options: BackendOptions, *, tasks: list[Task], library: Any
) -> Backend:
    model = options.model
    from sebench.errors import SebenchError

    match kind:
        case BackendKind.HF:
            from sebench.rollout.hf_local import HFLocalBackend

            if model is None:
                from sebench.rollout.smollm import default_model_dir

                return HFLocalBackend(
                    default_model_dir(),
                    name="SmolLM2-135M-Instruct",
                    batch_size=options.batch_size,
                    device=options.device,
                )
            return HFLocalBackend(model, batch_size=options.batch_size, device=options.device)
        case BackendKind.OPENAI:
            from sebench.rollout.openai_compat import OpenAICompatBackend, OpenAIConfig

            if not model:
                raise SebenchError("--backend openai needs --model NAME (the served model name)")
            config = OpenAIConfig(
                model=model,
                concurrency=options.concurrency,
                timeout_s=options.timeout_s,
                max_retries=options.max_retries,
                **({"base_urls": options.base_urls} if options.base_urls else {}),
            )
            return OpenAICompatBackend(config, api_key=os.environ.get(options.api_key_env))
        case BackendKind.VLLM:
            from sebench.rollout.vllm_offline import VLLMOfflineBackend

            if not model:
                raise SebenchError("--backend vllm needs --model PATH_OR_NAME")
            return VLLMOfflineBackend(model)
        case BackendKind.ORACLE | BackendKind.NUMPY_AGENT | BackendKind.PLAIN_AGENT:
            from sebench.rollout.agents import ReferenceAgent

            return ReferenceAgent(str(kind), tasks, library)
    raise AssertionError(kind)  # pragma: no cover - the match is exhaustive


class ProgressBar:
    """A rich progress bar fed by the runner's progress callback, with throughput."""

    def __init__(self, console: Console, label: str) -> None:
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.task = self.progress.add_task(label, total=None, rate="")

    def __call__(self, update: RolloutProgress) -> None:
        fresh = update.done - update.resumed
        rate = ""
        if update.elapsed_s > 0 and fresh:
            rate = f"{fresh / update.elapsed_s:.2f} samples/s"
            if update.completion_tokens:
                rate += f", {update.completion_tokens / update.elapsed_s:.0f} tok/s"
        self.progress.update(self.task, total=update.total, completed=update.done, rate=rate)

    def __enter__(self) -> ProgressBar:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()


def stop_on_interrupt(console: Console, saved: Path) -> NoReturn:
    """Ctrl-C: say what is kept and exit 130.

    typer turns Ctrl-C into a return value that main() drops under standalone_mode=False, so
    the command sets the exit code itself.
    """
    console.print(
        f"[yellow]interrupted: every finished sample is saved in {saved}; rerun the "
        "same command to resume[/]"
    )
    raise SystemExit(130) from None


def fail_if_nothing_succeeded(summary: RolloutSummary) -> None:
    """Every request of this run failed for good: an error (exit 2), not a file of failures."""
    from sebench.errors import SebenchError

    if summary.generated and summary.errors == summary.generated:
        raise SebenchError(
            f"every request failed ({summary.errors} of {summary.generated}; recorded in "
            f"{summary.path}, rerun to retry them); first error: {summary.first_error}"
        )


def describe(summary: RolloutSummary) -> str:
    text = (
        f"{summary.path}: {summary.generated} generated, {summary.resumed} already there, "
        f"{summary.total} in all"
    )
    if summary.truncated:
        text += f"; {summary.truncated} cut off by the token limit"
    if summary.errors:
        text += (
            f"; [red]{summary.errors} failed for good[/] (recorded with their error; rerun "
            "the same command to retry them)"
        )
    return text


def register(app: typer.Typer) -> None:
    @app.command("rollout")
    def rollout_command(
        out: Annotated[Path, typer.Option(help="Responses JSONL to write (resumed if it exists).")],
        model: ModelOption = None,
        backend: Annotated[
            BackendKind, typer.Option(help="Where responses come from.")
        ] = BackendKind.HF,
        base_url: Annotated[
            list[str] | None,
            typer.Option(
                "--base-url",
                help="OpenAI-compatible server URL (repeat to spread the load); "
                "default http://127.0.0.1:8000/v1.",
            ),
        ] = None,
        api_key_env: ApiKeyEnvOption = "OPENAI_API_KEY",
        data: DataSourceOption = None,
        split: Annotated[
            str | None, typer.Option(help="Split (default: from the file name, else single_test).")
        ] = None,
        mode: Annotated[
            list[PromptMode] | None, typer.Option(help="Prompt mode (repeat for several).")
        ] = None,
        samples: Annotated[int, typer.Option(min=1, help="Samples per task and mode.")] = 1,
        limit: Annotated[int | None, typer.Option(min=1, help="Only the first N tasks.")] = None,
        subset: Annotated[
            Path | None, typer.Option(help="A file of task ids to keep (e.g. the verified subset).")
        ] = None,
        temperature: Annotated[float, typer.Option(min=0.0, help="Official: 0.6.")] = 0.6,
        top_p: Annotated[float, typer.Option(min=0.0, max=1.0)] = 1.0,
        max_new_tokens: Annotated[int, typer.Option(min=1, help="Official: 8192.")] = 8192,
        thinking: ThinkingOption = None,
        seed: Annotated[int, typer.Option(help="Base seed; per-sample seeds derive from it.")] = 0,
        concurrency: ConcurrencyOption = 32,
        timeout: TimeoutOption = 900.0,
        max_retries: RetriesOption = 6,
        batch_size: BatchSizeOption = 8,
        device: DeviceOption = None,
        lib: LibOption = None,
        api_doc: ApiDocOption = None,
        top_k: Annotated[
            int, typer.Option(min=1, help="Docs retrieved in open-retrieved mode.")
        ] = 5,
        retry_errors: Annotated[
            bool, typer.Option(help="On resume, retry samples whose request failed.")
        ] = True,
        memory: MemoryOption = None,
    ) -> None:
        """Sample responses for tasks x modes x samples into OUT (rows `sebench eval` reads)."""
        from sebench.data.sources import load, load_subset
        from sebench.prompts.memory import load_memory
        from sebench.rollout.backend import SamplingConfig
        from sebench.rollout.runner import RolloutConfig, rollout

        console = Console(stderr=True, highlight=False)
        chosen_split = split_of(None, data, split)
        tasks = load(chosen_split, data)
        library = resolve_library(lib, data, api_doc)
        config = RolloutConfig(
            modes=tuple(mode or [PromptMode.CLOSED]),
            samples=samples,
            seed=seed,
            sampling=SamplingConfig(
                temperature=temperature,
                top_p=top_p,
                max_new_tokens=max_new_tokens,
                enable_thinking=thinking,
            ),
            subset=load_subset(subset) if subset else None,
            limit=limit,
            top_k=top_k,
            retry_errors=retry_errors,
            memory=load_memory(memory) if memory is not None else None,
        )
        chosen = backend
        options = backend_options(
            model, base_url, api_key_env, concurrency, timeout, max_retries, batch_size, device
        )
        engine = make_backend(chosen, options, tasks=tasks, library=library)
        try:
            with ProgressBar(console, f"{engine.model_name} {chosen_split}") as bar:
                summary = rollout(
                    tasks,
                    library,
                    engine,
                    out,
                    config,
                    on_progress=bar,
                    extra_meta={"backend": str(chosen), "split": chosen_split, "data": data},
                )
        except KeyboardInterrupt:
            stop_on_interrupt(console, out)
        finally:
            engine.close()
        console.print(describe(summary))
        fail_if_nothing_succeeded(summary)
