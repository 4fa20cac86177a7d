"""Supervised fine-tuning on TRL's `SFTTrainer`, with the loss on the response tokens only.

The closed and open arms of the paradox call this with identical settings; only their prompts
differ (`sebench.training.sft_data`). CPU speed options: bf16 autocast and freezing the lower
layers with the (tied) embeddings, so that backward stops halfway. GPU options: bf16, LoRA (peft)
and gradient checkpointing. The resolved config, package versions and the loss curve are saved
with the checkpoint (`sebench_sft.json`).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError, require
from sebench.provenance import provenance
from sebench.training.cpu import machine_report
from sebench.training.precision import Precision, decide_precision
from sebench.training.quiet import quiet_progress, remove_printing_callbacks
from sebench.training.sft_data import SFTExample

RUN_FILE = "sebench_sft.json"


@dataclass(frozen=True)
class SFTTrainingConfig:
    """One SFT job. Defaults: the laptop recipe (docs/demo.md), measured on a 2-core CPU."""

    max_steps: int = 40  # laptop recipe: 40 steps for 6 functions
    # Laptop recipe (official SE-Bench: global batch 32). Measured here: 6 is a quarter cheaper
    # but closed-SFT fell to 50% on the demo's seed (docs/demo.md).
    batch_size: int = 8
    gradient_accumulation_steps: int = 1
    learning_rate: float = (
        2e-4  # measured here (docs/demo.md); laptop recipe 1e-4; official 8B: 1e-5
    )
    adam_beta1: float = 0.9  # laptop recipe (nanoGPT)
    adam_beta2: float = 0.95  # laptop recipe (nanoGPT)
    weight_decay: float = 0.0  # TRL default
    warmup_steps: int = 4  # laptop recipe: a short linear warmup, then linear decay
    lr_scheduler: str = "linear"  # laptop recipe (official SE-Bench: cosine, 10% warmup)
    max_grad_norm: float = 1.0  # transformers default
    max_length: int = 1024  # TRL default; the demo's examples are ~100-200 tokens
    seed: int = 0
    # None: decide from the hardware (`sebench.training.precision`): bf16 autocast only where the
    # CPU multiplies bf16 natively (AVX-512 BF16, AMX), where it was 1.3x faster than fp32; on an
    # AVX2-only CPU it is emulated and 30x slower. GPU: bf16 mixed precision where supported.
    bf16: bool | None = None
    # Fraction of the decoder layers, from the bottom, frozen (a fraction, so that any `--model`
    # works): 10 of SmolLM2's 30. The laptop recipe froze 15, which is faster (backward stops
    # halfway) but left max and min confused on held-out phrasing in 2 of 3 seeds.
    freeze_fraction: float = 0.33  # measured here: 0.5 left max/min confused on held-out phrasing
    freeze_embeddings: bool = True  # input embeddings (tied to the output head in SmolLM2)
    lora_rank: int = 0  # 0: full fine-tune of the unfrozen part; > 0: LoRA adapters (peft)
    lora_alpha: int = 32  # peft's usual 2x rank for rank 16
    lora_dropout: float = 0.0
    lora_target_modules: tuple[str, ...] = (
        "q_proj",
        "k_proj",
        "v_proj",
        "o_proj",
        "gate_proj",
        "up_proj",
        "down_proj",
    )
    gradient_checkpointing: bool = False  # GPU memory option; slower
    logging_steps: int = 1

    def __post_init__(self) -> None:
        for name in ("max_steps", "batch_size", "gradient_accumulation_steps"):
            if getattr(self, name) < 1:
                raise SebenchError(
                    f"{name} must be at least 1 (got {getattr(self, name)}): nothing would be "
                    "trained"
                )
        if self.learning_rate <= 0:
            raise SebenchError(f"learning rate must be positive (got {self.learning_rate})")
        if not 0 <= self.freeze_fraction <= 1:
            raise SebenchError(
                f"freeze fraction must be between 0 and 1 (got {self.freeze_fraction})"
            )


@dataclass
class SFTResult:
    """A trained model kept in memory (for evaluation in the same process) and its record."""

    model: Any
    tokenizer: Any
    losses: list[float]
    train_seconds: float
    trainable_parameters: int
    total_parameters: int
    precision: Precision | None = None
    out_dir: Path | None = None
    record: dict[str, Any] = field(default_factory=dict)


ProgressCallback = Callable[[int, int, float | None], None]  # step, max_steps, loss


def load_model(model_path: str | Path) -> tuple[Any, Any]:
    """A local Hugging Face checkpoint and its tokenizer, in float32 (the CPU training dtype)."""
    transformers = require("transformers", "train")
    path = Path(model_path)
    if not (path / "config.json").is_file():
        raise SebenchError(
            f"{path}: not a Hugging Face model folder (no config.json); pass --model PATH to a "
            "local checkpoint, or omit it for the default SmolLM2-135M-Instruct"
        )
    with quiet_progress():
        model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype="float32")
        tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    return model, tokenizer


def _decoder_layers(model: Any) -> Sequence[Any]:
    inner = getattr(model, "model", None)
    layers = getattr(inner, "layers", None)
    if layers is None:
        raise SebenchError(
            f"cannot freeze layers of {type(model).__name__}: no `model.layers`; use --freeze-fraction 0"
        )
    return layers


def apply_freezing(model: Any, fraction: float, embeddings: bool) -> None:
    """Freeze the input embeddings (`embeddings`) and the lower `fraction` of the decoder layers:
    gradients then never flow below the first trainable layer, which skips half of the backward
    pass. Used by SFT and by GRPO (which can train exactly what SFT trained)."""
    if embeddings:
        for parameter in model.get_input_embeddings().parameters():
            parameter.requires_grad_(False)
    if fraction > 0:
        layers = _decoder_layers(model)
        count = frozen_layer_count(len(layers), fraction)
        if count >= len(layers):
            raise SebenchError(
                f"freeze_fraction={fraction} leaves nothing to train "
                f"(the model has {len(layers)} layers)"
            )
        for layer in layers[:count]:
            for parameter in layer.parameters():
                parameter.requires_grad_(False)


def frozen_layer_count(layers: int, fraction: float) -> int:
    """The lower `fraction` of `layers`, rounded; below 1 it always leaves one layer to train
    (the demo's 0.8 of a 2-layer test model would otherwise freeze both)."""
    count = int(round(layers * fraction))
    return min(count, layers - 1) if fraction < 1 else count


def _apply_lora(model: Any, config: SFTTrainingConfig) -> Any:
    peft = require("peft", "train")
    lora = peft.LoraConfig(
        r=config.lora_rank,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=list(config.lora_target_modules),
        task_type="CAUSAL_LM",
    )
    return peft.get_peft_model(model, lora)


def resolve_precision(config: SFTTrainingConfig) -> Precision:
    """The precision `config` trains in on this machine (`config.bf16` None: the hardware's)."""
    torch = require("torch", "train")
    on_gpu = torch.cuda.is_available()
    return decide_precision(
        config.bf16, on_gpu=on_gpu, gpu_bf16=on_gpu and torch.cuda.is_bf16_supported()
    )


def _trl_args(config: SFTTrainingConfig, output_dir: str, bf16: bool) -> Any:
    torch = require("torch", "train")
    trl = require("trl", "train")
    on_gpu = torch.cuda.is_available()
    # transformers 5 renamed gradient checkpointing (the old name warns); older ones know only it.
    fields = trl.SFTConfig.__dataclass_fields__
    checkpointing = (
        "activation_checkpointing"
        if "activation_checkpointing" in fields
        else "gradient_checkpointing"
    )
    return trl.SFTConfig(
        **{checkpointing: config.gradient_checkpointing},
        output_dir=output_dir,
        max_steps=config.max_steps,
        per_device_train_batch_size=config.batch_size,
        gradient_accumulation_steps=config.gradient_accumulation_steps,
        learning_rate=config.learning_rate,
        # One fused kernel instead of a loop over tensors: 0.35 s -> 0.12 s per step for 70M
        # trainable parameters on the 2-core CPU (torch >= 2.4 fuses on CPU too).
        optim="adamw_torch_fused",
        adam_beta1=config.adam_beta1,
        adam_beta2=config.adam_beta2,
        weight_decay=config.weight_decay,
        warmup_steps=config.warmup_steps,
        lr_scheduler_type=config.lr_scheduler,
        max_grad_norm=config.max_grad_norm,
        max_length=config.max_length,
        seed=config.seed,
        data_seed=config.seed,
        bf16=bf16,
        use_cpu=not on_gpu,
        completion_only_loss=True,  # loss on the response tokens only
        logging_steps=config.logging_steps,
        save_strategy="no",
        report_to="none",
        disable_tqdm=True,
        dataloader_num_workers=0,
        # Examples are already in training order (identical for both arms): keep it.
        shuffle_dataset=False,
    )


def _answer_only_trainer(trl: Any, torch: Any) -> Any:
    """`SFTTrainer` with a loss that projects only the answer positions through the LM head.

    TRL's fused LM head scores only the labelled positions on Triton devices, but on a CPU it
    scores every position of the batch in chunks; measured on the 2-core CPU this made a step 1.85x
    slower (3.0 s against 1.6 s). Same loss: the sum of the answer tokens' negative
    log-likelihoods over their count (`num_items_in_batch` across gradient accumulation).
    """

    class AnswerOnlySFTTrainer(trl.SFTTrainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):  # noqa: ANN001
            backbone = getattr(model, model.base_model_prefix)
            labels = inputs["labels"][:, 1:]
            mask = labels != -100
            # accelerate puts bf16 autocast around `model.forward` only, which this path does
            # not call: without this block `bf16=True` changed nothing (same losses and times).
            with self.accelerator.autocast():
                hidden = backbone(
                    input_ids=inputs["input_ids"],
                    attention_mask=inputs.get("attention_mask"),
                    use_cache=False,
                ).last_hidden_state
                logits = model.get_output_embeddings()(hidden[:, :-1][mask])
            total = torch.nn.functional.cross_entropy(logits.float(), labels[mask], reduction="sum")
            count = num_items_in_batch if num_items_in_batch is not None else mask.sum()
            loss = total / torch.as_tensor(count, device=total.device).clamp(min=1)
            return (loss, {"logits": logits}) if return_outputs else loss

    return AnswerOnlySFTTrainer


def _plain_lm_head(model: Any) -> bool:
    """True for models whose logits are just the LM head's output (no softcapping or scaling),
    where projecting only the answer positions gives exactly the model's own loss."""
    config = (
        model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    )
    scaled = any(
        getattr(config, name, None) not in (None, 1.0)
        for name in (
            "final_logit_softcapping",
            "logit_scale",
            "output_multiplier",
            "lm_head_multiplier",
            "logits_scaling",
        )
    )
    return (
        not scaled
        and hasattr(model, "base_model_prefix")
        and hasattr(model, model.base_model_prefix)
    )


def build_trainer(
    model: Any,
    tokenizer: Any,
    examples: Sequence[SFTExample],
    config: SFTTrainingConfig,
    output_dir: str,
    callbacks: Sequence[Any] = (),
    precision: Precision | None = None,
) -> Any:
    """A TRL `SFTTrainer` over `examples` with `config` applied (freezing, LoRA, precision:
    `resolve_precision(config)` unless given); not yet run."""
    transformers = require("transformers", "train")
    trl = require("trl", "train")
    datasets = require("datasets", "train")

    transformers.set_seed(config.seed)
    apply_freezing(model, config.freeze_fraction, config.freeze_embeddings)
    if config.lora_rank > 0:
        model = _apply_lora(model, config)
    dataset = datasets.Dataset.from_list(
        [{"prompt": e.prompt, "completion": e.completion} for e in examples]
    )
    torch = require("torch", "train")
    trainer_class = trl.SFTTrainer
    if not torch.cuda.is_available() and config.lora_rank == 0 and _plain_lm_head(model):
        trainer_class = _answer_only_trainer(trl, torch)
    with quiet_progress():
        trainer = trainer_class(
            model=model,
            args=_trl_args(config, output_dir, (precision or resolve_precision(config)).bf16),
            train_dataset=dataset,
            processing_class=tokenizer,
            callbacks=list(callbacks),
        )
    remove_printing_callbacks(trainer)
    return trainer


def train_sft(
    model: Any,
    tokenizer: Any,
    examples: Sequence[SFTExample],
    config: SFTTrainingConfig | None = None,
    *,
    out_dir: str | Path | None = None,
    on_progress: ProgressCallback | None = None,
    extra_record: dict[str, Any] | None = None,
) -> SFTResult:
    """Fine-tune `model` in place on prompt/completion `examples`.

    `model` and `tokenizer` are already loaded (`load_model`), so one process can train several
    arms without reloading. With `out_dir` the checkpoint, tokenizer and `sebench_sft.json` (the
    resolved config, versions, seeds and losses) are written there.
    """
    config = config or SFTTrainingConfig()
    if not examples:
        raise SebenchError("no training examples")
    transformers = require("transformers", "train")
    losses: list[float] = []

    class _Progress(transformers.TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):  # noqa: ANN001
            if logs and "loss" in logs:
                losses.append(float(logs["loss"]))
                if on_progress is not None:
                    on_progress(state.global_step, config.max_steps, float(logs["loss"]))

    precision = resolve_precision(config)
    with tempfile.TemporaryDirectory(prefix="sebench-sft-") as scratch:
        trainer = build_trainer(
            model,
            tokenizer,
            examples,
            config,
            scratch,
            callbacks=[_Progress()],
            precision=precision,
        )
        trainable = sum(p.numel() for p in trainer.model.parameters() if p.requires_grad)
        total = sum(p.numel() for p in trainer.model.parameters())
        started = time.perf_counter()
        trainer.train()
        seconds = time.perf_counter() - started
    # Undo what training set up for itself: accelerate's autocast wrapper around forward, and
    # the Trainer's `use_cache=False`, which makes generation recompute every prefix (10x slower).
    model = trainer.accelerator.unwrap_model(trainer.model, keep_fp32_wrapper=False)
    model.config.use_cache = True
    if config.lora_rank > 0:
        model = model.merge_and_unload()
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)

    record = provenance(
        config,
        stage="sft",
        examples=len(examples),
        train_seconds=round(seconds, 2),
        trainable_parameters=trainable,
        total_parameters=total,
        losses=[round(x, 5) for x in losses],
        precision=precision.to_dict(),
        machine=machine_report(),
        **(extra_record or {}),
    )
    result = SFTResult(
        model=model,
        tokenizer=tokenizer,
        precision=precision,
        losses=losses,
        train_seconds=seconds,
        trainable_parameters=trainable,
        total_parameters=total,
        record=record,
    )
    if out_dir is not None:
        result.out_dir = save_checkpoint(result, out_dir)
    return result


def save_checkpoint(result: SFTResult, out_dir: str | Path) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with quiet_progress():  # transformers draws a "Writing model shards" bar
        result.model.save_pretrained(out)
        result.tokenizer.save_pretrained(out)
    (out / RUN_FILE).write_text(json.dumps(result.record, indent=2) + "\n")
    return out


def config_from_dict(values: dict[str, Any]) -> SFTTrainingConfig:
    """Rebuild a config from its saved form (`sebench_sft.json`'s `config`)."""
    known = {k: v for k, v in values.items() if k in SFTTrainingConfig.__dataclass_fields__}
    if "lora_target_modules" in known:
        known["lora_target_modules"] = tuple(known["lora_target_modules"])
    return SFTTrainingConfig(**known)
