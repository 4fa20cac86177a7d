"""The laptop demo of the Open-Book Paradox, as library code.

Generate tiny tasks for six library functions; fine-tune SmolLM2-135M twice on the same answers,
once with the docs in the prompt (open book) and once without (closed book); then evaluate the
base model and both arms on held-out paraphrases without docs, and the open arm with docs too.
Everything runs in one process (each extra process costs ~5 s of imports and loading), through
the real rollout backend (`HFLocalBackend`) and the real grader (`Grader`).

With an output folder the demo resumes: each finished table row and training is recorded in
`demo_state.json` there, and a rerun with the same settings keeps them, runs only what is
missing (an arm whose rows are not all done is trained again from the base weights).
"""

from __future__ import annotations

import gc
import json
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sebench.data.rows import official_row
from sebench.data.schema import Task
from sebench.errors import require
from sebench.jsonl import write_json, write_jsonl
from sebench.provenance import provenance
from sebench.training.cpu import machine_report
from sebench.training.sft import (
    SFTTrainingConfig,
    load_model,
    resolve_precision,
    save_checkpoint,
    train_sft,
)
from sebench.training.sft_data import build_examples
from sebench.training.taskgen import DEMO_FUNCTIONS, TaskSet, TaskSetConfig, generate_tasks
from sebench.training.taskprompts import Arm, distractor_docs, messages

if TYPE_CHECKING:
    from sebench.library.library import Library

STATE_FILE = "demo_state.json"

# The paradox in numbers: what `sebench demo` must show (issue 6).
CLOSED_MIN = 0.75  # closed-SFT, no docs at test
OPEN_MAX = 0.05  # open-SFT, no docs at test
OPEN_DOCS_MIN = 0.90  # open-SFT, docs at test


def demo_sft() -> SFTTrainingConfig:
    """The demo's training: the laptop recipe (`SFTTrainingConfig`'s defaults) with only the top
    fifth of the layers trained (6 of SmolLM2's 30, not 20) at twice the learning rate (4e-4)
    and 6 examples a step instead of 8. Backward then stops after 6 layers and a step is
    little more than its forward pass: training took 160 s instead of 290 s with AVX-512 off
    (the demo 207 s instead of 333 s, docs/demo.md), for CPUs without bf16, where the demo took
    13 minutes (issue 11).
    Measured in fp32 on the held-out prompts, seeds 0/1/2: closed-SFT 23/23/23 of 24 (the
    previous recipe: 23/24 on seed 0), open-SFT 0/24 without docs and 24/24 with them on every
    seed. Rejected on the way (seed 0): LoRA rank 32 on the same 20 layers (4/24, and no
    faster), 24 steps (10/24), 28 steps with 6 layers (20/24)."""
    return SFTTrainingConfig(freeze_fraction=0.8, learning_rate=4e-4, batch_size=6)


@dataclass(frozen=True)
class DemoConfig:
    """The whole demo. Defaults: the measured laptop recipe (docs/demo.md)."""

    seed: int = 0  # tasks, parameter names, training order and initialisation
    functions: tuple[str, ...] = DEMO_FUNCTIONS
    train_per_function: int = 64  # the trainer sees max_steps x batch_size of these, in order
    test_per_function: int = (
        4  # each held-out (frame, phrase) pair once: 24 prompts, as in the recipe
    )
    distractors: int = 0  # extra docs of other functions in open prompts (laptop recipe: 0)
    max_new_tokens: int = 44  # the answer is 37-40 tokens; the chatty base model is cut off
    eval_batch_size: int = 24
    sft: SFTTrainingConfig = field(default_factory=demo_sft)
    save_models: bool = False  # write both trained checkpoints (~540 MB each) into the out dir


@dataclass(frozen=True)
class Evaluation:
    """One row of the demo table: one model, one prompt style, all held-out tasks."""

    key: str  # "base", "open_no_docs", "closed_no_docs", "open_docs"
    label: str
    model: str  # "base" | "open-SFT" | "closed-SFT"
    docs_at_test: bool
    correct: int
    total: int
    verdicts: dict[str, int]  # VerdictKind value -> count
    per_function: dict[str, tuple[int, int]]  # NumPy name -> (correct, total)
    seconds: float

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


@dataclass(frozen=True)
class TrainingRun:
    arm: str
    seconds: float
    steps: int
    examples: int
    trainable_parameters: int
    first_loss: float | None  # mean over the first 10 logged steps
    final_loss: float | None
    losses: tuple[float, ...]


