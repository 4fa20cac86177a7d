"""GRPO on TRL's `GRPOTrainer` with sebench's grader as the reward: Open-RL and Closed-RL.

- Open-RL: completions are sampled from the prompt with docs, and the update (log-probs,
  advantages, loss) is computed on that same prompt.
- Closed-RL, as the official recipe defines it: completions are sampled from the prompt *with*
  docs, then each is attached to the closed-book prompt of its task, and the update is computed
  on (closed prompt + completion). Built on TRL's `rollout_func` (`ClosedBookRollout`): it
  generates from the open prompt with the trainer's own generation path and hands back the
  closed prompt's token ids with the completion's, so everything after generation sees the
  closed prompt only.
- SFT->RL: start from a `sebench train sft` output folder (`--init`).

Prompts are the benchmark's (`sebench.prompts`) unless the caller passes its own `PromptFn`: the
RL laptop demo trains on the short prompts its SFT checkpoint and its evaluation use.

The importance ratio in Closed-RL. With one update per batch (the official Closed-RL setting)
TRL computes no old log-probs and the ratio is exactly 1 (the loss uses `logp - logp.detach()`).
With several updates per batch TRL computes the old log-probs itself, on the same (closed
prompt + completion) ids the loss uses, so the ratio is pi_new(c | closed) / pi_old(c | closed):
the clipping acts on the closed-book policy, never on the open-book one that sampled. The
sampling log-probs under the open prompt are not returned, and vLLM's importance-sampling
correction (which would compare against them) is off in both modes.

The resolved settings, package versions and the per-step log go next to the checkpoint
(`sebench_grpo.json`, `grpo_log.jsonl`), as `train sft` does.
"""

from __future__ import annotations

import json
import shutil
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from sebench.data.schema import Task
from sebench.errors import SebenchError, require
from sebench.grading.grader import Grader
from sebench.jsonl import iter_jsonl, write_jsonl
from sebench.prompts.modes import PromptMode
from sebench.prompts.render import render_prompt
from sebench.provenance import provenance
from sebench.training.quiet import quiet_progress, remove_printing_callbacks
from sebench.training.rewards import HACKING_SIGNALS, SebenchReward
from sebench.training.sft import _plain_lm_head, apply_freezing

RUN_FILE = "sebench_grpo.json"
LOG_FILE = "grpo_log.jsonl"
CHECKPOINTS = "checkpoints"  # TRL's output_dir: checkpoint-N folders to resume from
NO_CLIP = 1e9  # a clip range no ratio reaches: clipping effectively off


class RLMode(StrEnum):
    """Which prompt the update is computed on (generation always sees the docs)."""

    OPEN = "open"
    CLOSED = "closed"


