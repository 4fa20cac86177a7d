"""`sebench run`: rollout, then grade, then one summary table, for a model x splits x modes.

With no arguments it runs on a CPU in a few minutes: SmolLM2-135M-Instruct on 8 tasks of
single_test, next to the three reference agents, so that the benchmark's three properties show
in one table: the oracle (NumPy references translated to the library) near 100%, the NumPy agent
at 0 with `uses_numpy`, the plain-Python agent at 0 with `no_library`.

Every step writes into the output folder and resumes: rerunning the same command finishes what
is missing. Layout: `responses/<system>.<split>.<mode>.jsonl`, `results/...jsonl`,
`summaries/...json`, then `summary.json` and `summary.md` for the whole table.
"""

from __future__ import annotations

import json
import os
import random
import re
from dataclasses import asdict, dataclass, replace
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
    DataSourceOption,
    DeviceOption,
    LibOption,
    MemoryOption,
    RetriesOption,
    RulesOption,
    ThinkingOption,
    TimeoutOption,
    WorkersOption,
    backend_options,
)
from sebench.cli.rollout_cmd import (
    BackendKind,
    ProgressBar,
    describe,
    fail_if_nothing_succeeded,
    make_backend,
    resolve_library,
    stop_on_interrupt,
)
from sebench.grading.rules import Rules
from sebench.prompts.modes import PromptMode

AGENTS = (BackendKind.ORACLE, BackendKind.NUMPY_AGENT, BackendKind.PLAIN_AGENT)
# The no-argument profile: small enough for a 2-core CPU in a few minutes.
QUICK_TASKS = 8
QUICK_MAX_NEW_TOKENS = 256  # SmolLM2 ends most answers within this; truncations are shown
OFFICIAL_MAX_NEW_TOKENS = 8192
CATEGORIES = ("acc", "without_zwc", "numpy", "result_error", "exe_error")


@dataclass(frozen=True)
class Cell:
    """One row of the table: a system (model or agent) on one split under one prompt mode."""

    system: str
    split: str
    mode: str  # "-" for agents, whose answers do not depend on the prompt
    samples: int
    accuracy: float
    official: dict[str, float]
    verdicts: dict[str, int]
    truncated: int
    rollout_errors: int
    responses: str
    summary: str

    @property
    def main_verdicts(self) -> str:
        top = sorted(((n, k) for k, n in self.verdicts.items() if n), reverse=True)[:2]
        return ", ".join(f"{k} {n}" for n, k in top)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(text).name or text).strip("-") or "model"


def _sample_tasks(tasks: list, count: int | None, seed: int) -> list:
    """`count` tasks spread over the split (a seeded draw, kept in file order)."""
    if count is None or count >= len(tasks):
        return tasks
    chosen = set(random.Random(seed).sample(range(len(tasks)), count))
    return [t for i, t in enumerate(tasks) if i in chosen]


def _rollout_stats(path: Path) -> tuple[int, int]:
    from sebench.jsonl import read_jsonl

    rows = read_jsonl(path) if path.exists() else []
    return sum(bool(r.get("truncated")) for r in rows), sum(bool(r.get("error")) for r in rows)


def render_markdown(cells: list[Cell]) -> str:
    lines = [
        "| system | split | mode | samples | "
        + " | ".join(CATEGORIES)
        + " | main verdicts | truncated |",
        "|---|---|---|---:|" + "---:|" * len(CATEGORIES) + "---|---:|",
    ]
    for c in cells:
        values = " | ".join(f"{c.official.get(k, 0.0):.3f}" for k in CATEGORIES)
        lines.append(
            f"| {c.system} | {c.split} | {c.mode} | {c.samples} | {values} | "
            f"{c.main_verdicts} | {c.truncated} |"
        )
    return "\n".join(lines) + "\n"


