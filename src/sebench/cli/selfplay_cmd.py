"""`sebench selfplay`: the model writes its own tasks, solves them, trains on them; per round."""

from __future__ import annotations

import dataclasses
import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from sebench.cli.options import (
    ApiDocOption,
    ApiKeyEnvOption,
    BaseUrlOption,
    ConcurrencyOption,
    LibOption,
    RetriesOption,
    TimeoutOption,
    WorkersOption,
    backend_options,
)
from sebench.training.grpo import GRPOSettings
from sebench.training.sft import SFTTrainingConfig

# The defaults shown in --help are the config dataclasses' own (one source of truth).
SFT = SFTTrainingConfig()
GRPO = GRPOSettings()


class ServingOption(StrEnum):
    HF = "hf"  # the checkpoint loaded into this process (transformers)
    OPENAI = "openai"  # an OpenAI-compatible server that serves each round's checkpoint


def register(app: typer.Typer) -> None:
    @app.command("selfplay")
    def selfplay(
        model: Annotated[
            Path, typer.Option(help="The base model: a local Hugging Face checkpoint.")
        ],
        out: Annotated[
            Path, typer.Option(help="Run folder (round-0, round-1, ...); rerun to resume.")
        ],
        rounds: Annotated[
            int, typer.Option(min=0, help="Self-play rounds after round 0 (base).")
        ] = 2,
        rl: Annotated[
            bool,
            typer.Option(
                "--rl",
                help="Closed-RL (GRPO) on the model's own tasks instead of "
                "Closed-SFT on its own answers (the paper reports that RL fails).",
            ),
        ] = False,
        test: Annotated[
            str | None,
            typer.Option(
                help="Test tasks, answered closed-book after each round: a JSONL file "
                "of official rows, a data folder or a hub id (default: $SEBENCH_DATA, "
                "else the hub; split single_test unless --test-split)."
            ),
        ] = None,
        test_split: Annotated[
            str | None, typer.Option(help="Split of --test (default: from its name).")
        ] = None,
        test_limit: Annotated[
            int | None, typer.Option(min=1, help="Only the first N test tasks.")
        ] = None,
        backend: Annotated[
            ServingOption,
            typer.Option(
                help="hf: load each checkpoint here; openai: a server at --base-url that "
                "serves each round's checkpoint under its path (`vllm serve OUT/round-1/model`)."
            ),
        ] = ServingOption.HF,
        base_url: BaseUrlOption = None,
        api_key_env: ApiKeyEnvOption = "OPENAI_API_KEY",
        functions: Annotated[
            str, typer.Option(help="NumPy names to write tasks for (`mean,linalg.inv`) or `all`.")
        ] = "all",
        per_function: Annotated[
            int, typer.Option(min=1, help="Tasks asked per function and round.")
        ] = 1,
        multi: Annotated[
            int, typer.Option(min=0, help="Multi-function tasks asked per round.")
        ] = 0,
        cases: Annotated[int, typer.Option(help="Test inputs asked per task (at least 5).")] = 8,
        samples: Annotated[
            int,
            typer.Option(
                "-k", "--samples", min=1, help="Open-book answers per own task (official 5)."
            ),
        ] = 5,
        eval_samples: Annotated[
            int, typer.Option(min=1, help="Closed-book answers per test task.")
        ] = 1,
        temperature: Annotated[
            float, typer.Option(min=0.0, help="Every sampling (official 0.6).")
        ] = 0.6,
        max_new_tokens: Annotated[
            int, typer.Option(min=1, help="Every sampling (official 8192).")
        ] = 8192,
        steps: Annotated[
            int | None,
            typer.Option(
                min=1,
                help=f"Training steps per round (default: SFT {SFT.max_steps}, GRPO {GRPO.max_steps}).",
            ),
        ] = None,
        lr: Annotated[
            float | None,
            typer.Option(
                help=f"Learning rate (default: SFT {SFT.learning_rate:g}, GRPO {GRPO.learning_rate:g})."
            ),
        ] = None,
        batch_size: Annotated[int, typer.Option(min=1, help="SFT batch size.")] = SFT.batch_size,
        freeze_fraction: Annotated[
            float, typer.Option(help="SFT: lower decoder layers frozen.")
        ] = SFT.freeze_fraction,
        bf16: Annotated[
            bool | None, typer.Option(help="SFT bf16 (default: where the hardware has it).")
        ] = None,
        prompts_per_step: Annotated[
            int, typer.Option(min=1, help="GRPO prompts per step.")
        ] = GRPO.prompts_per_step,
        generations: Annotated[
            int, typer.Option(min=2, help="GRPO completions per prompt.")
        ] = GRPO.generations_per_prompt,
        micro_batch: Annotated[
            int, typer.Option(min=1, help="GRPO completions per forward pass.")
        ] = GRPO.micro_batch_size,
        seed: Annotated[
            int, typer.Option(help="Round r writes, solves and trains with seed + r.")
        ] = 0,
        lib: LibOption = None,
        api_doc: ApiDocOption = None,
        workers: WorkersOption = 0,
        force: Annotated[
            bool,
            typer.Option(
                "--force",
                help="Run in an --out made with other settings: keep its "
                "finished rounds, restart the unfinished one with these settings.",
            ),
        ] = False,
        concurrency: ConcurrencyOption = 32,
        timeout: TimeoutOption = 900.0,
        max_retries: RetriesOption = 6,
    ) -> None:
        """Self-play rounds: the model writes its own tasks, solves them, trains on what passes.

        Each round the model writes tasks from the docs (the model-written pipeline, itself as
        solver), answers them with the docs, keeps what the grader passes, trains Closed-SFT on
        its answers (or GRPO with --rl), and is tested closed-book. Writes selfplay.json,
        selfplay.md and selfplay.png in --out; a rerun resumes."""
        from sebench.cli.progress import progress_view
        from sebench.cli.rollout_cmd import BackendKind, make_backend, resolve_library
        from sebench.data.sources import DATA_ENV, HUB_REPO, infer_split
        from sebench.errors import SebenchError
        from sebench.grading.sandbox.config import SandboxConfig
        from sebench.reports.demo_table import verdict_summary
        from sebench.reports.selfplay_table import write_selfplay_report
        from sebench.rollout.backend import SamplingConfig
        from sebench.training.selfplay import Method, Progress, SelfPlayConfig, run_selfplay
        from sebench.training.sft_pipeline import SFTDataConfig
        from sebench.training.task_writing import ModelTasksConfig

        if backend is ServingOption.OPENAI and not base_url:
            raise SebenchError(
                "--backend openai needs --base-url URL (the server of the model under training)"
            )
        if backend is ServingOption.HF and base_url:
            raise SebenchError("--base-url needs --backend openai")
        sampling = SamplingConfig(temperature=temperature, max_new_tokens=max_new_tokens)
        sft = dataclasses.replace(
            SFT,
            max_steps=steps if steps is not None else SFT.max_steps,
            learning_rate=lr if lr is not None else SFT.learning_rate,
            batch_size=batch_size,
            freeze_fraction=freeze_fraction,
            bf16=bf16,
        )
        grpo = dataclasses.replace(
            GRPO,
            max_steps=steps if steps is not None else GRPO.max_steps,
            learning_rate=lr if lr is not None else GRPO.learning_rate,
            prompts_per_step=prompts_per_step,
            generations_per_prompt=generations,
            micro_batch_size=micro_batch,
            max_completion_length=min(max_new_tokens, GRPO.max_completion_length),
        )
        config = SelfPlayConfig(
            rounds=rounds,
            method=Method.RL if rl else Method.SFT,
            writing=ModelTasksConfig(
                functions=None
                if functions.strip() == "all"
                else tuple(name.strip() for name in functions.split(",") if name.strip()),
                per_function=per_function,
                multi=multi,
                cases=cases,
                generator_sampling=sampling,
                solver_sampling=sampling,
            ),
            solving=SFTDataConfig(samples=samples, sampling=sampling),
            sft=sft,
            grpo=grpo,
            eval_samples=eval_samples,
            eval_sampling=sampling,
            test_limit=test_limit,
            seed=seed,
        )
        library = resolve_library(lib, test, api_doc)
        test_source = test or os.environ.get(DATA_ENV) or HUB_REPO
        backend_for = None
        if backend is ServingOption.OPENAI:
            # The model: each round's checkpoint (below); batch size and device: hf options.
            options = backend_options(
                None,
                base_url,
                api_key_env,
                concurrency,
                timeout,
                max_retries,
                batch_size=1,
                device=None,
            )

            def backend_for(checkpoint: Path):  # noqa: ANN202
                served = dataclasses.replace(options, model=str(checkpoint))
                return make_backend(BackendKind.OPENAI, served, tasks=[], library=library)

        console = Console(stderr=True, highlight=False)
        try:
            with progress_view(console) as show:

                def on_progress(event: Progress) -> None:
                    if event.stage == "note":
                        console.print(event.message, markup=False)
                    else:
                        show(event.message, event.done, event.total)

                result = run_selfplay(
                    library,
                    model,
                    test_source,
                    out,
                    config,
                    test_split=test_split or infer_split(test_source) or "single_test",
                    backend_for=backend_for,
                    sandbox=SandboxConfig(workers=workers),
                    force=force,
                    on_progress=on_progress,
                )
        except KeyboardInterrupt:
            console.print(
                f"interrupted: finished stages are kept in {out}; rerun the same command to "
                "continue at the unfinished one",
                markup=False,
            )
            raise SystemExit(130) from None
        files = write_selfplay_report(result)
        table = Table(title=f"self-play ({'Closed-RL' if rl else 'Closed-SFT'}): {out}")
        for name in ("round", "accuracy", "tasks kept", "answers kept", "training", "verdicts"):
            table.add_column(name, justify="right" if name in ("round", "accuracy") else "left")
        for row in result.rows:
            table.add_row(
                str(row.round),
                "-" if row.accuracy is None else f"{row.accuracy:.1%}",
                "-" if row.tasks_kept is None else f"{row.tasks_kept}/{row.tasks_requested}",
                "-" if row.answers_kept is None else f"{row.answers_kept}/{row.answers_sampled}",
                row.note,
                verdict_summary(row.verdicts),
            )
        Console(highlight=False).print(table)
        console.print(f"table: {', '.join(str(path) for path in files.values())}", markup=False)