@dataclass(frozen=True)
class GRPOSettings:
    """One GRPO job. Defaults: the paper's official RL scripts unless marked otherwise."""

    learning_rate: float = 1e-6  # official GRPO scripts
    prompts_per_step: int = 32  # official: train batch of 32 prompts
    generations_per_prompt: int = 8  # official: 8 rollouts per prompt (the group)
    beta: float = 0.0  # official: KL coefficient 0 (so no reference model is kept)
    clip_low: float = 0.2  # official: PPO clip ratio 0.2 (TRL `epsilon`)
    clip_high: float = 0.2  # official: symmetric clip (TRL `epsilon_high`; DAPO uses 0.28)
    temperature: float = 1.0  # official: rollout temperature 1.0
    loss_type: str = "dapo"  # official: token-mean loss aggregation; TRL's name for it is dapo
    # Updates per generated batch (TRL `num_iterations`); None: the mode's official value,
    # Open-RL 2, Closed-RL 1 (`updates_for`).
    updates_per_batch: int | None = None
    scale_rewards: str = "group"  # official: GRPO advantage normalised by the group's std
    drop_negative_advantages: bool = False  # ablation: only positive-advantage samples update
    max_steps: int = 20  # ours: optimizer steps; the paper trains far longer on a GPU
    max_completion_length: int = 512  # ours: a task's answer is well under 200 tokens
    micro_batch_size: int = 8  # ours: completions per forward/backward (memory, not maths)
    max_grad_norm: float = 1.0  # official: gradient clipping 1.0
    weight_decay: float = 0.0  # TRL default
    lr_scheduler: str = "constant"  # official: constant learning rate
    seed: int = 0
    bf16: bool = False  # CPU: float32 (TRL's advice); GPU recipes turn bf16 on
    # Ours: a checkpoint to resume from every 10 steps (and one at the end, which a longer run
    # continues from); 0: none, a killed run starts again. One is 1 GB with SmolLM2-135M.
    save_steps: int = 10
    save_total_limit: int = 2  # ours: keep the last two checkpoints only
    samples_logged: int = 2  # completions kept per step in the log
    use_vllm: bool = False  # GPU recipes: vLLM generation (TRL's colocate or server mode)
    vllm_mode: str = "colocate"
    gradient_checkpointing: bool = False  # GPU memory option
    # Ours: the official scripts train every weight (0.0, False). On a CPU, RL after `train sft`
    # can train exactly what SFT trained (its bottom layers and embeddings frozen): the embeddings
    # are tied to the output head in small models, and moving them moves every token's logit.
    freeze_fraction: float = 0.0
    freeze_embeddings: bool = False

    def updates_for(self, mode: RLMode) -> int:
        if self.updates_per_batch is not None:
            return self.updates_per_batch
        return 2 if mode is RLMode.OPEN else 1  # official Open-RL / Closed-RL scripts

    def check(self) -> None:
        if self.generations_per_prompt < 2:
            raise SebenchError("GRPO needs at least 2 generations per prompt (a group)")
        if self.save_steps < 0:
            raise SebenchError(
                f"save steps must be 0 (no checkpoints) or more (got {self.save_steps})"
            )
        if not 0 <= self.freeze_fraction < 1:
            raise SebenchError(
                f"freeze fraction must be at least 0 and below 1 (got {self.freeze_fraction})"
            )


@dataclass(frozen=True)
class StepLog:
    """One line of `grpo_log.jsonl`: one optimizer step."""

    step: int
    max_steps: int
    reward_mean: float | None
    frac_zero_spread: float | None  # groups whose rewards are all equal: no learning signal
    completion_length: float | None
    loss: float | None
    verdicts: dict[str, int]  # since the previous step; empty on a reused batch
    hacking_signals: dict[str, int]
    infra_retried: int
    unscored: int
    samples: list[dict[str, Any]]
    seconds: float
    # Where the step's time went: sampling the completions (0 on a reused batch) and grading
    # them; the rest is the forward and backward passes and the optimizer.
    generation_seconds: float = 0.0
    grading_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


StepCallback = Callable[[StepLog], None]
# A task's chat messages for a prompt mode (OPEN: what generation sees; CLOSED: the closed book).
PromptFn = Callable[[Task, PromptMode], list[dict[str, Any]]]


@dataclass
class GRPOResult:
    out_dir: Path
    steps: list[StepLog]
    train_seconds: float
    resumed_from: str | None
    record: dict[str, Any] = field(default_factory=dict)
    model: Any = None  # the trained model, in memory (for evaluation in the same process)
    tokenizer: Any = None


# -- prompts ------------------------------------------------------------------------------------
def benchmark_prompts(library: Any) -> PromptFn:
    """The benchmark's prompts (`sebench.prompts`): the default."""
    return lambda task, mode: render_prompt(task, library, mode)


def prompt_rows(
    tasks: Sequence[Task], library: Any, prompts: PromptFn | None = None
) -> list[dict[str, Any]]:
    """The training dataset: the prompt with docs (what generation sees) and the task id."""
    prompts = prompts or benchmark_prompts(library)
    return [{"prompt": prompts(task, PromptMode.OPEN), "task_id": task.task_id} for task in tasks]


def _key(messages: Sequence[dict[str, Any]]) -> str:
    return json.dumps(list(messages), sort_keys=True)


