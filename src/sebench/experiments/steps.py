"""What each kind of step does: build the library, make data, train, roll out, grade, report.

Each step function calls the library function behind the matching command (`sebench lib
build`, `tasks generate --programmatic` / `train tasks`, `data sft`, `memory build`, `train sft`,
`train grpo`, `rollout`, `eval`) in this process, writes only under its own outputs in the run
folder, and returns what it produced (its record's `result`). Training kinds are looked up in
`TRAINERS`: a new regime with a new kind of training adds one function there (the memory regime
trains no weights: its insights are a step of their own).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.experiments import hashing
from sebench.experiments.plan import (
    DATA_DIR,
    LIBRARY_DIR,
    MEMORY_FILE,
    REPORT_DIR,
    SFT_DATA_DIR,
    SFT_DATA_FILE,
    TRAIN_FILE,
    Step,
    StepKind,
    split_dir,
    test_file,
    train_dir,
)
from sebench.experiments.recipe import ROLLOUTS, SPLIT_FILES, Recipe
from sebench.experiments.records import StepState, read_record
from sebench.experiments.regimes import REGIMES, TrainKind
from sebench.jsonl import write_jsonl
from sebench.library.library import META_FILE, Library

SFT_LOG = "sft_log.jsonl"  # in an SFT train_dir: one {"step", "loss"} row per logged step


@dataclass
class Context:
    """What the steps of one run share: the recipe, the run folder, the loaded library."""

    recipe: Recipe
    run_dir: Path
    # (done, total) of the running step: samples rolled out or graded, optimizer steps
    on_progress: Callable[[int, int], None] | None = None
    _library: Library | None = None
    _layers: dict[str, bool] | None = field(default=None, repr=False)

    def progress(self, done: int, total: int) -> None:
        if self.on_progress is not None:
            self.on_progress(done, total)

    def library(self) -> Library:
        if self._library is None:
            self._library = Library.load(self.run_dir / LIBRARY_DIR)
        return self._library

    def base_model(self) -> Path:
        path = self.recipe.model_path()
        if path is not None:
            return path
        from sebench.rollout.smollm import default_model_dir

        return default_model_dir()

    def train_tasks(self) -> Path:
        return self.recipe.data.train or self.run_dir / DATA_DIR / TRAIN_FILE

    def sft_data(self) -> Path:
        return self.run_dir / SFT_DATA_DIR / SFT_DATA_FILE

    def test_tasks(self, split: str) -> Path:
        external, generated = test_file(self.recipe, split)
        return external if external is not None else self.run_dir / generated

    def isolation_layers(self) -> dict[str, bool]:
        """The sandbox layers active on this machine (probed once per run)."""
        if self._layers is None:
            from sebench.grading.sandbox import isolation

            self._layers = isolation.detect_layers()
        return self._layers


StepFunction = Callable[[Step, Context], dict[str, Any]]


def build_library(step: Step, context: Context) -> dict[str, Any]:
    from sebench.library.build import build_library as build
    from sebench.library.names import generate_table
    from sebench.library.official import load_official_table

    spec = context.recipe.library
    out = context.run_dir / LIBRARY_DIR
    if spec.kind == "official":
        table = load_official_table(spec.api_doc)
    else:
        table = generate_table(spec.seed)
    library = build(table, out, api_doc_path=spec.api_doc, origin=spec.kind, seed=spec.seed)
    context._library = library
    # the metadata holds the build time: the package and its docs are what the library is
    return {"hash": hashing.of_folder(out, skip=(META_FILE,)), "package": library.package}


def make_data(step: Step, context: Context) -> dict[str, Any]:
    from sebench.data.rows import official_row

    spec = context.recipe.data.generate
    library = context.library()
    if spec.generator == "demo":
        from sebench.training.taskgen import DEMO_FUNCTIONS, TaskSetConfig, generate_tasks

        made = generate_tasks(
            library.table,
            TaskSetConfig(
                functions=spec.functions or DEMO_FUNCTIONS,
                train_per_function=spec.per_function,
                test_per_function=spec.test_per_function,
                seed=spec.seed,
            ),
        )
        train, test = made.train, made.test
    else:
        from sebench.data.generate.programmatic import FrameSplit, GenerateConfig, generate
        from sebench.data.generate.targets import with_targets

        names = list(library.table.numpy_to_library())
        config = GenerateConfig(
            functions=spec.functions,
            per_function=spec.per_function,
            multi=spec.multi,
            seed=spec.seed,
        )
        train = with_targets(generate(names, config).tasks, library)
        # held-out query frames and nouns, another seed: no test task repeats a training one
        held_out = dataclasses.replace(
            config,
            per_function=spec.test_per_function,
            multi=0,
            seed=spec.seed + 1,
            split_frames=FrameSplit.TEST,
        )
        test = generate(names, held_out).tasks if step.config["test"] else ()
    out = context.run_dir / DATA_DIR
    write_jsonl(out / TRAIN_FILE, [official_row(t) for t in train])
    if step.config["test"]:
        write_jsonl(out / f"{SPLIT_FILES['single']}.jsonl", [official_row(t) for t in test])
    return {"train_tasks": len(train), "test_tasks": len(test), "hash": hashing.of_folder(out)}


def make_sft_data(step: Step, context: Context) -> dict[str, Any]:
    from sebench.data.sources import load_file
    from sebench.grading.rules import Rules
    from sebench.grading.runner import EvalConfig
    from sebench.training.sft_pipeline import SFTDataConfig, build_sft_data

    recipe = context.recipe
    spec = recipe.sft_data
    config = SFTDataConfig(
        samples=spec.samples,
        seed=spec.seed,
        sampling=recipe.sft_data_sampling(),
        limit=spec.limit,
        grading=EvalConfig(
            tolerance=recipe.grading.tolerance,
            sandbox=_sandbox(recipe),
            # `grading.rules` scores the test splits; what training keeps is always judged
            # by the strict rules (SFTDataConfig)
            rules=Rules.STRICT,
        ),
    )
    tasks = load_file(context.train_tasks(), "train")
    engine = _backend(recipe, None, context)
    try:
        summary = build_sft_data(
            tasks,
            context.library(),
            engine,
            context.sft_data(),
            config,
            on_progress=lambda update: context.progress(update.done, update.total),
            extra_meta={"backend": recipe.backend.kind, "data": str(context.train_tasks())},
            source=str(context.train_tasks()),
        )
    finally:
        engine.close()
    if not summary.kept:
        raise SebenchError(
            f"{context.sft_data()}: none of the {summary.samples} answers to "
            f"{summary.tasks} training tasks was correct ({summary.verdicts}); nothing to learn "
            "from. A stronger model, more samples (sft_data.samples), or SFT on the reference "
            "answers (sft_data.answers = 'references'; the memory regime has no such fallback)"
        )
    return {
        "tasks": summary.tasks,
        "samples": summary.samples,
        "kept": summary.kept,
        "tasks_without_kept": len(summary.tasks_without_kept),
        "verdicts": summary.verdicts,
    }


def build_memory(step: Step, context: Context) -> dict[str, Any]:
    from sebench.training.insights import build_memory as build
    from sebench.training.insights import read_solved, save_memory

    recipe = context.recipe
    solved = read_solved(context.sft_data())
    library = context.library()
    config = recipe.memory_config(step.seed)
    out = context.run_dir / train_dir(step.regime, step.seed) / MEMORY_FILE
    journal = out.with_suffix(".journal.jsonl")  # a step run again asks only for what is missing
    engine = _backend(recipe, None, context)
    try:
        result = build(
            solved,
            library.package,
            engine,
            config,
            journal=journal,
            on_progress=lambda update: context.progress(update.batch, update.batches),
        )
    finally:
        engine.close()
    save_memory(
        out,
        result,
        config,
        model=engine.model_name,
        backend=recipe.backend.kind,
        data=str(context.sft_data()),
        solved_tasks=len(solved),
        library={"package": library.package, "root": str(library.root)},
    )
    journal.unlink(missing_ok=True)
    return {
        "insights": len(result.memory.insights),
        "solved_tasks": len(solved),
        "operations": dict(sorted(result.operations.items())),
    }


def train(step: Step, context: Context) -> dict[str, Any]:
    kind = REGIMES[step.regime].train
    trainer = TRAINERS.get(kind)
    if trainer is None:  # the plan leaves unavailable regimes out; a bug if reached
        raise SebenchError(f"regime {step.regime}: training '{kind}' is not in this version")
    return trainer(step, context)


def _train_sft(step: Step, context: Context) -> dict[str, Any]:
    from sebench.data.sources import load_file
    from sebench.training.quiet import quiet_progress
    from sebench.training.sft import load_model, train_sft
    from sebench.training.sft_data import build_examples, read_sft_data, write_examples
    from sebench.training.taskprompts import Arm

    regime = REGIMES[step.regime]
    out = context.run_dir / train_dir(step.regime, step.seed)
    if context.recipe.sft_data.answers == ROLLOUTS:
        data = context.sft_data()
        examples = read_sft_data(data, Arm(regime.arm))
    else:
        data = context.train_tasks()
        examples = build_examples(load_file(data, "train"), Arm(regime.arm))
    base = context.base_model()
    model, tokenizer = load_model(base)
    config = dataclasses.replace(context.recipe.sft, seed=step.seed)
    with quiet_progress():  # saving the checkpoint draws a "Writing model shards" bar
        result = train_sft(
            model,
            tokenizer,
            examples,
            config,
            out_dir=out,
            on_progress=lambda done, total, loss: context.progress(done, total),
            extra_record={
                "arm": regime.arm,
                "answers": context.recipe.sft_data.answers,
                "data": str(data),
                "base_model": str(base),
            },
        )
    write_examples(out / "sft_examples.jsonl", examples)
    # the training curve as a log JSONL, as GRPO writes one (reports read both)
    write_jsonl(
        out / SFT_LOG,
        [
            {"step": (i + 1) * config.logging_steps, "loss": loss}
            for i, loss in enumerate(result.losses)
        ],
    )
    return {"train_seconds": round(result.train_seconds, 2), "examples": len(examples)}


def _train_grpo(step: Step, context: Context) -> dict[str, Any]:
    from sebench.data.sources import load_file
    from sebench.grading.grader import Grader
    from sebench.training.grpo import RLMode, train_grpo

    regime = REGIMES[step.regime]
    recipe = context.recipe
    if regime.init is not None:
        start = context.run_dir / train_dir(regime.init, step.seed)
    else:
        start = context.base_model()
    tasks = load_file(context.train_tasks(), "train")
    library = context.library()
    with Grader(library, _sandbox(recipe)) as grader:
        result = train_grpo(
            start,
            tasks,
            library,
            RLMode(regime.arm),
            context.run_dir / train_dir(step.regime, step.seed),
            dataclasses.replace(recipe.grpo, seed=step.seed),
            grader=grader,
            on_step=lambda entry: context.progress(entry.step, entry.max_steps),
            extra_record={"data": str(context.train_tasks()), "init_regime": regime.init},
            keep_checkpoints=False,  # the manifest records a finished step
        )
    return {
        "train_seconds": round(result.train_seconds, 2),
        "steps": len(result.steps),
        "resumed_from": result.resumed_from,
    }


SELF_PLAY_DIR = "selfplay"  # in a self-play train_dir: `sebench selfplay`'s run folder


def _train_self_play(step: Step, context: Context) -> dict[str, Any]:
    from sebench.training.selfplay import SelfPlayConfig, run_selfplay
    from sebench.training.sft_pipeline import SFTDataConfig
    from sebench.training.task_writing import ModelTasksConfig

    recipe, spec = context.recipe, context.recipe.selfplay
    out = context.run_dir / train_dir(step.regime, step.seed)
    split = next(iter(recipe.data.splits()))
    config = SelfPlayConfig(
        rounds=spec.rounds,
        writing=ModelTasksConfig(
            functions=spec.functions,
            per_function=spec.per_function,
            multi=spec.multi,
            cases=spec.cases,
            generator_sampling=recipe.sampling,
            solver_sampling=recipe.sampling,
        ),
        solving=SFTDataConfig(samples=spec.samples, sampling=recipe.sampling),
        sft=recipe.sft,
        eval_samples=recipe.samples,
        eval_sampling=recipe.sampling,
        test_limit=recipe.data.limit,
        seed=step.seed,
    )
    # generation in this process (transformers, on the GPU when there is one), whatever
    # `[backend]` says: the weights change every round, and a server would serve old ones
    result = run_selfplay(
        context.library(),
        context.base_model(),
        context.test_tasks(split),
        out / SELF_PLAY_DIR,
        config,
        test_split=SPLIT_FILES[split],
        sandbox=_sandbox(recipe),
        on_progress=lambda event: context.progress(event.done, event.total),
    )
    # The arm's rollout loads the checkpoint in train_dir: the last round's model (the base
    # model when no round trained), linked where the file system allows, else copied.
    final = Path(result.rows[-1].model)
    for item in final.iterdir():
        if item.is_file():
            target = out / item.name
            target.unlink(missing_ok=True)
            try:
                os.link(item, target)
            except OSError:
                shutil.copy2(item, target)
    return {
        "rounds": [
            {"round": row.round, "accuracy": row.accuracy, "trained": row.trained}
            for row in result.rows
        ],
        "model": str(final),
    }


TRAINERS: dict[TrainKind, StepFunction] = {
    TrainKind.SFT: _train_sft,
    TrainKind.GRPO: _train_grpo,
    TrainKind.SELF_PLAY: _train_self_play,
}


def roll_out(step: Step, context: Context) -> dict[str, Any]:
    from sebench.data.sources import load_file
    from sebench.prompts.memory import load_memory
    from sebench.prompts.modes import PromptMode
    from sebench.rollout.runner import RolloutConfig, rollout

    recipe = context.recipe
    regime = REGIMES[step.regime]
    tasks = load_file(context.test_tasks(step.split), SPLIT_FILES[step.split])
    trained = (
        context.run_dir / train_dir(step.regime, step.seed) if regime.train is not None else None
    )
    memory = None
    if regime.train is TrainKind.MEMORY:  # the base model, shown the insights it wrote
        memory = load_memory(trained / MEMORY_FILE)
        trained = None
    engine = _backend(recipe, trained, context)
    config = RolloutConfig(
        modes=(PromptMode(regime.test_mode),),
        samples=recipe.samples,
        seed=step.seed,
        sampling=recipe.sampling,
        limit=recipe.data.limit,
        memory=memory,
    )
    out = context.run_dir / split_dir(step.regime, step.seed, step.split) / "responses.jsonl"
    try:
        summary = rollout(
            tasks,
            context.library(),
            engine,
            out,
            config,
            on_progress=lambda update: context.progress(update.done, update.total),
            extra_meta={"backend": recipe.backend.kind, "split": SPLIT_FILES[step.split]},
        )
    finally:
        engine.close()
    if summary.errors:
        raise SebenchError(
            f"{summary.errors} of {summary.total} requests failed for good (first error: "
            f"{summary.first_error}); they are recorded in {out} and retried on the next run"
        )
    return {"samples": summary.total, "generated": summary.generated, "resumed": summary.resumed}


def _backend(recipe: Recipe, trained: Path | None, context: Context) -> Any:
    spec = recipe.backend
    match spec.kind:
        case "hf":
            from sebench.rollout.hf_local import HFLocalBackend
            from sebench.training.quiet import quiet_progress

            path = trained or context.base_model()
            with quiet_progress():  # transformers draws a "Loading weights" bar
                return HFLocalBackend(
                    path, name=str(path), batch_size=spec.batch_size, device=spec.device
                )
        case "vllm":
            from sebench.rollout.vllm_offline import VLLMOfflineBackend

            return VLLMOfflineBackend(str(trained or context.base_model()))
        case "openai":
            from sebench.rollout.openai_compat import OpenAICompatBackend, OpenAIConfig

            config = OpenAIConfig(
                model=recipe.model,
                concurrency=spec.concurrency,
                timeout_s=spec.timeout_s,
                max_retries=spec.max_retries,
                **({"base_urls": spec.base_urls} if spec.base_urls else {}),
            )
            return OpenAICompatBackend(config, api_key=os.environ.get(spec.api_key_env))
    raise AssertionError(spec.kind)  # pragma: no cover - the recipe checks the kind


def _sandbox(recipe: Recipe) -> Any:
    from sebench.grading.sandbox.config import SandboxConfig

    return SandboxConfig(timeout_s=recipe.grading.timeout_s, workers=recipe.grading.workers)


def grade(step: Step, context: Context) -> dict[str, Any]:
    from sebench.grading.rules import Rules
    from sebench.grading.runner import EvalConfig, evaluate

    recipe = context.recipe
    folder = context.run_dir / split_dir(step.regime, step.seed, step.split)
    split = SPLIT_FILES[step.split]
    config = EvalConfig(
        tolerance=recipe.grading.tolerance,
        sandbox=_sandbox(recipe),
        data=(f"{split}={context.test_tasks(step.split)}",),
        rules=Rules(recipe.grading.rules),
    )
    summary = evaluate(
        folder / "responses.jsonl",
        folder / "results.jsonl",
        folder / "summary.json",
        library=context.library(),
        config=config,
        on_progress=lambda done, total, verdict: context.progress(done, total),
    )
    if not summary["samples"]:
        raise SebenchError(f"{folder / 'responses.jsonl'}: nothing was graded")
    return {
        "accuracy": summary["accuracy"],
        "samples": summary["samples"],
        "isolation_layers": context.isolation_layers(),
    }


def report(step: Step, context: Context) -> dict[str, Any]:
    from sebench.reports.report import write_report

    written = write_report([context.run_dir], context.run_dir / REPORT_DIR)
    paths = [written.html, written.markdown, *written.figures]
    graded = [read_record(context.run_dir, need) for need in step.needs]
    done = sum(r is not None and r.state is StepState.DONE for r in graded)
    return {
        "files": [str(p.relative_to(context.run_dir)) for p in paths],
        "arms_done": done,
        # made again by the next run until every arm that can run is in it
        "complete": done == len(step.needs),
    }


STEP_FUNCTIONS: dict[StepKind, StepFunction] = {
    StepKind.LIBRARY: build_library,
    StepKind.DATA: make_data,
    StepKind.SFT_DATA: make_sft_data,
    StepKind.MEMORY: build_memory,
    StepKind.TRAIN: train,
    StepKind.ROLLOUT: roll_out,
    StepKind.GRADE: grade,
    StepKind.REPORT: report,
}
