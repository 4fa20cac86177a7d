"""Plans: which steps a recipe needs, and which of them a changed value or file makes rerun."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from sebench.experiments.plan import Decision, StepKind, make_plan
from sebench.experiments.recipe import load_recipe
from sebench.experiments.regimes import NOT_IN_THIS_VERSION, REGIMES
from tests.experiments.conftest import CPU_RECIPE, GPU_RECIPE


def _keys(recipe_path: Path, run_dir: Path, **overrides: object) -> dict[str, str]:
    plan = make_plan(load_recipe(recipe_path, overrides), run_dir)
    return {p.step.id: p.key for p in plan.steps}


def _changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    assert before.keys() == after.keys()
    return {step for step in before if before[step] != after[step]}


def test_every_step_comes_after_the_steps_it_needs(tmp_path):
    plan = make_plan(load_recipe(CPU_RECIPE), tmp_path)
    seen: set[str] = set()
    for planned in plan.steps:
        assert set(planned.step.needs) <= seen, planned.step.id
        seen.add(planned.step.id)
    assert plan.steps[0].step.kind is StepKind.LIBRARY
    assert plan.steps[-1].step.kind is StepKind.REPORT
    assert all(p.decision is Decision.RUN for p in plan.steps)  # an empty run folder
    # SFT->RL starts from the closed-SFT model of the same seed
    assert "train/closed-sft/seed0" in plan.by_id()["train/sft-rl/seed0"].step.needs


def test_a_changed_rl_value_reruns_only_the_rl_arms(tmp_path):
    before = _keys(CPU_RECIPE, tmp_path)
    after = _keys(CPU_RECIPE, tmp_path, **{"grpo.learning_rate": 3e-5})
    assert _changed(before, after) == {
        f"{kind}/{regime}/seed0{suffix}"
        for regime in ("closed-rl", "sft-rl")
        for kind, suffix in (("train", ""), ("rollout", "/single"), ("grade", "/single"))
    } | {"report"}


def test_a_changed_sft_value_reruns_sft_and_what_starts_from_it(tmp_path):
    changed = _changed(
        _keys(CPU_RECIPE, tmp_path), _keys(CPU_RECIPE, tmp_path, **{"sft.max_steps": 3})
    )
    trained = {s for s in changed if s.startswith("train/")}
    assert trained == {"train/open-sft/seed0", "train/closed-sft/seed0", "train/sft-rl/seed0"}
    assert not any("no-docs" in s or "closed-rl" in s or "with-docs" in s for s in changed)


def test_a_changed_sampling_value_reruns_rollouts_but_no_training(tmp_path):
    changed = _changed(
        _keys(CPU_RECIPE, tmp_path), _keys(CPU_RECIPE, tmp_path, **{"sampling.max_new_tokens": 9})
    )
    assert changed and all(s.split("/")[0] in ("rollout", "grade", "report") for s in changed)
    assert len([s for s in changed if s.startswith("rollout/")]) == 7  # every arm


def test_changed_training_data_reruns_training_only_where_it_is_used(tmp_path):
    train = tmp_path / "train.jsonl"
    single = tmp_path / "single.jsonl"
    train.write_text('{"a": 1}\n')
    single.write_text('{"b": 1}\n')
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        'name = "r"\nregimes = ["no-docs", "closed-sft"]\n[library]\nseed = 0\n'
        '[data]\nsingle = "single.jsonl"\ntrain = "train.jsonl"\n'
    )
    run = tmp_path / "run"
    before = _keys(recipe, run)
    train.write_text('{"a": 2}\n')
    assert _changed(before, _keys(recipe, run)) == {
        "sft-data",  # the model's answers to the training tasks
        "train/closed-sft/seed0",
        "rollout/closed-sft/seed0/single",
        "grade/closed-sft/seed0/single",
        "report",
    }
    single.write_text('{"b": 2}\n')  # the test split: every arm, no training
    changed = _changed(before, _keys(recipe, run))
    assert "rollout/no-docs/seed0/single" in changed and "library" not in changed


def test_unavailable_regimes_are_named_and_planned_as_nothing(tmp_path, monkeypatch):
    # every regime of the paper runs now; the mechanism stays for recipes naming a later one
    unbuilt = dataclasses.replace(REGIMES["memory"], unavailable=NOT_IN_THIS_VERSION)
    monkeypatch.setitem(REGIMES, "memory", unbuilt)
    plan = make_plan(load_recipe(CPU_RECIPE, {"regimes": ["no-docs", "memory"]}), tmp_path)
    assert plan.unavailable == {"memory": NOT_IN_THIS_VERSION}
    assert not [p for p in plan.steps if p.step.regime == "memory"]


def test_open_and_closed_sft_share_one_sft_data_step_when_they_train_on_rollouts(tmp_path):
    regimes = {"regimes": ["open-sft", "closed-sft"]}
    steps = make_plan(
        load_recipe(CPU_RECIPE, {**regimes, "sft_data.answers": "rollouts"}), tmp_path
    )
    data = [p.step for p in steps.steps if p.step.kind is StepKind.SFT_DATA]
    assert [s.id for s in data] == ["sft-data"]
    for arm in ("open-sft", "closed-sft"):
        assert "sft-data" in steps.by_id()[f"train/{arm}/seed0"].step.needs
    references = make_plan(load_recipe(CPU_RECIPE, regimes), tmp_path)  # the CPU recipe's choice
    assert not [p for p in references.steps if p.step.kind is StepKind.SFT_DATA]


def test_the_memory_regime_tests_the_base_model_with_the_insights_it_built(tmp_path):
    recipe = load_recipe(CPU_RECIPE, {"regimes": ["no-docs", "memory"]})
    steps = make_plan(recipe, tmp_path).by_id()
    assert steps["memory/seed0"].step.needs == ("library", "sft-data")
    rollout = steps["rollout/memory/seed0/single"].step
    assert "memory/seed0" in rollout.needs and rollout.config["mode"] == "memory"
    assert rollout.config["model"] == recipe.model  # the base model, not a checkpoint
    changed = _changed(
        _keys(CPU_RECIPE, tmp_path, regimes=["no-docs", "memory"]),
        _keys(CPU_RECIPE, tmp_path, regimes=["no-docs", "memory"], **{"memory.batch_size": 2}),
    )
    assert changed == {
        "memory/seed0",
        "rollout/memory/seed0/single",
        "grade/memory/seed0/single",
        "report",
    }


def test_the_gpu_recipe_parses_and_plans(tmp_path, monkeypatch, api_doc_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "api_doc.jsonl").write_bytes(api_doc_path.read_bytes())
    for split in ("single_test", "multiple_test"):
        (data / f"{split}.jsonl").write_text(json.dumps({"query": split}) + "\n")
    model = tmp_path / "qwen3-8b"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model-00001-of-00004.safetensors").write_bytes(b"\0" * 16)
    monkeypatch.setenv("SEBENCH_DATA", str(data))
    monkeypatch.setenv("QWEN3_8B", str(model))
    plan = make_plan(load_recipe(GPU_RECIPE), tmp_path / "run")
    steps = plan.by_id()
    assert not plan.unavailable
    # 6 trained regimes x 5 seeds; 10 regimes x 5 seeds x 2 splits rollouts and grades
    assert len([s for s in steps if s.startswith("train/")]) == 30
    assert len([s for s in steps if s.startswith("memory/")]) == 5
    assert len([s for s in steps if s.startswith("grade/")]) == 100
    # the paper's SFT data: the model's kept answers, one set for both SFT arms and the memory
    assert "sft-data" in steps["train/open-sft/seed2"].step.needs
    assert steps["sft-data"].step.config["samples"] == 5
    assert not any(p.missing for p in plan.steps)
    assert steps["train/open-rl/seed3"].step.config["settings"]["use_vllm"] is True
