"""`sebench train`: generate demo tasks and run supervised fine-tuning (`sft`)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from sebench.cli.options import DemoApiDocOption, DemoLibOption, LibrarySeedOption
from sebench.cli.train_grpo_cmd import register as register_grpo
from sebench.training.sft import SFTTrainingConfig

# The defaults shown in --help are the config dataclass's own (one source of truth).
DEFAULT = SFTTrainingConfig()


class ArmOption(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


def register(app: typer.Typer) -> None:
    train = typer.Typer(
        help="Fine-tune a local model on library tasks (SFT, GRPO).", no_args_is_help=True
    )
    app.add_typer(train, name="train")

    @train.command("tasks")
    def tasks(
        out: Annotated[
            Path, typer.Option(help="Folder for tasks_train.jsonl and tasks_test.jsonl.")
        ],
        seed: Annotated[
            int, typer.Option(help="Seed for templates, parameter names and values.")
        ] = 0,
        functions: Annotated[
            str, typer.Option(help="Comma-separated NumPy names, or 'demo' / 'twelve'.")
        ] = "demo",
        train_per_function: Annotated[int, typer.Option(min=1)] = 64,
        test_per_function: Annotated[int, typer.Option(min=1)] = 8,
        api_doc: DemoApiDocOption = None,
        lib: DemoLibOption = None,
        library_seed: LibrarySeedOption = 0,
    ) -> None:
        """Generate train and held-out test tasks (with target answers) for a library."""
        from sebench.cli.demo_cmd import resolve_demo_library
        from sebench.data.rows import official_row
        from sebench.jsonl import write_jsonl
        from sebench.training.taskgen import (
            DEMO_FUNCTIONS,
            TWELVE_FUNCTIONS,
            TaskSetConfig,
            generate_tasks,
        )

        chosen = {"demo": DEMO_FUNCTIONS, "twelve": TWELVE_FUNCTIONS}.get(
            functions, tuple(f.strip() for f in functions.split(",") if f.strip())
        )
        library = resolve_demo_library(lib, api_doc, library_seed)
        made = generate_tasks(
            library.table,
            TaskSetConfig(
                functions=chosen,
                train_per_function=train_per_function,
                test_per_function=test_per_function,
                seed=seed,
            ),
        )
        out.mkdir(parents=True, exist_ok=True)
        write_jsonl(out / "tasks_train.jsonl", [official_row(t) for t in made.train])
        write_jsonl(out / "tasks_test.jsonl", [official_row(t) for t in made.test])
        Console().print(
            f"{len(made.train)} train and {len(made.test)} test tasks in {out} "
            f"(library {library.package} at {library.root})"
        )

    @train.command("sft")
    def sft(
        mode: Annotated[
            ArmOption, typer.Option(help="open: docs in the prompt; closed: the task alone.")
        ],
        data: Annotated[
            Path,
            typer.Option(
                help="Tasks JSONL with target answers (`sebench train tasks`), or the kept "
                "answers of `sebench data sft` (trained under their --mode prompt)."
            ),
        ],
        out: Annotated[Path, typer.Option(help="Folder for the checkpoint and sebench_sft.json.")],
        model: Annotated[
            Path | None,
            typer.Option(help="A local Hugging Face checkpoint (default: SmolLM2-135M-Instruct)."),
        ] = None,
        steps: Annotated[
            int, typer.Option(help="Optimizer steps (at least 1).")
        ] = DEFAULT.max_steps,
        batch_size: Annotated[int, typer.Option()] = DEFAULT.batch_size,
        lr: Annotated[float, typer.Option(help="Peak learning rate.")] = DEFAULT.learning_rate,
        seed: Annotated[int, typer.Option()] = 0,
        distractors: Annotated[
            int, typer.Option(help="Docs of other functions in open prompts.")
        ] = 0,
        bf16: Annotated[
            bool | None,
            typer.Option(
                help="bf16 autocast (CPU) / mixed precision (GPU) "
                "(default: where the hardware has native bf16)."
            ),
        ] = DEFAULT.bf16,
        freeze_fraction: Annotated[
            float,
            typer.Option(
                help="Fraction of decoder layers, from the bottom, to freeze (CPU speed)."
            ),
        ] = DEFAULT.freeze_fraction,
        freeze_embeddings: Annotated[
            bool, typer.Option(help="Freeze the (tied) embeddings.")
        ] = DEFAULT.freeze_embeddings,
        lora_rank: Annotated[
            int, typer.Option(help="LoRA rank; 0 trains the unfrozen weights themselves.")
        ] = 0,
        gradient_checkpointing: Annotated[
            bool, typer.Option(help="Trade compute for memory (GPU).")
        ] = False,
    ) -> None:
        """Supervised fine-tuning on TRL's SFTTrainer, loss on the answer tokens only."""
        from sebench.cli.progress import progress_view
        from sebench.data.sources import load_file
        from sebench.errors import InputError
        from sebench.rollout.smollm import default_model_dir
        from sebench.training.sft import load_model, resolve_precision, train_sft
        from sebench.training.sft_data import (
            build_examples,
            is_sft_data,
            read_sft_data,
            write_examples,
        )
        from sebench.training.taskprompts import Arm

        # First: a bad setting (--steps 0) fails before any file is read.
        config = SFTTrainingConfig(
            max_steps=steps,
            batch_size=batch_size,
            learning_rate=lr,
            seed=seed,
            bf16=bf16,
            freeze_fraction=freeze_fraction,
            freeze_embeddings=freeze_embeddings,
            lora_rank=lora_rank,
            gradient_checkpointing=gradient_checkpointing,
        )
        console = Console()
        arm = Arm(mode.value)
        if is_sft_data(data):  # `sebench data sft`: each row holds both prompts
            if distractors:
                raise InputError(
                    "--distractors applies to generated tasks only: the prompts of "
                    "`sebench data sft` rows are stored as they were rendered",
                    path=str(data),
                )
            examples = read_sft_data(data, arm)
        else:
            rows = load_file(data, "train")  # official-schema rows, as `sebench train tasks` writes
            untargeted = next((t for t in rows if not t.extra.get("target")), None)
            if untargeted is not None:
                raise InputError(
                    f"task {untargeted.task_id} has no target answer (`extra.target`): train on "
                    "tasks made by `sebench train tasks`, or on the output of `sebench data sft`",
                    path=str(data),
                )
            examples = build_examples(rows, arm, distractors=distractors)
        precision = resolve_precision(config)
        console.print(f"training in {precision.name} ({precision.reason})", highlight=False)
        if precision.warning:
            console.print(f"warning: {precision.warning}", highlight=False, markup=False)
        model_dir = model or default_model_dir()
        try:
            with progress_view(console) as show:
                show(f"loading {model_dir.name}")
                loaded, tokenizer = load_model(model_dir)

                def on_progress(step: int, total: int, loss: float | None) -> None:
                    show(
                        f"training {arm.value}-SFT",
                        step,
                        total,
                        f"loss {loss:.4f}" if loss is not None else "",
                    )

                result = train_sft(
                    loaded,
                    tokenizer,
                    examples,
                    config,
                    out_dir=out,
                    on_progress=on_progress,
                    extra_record={
                        "arm": arm.value,
                        "data": str(data),
                        "base_model": str(model_dir),
                    },
                )
        except KeyboardInterrupt:
            # The checkpoint is written only when training ends: nothing of this run is kept.
            console.print(
                f"interrupted: nothing was saved (the checkpoint is written to {out} only when "
                f"training ends); rerun the same command to train from the start ({steps} steps)",
                highlight=False,
                markup=False,
            )
            sys.exit(130)
        write_examples(out / "sft_examples.jsonl", examples)
        console.print(
            f"{arm.value}-SFT: {steps} steps in {result.train_seconds:.0f} s; checkpoint in {out}"
        )

    register_grpo(train)
