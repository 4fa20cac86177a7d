"""SFT on TRL with the tiny model: loss on the answer only, freezing, LoRA, saved config."""

from __future__ import annotations

import json

import pytest
import torch

from sebench.errors import SebenchError
from sebench.training.sft import (
    RUN_FILE,
    SFTTrainingConfig,
    build_trainer,
    config_from_dict,
    load_model,
    train_sft,
)
from sebench.training.sft_data import build_examples
from sebench.training.taskprompts import Arm, answer

FAST = SFTTrainingConfig(max_steps=2, batch_size=2, warmup_steps=0, freeze_fraction=0.5)


def test_labels_cover_exactly_the_answer_tokens(tiny_model, task_set, tmp_path):
    model, tokenizer = load_model(tiny_model)
    examples = build_examples(task_set.train[:2], Arm.OPEN)
    trainer = build_trainer(model, tokenizer, examples, FAST, str(tmp_path))
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(2)])
    for row in range(2):
        labels = batch["labels"][row]
        kept = labels[labels != -100].tolist()
        text = tokenizer.decode(kept)
        # the answer and the end-of-turn marker, nothing of the prompt
        assert text.startswith(answer(task_set.train[row]))
        assert "Docs:" not in text and task_set.train[row].query not in text
        first = (labels != -100).nonzero()[0].item()
        prompt_text = tokenizer.decode(batch["input_ids"][row][:first])
        assert prompt_text.rstrip().endswith("assistant")


def test_answer_only_loss_equals_the_models_own_loss(tiny_model, task_set, tmp_path):
    """The CPU trainer projects only the answer positions through the LM head; the loss must be
    the model's own mean negative log-likelihood of the answer tokens."""
    model, tokenizer = load_model(tiny_model)
    examples = build_examples(task_set.train[:3], Arm.CLOSED)
    config = SFTTrainingConfig(max_steps=1, batch_size=3, bf16=False, freeze_fraction=0)
    trainer = build_trainer(model, tokenizer, examples, config, str(tmp_path))
    assert type(trainer).__name__ == "AnswerOnlySFTTrainer"  # this machine has no GPU
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(3)])
    with torch.no_grad():
        ours = trainer.compute_loss(trainer.model, dict(batch))
        reference = model(
            input_ids=batch["input_ids"],
            attention_mask=batch["attention_mask"],
            labels=batch["labels"],
        ).loss
    assert torch.allclose(ours, reference, rtol=1e-4), (ours, reference)


def test_training_moves_only_the_unfrozen_layers(tiny_model, task_set):
    model, tokenizer = load_model(tiny_model)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    config = SFTTrainingConfig(
        max_steps=2,
        batch_size=2,
        warmup_steps=0,
        learning_rate=1e-2,
        freeze_fraction=0.5,
        bf16=False,
    )
    result = train_sft(model, tokenizer, build_examples(task_set.train[:4], Arm.CLOSED), config)
    after = dict(result.model.named_parameters())
    for name, old in before.items():
        moved = not torch.equal(old, after[name])
        if "layers.0." in name or "embed_tokens" in name:
            assert not moved, name
        elif "layers.1." in name and name.endswith("weight") and "norm" not in name:
            assert moved, name
    assert 0 < result.trainable_parameters < result.total_parameters
    assert len(result.losses) == 2


def test_trained_model_is_ready_for_fast_generation(tiny_model, task_set):
    model, tokenizer = load_model(tiny_model)
    result = train_sft(model, tokenizer, build_examples(task_set.train[:4], Arm.CLOSED), FAST)
    assert result.model.config.use_cache is True  # the Trainer turns it off for training
    assert not result.model.training
    assert not any(p.requires_grad for p in result.model.parameters())
    ids = tokenizer("hello", return_tensors="pt")
    out = result.model.generate(**ids, max_new_tokens=3, do_sample=False)
    assert out.shape[1] == ids["input_ids"].shape[1] + 3