@dataclass
class DemoResult:
    evaluations: list[Evaluation]
    trainings: list[TrainingRun]
    wall_seconds: float
    config: DemoConfig
    library: dict[str, Any]  # package, origin, the demo functions' names
    model: str
    precision: dict[str, Any] = field(default_factory=dict)  # `Precision.to_dict()`
    resumed: tuple[str, ...] = ()  # rows and trainings kept from an interrupted run
    record: dict[str, Any] = field(default_factory=dict)  # provenance

    def evaluation(self, key: str) -> Evaluation:
        return next(e for e in self.evaluations if e.key == key)

    @property
    def checks(self) -> dict[str, bool]:
        """The issue's thresholds, each on the held-out tasks."""
        found = {e.key: e.accuracy for e in self.evaluations}
        checks = {}
        if "closed_no_docs" in found:
            checks[f"closed-SFT without docs >= {CLOSED_MIN:.0%}"] = (
                found["closed_no_docs"] >= CLOSED_MIN
            )
        if "open_no_docs" in found:
            checks[f"open-SFT without docs <= {OPEN_MAX:.0%}"] = found["open_no_docs"] <= OPEN_MAX
        if "open_docs" in found:
            checks[f"open-SFT with docs >= {OPEN_DOCS_MIN:.0%}"] = (
                found["open_docs"] >= OPEN_DOCS_MIN
            )
        return checks

    @property
    def paradox_shown(self) -> bool:
        return bool(self.checks) and all(self.checks.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "evaluations": [
                asdict(e) | {"accuracy": round(e.accuracy, 4)} for e in self.evaluations
            ],
            "trainings": [asdict(t) for t in self.trainings],
            "wall_seconds": round(self.wall_seconds, 1),
            "checks": self.checks,
            "paradox_shown": self.paradox_shown,
            "library": self.library,
            "model": self.model,
            "precision": self.precision,
            "resumed": list(self.resumed),
            "provenance": self.record,
        }


@dataclass(frozen=True)
class Progress:
    """A progress event for the caller (the CLI draws it; library code never prints)."""

    # "tasks" | "load" | "train" | "eval" | "done"; "note": a line to keep (precision, resuming)
    stage: str
    message: str
    done: int = 0
    total: int = 0
    loss: float | None = None
    extra: str = ""  # more numbers for the progress line (the RL demo: reward, zero spread)


ProgressCallback = Callable[[Progress], None]

# (row key, label, model, docs at test); the base model is evaluated first, then each arm.
ROWS = (
    ("base", "base model, no docs", "base", False),
    ("open_no_docs", "open-SFT, no docs", "open-SFT", False),
    ("closed_no_docs", "closed-SFT, no docs", "closed-SFT", False),
    ("open_docs", "open-SFT, docs at test", "open-SFT", True),
)


def evaluate(
    model: Any,
    tokenizer: Any,
    tasks: Sequence[Task],
    arm: Arm,
    grader: Any,
    *,
    key: str,
    label: str,
    model_label: str,
    max_new_tokens: int,
    batch_size: int,
    distractors: int = 0,
    responses_path: Path | None = None,
    on_progress: ProgressCallback | None = None,
) -> Evaluation:
    """Greedy answers from the real local backend, graded by the real grader."""
    from sebench.rollout.backend import ChatRequest, SamplingConfig
    from sebench.rollout.hf_local import HFLocalBackend

    started = time.perf_counter()
    backend = HFLocalBackend(model, tokenizer, name=model_label, batch_size=batch_size)
    by_id = {task.task_id: task for task in tasks}
    requests = [
        ChatRequest(
            task_id=task.task_id,
            sample=0,
            messages=tuple(messages(task, arm, distractor_docs(task, tasks, distractors))),
            seed=0,
            mode=arm.value,
        )
        for task in tasks
    ]
    sampling = SamplingConfig(temperature=0.0, max_new_tokens=max_new_tokens)
    completions = []
    for completion in backend.generate(requests, sampling):
        completions.append(completion)
        if on_progress is not None:
            on_progress(Progress("eval", f"{label}: answering", len(completions), len(tasks)))
    backend.close()
    graded = list(grader.grade_many((by_id[c.task_id], c.text, c) for c in completions))
    verdicts: Counter[str] = Counter()
    per_function: dict[str, list[int]] = {}
    rows = []
    for (task, _, completion), verdict in graded:
        verdicts[verdict.kind.value] += 1
        tally = per_function.setdefault(task.selected_functions[0], [0, 0])
        tally[0] += int(verdict.correct)
        tally[1] += 1
        rows.append(
            {
                "task_id": task.task_id,
                "sample": 0,
                "response": completion.text,
                "model": model_label,
                "mode": arm.value,
                "finish_reason": completion.finish_reason.value,
                "completion_tokens": completion.completion_tokens,
                **verdict.to_dict(),
            }
        )
    if responses_path is not None:
        rows.sort(key=lambda r: r["task_id"])
        write_jsonl(responses_path, rows)
    correct = verdicts.get("correct", 0)
    return Evaluation(
        key=key,
        label=label,
        model=model_label,
        docs_at_test=arm is Arm.OPEN,
        correct=correct,
        total=len(tasks),
        verdicts=dict(sorted(verdicts.items())),
        per_function={name: (c, t) for name, (c, t) in sorted(per_function.items())},
        seconds=time.perf_counter() - started,
    )


