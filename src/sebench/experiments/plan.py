"""The steps of a recipe, in order, each with the key that decides whether it runs.

A step's key hashes its kind, its config, the content of its external input files (hashing.py)
and the keys of the steps it needs: a changed value reruns the steps that depend on it and only
those. Whether a step runs (`Decision`) then follows from its record: `done` under the same key
and its outputs present: skip; `running` / `failed` / `interrupted` under the same key: run
again, where resumable steps (rollout, grading, GRPO) pick up their own half-done output; any
other case: run from scratch (its old outputs are removed first).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from sebench.experiments import hashing
from sebench.experiments.recipe import GENERATED, ROLLOUTS, SPLIT_FILES, Recipe
from sebench.experiments.records import StepState, read_record
from sebench.experiments.regimes import REGIMES, TrainKind, lineage

LIBRARY_DIR = "library"
DATA_DIR = "data"
REPORT_DIR = "report"
TRAIN_FILE = "train.jsonl"  # in DATA_DIR when generated
SFT_DATA_DIR = "sft-data"  # `sebench data sft`'s output and its side files
SFT_DATA_FILE = "sft.jsonl"  # in SFT_DATA_DIR: the kept answers, with both prompts
MEMORY_FILE = "insights.json"  # in the memory regime's train_dir


class StepKind(StrEnum):
    LIBRARY = "library"
    DATA = "data"
    SFT_DATA = "sft-data"  # the base model's graded open-book answers (`sebench data sft`)
    MEMORY = "memory-build"  # the memory baseline's insights (`sebench memory build`)
    TRAIN = "train"
    ROLLOUT = "rollout"
    GRADE = "grade"
    REPORT = "report"


@dataclass(frozen=True)
class Input:
    """An external file or folder a step reads: its content is part of the step's key."""

    name: str
    path: Path
    model: bool = False  # hashed as a model folder (hashing.of_model)

    def digest(self) -> str | None:
        if not self.path.exists():
            return None
        return hashing.of_model(self.path) if self.model else hashing.of_path(self.path)


@dataclass(frozen=True)
class Step:
    id: str
    kind: StepKind
    config: dict[str, Any]  # JSON-ready: what the result depends on besides inputs and needs
    needs: tuple[str, ...] = ()
    inputs: tuple[Input, ...] = ()
    outputs: tuple[str, ...] = ()  # relative to the run folder
    resumable: bool = False  # the underlying command resumes its own half-done output
    regime: str | None = None
    seed: int | None = None
    split: str | None = None


class Decision(StrEnum):
    SKIP = "skip"  # done under the same key
    RESUME = "resume"  # started under the same key: rerun, continuing its own output
    RUN = "run"  # never ran, or its inputs or config changed: from scratch


@dataclass(frozen=True)
class Planned:
    step: Step
    key: str
    decision: Decision
    digests: dict[str, str | None] = field(default_factory=dict)  # external input -> hash
    missing: tuple[str, ...] = ()  # external inputs that do not exist (yet)


@dataclass(frozen=True)
class Plan:
    steps: tuple[Planned, ...]
    unavailable: dict[str, str] = field(default_factory=dict)  # regime -> why it cannot run

    def by_id(self) -> dict[str, Planned]:
        return {p.step.id: p for p in self.steps}

    def upstream(self, step_id: str) -> list[str]:
        """Every step `step_id` needs, directly or not."""
        steps = self.by_id()
        found: list[str] = []
        todo = list(steps[step_id].step.needs)
        while todo:
            need = todo.pop()
            if need not in found:
                found.append(need)
                todo += steps[need].step.needs
        return found


def arm_dir(regime: str, seed: int) -> str:
    return f"arms/{regime}/seed{seed}"


def train_dir(regime: str, seed: int) -> str:
    return f"{arm_dir(regime, seed)}/train"


def split_dir(regime: str, seed: int, split: str) -> str:
    return f"{arm_dir(regime, seed)}/{split}"


def test_file(recipe: Recipe, split: str) -> tuple[Path | None, str | None]:
    """(external file, None) or (None, the data step's relative file) for a test split."""
    value = recipe.data.splits()[split]
    if value == GENERATED:
        return None, f"{DATA_DIR}/{SPLIT_FILES[split]}.jsonl"
    return Path(value), None


def _read_test_split(
    recipe: Recipe, split: str, name: str, inputs: list[Input], needs: list[str]
) -> None:
    """A step reads a test split: the recipe's own file is one of its inputs (hashed into its
    key), a generated one makes it need the data step."""
    external, _ = test_file(recipe, split)
    if external is not None:
        inputs.append(Input(name, external))
    else:
        needs.append("data")


