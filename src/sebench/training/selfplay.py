"""Self-play: the model under training writes its own tasks, solves them, and learns from them.

Round 0 evaluates the base model. Each round r >= 1 starts from the latest model and runs four
stages, each one a part that exists already:

1. `tasks`: the model writes tasks from the NumPy docs through the model-written pipeline
   (`task_writing.generate_model_tasks`), as generator and as the one consensus solver;
2. `solutions` (SFT only): it answers its kept tasks with the docs, `samples` times each, and the
   answers the grader passes are kept with their closed prompt (`sft_pipeline.build_sft_data`);
3. `train`: Closed-SFT on those answers (`sft.train_sft`), or, with `method=rl`, Closed-RL GRPO on
   the kept tasks (`grpo.train_grpo`; the paper reports that this does not internalize);
4. `eval`: closed-book answers to the test tasks (`rollout.runner.rollout`), graded as `sebench
   eval` grades them (`grading.runner.evaluate`).

A round that keeps no task or no answer is recorded with the reason, is not trained (its model
is the previous one, and so is its evaluation), and the loop goes on: the next round asks with
other seeds (round r uses `seed + r`), so the same weights can still write something new.

Folder `out`: `selfplay_config.json` (the settings every round ran with), `round-0/` (the base
model's evaluation) and `round-<r>/` holding `tasks.jsonl` (+ rejects, summary), `sft.jsonl`
(+ its side files), `model/` (the checkpoint), `eval/` (responses, results, summary) and
`round.json`: the round's stages as they finish, with their counts and provenance. A killed run
continues at the first unfinished stage of the first unfinished round (each stage's own files
resume too); a finished round is never run again.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from sebench.data.rows import task_from_official_row
from sebench.data.schema import Task
from sebench.errors import SebenchError, require
from sebench.grading.grader import Grader
from sebench.grading.runner import EvalConfig, evaluate
from sebench.grading.sandbox.config import SandboxConfig
from sebench.jsonl import iter_jsonl
from sebench.prompts.modes import PromptMode
from sebench.provenance import provenance
from sebench.rollout.backend import Backend, SamplingConfig
from sebench.rollout.runner import RolloutConfig, rollout
from sebench.training.grpo import GRPOSettings, RLMode, train_grpo
from sebench.training.selfplay_folder import (
    RoundRow,
    RoundState,
    claim_folder,
    round_dir,
    row_of,
)
from sebench.training.sft import SFTTrainingConfig, load_model, train_sft
from sebench.training.sft_data import read_sft_data
from sebench.training.sft_pipeline import SFTDataConfig, build_sft_data
from sebench.training.task_writing import ModelTasksConfig, generate_model_tasks, write_summary
from sebench.training.taskprompts import Arm


class Method(StrEnum):
    SFT = "sft"  # Closed-SFT on the model's own correct answers: the paper's working self-play
    RL = "rl"  # Closed-RL (GRPO) on the model's own tasks: the paper reports it fails


@dataclass(frozen=True)
class SelfPlayConfig:
    """One self-play run. Each part keeps its own config and defaults (and their sources)."""

    rounds: int = 2
    method: Method = Method.SFT
    writing: ModelTasksConfig = field(default_factory=ModelTasksConfig)
    solving: SFTDataConfig = field(default_factory=SFTDataConfig)  # official: 5 samples, T 0.6
    sft: SFTTrainingConfig = field(default_factory=SFTTrainingConfig)
    grpo: GRPOSettings = field(default_factory=GRPOSettings)
    eval_samples: int = 1  # closed-book samples per test task
    eval_sampling: SamplingConfig = field(default_factory=SamplingConfig)  # official evaluation
    test_limit: int | None = None  # only the first N test tasks
    seed: int = 0  # round r writes, solves and trains with seed + r

    def __post_init__(self) -> None:
        if self.rounds < 0:
            raise SebenchError(f"rounds must be at least 0 (got {self.rounds})")
        if self.eval_samples < 1:
            raise SebenchError(f"eval samples must be at least 1 (got {self.eval_samples})")

    def settings(self) -> dict[str, Any]:
        """What a finished round depends on: everything but the number of rounds (a finished
        run may be extended by more rounds) and the other method's settings, as JSON."""
        unused = ("grpo",) if self.method is Method.SFT else ("solving", "sft")
        settings = {k: v for k, v in asdict(self).items() if k not in unused}
        return json.loads(json.dumps({**settings, "rounds": None}))


