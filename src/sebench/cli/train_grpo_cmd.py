"""`sebench train grpo`: GRPO with the grader as reward (Open-RL, Closed-RL, SFT->RL)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from sebench.cli.options import LibrarySeedOption, WorkersOption
from sebench.training.grpo import NO_CLIP, GRPOSettings

# The defaults shown in --help are the settings dataclass's own (one source of truth).
DEFAULT = GRPOSettings()


class VLLMOption(StrEnum):
    COLOCATE = "colocate"
    SERVER = "server"


class RLModeOption(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


def register(train: typer.Typer) -> None:
    @train.command("grpo")
    def grpo(
        mode: Annotated[
            RLModeOption,
            typer.Option(
                help="open: update on the prompt with docs; closed: sample with docs, update on "
                "the closed-book prompt (the official Closed-RL)."
            ),
        ],
        data: Annotated[
            Path, typer.Option(help="Tasks JSONL in the official row format (expected outputs).")
        ],
        out: Annotated[
            Path, typer.Option(help="Folder for the model, sebench_grpo.json and grpo_log.jsonl.")
        ],
        model: Annotated[
            Path | None,
            typer.Option(help="A local Hugging Face checkpoint (default: SmolLM2-135M-Instruct)."),
        ] = None,
        init: Annotated[
            Path | None,
            typer.Option(help="Start from this checkpoint instead, e.g. a `train sft` folder."),
        ] = None,
        steps: Annotated[int, typer.Option(help="Optimizer steps.")] = DEFAULT.max_steps,
        prompts_per_step: Annotated[int, typer.Option()] = DEFAULT.prompts_per_step,
        generations: Annotated[
            int, typer.Option(help="Completions per prompt (the group).")
        ] = DEFAULT.generations_per_prompt,
        lr: Annotated[float, typer.Option(help="Learning rate.")] = DEFAULT.learning_rate,
        temperature: Annotated[float, typer.Option()] = DEFAULT.temperature,
        max_new_tokens: Annotated[int, typer.Option()] = DEFAULT.max_completion_length,
        micro_batch: Annotated[
            int, typer.Option(help="Completions per forward/backward pass (memory only).")
        ] = DEFAULT.micro_batch_size,
        clip_low: Annotated[
            float, typer.Option(help="PPO clip below 1 (TRL epsilon).")
        ] = DEFAULT.clip_low,
        clip_high: Annotated[
            float, typer.Option(help="PPO clip above 1 (TRL epsilon_high); asymmetric if set.")
        ] = DEFAULT.clip_high,
        no_clip: Annotated[
            bool, typer.Option("--no-clip", help="Ablation: clipping effectively off.")
        ] = False,
        updates_per_batch: Annotated[
            int | None,
            typer.Option(help="Updates per generated batch (default: open 2, closed 1)."),
        ] = None,
        drop_negative_advantages: Annotated[
            bool,
            typer.Option(
                "--drop-negative-advantages", help="Ablation: only positive advantages update."
            ),
        ] = False,
        loss_type: Annotated[
            str, typer.Option(help="TRL loss type; dapo is the official token-mean.")
        ] = DEFAULT.loss_type,
        beta: Annotated[float, typer.Option(help="KL coefficient.")] = DEFAULT.beta,
        seed: Annotated[int, typer.Option()] = DEFAULT.seed,
        freeze_fraction: Annotated[
            float,
            typer.Option(
                min=0.0,
                max=0.99,
                help="Fraction of decoder layers, from the bottom, to freeze (official: 0; "
                "after `train sft`, its value trains what SFT trained).",
            ),
        ] = DEFAULT.freeze_fraction,
        freeze_embeddings: Annotated[
            bool, typer.Option(help="Freeze the input embeddings (tied to the head in SmolLM2).")
        ] = DEFAULT.freeze_embeddings,
        save_steps: Annotated[
            int, typer.Option(help="Checkpoint every N steps (resume point); 0: none.")
        ] = DEFAULT.save_steps,
        bf16: Annotated[bool, typer.Option(help="bf16 (GPU).")] = DEFAULT.bf16,
        vllm: Annotated[
            VLLMOption | None,
            typer.Option(help="Generate with vLLM (GPU): colocate, or server (`trl vllm-serve`)."),
        ] = None,
        workers: WorkersOption = 0,
        api_doc: Annotated[
            Path | None,
            typer.Option(help="Grade with the official library built from this api_doc.jsonl."),
        ] = None,
        lib: Annotated[Path | None, typer.Option(help="Grade with this built library.")] = None,
        library_seed: LibrarySeedOption = 0,
        dry_run: Annotated[
            bool,
            typer.Option(
                "--dry-run", help="Print the resolved settings and TRL config; train nothing."
            ),
        ] = False,
    ) -> None:
        """GRPO on TRL's GRPOTrainer; the reward is the grader's verdict (1 correct, else 0).

        A run whose out folder already holds checkpoints continues from the last one."""
        import json

        from sebench.cli.demo_cmd import resolve_demo_library
        from sebench.data.sources import load_file
        from sebench.grading.grader import Grader
        from sebench.grading.sandbox import SandboxConfig
        from sebench.rollout.smollm import default_model_dir
        from sebench.training.grpo import RLMode, grpo_config, resolved, train_grpo
        from sebench.training.sft import RUN_FILE as SFT_RUN_FILE

        console = Console()
        settings = GRPOSettings(
            learning_rate=lr,
            prompts_per_step=prompts_per_step,
            generations_per_prompt=generations,
            beta=beta,
            clip_low=NO_CLIP if no_clip else clip_low,
            clip_high=NO_CLIP if no_clip else clip_high,
            temperature=temperature,
            loss_type=loss_type,
            updates_per_batch=updates_per_batch,
            drop_negative_advantages=drop_negative_advantages,
            max_steps=steps,
            max_completion_length=max_new_tokens,
            micro_batch_size=micro_batch,
            freeze_fraction=freeze_fraction,
            freeze_embeddings=freeze_embeddings,
            seed=seed,
            bf16=bf16,
            save_steps=save_steps,
            use_vllm=vllm is not None,
            vllm_mode=vllm.value if vllm is not None else DEFAULT.vllm_mode,
        )
        if dry_run:
            # Build TRL's config too: it checks the batch arithmetic and the vLLM options.
            config = grpo_config(settings, RLMode(mode.value), str(out / "checkpoints"))
            trl_view = {
                k: getattr(config, k)
                for k in ("generation_batch_size", "gradient_accumulation_steps", "num_iterations")
            }
            resolved_view = {
                "mode": mode.value,
                **resolved(settings, RLMode(mode.value)),
                **trl_view,
            }
            console.print_json(json.dumps(resolved_view))
            return
        tasks = load_file(data, "train")
        library = resolve_demo_library(lib, api_doc, library_seed)
        start = init or model or default_model_dir()
        extra = {"data": str(data), "base_model": str(model or default_model_dir())}
        sft_record = Path(start) / SFT_RUN_FILE
        if init is not None and sft_record.is_file():
            previous = json.loads(sft_record.read_text())
            extra["init_sft"] = {k: previous.get(k) for k in ("arm", "base_model", "data")}
            extra["base_model"] = previous.get("base_model", extra["base_model"])

        with (
            Grader(library, SandboxConfig(workers=workers)) as grader,
            _StepProgress(console, steps) as on_step,
        ):
            result = train_grpo(
                start,
                tasks,
                library,
                RLMode(mode.value),
                out,
                settings,
                grader=grader,
                on_step=on_step,
                extra_record=extra,
            )
        resumed = f" (resumed from {result.resumed_from})" if result.resumed_from else ""
        console.print(
            f"{mode.value}-RL: {len(result.steps)} step(s) in {result.train_seconds:.0f} s{resumed}; "
            f"model in {out}, log in {out / 'grpo_log.jsonl'}"
        )


def _describe(entry) -> str:  # noqa: ANN001
    def number(value: float | None, spec: str) -> str:
        return "-" if value is None else format(value, spec)

    hacking = sum(entry.hacking_signals.values())
    return (
        f"step {entry.step}/{entry.max_steps}  reward {number(entry.reward_mean, '.3f')}  "
        f"zero-spread {number(entry.frac_zero_spread, '.2f')}  "
        f"length {number(entry.completion_length, '.0f')}  "
        f"graded {sum(entry.verdicts.values())}  hacking-signals {hacking}  "
        f"unscored {entry.unscored}  {entry.seconds:.1f} s"
    )


class _StepProgress:
    """A rich progress bar on a terminal, one plain line per step otherwise."""

    def __init__(self, console: Console, total: int) -> None:
        self.console = console
        self.total = total
        self.bar = None

    def __enter__(self):  # noqa: ANN204
        if self.console.is_terminal:
            from rich.progress import BarColumn, Progress, TextColumn

            self.bar = Progress(BarColumn(), TextColumn("{task.description}"), console=self.console)
            self.bar.__enter__()
            task = self.bar.add_task("starting", total=self.total)

            def on_step(entry) -> None:  # noqa: ANN001
                self.bar.update(task, completed=entry.step, description=_describe(entry))

            return on_step

        def on_line(entry) -> None:  # noqa: ANN001
            self.console.print(_describe(entry), highlight=False)

        return on_line

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)