def run_demo(
    library: Library,
    model_dir: str | Path,
    config: DemoConfig | None = None,
    *,
    out_dir: str | Path | None = None,
    on_progress: ProgressCallback | None = None,
    grader: Any = None,
) -> DemoResult:
    """Run the whole demo; with `out_dir`, write the tasks, every response with its verdict, the
    resume state and the trained checkpoints (if `config.save_models`) there, and keep what an
    interrupted run with the same settings finished. The report files (JSON, Markdown, chart)
    are written by `sebench.reports`."""
    config = config or DemoConfig()
    started = time.perf_counter()
    emit = on_progress or (lambda event: None)
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    machine_start = machine_report()
    precision = resolve_precision(config.sft)
    emit(Progress("note", f"training in {precision.name} ({precision.reason})"))
    if precision.warning:
        emit(Progress("note", f"warning: {precision.warning}"))

    emit(Progress("tasks", "generating tasks"))
    tasks = demo_tasks(library, config, config.seed)
    if out is not None:
        write_jsonl(out / "tasks_train.jsonl", [official_row(t) for t in tasks.train])
        write_jsonl(out / "tasks_test.jsonl", [official_row(t) for t in tasks.test])

    library_info = library_record(library, config.functions)
    state = _DemoState.open(out, config, library_info, str(model_dir), precision.bf16)
    if state.resumed:
        emit(Progress("note", f"resuming: keeping {', '.join(state.resumed)} from {out}"))

    with grader_for(library, grader) as grading:
        _run_arms(Path(model_dir), tasks, config, grading, out, emit, state)

    order = [key for key, *_ in ROWS]
    evaluations = sorted(state.evaluations.values(), key=lambda e: order.index(e.key))
    trainings = [state.trainings[arm.value] for arm in (Arm.CLOSED, Arm.OPEN)]
    result = DemoResult(
        evaluations=evaluations,
        trainings=trainings,
        wall_seconds=time.perf_counter() - started,
        config=config,
        library=library_info,
        model=str(model_dir),
        precision=precision.to_dict(),
        resumed=state.resumed,
    )
    result.record = provenance(
        config,
        stage="demo",
        wall_seconds=round(result.wall_seconds, 1),
        machine_at_start=machine_start,
        machine_at_end=machine_report(),
    )
    emit(Progress("done", f"done in {result.wall_seconds:.0f} s"))
    return result


def demo_tasks(library: Library, config: Any, seed: int) -> TaskSet:
    """The demo's tasks for `seed`: `config` is a `DemoConfig` or an `RLDemoConfig` (its
    functions and how many tasks of each)."""
    return generate_tasks(
        library.table,
        TaskSetConfig(
            functions=config.functions,
            train_per_function=config.train_per_function,
            test_per_function=config.test_per_function,
            seed=seed,
        ),
    )


def library_record(library: Library, functions: tuple[str, ...]) -> dict[str, Any]:
    """What a demo records of its library: where it is, where it came from, and the names of
    the demo's functions in it."""
    names = library.table.numpy_to_library()
    return {
        "package": library.package,
        "root": str(library.root),
        "origin": library.meta.get("origin"),
        "seed": library.meta.get("seed"),
        "functions": {name: names[name] for name in functions},
        "constructor": library.table.constructor,
    }


@contextmanager
def grader_for(library: Library, grader: Any) -> Iterator[Any]:
    """`grader` when the caller lends one (tests share one warm grader), else one of our own,
    closed at the end."""
    if grader is not None:
        yield grader
        return
    from sebench.grading.grader import Grader

    own = Grader(library).start()
    try:
        yield own
    finally:
        own.close()


def state_settings(
    config: dict[str, Any], library: dict[str, Any], model: str, bf16: bool
) -> dict[str, Any]:
    """What a demo's saved state must have been made with to be kept, as it reads back from
    JSON (tuples become lists)."""
    settings = {"config": config, "library": library, "model": model, "bf16": bf16}
    return json.loads(json.dumps(settings))


def saved_state(path: Path | None, settings: dict[str, Any]) -> dict[str, Any] | None:
    """The state saved at `path` when it was made with `settings`; None when there is none, it
    is damaged or it was made with other settings (start over)."""
    if path is None or not path.is_file():
        return None
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return saved if saved.get("settings") == settings else None