def test_resolved_config_and_losses_are_saved_with_the_checkpoint(tiny_model, task_set, tmp_path):
    from transformers import AutoModelForCausalLM

    model, tokenizer = load_model(tiny_model)
    out = tmp_path / "ckpt"
    train_sft(
        model,
        tokenizer,
        build_examples(task_set.train[:4], Arm.OPEN),
        FAST,
        out_dir=out,
        extra_record={"arm": "open"},
    )
    record = json.loads((out / RUN_FILE).read_text())
    assert config_from_dict(record["config"]) == FAST
    assert record["arm"] == "open" and len(record["losses"]) == 2
    assert "torch" in record["versions"] and "trl" in record["versions"]
    AutoModelForCausalLM.from_pretrained(out)  # a plain, loadable checkpoint


def test_lora_trains_adapters_and_merges_back_into_a_plain_model(tiny_model, task_set):
    model, tokenizer = load_model(tiny_model)
    config = SFTTrainingConfig(
        max_steps=2,
        batch_size=2,
        warmup_steps=0,
        freeze_fraction=0,
        lora_rank=4,
        lora_alpha=8,
        bf16=False,
    )
    result = train_sft(model, tokenizer, build_examples(task_set.train[:4], Arm.CLOSED), config)
    assert result.trainable_parameters < result.total_parameters // 10
    assert type(result.model).__name__ == "LlamaForCausalLM"
    assert not any("lora" in name for name, _ in result.model.named_parameters())


def test_freezing_every_layer_is_refused(tiny_model, task_set):
    model, tokenizer = load_model(tiny_model)
    with pytest.raises(SebenchError, match="leaves nothing to train"):
        train_sft(
            model,
            tokenizer,
            build_examples(task_set.train[:2], Arm.CLOSED),
            SFTTrainingConfig(max_steps=1, freeze_fraction=1.0),
        )


def test_a_folder_without_a_model_is_a_user_error(tmp_path):
    with pytest.raises(SebenchError, match="config.json"):
        load_model(tmp_path)


@pytest.mark.parametrize("bf16", [True, False])
def test_the_precision_asked_for_is_the_one_training_runs_in(tiny_model, task_set, tmp_path, bf16):
    """The answer-only loss bypasses `model.forward`, where accelerate puts its autocast: the
    decoder's matrix work must still run in bf16 when bf16 is chosen (issue 11)."""
    from sebench.training.precision import Precision

    model, tokenizer = load_model(tiny_model)
    seen = []
    layer = model.model.layers[-1].mlp.down_proj
    layer.register_forward_hook(lambda module, args, output: seen.append(output.dtype))
    trainer = build_trainer(
        model,
        tokenizer,
        build_examples(task_set.train[:2], Arm.CLOSED),
        FAST,
        str(tmp_path),
        precision=Precision(bf16, "cpu", "test"),
    )
    assert type(trainer).__name__ == "AnswerOnlySFTTrainer"
    trainer.train()
    assert seen and set(seen) == {torch.bfloat16 if bf16 else torch.float32}


def test_an_explicit_bf16_setting_decides_the_precision(tiny_model):
    from sebench.training.sft import resolve_precision

    assert resolve_precision(SFTTrainingConfig(bf16=True)).bf16 is True
    assert resolve_precision(SFTTrainingConfig(bf16=False)).bf16 is False


@pytest.mark.parametrize(
    "bad", [{"max_steps": 0}, {"batch_size": 0}, {"learning_rate": 0}, {"freeze_fraction": 1.5}]
)
def test_settings_that_train_nothing_are_refused(bad):
    with pytest.raises(SebenchError, match="must be"):
        SFTTrainingConfig(**bad)


def test_a_freeze_fraction_below_one_always_leaves_a_layer_to_train():
    """The demo freezes 0.8 of SmolLM2's 30 layers (24); on the 2-layer test model that
    rounded to both, and the demo refused to train."""
    from sebench.training.sft import frozen_layer_count

    assert frozen_layer_count(30, 0.8) == 24 and frozen_layer_count(30, 0.33) == 10
    assert frozen_layer_count(2, 0.8) == 1 and frozen_layer_count(2, 0.5) == 1
    assert frozen_layer_count(2, 1.0) == 2  # explicit: refused later with its own message
