"""GRPO on TRL with the tiny model and the real grader: Open-RL, Closed-RL, resume, the reward."""

from __future__ import annotations

import json

import pytest
import torch

from sebench.data.rows import official_row, task_from_official_row
from sebench.errors import SebenchError
from sebench.grading.verdicts import Verdict, VerdictKind
from sebench.prompts.modes import PromptMode
from sebench.prompts.render import render_prompt, task_docs
from sebench.training.grpo import (
    CHECKPOINTS,
    LOG_FILE,
    NO_CLIP,
    RUN_FILE,
    GRPOSettings,
    RLMode,
    build_trainer,
    grpo_config,
    settings_from_dict,
    train_grpo,
)
from sebench.training.rewards import SebenchReward, reward_of
from sebench.training.sft import load_model

# 2 prompts x 2 generations, 16 new tokens: a step in seconds on one core.
TINY = GRPOSettings(
    prompts_per_step=2,
    generations_per_prompt=2,
    micro_batch_size=4,
    max_steps=2,
    max_completion_length=16,
    save_steps=100,
)


# tiny-model tests: one PyTorch thread (tests/training/conftest.py)
pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def tasks(task_set):
    """Training tasks as `sebench train tasks` writes them: official rows, read back."""
    return [task_from_official_row(official_row(t), "train") for t in task_set.train[:4]]


def _log(out) -> list[dict]:
    return [json.loads(line) for line in (out / LOG_FILE).read_text().splitlines()]


def test_open_rl_trains_two_steps_and_logs_every_verdict(
    tiny_model, tasks, seeded_lib, grader, tmp_path
):
    from transformers import AutoModelForCausalLM

    out = tmp_path / "open"
    result = train_grpo(tiny_model, tasks, seeded_lib, RLMode.OPEN, out, TINY, grader=grader)
    log = _log(out)
    assert [row["step"] for row in log] == [1, 2]
    # Open-RL updates twice per generated batch: step 1 grades 4 completions, step 2 reuses them.
    assert sum(log[0]["verdicts"].values()) == 4 and log[1]["verdicts"] == {}
    assert log[0]["reward_mean"] == 0.0 and log[0]["frac_zero_spread"] == 1.0  # random model
    assert set(log[0]["hacking_signals"]) == {"no_library", "policy", "uses_numpy"}
    assert log[0]["samples"] and "completion" in log[0]["samples"][0]
    # Where the time went: step 1 sampled and graded its batch, step 2 only updated.
    assert 0 < log[0]["generation_seconds"] < log[0]["seconds"] and log[0]["grading_seconds"] > 0
    assert log[1]["generation_seconds"] == 0 and log[1]["grading_seconds"] == 0
    record = json.loads((out / RUN_FILE).read_text())
    assert record["mode"] == "open" and record["config"]["updates_per_batch"] == 2
    assert settings_from_dict(record["config"]) == GRPOSettings(
        **{**record["config"], "updates_per_batch": 2}
    )
    assert "trl" in record["versions"] and result.resumed_from is None
    AutoModelForCausalLM.from_pretrained(out)  # loads like an SFT output folder


def test_closed_rl_resumes_from_its_last_checkpoint(
    tiny_model, tasks, seeded_lib, grader, tmp_path
):
    """A run stopped after step 1 (its checkpoint saved) continues at step 2, not from 0."""
    out = tmp_path / "closed"
    first = GRPOSettings(**{**TINY.__dict__, "max_steps": 1, "save_steps": 1})
    train_grpo(tiny_model, tasks, seeded_lib, RLMode.CLOSED, out, first, grader=grader)
    assert (out / CHECKPOINTS / "checkpoint-1").is_dir()
    result = train_grpo(tiny_model, tasks, seeded_lib, RLMode.CLOSED, out, TINY, grader=grader)
    assert result.resumed_from is not None and result.resumed_from.endswith("checkpoint-1")
    log = _log(out)
    assert [row["step"] for row in log] == [1, 2]
    # Closed-RL updates once per batch: every step generates and grades afresh.
    assert all(sum(row["verdicts"].values()) == 4 for row in log)
    record = json.loads((out / RUN_FILE).read_text())
    assert record["mode"] == "closed" and record["config"]["updates_per_batch"] == 1