def build_steps(recipe: Recipe) -> list[Step]:
    """Every step the recipe needs, each after the steps it needs."""
    steps: dict[str, Step] = {}
    library = _library_step(recipe)
    steps[library.id] = library
    if recipe.data.generate is not None:
        data = _data_step(recipe)
        steps[data.id] = data
    if needs_sft_data(recipe):
        sft_data = _sft_data_step(recipe)
        steps[sft_data.id] = sft_data
    grades = []
    for name in recipe.regimes:
        if REGIMES[name].unavailable:
            continue
        for seed in recipe.seeds:
            model_need = None
            for regime in lineage(name):
                if regime.train is TrainKind.MEMORY:
                    step = _memory_step(recipe, seed)
                    steps.setdefault(step.id, step)
                    model_need = step.id
                elif regime.train is not None:
                    step = _train_step(recipe, regime.name, seed, model_need)
                    steps.setdefault(step.id, step)
                    model_need = step.id
            for split in recipe.data.splits():
                rollout = _rollout_step(recipe, name, seed, split, model_need)
                grade = _grade_step(recipe, name, seed, split, rollout.id)
                steps[rollout.id], steps[grade.id] = rollout, grade
                grades.append(grade.id)
    report = Step(
        "report",
        StepKind.REPORT,
        {"expected": recipe.expected, "regimes": list(recipe.regimes)},
        needs=tuple(grades),
        outputs=(REPORT_DIR,),
    )
    steps[report.id] = report
    return list(steps.values())


def needs_sft_data(recipe: Recipe) -> bool:
    """Whether a regime of the recipe learns from the model's kept answers: the memory regime,
    and the SFT regimes when `sft_data.answers` is ROLLOUTS."""
    kinds = {REGIMES[r].train for r in recipe.regimes if not REGIMES[r].unavailable}
    return TrainKind.MEMORY in kinds or (
        TrainKind.SFT in kinds and recipe.sft_data.answers == ROLLOUTS
    )


def _library_step(recipe: Recipe) -> Step:
    spec = recipe.library
    inputs = (Input("api_doc", spec.api_doc),) if spec.api_doc is not None else ()
    return Step(
        "library",
        StepKind.LIBRARY,
        {"kind": spec.kind, "seed": spec.seed},
        inputs=inputs,
        outputs=(LIBRARY_DIR,),
    )


def _data_step(recipe: Recipe) -> Step:
    config = dataclasses.asdict(recipe.data.generate)
    config["test"] = recipe.data.single == GENERATED
    return Step("data", StepKind.DATA, config, needs=("library",), outputs=(DATA_DIR,))


def _model_input(recipe: Recipe) -> tuple[dict[str, Any], tuple[Input, ...]]:
    """The base model: a folder hashed by content, or a name (the default model, a served one)."""
    path = recipe.model_path()
    if path is None:
        return {"model": recipe.model}, ()
    return {"model": "folder"}, (Input("model", path, model=True),)


def _sft_data_step(recipe: Recipe) -> Step:
    """One data set for every arm and seed: Open-SFT and Closed-SFT train on the same answers."""
    spec = dataclasses.asdict(recipe.sft_data)
    del spec["answers"]  # what SFT trains on does not change the data
    model_config, model_inputs = _model_input(recipe)
    train = recipe.data.train
    needs = ("library",) if train is not None else ("library", "data")
    inputs = model_inputs + ((Input("train", train),) if train is not None else ())
    return Step(
        "sft-data",
        StepKind.SFT_DATA,
        {
            **spec,
            "sampling": dataclasses.asdict(recipe.sft_data_sampling()),
            "grading": dataclasses.asdict(recipe.grading),
            "backend": recipe.backend.kind,
            **model_config,
        },
        needs=needs,
        inputs=inputs,
        outputs=(SFT_DATA_DIR,),
        resumable=True,  # its rollout and grades files
    )


def _memory_step(recipe: Recipe, seed: int) -> Step:
    """The base model distils insights from the kept answers (`sebench memory build`)."""
    model_config, model_inputs = _model_input(recipe)
    return Step(
        f"memory/seed{seed}",
        StepKind.MEMORY,
        {
            **dataclasses.asdict(recipe.memory_config(seed)),
            "backend": recipe.backend.kind,
            **model_config,
        },
        needs=("library", "sft-data"),
        inputs=model_inputs,
        outputs=(train_dir("memory", seed),),
        regime="memory",
        seed=seed,
    )


def _train_step(recipe: Recipe, regime_name: str, seed: int, init: str | None) -> Step:
    regime = REGIMES[regime_name]
    if regime.train is TrainKind.SELF_PLAY:
        return _self_play_step(recipe, regime_name, seed)
    settings = recipe.sft if regime.train is TrainKind.SFT else recipe.grpo
    config: dict[str, Any] = {
        "train": regime.train.value,
        "arm": regime.arm,
        "settings": dataclasses.asdict(settings),
        "seed": seed,
    }
    needs: list[str] = []
    inputs: list[Input] = []
    if init is not None:
        needs.append(init)
    else:
        model_config, model_inputs = _model_input(recipe)
        config.update(model_config)
        inputs += model_inputs
    if recipe.data.train is not None:
        inputs.append(Input("train", recipe.data.train))
    else:
        needs.append("data")
    if regime.train is TrainKind.GRPO:
        needs.append("library")  # its prompts carry the docs, its reward is the grader's
    if regime.train is TrainKind.SFT:
        config["answers"] = recipe.sft_data.answers
        if recipe.sft_data.answers == ROLLOUTS:
            needs.append("sft-data")
    resumable = regime.train is TrainKind.GRPO  # from its last checkpoint
    return _training(regime_name, seed, config, needs, inputs, resumable)