@dataclass(frozen=True)
class Progress:
    round: int
    stage: str  # one of `selfplay_folder.STAGES`, or "note": a line to keep (what is resumed or skipped)
    message: str
    done: int = 0
    total: int = 0


ProgressCallback = Callable[[Progress], None]
# A backend on the checkpoint at a path, named by that path (e.g. an OpenAI-compatible server
# that serves it); None: the model is loaded into this process (transformers).
BackendFactory = Callable[[Path], Backend]


@dataclass
class SelfPlayResult:
    rows: list[RoundRow]
    config: SelfPlayConfig
    out: Path
    base_model: str
    test: str
    library: dict[str, Any]
    resumed: list[str] = field(default_factory=list)  # `round 1: tasks, solutions`, ...
    record: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": [asdict(row) for row in self.rows],
            "method": self.config.method.value,
            "base_model": self.base_model,
            "test": self.test,
            "library": self.library,
            "resumed": self.resumed,
            "provenance": self.record,
        }


def run_selfplay(
    library: Any,
    base_model: str | Path,
    test_source: str | Path,
    out: str | Path,
    config: SelfPlayConfig | None = None,
    *,
    test_split: str = "single_test",
    backend_for: BackendFactory | None = None,
    sandbox: SandboxConfig | None = None,
    force: bool = False,
    on_progress: ProgressCallback | None = None,
) -> SelfPlayResult:
    """Run (or resume) `config.rounds` rounds of self-play from `base_model` into `out`.

    `test_source`: the test tasks (a JSONL file of official rows, a data folder or a hub id) of
    `test_split`, answered closed-book after every round.
    `backend_for`: how the writing, solving and evaluation reach a checkpoint; None loads it
    into this process. An `out` that ran with other settings is refused unless `force`; then
    finished rounds are kept and the unfinished one starts again with the new settings.
    """
    from sebench.data.sources import load

    config = config or SelfPlayConfig()
    # absolute: round.json records these paths, and a server names a checkpoint by its path
    out = Path(out).resolve()
    base = Path(base_model).resolve()
    if not (base / "config.json").is_file():
        raise SebenchError(
            f"{base}: not a Hugging Face model folder (no config.json): self-play trains a local "
            "checkpoint, so --model must be one (a server may serve the same weights: --base-url)"
        )
    if Path(test_source).exists():  # a file or folder, wherever the rerun is started from
        test_source = Path(test_source).resolve()
    test_tasks = load(test_split, test_source)
    if not test_tasks:
        raise SebenchError(f"{test_source}: no {test_split} tasks to test on")
    library_record = {"package": library.package, "root": str(library.root)}
    settings = {
        "config": config.settings(),
        "base_model": str(base),
        "test": {"source": str(test_source), "split": test_split},
        "library": library_record,
    }
    claim_folder(out, settings, force)
    emit = on_progress or (lambda event: None)
    run = _Run(
        library, test_tasks, f"{test_split}={test_source}", out, config, backend_for, sandbox, emit
    )
    resumed: list[str] = []
    with Grader(library, sandbox) as grader:
        run.grader = grader
        model = base
        for index in range(config.rounds + 1):
            state = RoundState.open(round_dir(out, index), index, model, settings)
            if state.done:
                resumed.append(f"round {index}")
            elif state.stages:
                resumed.append(f"round {index}: {', '.join(state.stages)}")
                emit(Progress(index, "note", f"round {index}: resuming after {state.last}"))
            run.round(state)
            model = Path(state.stages["train"]["model"]) if index else base
    rows = [
        row_of(RoundState.open(round_dir(out, i), i, base, settings))
        for i in range(config.rounds + 1)
    ]
    result = SelfPlayResult(
        rows=rows,
        config=config,
        out=out,
        base_model=str(base),
        test=f"{test_split} of {test_source}",
        library=library_record,
        resumed=resumed,
    )
    result.record = provenance(config, stage="selfplay", test_split=test_split)
    return result