class ClosedBookRollout:
    """TRL `rollout_func` for Closed-RL: sample from the open prompt, return the closed one.

    TRL hands over the batch's prompts (the dataset's open prompts, each repeated once per
    generation); the closed prompt is found by the open prompt's text (the same task text gives
    the same closed prompt). Generation uses the trainer's own path (`_tokenize_prompts`,
    `_generate_single_turn`: transformers or vLLM), so sampling settings are TRL's.
    """

    def __init__(
        self, tasks: Sequence[Task], library: Any, prompts: PromptFn | None = None
    ) -> None:
        prompts = prompts or benchmark_prompts(library)
        self.closed: dict[str, list[dict[str, Any]]] = {}
        for task in tasks:
            key = _key(prompts(task, PromptMode.OPEN))
            closed = prompts(task, PromptMode.CLOSED)
            if self.closed.setdefault(key, closed) != closed:
                raise SebenchError(f"task {task.task_id}: one open prompt, two closed prompts")

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        open_ids, _, _ = trainer._tokenize_prompts(prompts)
        completion_ids, _ = trainer._generate_single_turn(
            open_ids, None, {}, trainer.num_generations
        )
        closed_ids, _, _ = trainer._tokenize_prompts([self.closed[_key(p)] for p in prompts])
        # No sampling log-probs: they belong to the open prompt, and the loss never uses them.
        return {"prompt_ids": closed_ids, "completion_ids": completion_ids, "logprobs": None}


# -- trainer ------------------------------------------------------------------------------------
# TRL loss types whose per-token loss is the advantage times a finite factor: a batch whose every
# advantage is 0 has loss 0 and gradient 0 (with no KL term, no entropy bonus, no auxiliary loss).
_ADVANTAGE_TIMES = frozenset({"grpo", "bnpo", "dr_grpo", "dapo", "luspo", "cispo"})


def _loss_is_zero(trainer: Any, advantages: Any) -> bool:
    return (
        trainer.beta == 0.0
        and not trainer.aux_loss_enabled
        and not getattr(trainer, "_entropy_bonus_enabled", False)
        and trainer.loss_type in _ADVANTAGE_TIMES
        and not bool(advantages.any())
    )