def render_table(cells: list[Cell], title: str) -> Table:
    table = Table(title=title)
    for name in ("system", "split", "mode", "samples", *CATEGORIES, "main verdicts", "truncated"):
        table.add_column(
            name,
            justify="right" if name in CATEGORIES or name in ("samples", "truncated") else "left",
        )
    for c in cells:
        table.add_row(
            c.system,
            c.split,
            c.mode,
            str(c.samples),
            *(f"{c.official.get(k, 0.0):.3f}" for k in CATEGORIES),
            c.main_verdicts,
            str(c.truncated),
        )
    return table


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run_command(
        model: Annotated[
            str | None,
            typer.Option(
                help="Checkpoint folder (hf), served model "
                "name (openai) or path (vllm). Default: "
                "SmolLM2-135M-Instruct, quick profile."
            ),
        ] = None,
        backend: Annotated[
            BackendKind, typer.Option(help="Where the model's responses come from.")
        ] = BackendKind.HF,
        base_url: BaseUrlOption = None,
        api_key_env: ApiKeyEnvOption = "OPENAI_API_KEY",
        data: DataSourceOption = None,
        split: Annotated[
            list[str] | None, typer.Option(help="Split (repeatable; default single_test).")
        ] = None,
        mode: Annotated[
            list[PromptMode] | None, typer.Option(help="Prompt mode (repeatable; default closed).")
        ] = None,
        tasks: Annotated[
            int | None,
            typer.Option(
                min=1,
                help="Tasks per split, a seeded sample (default: 8 without --model, else all).",
            ),
        ] = None,
        samples: Annotated[int, typer.Option(min=1, help="Samples per task and mode.")] = 1,
        agents: Annotated[bool, typer.Option(help="Also grade the reference agents.")] = True,
        temperature: Annotated[float, typer.Option(min=0.0, help="Official: 0.6.")] = 0.6,
        max_new_tokens: Annotated[
            int | None,
            typer.Option(
                min=1,
                help=f"Default: {QUICK_MAX_NEW_TOKENS} without --model, else the official "
                f"{OFFICIAL_MAX_NEW_TOKENS}.",
            ),
        ] = None,
        thinking: ThinkingOption = None,
        seed: Annotated[int, typer.Option(help="Seeds the task sample and the samples.")] = 0,
        out: Annotated[
            Path | None,
            typer.Option(help="Output folder (default: runs/<model>); rerun to resume."),
        ] = None,
        concurrency: ConcurrencyOption = 32,
        timeout: TimeoutOption = 900.0,
        max_retries: RetriesOption = 6,
        batch_size: BatchSizeOption = 8,
        device: DeviceOption = None,
        lib: LibOption = None,
        api_doc: ApiDocOption = None,
        workers: WorkersOption = 0,
        allow_unisolated: AllowUnisolatedOption = False,
        rules: RulesOption = Rules.STRICT,
        memory: MemoryOption = None,
    ) -> None:
        """Rollout, grade and summarize in one table (model x splits x modes, plus agents)."""
        from sebench.data.sources import DATA_ENV, HUB_REPO, load
        from sebench.grading.runner import EvalConfig, evaluate
        from sebench.grading.sandbox.config import SandboxConfig
        from sebench.prompts.memory import load_memory
        from sebench.provenance import provenance
        from sebench.rollout.backend import SamplingConfig
        from sebench.rollout.runner import RolloutConfig, rollout

        console = Console(stderr=True, highlight=False)
        quick = model is None and backend == BackendKind.HF
        task_count = tasks if tasks is not None else (QUICK_TASKS if quick else None)
        sampling = SamplingConfig(
            temperature=temperature,
            enable_thinking=thinking,
            max_new_tokens=max_new_tokens
            or (QUICK_MAX_NEW_TOKENS if quick else OFFICIAL_MAX_NEW_TOKENS),
        )
        splits = split or ["single_test"]
        modes = tuple(mode or [PromptMode.CLOSED])
        library = resolve_library(lib, data, api_doc)
        insights = load_memory(memory) if memory is not None else None
        # The grader reads the tasks again by id: name the same source the rollout used.
        source = data or os.environ.get(DATA_ENV) or HUB_REPO
        folder = out or Path("runs") / _slug(model or "smollm2-135m-instruct")
        eval_config = EvalConfig(
            sandbox=SandboxConfig(workers=workers, allow_unisolated=allow_unisolated), rules=rules
        )
        options = backend_options(
            model, base_url, api_key_env, concurrency, timeout, max_retries, batch_size, device
        )
        cells: list[Cell] = []
        try:
            for split_name in splits:
                split_tasks = _sample_tasks(load(split_name, data), task_count, seed)
                systems: list[tuple[BackendKind, tuple[PromptMode, ...]]] = [
                    (backend, modes[:1] if backend in AGENTS else modes)
                ]
                if agents:
                    systems += [(agent, modes[:1]) for agent in AGENTS if agent != backend]
                for kind, system_modes in systems:
                    engine = make_backend(kind, options, tasks=split_tasks, library=library)
                    try:
                        for prompt_mode in system_modes:
                            name = f"{_slug(engine.model_name)}.{split_name}.{prompt_mode}"
                            responses = folder / "responses" / f"{name}.jsonl"
                            config = RolloutConfig(
                                modes=(prompt_mode,),
                                samples=samples,
                                seed=seed,
                                sampling=sampling,
                                memory=insights,
                            )
                            with ProgressBar(
                                console, f"{engine.model_name} {split_name} {prompt_mode}"
                            ) as bar:
                                summary = rollout(
                                    split_tasks,
                                    library,
                                    engine,
                                    responses,
                                    config,
                                    on_progress=bar,
                                    extra_meta={
                                        "backend": str(kind),
                                        "split": split_name,
                                        "data": data,
                                    },
                                )
                            console.print(describe(summary))
                            fail_if_nothing_succeeded(summary)
                            graded = evaluate(
                                responses,
                                folder / "results" / f"{name}.jsonl",
                                folder / "summaries" / f"{name}.json",
                                library=library,
                                config=replace(eval_config, data=(f"{split_name}={source}",)),
                            )
                            truncated, failed = _rollout_stats(responses)
                            cells.append(
                                Cell(
                                    system=_slug(engine.model_name),
                                    split=split_name,
                                    mode="-" if kind in AGENTS else str(prompt_mode),
                                    samples=graded["samples"],
                                    accuracy=graded["accuracy"],
                                    official=graded["official"],
                                    verdicts=graded["verdicts"],
                                    truncated=truncated,
                                    rollout_errors=failed,
                                    responses=str(responses),
                                    summary=str(folder / "summaries" / f"{name}.json"),
                                )
                            )
                    finally:
                        engine.close()
        except KeyboardInterrupt:
            stop_on_interrupt(console, folder)

        record = provenance(
            {
                "model": model,
                "backend": str(backend),
                "splits": splits,
                "modes": [str(m) for m in modes],
                "tasks": task_count,
                "samples": samples,
                "seed": seed,
                "sampling": asdict(sampling),
                "data": data,
                "memory": None if insights is None else insights.describe(),
            },
            library={"package": library.package, "root": str(library.root)},
        )
        (folder / "summary.json").write_text(
            json.dumps({"rows": [asdict(c) for c in cells], "provenance": record}, indent=2) + "\n"
        )
        markdown = render_markdown(cells)
        (folder / "summary.md").write_text(markdown)
        screen = Console(highlight=False)
        if not screen.is_terminal:  # a log file or a pipe: do not squeeze the table into 80 columns
            screen = Console(highlight=False, width=160)
        screen.print(render_table(cells, f"sebench run: {folder}"))
        console.print(f"responses, results and summaries: {folder}/ (summary.md, summary.json)")