def _self_play_step(recipe: Recipe, regime_name: str, seed: int) -> Step:
    """Self-play makes its own training data, and tests each round on the first test split."""
    config: dict[str, Any] = {
        "train": TrainKind.SELF_PLAY.value,
        "selfplay": dataclasses.asdict(recipe.selfplay),
        "settings": dataclasses.asdict(recipe.sft),
        "sampling": dataclasses.asdict(recipe.sampling),
        "samples": recipe.samples,
        "limit": recipe.data.limit,
        "seed": seed,
    }
    model_config, model_inputs = _model_input(recipe)
    config.update(model_config)
    inputs = list(model_inputs)
    needs = ["library"]  # the docs it writes and answers from, the grader's library
    _read_test_split(recipe, next(iter(recipe.data.splits())), "test", inputs, needs)
    # resumable per round and stage (`sebench.training.selfplay`)
    return _training(regime_name, seed, config, needs, inputs, resumable=True)


def _training(
    regime_name: str,
    seed: int,
    config: dict[str, Any],
    needs: list[str],
    inputs: list[Input],
    resumable: bool,
) -> Step:
    """The train step of one regime and seed: its id and its output folder follow from them."""
    return Step(
        f"train/{regime_name}/seed{seed}",
        StepKind.TRAIN,
        config,
        needs=tuple(needs),
        inputs=tuple(inputs),
        outputs=(train_dir(regime_name, seed),),
        resumable=resumable,
        regime=regime_name,
        seed=seed,
    )


def _rollout_step(
    recipe: Recipe, regime_name: str, seed: int, split: str, trained: str | None
) -> Step:
    folder = split_dir(regime_name, seed, split)
    config: dict[str, Any] = {
        "mode": REGIMES[regime_name].test_mode,
        "samples": recipe.samples,
        "seed": seed,
        "sampling": dataclasses.asdict(recipe.sampling),
        "backend": recipe.backend.kind,
        "limit": recipe.data.limit,
        "split": split,
    }
    needs = ["library"]
    inputs: list[Input] = []
    if trained is not None:
        needs.append(trained)
    if trained is None or REGIMES[regime_name].train is TrainKind.MEMORY:  # the base model
        model_config, model_inputs = _model_input(recipe)
        config.update(model_config)
        inputs += model_inputs
    _read_test_split(recipe, split, "tasks", inputs, needs)
    return Step(
        f"rollout/{regime_name}/seed{seed}/{split}",
        StepKind.ROLLOUT,
        config,
        needs=tuple(needs),
        inputs=tuple(inputs),
        outputs=(f"{folder}/responses.jsonl", f"{folder}/responses.meta.json"),
        resumable=True,
        regime=regime_name,
        seed=seed,
        split=split,
    )


def _grade_step(recipe: Recipe, regime_name: str, seed: int, split: str, rollout: str) -> Step:
    folder = split_dir(regime_name, seed, split)
    needs = ["library", rollout]
    inputs: list[Input] = []
    _read_test_split(recipe, split, "tasks", inputs, needs)
    return Step(
        f"grade/{regime_name}/seed{seed}/{split}",
        StepKind.GRADE,
        {**dataclasses.asdict(recipe.grading), "split": split},
        needs=tuple(needs),
        inputs=tuple(inputs),
        outputs=(f"{folder}/results.jsonl", f"{folder}/summary.json"),
        resumable=True,
        regime=regime_name,
        seed=seed,
        split=split,
    )


def make_plan(recipe: Recipe, run_dir: Path) -> Plan:
    """The recipe's steps with their keys and what a run would do with each now."""
    keys: dict[str, str] = {}
    planned = []
    for step in build_steps(recipe):
        digests = {i.name: i.digest() for i in step.inputs}
        missing = tuple(str(i.path) for i in step.inputs if digests[i.name] is None)
        key = hashing.of_config(
            {
                "kind": step.kind.value,
                "config": step.config,
                "inputs": digests,
                "needs": {need: keys[need] for need in step.needs},
            }
        )
        keys[step.id] = key
        planned.append(Planned(step, key, _decide(step, key, run_dir), digests, missing))
    unavailable = {
        name: REGIMES[name].unavailable for name in recipe.regimes if REGIMES[name].unavailable
    }
    return Plan(tuple(planned), unavailable)


def _decide(step: Step, key: str, run_dir: Path) -> Decision:
    record = read_record(run_dir, step.id)
    if record is None or record.key != key:
        return Decision.RUN
    complete = record.result.get("complete", True)  # a table made while arms were missing
    if (
        record.state is StepState.DONE
        and complete
        and all((run_dir / o).exists() for o in step.outputs)
    ):
        return Decision.SKIP
    return Decision.RESUME if step.resumable else Decision.RUN
