"""`sebench experiment run`: every step of a recipe's plan, in order, into one run folder.

A step whose inputs are unchanged is skipped (plan.py); one that fails is recorded as failed and
the steps that need it are not run, while the others go on (one broken arm does not stop a
day-long run). The manifest (manifest.py) is rewritten after every step. One run at a time per
folder: a second one is refused (a lock on RUN_DIR/.lock, released by the kernel when the
process dies, so a killed run never leaves it stuck).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from sebench.errors import SebenchError
from sebench.experiments.manifest import Arm, ArmStatus, Manifest, write_manifest
from sebench.experiments.plan import (
    Decision,
    Plan,
    Planned,
    StepKind,
    make_plan,
    split_dir,
    train_dir,
)
from sebench.experiments.recipe import Recipe
from sebench.experiments.records import (
    StepRecord,
    StepState,
    read_record,
    write_record,
)
from sebench.experiments.regimes import REGIMES
from sebench.experiments.steps import STEP_FUNCTIONS, Context
from sebench.jsonl import write_json
from sebench.provenance import provenance

PLAN_FILE = "plan.json"  # the steps and keys of the latest run, for `status`
RECIPE_FILE = "recipe.json"  # the resolved recipe of the latest run
LOCK_FILE = ".lock"


class Outcome(StrEnum):
    SKIPPED = "skipped"
    DONE = "done"
    FAILED = "failed"
    BLOCKED = "blocked"  # a step it needs failed in this run


@dataclass(frozen=True)
class StepEvent:
    planned: Planned
    outcome: Outcome | None  # None: the step is starting
    wall_s: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    outcomes: dict[str, Outcome]
    manifest: Path

    @property
    def failed(self) -> list[str]:
        return [s for s, o in self.outcomes.items() if o in (Outcome.FAILED, Outcome.BLOCKED)]


def run_experiment(
    recipe: Recipe,
    run_dir: Path,
    on_event: Callable[[StepEvent], None] | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> RunResult:
    """Run every step not done yet. `on_event`: a step starts, ends, is skipped or blocked;
    `on_progress(step id, done, total)`: progress within a running step."""
    run_dir.mkdir(parents=True, exist_ok=True)
    with _lock(run_dir):
        plan = make_plan(recipe, run_dir)
        missing = sorted({m for p in plan.steps for m in p.missing})
        if missing:
            raise SebenchError(
                f"recipe {recipe.path}: input not found: {', '.join(missing)} (fix the path "
                "in the recipe, or --set it)"
            )
        write_json(
            run_dir / PLAN_FILE,
            [{"id": p.step.id, "kind": p.step.kind.value, "key": p.key} for p in plan.steps],
        )
        write_json(run_dir / RECIPE_FILE, recipe.to_dict())
        context = Context(recipe, run_dir)
        outcomes: dict[str, Outcome] = {}
        manifest = write_manifest(run_dir, build_manifest(recipe, plan, run_dir))
        for planned in plan.steps:
            if on_progress is not None:
                step_id = planned.step.id
                context.on_progress = lambda done, total, s=step_id: on_progress(s, done, total)
            outcome = _run_step(planned, plan, context, outcomes, on_event)
            outcomes[planned.step.id] = outcome
            if outcome is not Outcome.SKIPPED:
                write_manifest(run_dir, build_manifest(recipe, plan, run_dir))
        return RunResult(run_dir, outcomes, manifest)


def _run_step(
    planned: Planned,
    plan: Plan,
    context: Context,
    outcomes: dict[str, Outcome],
    on_event: Callable[[StepEvent], None] | None,
) -> Outcome:
    step, run_dir = planned.step, context.run_dir
    emit = on_event or (lambda event: None)
    if planned.decision is Decision.SKIP:
        emit(StepEvent(planned, Outcome.SKIPPED))
        return Outcome.SKIPPED
    blocked = [n for n in step.needs if outcomes.get(n) in (Outcome.FAILED, Outcome.BLOCKED)]
    if blocked and step.kind is not StepKind.REPORT:  # the table shows what is done
        emit(StepEvent(planned, Outcome.BLOCKED, error=f"needs {', '.join(blocked)}"))
        return Outcome.BLOCKED
    if planned.decision is Decision.RUN:
        for output in step.outputs:  # a fresh start: nothing of an older run is mixed in
            _remove(run_dir / output)
    record = StepRecord(
        step=step.id,
        key=planned.key,
        state=StepState.RUNNING,
        pid=os.getpid(),
        started=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    write_record(run_dir, record)
    emit(StepEvent(planned, None))
    started = time.perf_counter()
    try:
        result = STEP_FUNCTIONS[step.kind](step, context)
    except KeyboardInterrupt:
        record.state, record.wall_s = StepState.INTERRUPTED, _since(started)
        write_record(run_dir, record)
        write_manifest(run_dir, build_manifest(context.recipe, plan, run_dir))
        raise
    except Exception as exc:  # recorded, and the steps that do not need it go on
        record.state, record.wall_s = StepState.FAILED, _since(started)
        record.error = str(exc) if isinstance(exc, SebenchError) else _describe(exc)
        write_record(run_dir, record)
        emit(StepEvent(planned, Outcome.FAILED, record.wall_s, record.error))
        return Outcome.FAILED
    record.state, record.wall_s, record.result = StepState.DONE, _since(started), result
    record.provenance = _provenance(planned, plan, run_dir, result)
    write_record(run_dir, record)
    emit(StepEvent(planned, Outcome.DONE, record.wall_s))
    return Outcome.DONE


def _provenance(planned: Planned, plan: Plan, run_dir: Path, result: dict) -> dict:
    step = planned.step
    library = read_record(run_dir, "library")
    data = read_record(run_dir, "data") if "data" in plan.upstream(step.id) else None
    return provenance(
        step.config,
        step=step.id,
        key=planned.key,
        seed=step.seed,
        inputs=planned.digests,  # external files (test and train data, api_doc, base model)
        needs={need: plan.by_id()[need].key for need in step.needs},
        library_hash=(library.result.get("hash") if library is not None else None),
        generated_data_hash=(data.result.get("hash") if data is not None else None),
        isolation_layers=result.get("isolation_layers"),
    )


def build_manifest(recipe: Recipe, plan: Plan, run_dir: Path) -> Manifest:
    steps = plan.by_id()
    current = {
        sid: record
        for sid, p in steps.items()
        if (record := read_record(run_dir, sid)) is not None and record.key == p.key
    }
    library = current.get("library")
    arms = []
    for regime in recipe.regimes:
        for seed in recipe.seeds:
            for split in recipe.data.splits():
                folder = split_dir(regime, seed, split)
                grade_id = f"grade/{regime}/seed{seed}/{split}"
                status = ArmStatus.PENDING
                if grade_id in steps:
                    chain = [grade_id, *plan.upstream(grade_id)]
                    if _state(current, grade_id) is StepState.DONE:
                        status = ArmStatus.DONE
                    elif any(_state(current, s) is StepState.FAILED for s in chain):
                        status = ArmStatus.FAILED
                arms.append(
                    Arm(
                        regime=regime,
                        seed=seed,
                        split=split,
                        results=f"{folder}/results.jsonl",
                        summary=f"{folder}/summary.json",
                        train_dir=train_dir(regime, seed) if REGIMES[regime].train else None,
                        status=status,
                    )
                )
    return Manifest(
        name=recipe.name,
        model=str(recipe.model_path() or recipe.model),  # `${VAR}` resolved
        library_kind=recipe.library.kind,
        library_seed=recipe.library.seed,
        library_hash=library.result.get("hash", "") if library and library.state == "done" else "",
        expected=recipe.expected,
        arms=tuple(arms),
    )


def _state(records: dict[str, StepRecord], step_id: str) -> StepState | None:
    record = records.get(step_id)
    return record.state if record is not None else None


@contextmanager
def _lock(run_dir: Path) -> Iterator[None]:
    with (run_dir / LOCK_FILE).open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SebenchError(
                f"{run_dir}: another `sebench experiment run` is using this run folder; wait "
                "for it (`sebench experiment status`) or choose another --out"
            ) from None
        yield


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def _since(started: float) -> float:
    return round(time.perf_counter() - started, 3)


def _describe(exc: BaseException) -> str:
    """A bug's message with where it happened (the record keeps the last frames)."""
    frames = traceback.format_exception(exc)
    return "".join(frames[-6:]).strip()