class _DemoState:
    """Finished rows and trainings, saved after each one so that a rerun can skip them."""

    def __init__(self, path: Path | None, settings: dict[str, Any]) -> None:
        self.path = path
        self.settings = settings
        self.evaluations: dict[str, Evaluation] = {}
        self.trainings: dict[str, TrainingRun] = {}
        self.resumed: tuple[str, ...] = ()

    @classmethod
    def open(
        cls,
        out: Path | None,
        config: DemoConfig,
        library: dict[str, Any],
        model: str,
        bf16: bool,
    ) -> _DemoState:
        # Everything that changes a row; `save_models` does not.
        config_record = asdict(config) | {"save_models": None}
        settings = state_settings(config_record, library, model, bf16)
        state = cls(out / STATE_FILE if out is not None else None, settings)
        saved = saved_state(state.path, settings)
        if saved is None:
            return state
        for row in saved.get("evaluations", []):
            row["per_function"] = {k: tuple(v) for k, v in row["per_function"].items()}
            state.evaluations[row["key"]] = Evaluation(**row)
        for row in saved.get("trainings", []):
            row["losses"] = tuple(row["losses"])
            state.trainings[row["arm"]] = TrainingRun(**row)
        # An arm with rows missing is trained again: its kept training would not be used.
        for arm in (Arm.CLOSED, Arm.OPEN):
            if not state.arm_done(arm):
                state.trainings.pop(arm.value, None)
        state.resumed = tuple(state.evaluations) + tuple(
            f"{arm}-SFT training" for arm in state.trainings
        )
        return state

    def arm_done(self, arm: Arm) -> bool:
        keys = [key for key, _, model, _ in ROWS if model == f"{arm.value}-SFT"]
        return arm.value in self.trainings and all(key in self.evaluations for key in keys)

    def save(self) -> None:
        if self.path is None:
            return
        record = {
            "settings": self.settings,
            "evaluations": [asdict(e) for e in self.evaluations.values()],
            "trainings": [asdict(t) for t in self.trainings.values()],
        }
        write_json(self.path, record)


def _run_arms(
    model_dir: Path,
    tasks: TaskSet,
    config: DemoConfig,
    grader: Any,
    out: Path | None,
    emit: ProgressCallback,
    state: _DemoState,
) -> None:
    torch = require("torch", "train")
    torch.manual_seed(config.seed)

    def run_eval(model: Any, tokenizer: Any, key: str, arm: Arm) -> None:
        _, label, model_label, _ = next(row for row in ROWS if row[0] == key)
        state.evaluations[key] = evaluate(
            model,
            tokenizer,
            tasks.test,
            arm,
            grader,
            key=key,
            label=label,
            model_label=model_label,
            max_new_tokens=config.max_new_tokens,
            batch_size=config.eval_batch_size,
            distractors=config.distractors,
            responses_path=out / f"responses_{key}.jsonl" if out is not None else None,
            on_progress=emit,
        )
        state.save()

    loaded = None  # base weights not yet trained on
    if "base" not in state.evaluations:
        emit(Progress("load", f"loading {model_dir.name}"))
        loaded = load_model(model_dir)
        run_eval(*loaded, "base", Arm.CLOSED)
    # Closed first: it is the faster arm. Each arm starts from freshly loaded base weights
    # (0.5 s), so that both start from the same point and a skipped arm changes nothing.
    for arm in (Arm.CLOSED, Arm.OPEN):
        if state.arm_done(arm):
            continue
        if loaded is None:
            emit(Progress("load", f"loading {model_dir.name}"))
            loaded = load_model(model_dir)
        model, tokenizer = loaded
        loaded = None
        examples = build_examples(tasks.train, arm, distractors=config.distractors)
        label = f"{arm.value}-SFT"

        def on_step(step: int, total: int, loss: float | None, label: str = label) -> None:
            emit(Progress("train", f"training {label}", step, total, loss))

        emit(Progress("train", f"training {label}", 0, config.sft.max_steps))
        trained = train_sft(
            model,
            tokenizer,
            examples,
            config.sft,
            on_progress=on_step,
            extra_record={"arm": arm.value, "demo_seed": config.seed},
        )
        losses = tuple(trained.losses)
        state.trainings[arm.value] = TrainingRun(
            arm=arm.value,
            seconds=round(trained.train_seconds, 1),
            steps=config.sft.max_steps,
            examples=config.sft.max_steps * config.sft.batch_size,
            trainable_parameters=trained.trainable_parameters,
            first_loss=round(sum(losses[:10]) / len(losses[:10]), 4) if losses else None,
            final_loss=round(losses[-1], 5) if losses else None,
            losses=losses,
        )
        state.save()
        if out is not None and config.save_models:
            save_checkpoint(trained, out / f"model_{arm.value}")
        run_eval(trained.model, tokenizer, f"{arm.value}_no_docs", Arm.CLOSED)
        if arm is Arm.OPEN:
            run_eval(trained.model, tokenizer, "open_docs", Arm.OPEN)
        del model, trained
        gc.collect()