def _trainer_class(trl: Any, torch: Any, answer_only: bool) -> Any:
    class SebenchGRPOTrainer(trl.GRPOTrainer):
        """GRPO with one ablation TRL lacks: drop negative-advantage samples (advantage set to
        0, so they give no gradient; their tokens still count in the token-mean denominator).

        `answer_only` (CPU): log-probs projected through the LM head at the completion positions
        only. TRL's fused LM head scores only those on Triton devices, but on a CPU it scores every
        position of the batch, prompt included; with a long open-book prompt and a short
        completion that was nine tenths of a step (profiled with the tiny model).
        """

        drop_negative_advantages = False
        generation_seconds = 0.0  # all sampling so far (both modes generate through here)

        def _generate_single_turn(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            started = time.perf_counter()
            try:
                return super()._generate_single_turn(*args, **kwargs)
            finally:
                self.generation_seconds += time.perf_counter() - started

        def _generate_and_score_completions(self, inputs):  # noqa: ANN001, ANN202
            batch = super()._generate_and_score_completions(inputs)
            if self.drop_negative_advantages:
                batch["advantages"] = batch["advantages"].clamp(min=0.0)
            return batch

        def _compute_loss(self, model, inputs):  # noqa: ANN001, ANN202
            if not _loss_is_zero(self, inputs["advantages"]):
                return super()._compute_loss(model, inputs)
            # Every advantage of this batch is 0 (all its groups had equal rewards: RL from a base
            # model that never answers right, the RL Gap's mechanism) and there is no KL term, so
            # TRL's loss is exactly 0 and so is every gradient; its forward and backward passes
            # would cost most of the step for nothing. The same zero gradient, made cheaply: every
            # trainable weight gets a zero gradient (not none), so AdamW steps exactly as it would.
            trainable = [p for p in model.parameters() if p.requires_grad]
            return torch.stack([p.sum() for p in trainable]).sum() * 0.0

        def _get_per_token_logps_and_entropies(  # noqa: ANN202
            self,
            model,  # noqa: ANN001
            input_ids,  # noqa: ANN001
            attention_mask,  # noqa: ANN001
            logits_to_keep,  # noqa: ANN001
            batch_size=None,  # noqa: ANN001
            compute_entropy=False,  # noqa: ANN001
            compute_aux_loss=False,  # noqa: ANN001
            **multimodal,  # noqa: ANN003
        ):
            if (
                not answer_only
                or compute_aux_loss
                or any(v is not None for v in multimodal.values())
            ):
                return super()._get_per_token_logps_and_entropies(
                    model,
                    input_ids,
                    attention_mask,
                    logits_to_keep,
                    batch_size=batch_size,
                    compute_entropy=compute_entropy,
                    compute_aux_loss=compute_aux_loss,
                    **multimodal,
                )
            backbone = getattr(model, model.base_model_prefix)
            head = model.get_output_embeddings()
            logps, entropies = [], []
            # One sequence at a time: its (completion x vocabulary) log-probs are the peak memory.
            for row in range(input_ids.size(0)):
                with self.accelerator.autocast():
                    hidden = backbone(
                        input_ids=input_ids[row : row + 1],
                        attention_mask=attention_mask[row : row + 1],
                        use_cache=False,
                    ).last_hidden_state[:, -logits_to_keep - 1 : -1]
                logits = head(hidden).float() / self.temperature
                all_logps = logits.log_softmax(dim=-1)
                targets = input_ids[row : row + 1, -logits_to_keep:]
                logps.append(all_logps.gather(-1, targets.unsqueeze(-1)).squeeze(-1))
                if compute_entropy:
                    entropies.append(-(all_logps.exp() * all_logps).sum(-1))
            entropy = torch.cat(entropies) if compute_entropy else None
            return torch.cat(logps), entropy, None

    return SebenchGRPOTrainer


def grpo_config(settings: GRPOSettings, mode: RLMode, output_dir: str) -> Any:
    """TRL's `GRPOConfig` with every paper value set explicitly (TRL's defaults move)."""
    torch = require("torch", "train")
    trl = require("trl", "train")
    settings.check()
    accelerate = require("accelerate", "train")
    # Under `accelerate launch` each process takes its share of the step's completions.
    processes = accelerate.PartialState().num_processes
    completions = settings.prompts_per_step * settings.generations_per_prompt
    if completions % (settings.micro_batch_size * processes):
        raise SebenchError(
            f"micro batch {settings.micro_batch_size} x {processes} processes does not divide "
            f"the {completions} completions of a step"
        )
    accumulation = completions // (settings.micro_batch_size * processes)
    # transformers 5 renamed gradient checkpointing (the old name warns); older ones know only it.
    checkpointing = (
        "activation_checkpointing"
        if "activation_checkpointing" in trl.GRPOConfig.__dataclass_fields__
        else "gradient_checkpointing"
    )
    return trl.GRPOConfig(
        **{checkpointing: settings.gradient_checkpointing},
        output_dir=output_dir,
        max_steps=settings.max_steps,
        per_device_train_batch_size=settings.micro_batch_size,
        gradient_accumulation_steps=accumulation,
        steps_per_generation=accumulation,  # one generation batch per optimizer step
        num_generations=settings.generations_per_prompt,
        num_iterations=settings.updates_for(mode),
        learning_rate=settings.learning_rate,
        lr_scheduler_type=settings.lr_scheduler,
        warmup_steps=0,
        weight_decay=settings.weight_decay,
        max_grad_norm=settings.max_grad_norm,
        beta=settings.beta,
        epsilon=settings.clip_low,
        epsilon_high=settings.clip_high,
        temperature=settings.temperature,
        top_p=1.0,
        top_k=0,
        # The Trainer turns the model's `use_cache` off for training, and TRL's generation config
        # leaves it unset, so transformers' generate recomputed the whole open-book prefix for
        # every new token: SmolLM2, 4 completions of 48 tokens, 2.4 s per token on this CPU.
        generation_kwargs={"use_cache": True},
        loss_type=settings.loss_type,
        scale_rewards=settings.scale_rewards,
        max_completion_length=settings.max_completion_length,
        seed=settings.seed,
        data_seed=settings.seed,
        bf16=settings.bf16,
        use_cpu=not torch.cuda.is_available(),
        use_vllm=settings.use_vllm,
        vllm_mode=settings.vllm_mode,
        vllm_importance_sampling_correction=False,  # see the module docstring
        logging_steps=1,
        save_strategy="steps" if settings.save_steps else "no",
        save_steps=settings.save_steps or None,
        save_total_limit=settings.save_total_limit,
        report_to="none",
        disable_tqdm=True,
        log_completions=False,  # our log keeps a few completions itself
        dataloader_num_workers=0,
    )


def build_trainer(
    model: Any,
    tokenizer: Any,
    tasks: Sequence[Task],
    library: Any,
    reward: Callable[..., list[float | None]],  # usually a SebenchReward
    settings: GRPOSettings,
    mode: RLMode,
    output_dir: str,
    callbacks: Sequence[Any] = (),
    prompts: PromptFn | None = None,
) -> Any:
    """A GRPO trainer over `tasks` for `mode`, not yet run."""
    apply_freezing(model, settings.freeze_fraction, settings.freeze_embeddings)
    trl = require("trl", "train")
    datasets = require("datasets", "train")
    transformers = require("transformers", "train")
    if not tasks:
        raise SebenchError("no training tasks")
    transformers.set_seed(settings.seed)
    dataset = datasets.Dataset.from_list(prompt_rows(tasks, library, prompts))
    rollout = ClosedBookRollout(tasks, library, prompts) if mode is RLMode.CLOSED else None
    torch = require("torch", "train")
    answer_only = not torch.cuda.is_available() and _plain_lm_head(model)
    trainer_class = _trainer_class(trl, torch, answer_only)
    with quiet_progress(), warnings.catch_warnings():
        # TRL warns that `rollout_func` is experimental: known, and checked by our tests.
        warnings.filterwarnings("ignore", message="You are using 'rollout_func'")
        trainer = trainer_class(
            model=model,
            reward_funcs=[reward],
            args=grpo_config(settings, mode, output_dir),
            train_dataset=dataset,
            processing_class=tokenizer,
            callbacks=list(callbacks),
            rollout_func=rollout,
        )
    trainer.drop_negative_advantages = settings.drop_negative_advantages
    remove_printing_callbacks(trainer)
    return trainer


def _step_logger(
    reward: SebenchReward, settings: GRPOSettings, log_path: Path, on_step: StepCallback | None
) -> Any:
    transformers = require("transformers", "train")

    class StepLogger(transformers.TrainerCallback):
        """One JSONL line per optimizer step, from TRL's metrics and the reward's counts."""

        def __init__(self) -> None:
            self.steps: list[StepLog] = []
            self.last = time.perf_counter()
            self.trainer: Any = None  # set once built: its generation time is read per step
            self.generated = 0.0

        def on_log(self, args, state, control, logs=None, **kwargs):  # noqa: ANN001
            if not logs or "reward" not in logs and "loss" not in logs:
                return
            stats = reward.drain()
            now = time.perf_counter()
            verdicts = dict(sorted(stats.verdicts.items()))
            generated = getattr(self.trainer, "generation_seconds", 0.0)
            entry = StepLog(
                step=state.global_step,
                max_steps=settings.max_steps,
                reward_mean=logs.get("reward"),
                frac_zero_spread=logs.get("frac_reward_zero_std"),
                completion_length=logs.get("completions/mean_length"),
                loss=logs.get("loss"),
                verdicts=verdicts,
                hacking_signals={k.value: verdicts.get(k.value, 0) for k in HACKING_SIGNALS},
                infra_retried=stats.retried,
                unscored=stats.unscored,
                samples=[
                    {**asdict(s), "verdict": s.verdict.value}
                    for s in stats.samples[: settings.samples_logged]
                ],
                seconds=round(now - self.last, 3),
                generation_seconds=round(generated - self.generated, 3),
                # microseconds kept: a batch of static verdicts (no code) grades in well under 1 ms
                grading_seconds=round(stats.seconds, 6),
            )
            self.last = now
            self.generated = generated
            self.steps.append(entry)
            with log_path.open("a") as handle:
                handle.write(json.dumps(entry.to_dict()) + "\n")
            if on_step is not None:
                on_step(entry)

    return StepLogger()


def _last_checkpoint(folder: Path) -> str | None:
    if not folder.is_dir():
        return None
    from transformers.trainer_utils import get_last_checkpoint

    return get_last_checkpoint(str(folder))


def _keep_log_until(log_path: Path, step: int) -> None:
    """A resumed run repeats the steps after its checkpoint: drop their old log lines."""
    if log_path.is_file():
        kept = [row for _, row in iter_jsonl(log_path) if row.get("step", 0) <= step]
        write_jsonl(log_path, kept)


def train_grpo(
    model_dir: str | Path,
    tasks: Sequence[Task],
    library: Any,
    mode: RLMode,
    out_dir: str | Path,
    settings: GRPOSettings | None = None,
    *,
    grader: Grader | None = None,
    on_step: StepCallback | None = None,
    extra_record: dict[str, Any] | None = None,
    prompts: PromptFn | None = None,
    save_model: bool = True,
    keep_checkpoints: bool = True,
) -> GRPOResult:
    """Train the model in `model_dir` (a base model or an SFT output folder) with GRPO.

    `out_dir` receives the final model and tokenizer (loadable like an SFT folder),
    `sebench_grpo.json` and `grpo_log.jsonl`; `out_dir/checkpoints` holds the checkpoints a
    killed run resumes from (automatically, when present). `grader`: an already started one to
    share (its owner closes it); otherwise one is started here and closed at the end.
    `prompts`: the chat messages of each task (default: the benchmark's). `save_model=False`
    keeps the trained model in memory only (`GRPOResult.model`), without writing its weights.
    `keep_checkpoints=False` deletes the checkpoints once the run has finished: for a pipeline
    that records its finished steps (and resumes from that record) they are dead weight, the
    weights and the optimizer's state (1 GB with SmolLM2-135M); kept, a longer run in the same
    folder continues from the last.
    """
    from sebench.training.sft import load_model

    settings = settings or GRPOSettings()
    mode = RLMode(mode)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / LOG_FILE
    checkpoints = out / CHECKPOINTS
    resume = _last_checkpoint(checkpoints)
    if resume is None:
        log_path.unlink(missing_ok=True)
    else:
        _keep_log_until(log_path, int(Path(resume).name.rsplit("-", 1)[-1]))

    model, tokenizer = load_model(model_dir)
    own_grader = grader is None
    grader = grader or Grader(library)
    try:
        grader.start()
        reward = SebenchReward(grader, {t.task_id: t for t in tasks}, settings.samples_logged)
        logger = _step_logger(reward, settings, log_path, on_step)
        trainer = build_trainer(
            model,
            tokenizer,
            tasks,
            library,
            reward,
            settings,
            mode,
            str(checkpoints),
            [logger],
            prompts,
        )
        logger.trainer = trainer
        started = time.perf_counter()
        # Checkpoint saves draw "Writing model shards" bars; TRL asks the model the deprecated
        # `is_gradient_checkpointing` (transformers 5 warns on every step).
        with quiet_progress(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*")
            trainer.train(resume_from_checkpoint=resume)
        seconds = time.perf_counter() - started
    finally:
        if own_grader:
            grader.close()

    trained = trainer.accelerator.unwrap_model(trainer.model, keep_fp32_wrapper=False)
    trained.config.use_cache = True  # the Trainer turns it off; generation needs it
    if save_model:
        with quiet_progress():
            trained.save_pretrained(out)
            tokenizer.save_pretrained(out)
    if not keep_checkpoints:
        shutil.rmtree(checkpoints, ignore_errors=True)
    record = provenance(
        resolved(settings, mode),
        stage="grpo",
        mode=mode.value,
        init=str(model_dir),
        tasks=len(tasks),
        library=library.package,
        train_seconds=round(seconds, 2),
        resumed_from=resume,
        steps_logged=len(logger.steps),
        **(extra_record or {}),
    )
    (out / RUN_FILE).write_text(json.dumps(record, indent=2) + "\n")
    return GRPOResult(
        out_dir=out,
        steps=logger.steps,
        train_seconds=seconds,
        resumed_from=resume,
        record=record,
        model=trained,
        tokenizer=tokenizer,
    )


def resolved(settings: GRPOSettings, mode: RLMode) -> dict[str, Any]:
    """The settings as saved: the mode's default number of updates per batch filled in."""
    return asdict(replace(settings, updates_per_batch=settings.updates_for(mode)))


def settings_from_dict(values: dict[str, Any]) -> GRPOSettings:
    """Rebuild settings from their saved form (`sebench_grpo.json`'s `config`)."""
    known = {k: v for k, v in values.items() if k in GRPOSettings.__dataclass_fields__}
    return GRPOSettings(**known)