# -- the stages ------------------------------------------------------------------------------------


class _Run:
    def __init__(
        self,
        library: Any,
        test_tasks: Sequence[Task],
        test_spec: str,
        out: Path,
        config: SelfPlayConfig,
        backend_for: BackendFactory | None,
        sandbox: SandboxConfig | None,
        emit: ProgressCallback,
    ) -> None:
        self.library = library
        self.test_tasks = list(test_tasks)
        self.test_spec = test_spec  # `split=source`: how `evaluate` finds the tasks again
        self.out = out
        self.config = config
        self.backend_for = backend_for
        self.sandbox = sandbox
        self.emit = emit
        self.grader: Grader | None = None
        self.index = 0  # the round running, for progress events
        self._loaded: tuple[Path, Any, Any] | None = None  # (checkpoint, model, tokenizer)

    def round(self, state: RoundState) -> None:
        self.index = state.index
        if state.index == 0:
            if not state.done:
                state.finish(
                    "train", {"trained": False, "model": str(state.model_in), "note": "base model"}
                )
                state.finish("eval", self._evaluate(state, state.model_in))
            return
        if "tasks" not in state.stages:
            state.finish("tasks", self._write_tasks(state))
        if "solutions" not in state.stages:
            state.finish("solutions", self._solve(state))
        if "train" not in state.stages:
            state.finish("train", self._train(state))
        if "eval" not in state.stages:
            train = state.stages["train"]
            if train["trained"]:
                state.finish("eval", self._evaluate(state, Path(train["model"])))
            else:  # the same weights as the round before: its evaluation holds
                before = RoundState.open(
                    round_dir(self.out, state.index - 1), state.index - 1, state.model_in, {}
                )
                evaluation = before.stages["eval"]
                origin = evaluation.get("carried_from", state.index - 1)
                state.finish("eval", {**evaluation, "carried_from": origin})

    # -- backends ----------------------------------------------------------------------------

    def _backend(self, checkpoint: Path, round_index: int) -> Backend:
        if self.backend_for is not None:
            backend = self.backend_for(checkpoint)
            check = getattr(backend, "check", None)
            if check is not None:
                try:
                    check()
                except SebenchError as exc:
                    raise SebenchError(
                        f"round {round_index} needs the checkpoint {checkpoint} served under that "
                        f"name ({exc}); serve it (e.g. `vllm serve {checkpoint}`) and rerun the "
                        "same command: finished stages are kept"
                    ) from None
            return backend
        from sebench.rollout.hf_local import HFLocalBackend

        model, tokenizer = self._model(checkpoint)
        return HFLocalBackend(model, tokenizer, name=str(checkpoint))

    def _model(self, checkpoint: Path) -> tuple[Any, Any]:
        """The checkpoint in memory, loaded once and shared by its stages."""
        if self._loaded is None or self._loaded[0] != checkpoint:
            self._loaded = None  # free the old weights before loading the new ones
            self.emit(Progress(self.index, "note", f"loading {checkpoint}"))
            model, tokenizer = load_model(checkpoint)
            torch = require("torch", "train")
            if torch.cuda.is_available():  # generate on the GPU the trainer will use anyway
                model = model.to("cuda")
            self._loaded = (checkpoint, model, tokenizer)
        return self._loaded[1], self._loaded[2]

    # -- 1. tasks ------------------------------------------------------------------------------

    def _write_tasks(self, state: RoundState) -> dict[str, Any]:
        index, folder = state.index, state.path
        folder.mkdir(parents=True, exist_ok=True)
        config = replace(self.config.writing, seed=self.config.seed + index)
        backend = self._backend(state.model_in, index)
        try:
            summary = generate_model_tasks(
                backend,
                [backend],
                self.library,
                folder / "tasks.jsonl",
                config,
                grader=self.grader,
                on_progress=lambda p: self.emit(
                    Progress(index, "tasks", f"round {index}: writing tasks", p.done, p.total)
                ),
            )
            write_summary(summary, backend, [backend])
        finally:
            backend.close()
        if summary.failed:
            raise SebenchError(
                f"round {index}: {summary.failed} task-writing requests failed for good (first "
                f"error: {summary.first_error}); rerun the same command to retry them"
            )
        kept = len(_tasks(folder / "tasks.jsonl"))
        rejected = _count_by(folder / "tasks.rejects.jsonl", "stage")
        return {"requested": summary.total, "kept": kept, "rejected": rejected}

    # -- 2. solutions --------------------------------------------------------------------------

    def _solve(self, state: RoundState) -> dict[str, Any]:
        index = state.index
        if self.config.method is Method.RL:
            return {"skipped": "Closed-RL samples its own answers while it trains"}
        tasks = _tasks(state.path / "tasks.jsonl")
        if not tasks:
            return {"skipped": "no task kept"}
        backend = self._backend(state.model_in, index)
        config = replace(self.config.solving, seed=self.config.seed + index)
        try:
            summary = build_sft_data(
                tasks,
                self.library,
                backend,
                state.path / "sft.jsonl",
                config,
                grader=self.grader,
                on_progress=lambda p: self.emit(
                    Progress(
                        index, "solutions", f"round {index}: {p.stage} answers", p.done, p.total
                    )
                ),
                extra_meta={"selfplay_round": index},
                source=str(state.path / "tasks.jsonl"),
            )
        finally:
            backend.close()
        if summary.rollout.errors:
            raise SebenchError(
                f"round {index}: {summary.rollout.errors} answers failed for good (first error: "
                f"{summary.rollout.first_error}); rerun the same command to retry them"
            )
        return {"sampled": summary.samples, "kept": summary.kept, "verdicts": summary.verdicts}

    # -- 3. train ------------------------------------------------------------------------------

    def _train(self, state: RoundState) -> dict[str, Any]:
        index, start = state.index, state.model_in
        tasks_kept = state.stages["tasks"]["kept"]
        answers = state.stages["solutions"].get("kept")
        reason = None
        if not tasks_kept:
            reason = "no task kept"
        elif self.config.method is Method.SFT and not answers:
            reason = "no answer kept"
        if reason is not None:
            self.emit(Progress(index, "note", f"round {index}: {reason}: not trained"))
            return {"trained": False, "model": str(start), "note": f"not trained: {reason}"}
        target = state.path / "model"
        seed = self.config.seed + index
        if self.config.method is Method.SFT:
            return self._train_sft(state, target, seed)
        return self._train_rl(state, target, seed)

    def _train_sft(self, state: RoundState, target: Path, seed: int) -> dict[str, Any]:
        index = state.index
        examples = read_sft_data(state.path / "sft.jsonl", Arm.CLOSED)
        model, tokenizer = self._model(state.model_in)
        self._loaded = None  # trained in place: no longer the checkpoint it was loaded from
        # The last round's training left every weight frozen for generation; a fresh load has
        # none frozen, and `train_sft` freezes what its config says.
        for parameter in model.parameters():
            parameter.requires_grad_(True)
        config = replace(self.config.sft, seed=seed)
        result = train_sft(
            model,
            tokenizer,
            examples,
            config,
            out_dir=target,
            on_progress=lambda step, total, loss: self.emit(
                Progress(index, "train", f"round {index}: Closed-SFT", step, total)
            ),
            extra_record={"arm": "closed", "selfplay_round": index, "init": str(state.model_in)},
        )
        self._loaded = (target, result.model, result.tokenizer)
        return {
            "trained": True,
            "model": str(target),
            "note": f"Closed-SFT, {config.max_steps} steps on {len(examples)} answers",
            "losses": [round(x, 5) for x in result.losses],
        }

    def _train_rl(self, state: RoundState, target: Path, seed: int) -> dict[str, Any]:
        index = state.index
        tasks = _tasks(state.path / "tasks.jsonl")
        settings = replace(self.config.grpo, seed=seed)
        # Fewer tasks than one step's prompts: repeat them, so that a step has its prompts.
        if len(tasks) < settings.prompts_per_step:
            tasks = list(itertools.islice(itertools.cycle(tasks), settings.prompts_per_step))
        self._loaded = None  # GRPO loads the checkpoint itself
        result = train_grpo(
            state.model_in,
            tasks,
            self.library,
            RLMode.CLOSED,
            target,
            settings,
            grader=self.grader,
            on_step=lambda step: self.emit(
                Progress(index, "train", f"round {index}: Closed-RL", step.step, step.max_steps)
            ),
            extra_record={"selfplay_round": index},
            keep_checkpoints=False,  # the round's record resumes a finished round
        )
        rewards = [s.reward_mean for s in result.steps if s.reward_mean is not None]
        return {
            "trained": True,
            "model": str(target),
            "note": f"Closed-RL, {settings.max_steps} steps on {state.stages['tasks']['kept']} tasks",
            "rewards": [round(x, 4) for x in rewards],
        }

    # -- 4. eval -------------------------------------------------------------------------------

    def _evaluate(self, state: RoundState, checkpoint: Path) -> dict[str, Any]:
        index = state.index
        folder = state.path / "eval"
        folder.mkdir(parents=True, exist_ok=True)
        backend = self._backend(checkpoint, index)
        rollout_config = RolloutConfig(
            modes=(PromptMode.CLOSED,),
            samples=self.config.eval_samples,
            seed=self.config.seed,
            sampling=self.config.eval_sampling,
            limit=self.config.test_limit,
        )
        try:
            rolled = rollout(
                self.test_tasks,
                self.library,
                backend,
                folder / "responses.jsonl",
                rollout_config,
                on_progress=lambda p: self.emit(
                    Progress(
                        index, "eval", f"round {index}: answering closed-book", p.done, p.total
                    )
                ),
                extra_meta={"selfplay_round": index},
            )
        finally:
            backend.close()
        if rolled.errors:
            raise SebenchError(
                f"round {index}: {rolled.errors} test answers failed for good (first error: "
                f"{rolled.first_error}); rerun the same command to retry them"
            )
        self.emit(Progress(index, "eval", f"round {index}: grading"))
        summary = evaluate(
            folder / "responses.jsonl",
            folder / "results.jsonl",
            folder / "summary.json",
            library=self.library,
            config=EvalConfig(sandbox=self.sandbox, data=(self.test_spec,)),
        )
        return {
            "model": str(checkpoint),
            "accuracy": summary["accuracy"],
            "samples": summary["samples"],
            "verdicts": {k: v for k, v in summary["verdicts"].items() if v},
        }


# -- reading back ----------------------------------------------------------------------------------


def _tasks(path: Path) -> list[Task]:
    if not path.is_file():
        return []
    return [
        task_from_official_row(row, "train", path=str(path), line=line)
        for line, row in iter_jsonl(path)
    ]


def _count_by(path: Path, key: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    if path.is_file():
        for _, row in iter_jsonl(path):
            counts[str(row.get(key))] = counts.get(str(row.get(key)), 0) + 1
    return dict(sorted(counts.items()))