@pytest.mark.parametrize(
    ("save_steps", "keep_checkpoints"), [(0, True), (1, False)], ids=["none", "deleted"]
)
def test_a_finished_run_leaves_no_checkpoint_when_none_is_wanted(
    tiny_model, tasks, seeded_lib, grader, tmp_path, save_steps, keep_checkpoints
):
    """--save-steps 0 writes none (Trainer otherwise saves one at the end); a pipeline that
    records finished steps itself deletes them (1 GB each with SmolLM2). The model stays."""
    from transformers import AutoModelForCausalLM

    out = tmp_path / "run"
    settings = GRPOSettings(**{**TINY.__dict__, "max_steps": 1, "save_steps": save_steps})
    train_grpo(
        tiny_model,
        tasks,
        seeded_lib,
        RLMode.CLOSED,
        out,
        settings,
        grader=grader,
        keep_checkpoints=keep_checkpoints,
    )
    assert not list(out.glob(f"{CHECKPOINTS}/*"))
    AutoModelForCausalLM.from_pretrained(out)


def test_negative_save_steps_are_refused():
    with pytest.raises(SebenchError, match="save steps"):
        GRPOSettings(save_steps=-1).check()


def test_a_run_interrupted_mid_way_reruns_only_the_steps_after_its_checkpoint(
    tiny_model, tasks, seeded_lib, grader, tmp_path
):
    """Ctrl-C during step 2 (checkpoint 1 saved, step 2 logged but not saved): the same
    command again resumes from checkpoint 1, and step 2's old log line is not kept twice."""
    out = tmp_path / "killed"
    settings = GRPOSettings(**{**TINY.__dict__, "save_steps": 1, "max_steps": 3})

    def interrupt_at_step_2(step):
        if step.step == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_grpo(
            tiny_model,
            tasks,
            seeded_lib,
            RLMode.CLOSED,
            out,
            settings,
            grader=grader,
            on_step=interrupt_at_step_2,
        )
    assert [row["step"] for row in _log(out)] == [1, 2]
    assert not (out / CHECKPOINTS / "checkpoint-2").exists()
    resumed = []
    result = train_grpo(
        tiny_model,
        tasks,
        seeded_lib,
        RLMode.CLOSED,
        out,
        settings,
        grader=grader,
        on_step=resumed.append,
    )
    assert result.resumed_from.endswith("checkpoint-1")
    assert [s.step for s in resumed] == [2, 3]
    assert [row["step"] for row in _log(out)] == [1, 2, 3]
    assert (out / RUN_FILE).is_file()


def test_closed_rl_loss_sees_the_closed_prompt_while_generation_saw_the_docs(
    tiny_model, tasks, seeded_lib, grader, tmp_path
):
    model, tokenizer = load_model(tiny_model)
    reward = SebenchReward(grader, {t.task_id: t for t in tasks})
    trainer = build_trainer(
        model, tokenizer, tasks[:2], seeded_lib, reward, TINY, RLMode.CLOSED, str(tmp_path)
    )
    generated_from: list[str] = []
    generate = model.generate

    def spy(*args, **kwargs):
        generated_from.extend(tokenizer.batch_decode(kwargs["input_ids"], skip_special_tokens=True))
        return generate(*args, **kwargs)

    model.generate = spy
    rows = [trainer.train_dataset[i] for i in range(2)]
    batch = trainer._generate_and_score_completions([row for row in rows for _ in range(2)])

    # A line of the first task's own doc: the longest, so that no closed prompt has it by chance.
    doc_line = max(task_docs(tasks[0], seeded_lib)[0].text.splitlines(), key=len).strip()
    assert len(generated_from) == 4 and doc_line in generated_from[0]
    assert all("### zwc functions" in prompt for prompt in generated_from)
    for index in range(4):
        mask = batch["prompt_mask"][index].bool()
        seen = tokenizer.decode(batch["prompt_ids"][index][mask])
        task = tasks[index // 2]
        closed = tokenizer.apply_chat_template(
            render_prompt(task, seeded_lib, PromptMode.CLOSED),
            tokenize=False,
            add_generation_prompt=True,
        )
        assert seen == closed
        assert "### zwc functions" not in seen and doc_line not in seen
    assert batch["completion_ids"].shape[0] == 4


def test_completion_only_log_probs_equal_trls_own(tiny_model, tasks, seeded_lib, grader, tmp_path):
    """On a CPU the trainer projects only the completion positions through the LM head; the
    log-probs and entropies must be TRL's own."""
    from trl import GRPOTrainer

    model, tokenizer = load_model(tiny_model)
    reward = SebenchReward(grader, {t.task_id: t for t in tasks})
    settings = GRPOSettings(**{**TINY.__dict__, "temperature": 0.7})
    trainer = build_trainer(
        model, tokenizer, tasks[:2], seeded_lib, reward, settings, RLMode.OPEN, str(tmp_path)
    )
    rows = [trainer.train_dataset[i] for i in range(2)]
    batch = trainer._generate_and_score_completions([row for row in rows for _ in range(2)])
    ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
    mask = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
    keep = batch["completion_ids"].size(1)
    with torch.no_grad():
        ours = trainer._get_per_token_logps_and_entropies(
            trainer.model, ids, mask, keep, compute_entropy=True
        )
        theirs = GRPOTrainer._get_per_token_logps_and_entropies(
            trainer, trainer.model, ids, mask, keep, compute_entropy=True
        )
    valid = batch["completion_mask"].bool()
    assert torch.allclose(ours[0][valid], theirs[0][valid], atol=1e-4)
    assert torch.allclose(ours[1][valid], theirs[1][valid], atol=1e-4)


@pytest.mark.parametrize("drop", [False, True])
def test_dropping_negative_advantages_leaves_only_the_better_samples(
    tiny_model, tasks, seeded_lib, tmp_path, drop
):
    def alternating(prompts, completions, **_):  # a spread in every group of two
        return [float(i % 2) for i in range(len(completions))]

    model, tokenizer = load_model(tiny_model)
    settings = GRPOSettings(**{**TINY.__dict__, "drop_negative_advantages": drop})
    trainer = build_trainer(
        model, tokenizer, tasks[:2], seeded_lib, alternating, settings, RLMode.OPEN, str(tmp_path)
    )
    rows = [trainer.train_dataset[i] for i in range(2)]
    advantages = trainer._generate_and_score_completions([r for r in rows for _ in range(2)])[
        "advantages"
    ]
    assert (advantages > 0).sum() == 2
    assert (advantages < 0).sum() == (0 if drop else 2)


class _FlakyGrader:
    """The real grader behind a sandbox that fails `failures` times for each response."""

    def __init__(self, grader, failures: int) -> None:
        self.grader = grader
        self.failures = failures
        self.seen: dict[str, int] = {}

    def grade_many(self, items):
        for item in items:
            count = self.seen[item[1]] = self.seen.get(item[1], 0) + 1
            if count <= self.failures:
                yield item, Verdict(VerdictKind.INFRA_ERROR, detail="sandbox died")
            else:
                yield item, self.grader.grade(item[0], item[1])


def _answers(task):
    return {
        "correct": f"```python\n{task.extra['target']}```",
        "wrong": "```python\nimport zwc\n\ndef solve(inputs):\n    return zwc.fadizep([0])\n```",
        "no_code": "I do not know.",
    }


def test_grader_verdict_maps_to_the_reward(tasks, grader):
    reward = SebenchReward(grader, {t.task_id: t for t in tasks})
    answers = _answers(tasks[0])
    got = reward(
        prompts=[None] * 3,
        completions=[[{"role": "assistant", "content": a}] for a in answers.values()],
        task_id=[tasks[0].task_id] * 3,
    )
    assert got == [1.0, 0.0, 0.0]
    stats = reward.drain()
    assert stats.verdicts["correct"] == 1 and stats.verdicts["no_code"] == 1
    assert stats.graded == 3 and reward.drain().graded == 0  # drained


def test_a_completion_whose_content_is_a_list_of_parts_is_graded_on_its_text(tasks, grader):
    """Chat templates in the multimodal message format give content as parts; `str()` of the
    list hid the code block, and a right answer scored 0 (a red team's)."""
    reward = SebenchReward(grader, {t.task_id: t for t in tasks})
    correct = _answers(tasks[0])["correct"]
    halves = [{"type": "text", "text": correct[:20]}, {"type": "text", "text": correct[20:]}]
    got = reward(
        prompts=[None],
        completions=[[{"role": "assistant", "content": halves}]],
        task_id=[tasks[0].task_id],
    )
    assert got == [1.0]


def test_an_infra_error_is_retried_once_then_never_scored_as_zero(tasks, grader):
    completions = [[{"role": "assistant", "content": _answers(tasks[0])["correct"]}]]
    once = SebenchReward(_FlakyGrader(grader, failures=1), {t.task_id: t for t in tasks})
    assert once([None], completions, task_id=[tasks[0].task_id]) == [1.0]
    assert once.drain().retried == 1

    twice = SebenchReward(_FlakyGrader(grader, failures=2), {t.task_id: t for t in tasks})
    assert twice([None], completions, task_id=[tasks[0].task_id]) == [None]
    stats = twice.drain()
    assert stats.unscored == 1 and stats.verdicts["infra_error"] == 1
    assert reward_of(Verdict(VerdictKind.INFRA_ERROR)) is None


def test_settings_carry_the_paper_values_into_trls_config(tmp_path):
    default = GRPOSettings()
    assert default.updates_for(RLMode.OPEN) == 2 and default.updates_for(RLMode.CLOSED) == 1
    config = grpo_config(default, RLMode.CLOSED, str(tmp_path))
    assert config.learning_rate == 1e-6 and config.beta == 0.0 and config.loss_type == "dapo"
    assert config.num_generations == 8 and config.temperature == 1.0
    assert config.generation_batch_size == 32 * 8 and config.num_iterations == 1
    assert config.epsilon == 0.2 and config.epsilon_high == 0.2
    assert config.vllm_importance_sampling_correction is False
    ablation = GRPOSettings(clip_low=NO_CLIP, clip_high=NO_CLIP, updates_per_batch=4)
    config = grpo_config(ablation, RLMode.CLOSED, str(tmp_path))
    assert config.epsilon == NO_CLIP and config.num_iterations == 4


def test_a_micro_batch_that_does_not_divide_the_step_is_refused(tmp_path):
    with pytest.raises(SebenchError, match="does not divide"):
        grpo_config(GRPOSettings(micro_batch_size=7), RLMode.OPEN, str(tmp_path))


def test_rl_can_train_exactly_what_sft_trained(tiny_model, tasks, seeded_lib, grader, tmp_path):
    """`freeze_fraction` / `freeze_embeddings` freeze what `train sft` freezes; the official
    default trains every weight."""
    from sebench.training.sft import frozen_layer_count

    def trainable(settings: GRPOSettings) -> tuple[bool, list[bool]]:
        model, tokenizer = load_model(tiny_model)
        reward = SebenchReward(grader, {t.task_id: t for t in tasks})
        trainer = build_trainer(
            model, tokenizer, tasks[:2], seeded_lib, reward, settings, RLMode.CLOSED, str(tmp_path)
        )
        inner = trainer.model
        embeddings = all(p.requires_grad for p in inner.get_input_embeddings().parameters())
        layers = [all(p.requires_grad for p in layer.parameters()) for layer in inner.model.layers]
        return embeddings, layers

    embeddings, layers = trainable(TINY)
    assert embeddings and all(layers)
    frozen = GRPOSettings(**{**TINY.__dict__, "freeze_fraction": 0.5, "freeze_embeddings": True})
    embeddings, layers = trainable(frozen)
    count = frozen_layer_count(len(layers), 0.5)
    assert 0 < count < len(layers)
    assert not embeddings and layers == [False] * count + [True] * (len(layers) - count)
    with pytest.raises(SebenchError, match="freeze fraction"):
        GRPOSettings(freeze_fraction=1.0).check()


def test_a_batch_with_every_advantage_zero_skips_the_passes_and_gives_trls_gradient(
    tiny_model, tasks, seeded_lib, grader, tmp_path
):
    """RL from a model that never answers right: every group zero-spread, every advantage 0.
    With no KL term TRL's loss and gradient are exactly 0; ours gives the same zero gradient on
    every trainable weight without the forward and backward passes. One non-zero advantage and
    TRL's own loss runs."""
    from trl import GRPOTrainer

    model, tokenizer = load_model(tiny_model)
    reward = SebenchReward(grader, {t.task_id: t for t in tasks})
    trainer = build_trainer(
        model, tokenizer, tasks[:2], seeded_lib, reward, TINY, RLMode.CLOSED, str(tmp_path)
    )
    rows = [trainer.train_dataset[i] for i in range(2)]
    batch = trainer._generate_and_score_completions([row for row in rows for _ in range(2)])
    assert not batch["advantages"].any()  # a random model: no completion is right
    trained = trainer.model
    trainable = [(n, p) for n, p in trained.named_parameters() if p.requires_grad]

    def gradients(loss_fn) -> tuple[float, dict[str, torch.Tensor], int]:
        calls = []
        backbone = getattr(trained, trained.base_model_prefix)  # what every scoring path runs
        forward = backbone.forward
        backbone.forward = lambda *a, **k: calls.append(1) or forward(*a, **k)
        try:
            trained.zero_grad(set_to_none=True)
            loss = loss_fn(trained, batch)
            loss.backward()
        finally:
            del backbone.forward
        return loss.item(), {n: p.grad.clone() for n, p in trainable}, len(calls)

    ours = gradients(trainer._compute_loss)
    theirs = gradients(lambda m, b: GRPOTrainer._compute_loss(trainer, m, b))
    assert ours[0] == theirs[0] == 0.0
    assert ours[2] == 0 and theirs[2] > 0  # our zero skipped the model; TRL's ran it
    assert ours[1].keys() == theirs[1].keys() and trainable
    for name, gradient in ours[1].items():
        assert torch.equal(gradient, theirs[1][name]) and not gradient.any(), name

    batch["advantages"][0] = 1.0
    assert gradients(trainer._compute_loss)[2] > 0  # a signal: TRL's loss, the model run
