"""Model-written tasks: the paper's construction pipeline, on any backend, resumable.

A generator model writes each task in NumPy form from the NumPy docs of one function, or of a
random set of >= 3 functions (the official `multiple_test` shape). Each answer then passes these
stages in order; the first one it fails sends it to the rejects file with that stage and reason:

1. `generate`: the answer was cut off by the token limit. (A request that failed for good is no
   task and no reject: it is counted as failed and retried by the next run.)
2. `parse`: the answer is not a task (no JSON, no signature, < 5 literal test inputs, ...).
3. `policy`: the reference imports a module outside NumPy and pure computation (randomness,
   clock, OS, network), uses `np.random` or `id()`/`hash()`, is refused by the grader's own
   static policy, or does not call the function(s) it was written for.
4. `execute`: the reference runs in the grader's sandbox (NumPy allowed) on every test input; it
   must print a result for each, with no error, NaN or `#`. These printed results become the
   expected outputs: the generator's claimed outputs are never used (only counted when wrong).
5. `determinism`: a second sandbox run, with the inputs in reverse order, must print the same
   result for every input (state kept between calls, such as a mutable default, shows here).
6. `translate`: the reference, translated into the library (`sebench.data.translate`), must be
   graded correct by the strict grader: exactly what `sebench validate` checks, so every kept
   task verifies.
7. `duplicate`: near-duplicate of a kept task (`sebench.data.generate.dedup`), or the same
   functions, test inputs and expected outputs as one.
8. `consensus`: every solver model, given the NumPy-form prompt, must be graded correct by the
   grader in NumPy-form mode (official: 3 models, all must pass).

Work goes in batches of requests; a batch's kept rows and rejects are appended (flushed) when it
ends, and a rerun skips every request already in either file, so a kill loses at most the batch
in flight and no row is written twice. The generator and solvers are any rollout `Backend`
(an OpenAI-compatible server, a local checkpoint), so self-play can use the model under training
for both.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from sebench.data.generate.dedup import (
    DUPLICATE_DISTANCE,
    Fingerprint,
    duplicate_of,
    fingerprint,
    same_cases,
)
from sebench.data.generate.written import (
    MIN_CASES,
    Malformed,
    WrittenDraft,
    generator_prompt,
    numpy_calls,
    parse_answer,
    reference_refusal,
)
from sebench.data.rows import official_row, task_from_official_row
from sebench.data.schema import Task, make_task_id
from sebench.data.translate import to_library
from sebench.errors import SebenchError
from sebench.grading.compare import outputs_match
from sebench.grading.grader import Grader
from sebench.grading.sandbox.execution import ExecStatus, Execution
from sebench.grading.validate import response_for
from sebench.grading.verdicts import VerdictKind
from sebench.jsonl import JsonlAppender, iter_jsonl, read_completed
from sebench.library.catalog import CONSTRUCTOR
from sebench.library.library import Library
from sebench.prompts.templates import numpy_form
from sebench.provenance import provenance
from sebench.rollout.backend import Backend, ChatRequest, Completion, FinishReason, SamplingConfig

GENERATOR = "sebench.training.task_writing"
SPLIT = "train"  # model-written tasks are training data (self-play), as the paper uses them
DOC_CHARS = 6000  # a NumPy docstring cut for the prompt: the summary and parameters come first
ANSWER_CHARS = 4000  # of a rejected answer, kept in the rejects file to see what went wrong


class Stage(StrEnum):
    GENERATE = "generate"
    PARSE = "parse"
    POLICY = "policy"
    EXECUTE = "execute"
    DETERMINISM = "determinism"
    TRANSLATE = "translate"
    DUPLICATE = "duplicate"
    CONSENSUS = "consensus"


@dataclass(frozen=True)
class ModelTasksConfig:
    functions: tuple[str, ...] | None = None  # NumPy names; None: every function of the library
    per_function: int = 1  # single-function tasks asked per function
    multi: int = 0  # multi-function tasks asked
    functions_per_multi: int = 3  # official multiple_test rows combine >= 3 functions
    cases: int = 8  # test inputs asked for (official dev rows: 8 to 16); at least MIN_CASES kept
    seed: int = 0  # the multi-function draws and every request's sampling seed
    batch: int = 16  # requests per batch: the most a kill can lose
    duplicate_distance: float = DUPLICATE_DISTANCE
    generator_sampling: SamplingConfig = SamplingConfig()  # official evaluation setting
    solver_sampling: SamplingConfig = SamplingConfig()  # official evaluation setting


@dataclass(frozen=True)
class WriteRequest:
    key: str  # `single:mean:0`, `multi:3`: the resume key
    functions: tuple[str, ...]  # NumPy names the generator is asked to use


@dataclass(frozen=True)
class Reject:
    request: WriteRequest
    stage: Stage
    reason: str  # a rule name: `banned-module`, `raises`, `differs-on-rerun`, `solver-failed`
    detail: str
    answer: str = ""
    task_id: str | None = None

    def to_dict(self, generator_model: str) -> dict[str, Any]:
        return {
            "request": self.request.key,
            "functions": list(self.request.functions),
            "stage": self.stage.value,
            "reason": self.reason,
            "detail": self.detail,
            "task_id": self.task_id,
            "generator_model": generator_model,
            "answer": self.answer[:ANSWER_CHARS],
        }


@dataclass(frozen=True)
class Progress:
    done: int  # requests finished (kept or rejected), resumed ones included
    total: int
    kept: int
    rejected: int
    resumed: int
    elapsed_s: float


@dataclass(frozen=True)
class ModelTasksSummary:
    path: Path
    rejects_path: Path
    total: int  # requests planned
    resumed: int  # requests already finished by an earlier run
    kept: int  # kept by this run
    failed: int  # generator requests that failed for good (not recorded: a rerun retries them)
    first_error: str | None
    rejected: dict[str, int]  # stage -> rejects by this run
    claimed_wrong: int  # kept tasks where the generator's claimed outputs were wrong
    elapsed_s: float
    config: ModelTasksConfig = field(default_factory=ModelTasksConfig)

    @property
    def finished(self) -> int:
        return self.kept + sum(self.rejected.values())


@dataclass
class _Candidate:
    request: WriteRequest
    answer: str
    draft: WrittenDraft
    task: Task | None = None


def rejects_path_for(out: str | Path) -> Path:
    out = Path(out)
    return out.with_name(out.stem + ".rejects.jsonl")


def plan_requests(library_names: Sequence[str], config: ModelTasksConfig) -> list[WriteRequest]:
    """Every request of a run, the same for the same config (what resuming relies on)."""
    available = sorted(set(library_names))
    wanted = list(config.functions) if config.functions is not None else available
    unknown = [name for name in wanted if name not in set(available)]
    if unknown:
        raise SebenchError(f"the library has no function for NumPy name(s): {', '.join(unknown)}")
    if config.cases < MIN_CASES:
        raise SebenchError(f"--cases must be at least {MIN_CASES} (got {config.cases})")
    if config.multi and config.functions_per_multi < 3:
        raise SebenchError("a multi-function task combines at least 3 functions")
    pool = sorted(set(wanted))
    if config.multi and len(pool) < config.functions_per_multi:
        raise SebenchError(
            f"multi-function tasks need at least {config.functions_per_multi} functions to "
            f"draw from; --functions names {len(pool)}"
        )
    requests = [
        WriteRequest(f"single:{name}:{i}", (name,))
        for name in wanted
        for i in range(config.per_function)
    ]
    rng = random.Random(config.seed)
    requests += [
        WriteRequest(f"multi:{i}", tuple(rng.sample(pool, config.functions_per_multi)))
        for i in range(config.multi)
    ]
    return requests


def generate_model_tasks(
    generator: Backend,
    solvers: Sequence[Backend],
    library: Library,
    out: str | Path,
    config: ModelTasksConfig | None = None,
    *,
    rejects: str | Path | None = None,
    grader: Grader | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> ModelTasksSummary:
    """Write model-written tasks to `out` (official rows, appended) and drops to `rejects`.

    `solvers` must all pass each task's NumPy form; none: no consensus stage. A backend with a
    `check()` (a server) is checked first. `grader` (a running one to share) defaults to a new
    one over `library`.
    """
    config = config or ModelTasksConfig()
    out = Path(out)
    rejects_path = Path(rejects) if rejects is not None else rejects_path_for(out)
    requests = plan_requests(list(library.table.numpy_to_library()), config)
    for backend in (generator, *solvers):
        check = getattr(backend, "check", None)
        if check is not None:
            check()
    start = time.monotonic()
    counts = {"kept": 0, "claimed_wrong": 0, "failed": 0}
    first_error: str | None = None
    rejected: dict[str, int] = {}
    docs = _numpy_docs(library)
    own_grader = grader is None
    grader = grader or Grader(library)
    try:
        # the appenders cut a line torn by a kill first, so what is read back is whole
        with JsonlAppender(out) as rows, JsonlAppender(rejects_path) as dropped:
            done = _done_keys(out, rejects_path)
            kept_prints = _kept_fingerprints(out)
            todo = [request for request in requests if request.key not in done]
            resumed = len(requests) - len(todo)
            grader.start()
            if on_progress is not None:
                on_progress(Progress(resumed, len(requests), 0, 0, resumed, 0.0))
            for first in range(0, len(todo), max(1, config.batch)):
                batch = todo[first : first + max(1, config.batch)]
                kept, drops, failed = _run_batch(
                    batch, generator, solvers, library, grader, config, docs, kept_prints
                )
                counts["failed"] += len(failed)
                first_error = first_error or next(iter(failed.values()), None)
                for task in kept:
                    rows.write(official_row(task))
                    counts["kept"] += 1
                    counts["claimed_wrong"] += bool(task.extra.get("claimed_outputs_wrong"))
                for drop in drops:
                    dropped.write(drop.to_dict(generator.model_name))
                    rejected[drop.stage.value] = rejected.get(drop.stage.value, 0) + 1
                if on_progress is not None:
                    on_progress(
                        Progress(
                            done=resumed + first + len(batch) - counts["failed"],
                            total=len(requests),
                            kept=counts["kept"],
                            rejected=sum(rejected.values()),
                            resumed=resumed,
                            elapsed_s=time.monotonic() - start,
                        )
                    )
    finally:
        if own_grader:
            grader.close()
    return ModelTasksSummary(
        path=out,
        rejects_path=rejects_path,
        total=len(requests),
        resumed=resumed,
        kept=counts["kept"],
        failed=counts["failed"],
        first_error=first_error,
        rejected=rejected,
        claimed_wrong=counts["claimed_wrong"],
        elapsed_s=time.monotonic() - start,
        config=config,
    )


def write_summary(
    summary: ModelTasksSummary, generator: Backend, solvers: Sequence[Backend]
) -> Path:
    """`<out>.summary.json` next to the tasks: this run's counts, config, models and versions."""
    path = summary.path.with_name(summary.path.stem + ".summary.json")
    data = {
        "tasks": str(summary.path),
        "rejects": str(summary.rejects_path),
        "requests": summary.total,
        "resumed": summary.resumed,
        "kept": summary.kept,
        "rejected": summary.rejected,
        "failed": summary.failed,
        "claimed_outputs_wrong": summary.claimed_wrong,
        "elapsed_s": round(summary.elapsed_s, 3),
        "provenance": provenance(
            summary.config,
            generator=GENERATOR,
            generator_model=generator.model_name,
            solvers=[solver.model_name for solver in solvers],
        ),
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


# -- one batch -----------------------------------------------------------------------------


def _run_batch(
    batch: Sequence[WriteRequest],
    generator: Backend,
    solvers: Sequence[Backend],
    library: Library,
    grader: Grader,
    config: ModelTasksConfig,
    docs: dict[str, str],
    kept_prints: list[Fingerprint],
) -> tuple[list[Task], list[Reject], dict[str, str]]:
    """The batch's kept tasks (in request order), rejects and failed requests (key -> error);
    `kept_prints` grows."""
    answers = _ask_generator(batch, generator, config, docs)
    drops: list[Reject] = []
    candidates: list[_Candidate] = []
    known = frozenset(library.table.numpy_to_library())
    failed = {
        key: completion.error or "no answer"
        for key, completion in answers.items()
        if completion.finish_reason is FinishReason.ERROR
    }
    for request in batch:
        if request.key in failed:
            continue
        outcome = _read(request, answers[request.key], known)
        (drops if isinstance(outcome, Reject) else candidates).append(outcome)
    survivors = []
    # near-duplicates within the batch count too; a task that then fails consensus takes its
    # duplicates with it (they would fail the same way), and only kept tasks join `kept_prints`
    pending: list[Fingerprint] = []
    for candidate, drop in zip(candidates, _execute_all(candidates, grader), strict=True):
        if drop is not None:
            drops.append(drop)
            continue
        drop = _guarded(Stage.TRANSLATE, _verify_translation, candidate, library, grader)
        if drop is not None:
            drops.append(drop)
            continue
        assert candidate.task is not None
        try:
            own = _fingerprint(candidate.task)
        except Exception as exc:  # noqa: BLE001 - see `_unreadable`
            drops.append(_reject(candidate, Stage.DUPLICATE, "unreadable", _unreadable(exc)))
            continue
        twin = duplicate_of(own, kept_prints + pending, config.duplicate_distance)
        if twin is not None:
            drops.append(
                _reject(
                    candidate,
                    Stage.DUPLICATE,
                    "near-duplicate",
                    f"token edit distance {twin[1]:.3f} <= {config.duplicate_distance} "
                    f"to task {twin[0]}",
                )
            )
            continue
        # the same cases under other words or a padded program (`pass` lines kept the edit
        # distance above the threshold: a red team's four copies of one task, all kept)
        twin_id = same_cases(own, kept_prints + pending)
        if twin_id is not None:
            detail = f"the same functions, test inputs and expected outputs as task {twin_id}"
            drops.append(_reject(candidate, Stage.DUPLICATE, "same-cases", detail))
            continue
        pending.append(own)
        survivors.append(candidate)
    failures, solver_errors = _consensus(survivors, solvers, grader, config)
    failed |= solver_errors
    kept = []
    for candidate in survivors:
        assert candidate.task is not None
        failure = failures.get(candidate.request.key)
        if failure is not None:
            drops.append(_reject(candidate, Stage.CONSENSUS, "solver-failed", failure))
            continue
        if candidate.request.key in solver_errors:
            continue
        kept_prints.append(_fingerprint(candidate.task))
        extra = {**candidate.task.extra, "solvers": [s.model_name for s in solvers]}
        kept.append(dataclasses.replace(candidate.task, extra=extra))
    order = {request.key: i for i, request in enumerate(batch)}
    drops.sort(key=lambda drop: order[drop.request.key])
    return kept, drops, failed


def _ask_generator(
    batch: Sequence[WriteRequest], generator: Backend, config: ModelTasksConfig, docs: dict
) -> dict[str, Completion]:
    chats = [
        ChatRequest(
            task_id=request.key,
            sample=0,
            messages=(
                {
                    "role": "user",
                    "content": generator_prompt(
                        [(name, docs.get(name, "")) for name in request.functions], config.cases
                    ),
                },
            ),
            seed=_seed(config.seed, request.key),
            mode="generate",
        )
        for request in batch
    ]
    return {c.task_id: c for c in generator.generate(chats, config.generator_sampling)}


def _read(
    request: WriteRequest, completion: Completion, known: frozenset[str]
) -> _Candidate | Reject:
    """Stages 1-3: the answer arrived whole, reads as a task and passes the static checks."""
    text = completion.text
    if completion.finish_reason is FinishReason.LENGTH:
        return Reject(request, Stage.GENERATE, "truncated", "cut off by the token limit", text)
    try:
        draft = parse_answer(text, min_cases=MIN_CASES)
        refusal = reference_refusal(draft.reference)
        calls = numpy_calls(draft.reference, known)
    except Malformed as exc:
        return Reject(request, Stage.PARSE, "malformed", str(exc), text)
    except Exception as exc:  # noqa: BLE001 - see `_unreadable`
        return Reject(request, Stage.PARSE, "unreadable", _unreadable(exc), text)
    if refusal is not None:
        return Reject(request, Stage.POLICY, refusal.rule, refusal.detail, text)
    missing = [name for name in request.functions if name not in calls]
    if missing:
        detail = f"the reference never calls np.{', np.'.join(missing)}"
        return Reject(request, Stage.POLICY, "off-target", detail, text)
    return _Candidate(request, text, draft)


def _execute_all(candidates: Sequence[_Candidate], grader: Grader) -> list[Reject | None]:
    """Stages 3 (the grader's policy), 4 and 5, in parallel over the sandbox's workers."""
    with ThreadPoolExecutor(max_workers=max(1, grader.workers)) as pool:
        return list(pool.map(lambda c: _guarded(Stage.EXECUTE, _execute, c, grader), candidates))


def _guarded(
    stage: Stage, check: Callable[..., Reject | None], candidate: _Candidate, *args: Any
) -> Reject | None:
    """One stage's check of one answer, where anything the answer makes a check raise is that
    answer's reject, never the run's (see `_unreadable`)."""
    try:
        return check(candidate, *args)
    except Exception as exc:  # noqa: BLE001
        return _reject(candidate, stage, "unreadable", _unreadable(exc))


def _unreadable(exc: Exception) -> str:
    # Model-written text broke a check (a red team's: JSON nested 1,000 deep, 3,000 `-` in a
    # row, a lone surrogate, a 4,301-digit number, a 450-term sum the translator unparses):
    # the whole batch was lost, and the rerun asked the same requests with the same seeds and
    # broke the same way, so self-play's round never finished.
    return f"{type(exc).__name__}: {exc}"[:300]


def _execute(candidate: _Candidate, grader: Grader) -> Reject | None:
    draft = candidate.draft
    probe = _task(candidate, expected=("",) * len(draft.test_inputs))
    prepared = grader.prepare(probe, response_for(draft.reference), numpy_form=True)
    if prepared.verdict is not None or prepared.job is None:
        verdict = prepared.verdict
        rule = (verdict.rule if verdict else None) or "grader-policy"
        detail = f"{verdict.kind.value}: {verdict.detail or ''}" if verdict else "refused"
        return _reject(candidate, Stage.POLICY, rule, detail)
    first = grader.execute(prepared.job, numpy_form=True)
    problem = _run_problem(first, len(draft.test_inputs))
    if problem is not None:
        return _reject(candidate, Stage.EXECUTE, problem[0], problem[1])
    printed = tuple(str(case.printed) for case in first.cases)
    backwards = dataclasses.replace(prepared.job, test_inputs=prepared.job.test_inputs[::-1])
    second = grader.execute(backwards, numpy_form=True)
    problem = _run_problem(second, len(draft.test_inputs))
    again = tuple(str(case.printed) for case in second.cases)[::-1]
    if problem is None and again != printed:
        index = next(i for i, (a, b) in enumerate(zip(printed, again, strict=True)) if a != b)
        problem = (
            "differs-on-rerun",
            f"test input {index} printed {_clip(printed[index])} then {_clip(again[index])}",
        )
    if problem is not None:
        return _reject(candidate, Stage.DETERMINISM, problem[0], problem[1])
    candidate.task = _task(candidate, expected=printed)
    return None


def _run_problem(execution: Execution, cases: int) -> tuple[str, str] | None:
    if execution.status is ExecStatus.INFRA_ERROR:
        return "sandbox-failed", execution.detail or ""
    if execution.setup_error is not None:
        return "does-not-load", f"{execution.setup_error}: {execution.setup_message or ''}"
    if execution.status is not ExecStatus.OK or len(execution.cases) < cases:
        return execution.status.value, execution.detail or "stopped before the last test input"
    for index, case in enumerate(execution.cases):
        if case.error_type is not None:
            return "raises", f"test input {index}: {case.error_type}: {case.error_message or ''}"
        if case.printed is None or "nan" in case.printed or "#" in case.printed:
            # `#` separates results in right_exe_result; NaN compares unequal to itself
            return "unusable-output", f"test input {index} printed {_clip(case.printed)}"
    return None


def _verify_translation(candidate: _Candidate, library: Library, grader: Grader) -> Reject | None:
    """Stage 6: the library translation of the reference passes the strict grader."""
    assert candidate.task is not None
    translation = to_library(candidate.draft.reference, library.table)
    if not translation.ok or translation.code is None:
        detail = "; ".join(translation.problems)
        return _reject(candidate, Stage.TRANSLATE, "untranslatable", detail)
    verdict = grader.grade(candidate.task, response_for(translation.code))
    if verdict.kind is not VerdictKind.CORRECT:
        detail = f"{verdict.kind.value}: {verdict.rule or ''} {verdict.detail or ''}".strip()
        return _reject(candidate, Stage.TRANSLATE, "translation-fails", detail)
    return None


def _consensus(
    candidates: Sequence[_Candidate],
    solvers: Sequence[Backend],
    grader: Grader,
    config: ModelTasksConfig,
) -> tuple[dict[str, str], dict[str, str]]:
    """Stage 8: (request key -> why the first failing solver failed, request key -> the error
    of a solver request that failed for good: no verdict, retried by the next run)."""
    failures: dict[str, str] = {}
    errors: dict[str, str] = {}
    tasks = {c.request.key: c.task for c in candidates if c.task is not None}
    for solver in solvers:
        pending = [key for key in tasks if key not in failures and key not in errors]
        if not pending:
            break
        chats = [
            ChatRequest(
                task_id=key,
                sample=0,
                messages=({"role": "user", "content": numpy_form(tasks[key])},),
                seed=_seed(config.seed, f"solve:{key}"),
                mode="numpy",
            )
            for key in pending
        ]
        answers = {c.task_id: c for c in solver.generate(chats, config.solver_sampling)}
        for key in pending:
            if answers[key].finish_reason is FinishReason.ERROR:
                errors[key] = f"solver {solver.model_name}: {answers[key].error}"
        items = [(tasks[key], answers[key].text, key) for key in pending if key not in errors]
        for (_, _, key), verdict in grader.grade_many(items, numpy_form=lambda item: True):
            if verdict.kind is not VerdictKind.CORRECT:
                why = verdict.kind.value + (f" ({verdict.detail})" if verdict.detail else "")
                failures[key] = f"{solver.model_name}: {why}"[:500]
    return failures, errors


# -- rows and resuming ---------------------------------------------------------------------


def written_task_id(
    draft: WrittenDraft, expected: tuple[str, ...], functions: tuple[str, ...]
) -> str:
    """The official rows' id (query, signature, outputs) with everything else that tells two
    written tasks apart: the inputs, the reference and the functions (the grader's evidence).
    Two tasks that differed only in their inputs got one id, and later two that differed only
    in their reference, or were the same task kept for two requested functions (red teams'):
    a resumed round refused its own file, GRPO kept only the last of them, and self-play
    stopped for good at that round."""
    rest = "\x00".join((*draft.test_inputs, draft.reference, *functions))
    return make_task_id(SPLIT, draft.query, draft.signature, "#".join(expected) + "\x00" + rest)


def _task(candidate: _Candidate, expected: tuple[str, ...]) -> Task:
    draft, request = candidate.draft, candidate.request
    wrong = sum(
        1
        for claimed, actual in zip(draft.claimed_outputs, expected, strict=False)
        if not outputs_match(claimed, actual)
    ) + max(0, len(expected) - len(draft.claimed_outputs))
    return Task(
        task_id=written_task_id(draft, expected, _task_functions(request)),
        split=SPLIT,
        query=draft.query,
        signature=draft.signature,
        entry_point=draft.entry_point,
        test_inputs=draft.test_inputs,
        expected=expected,
        selected_functions=_task_functions(request),
        numpy_reference=draft.reference,
        example_input=draft.test_inputs[0],
        example_output=expected[0] if expected else None,
        extra={
            "generator": GENERATOR,
            "request": request.key,
            "function": request.functions[0] if len(request.functions) == 1 else "multi",
            "functions_given": list(request.functions),
            # never used for grading: how often the generator's own idea of the outputs was off
            "claimed_outputs": list(draft.claimed_outputs),
            "claimed_outputs_wrong": wrong,
        },
    )


def _task_functions(request: WriteRequest) -> tuple[str, ...]:
    """What a written task is about, and so the grader's evidence for it: the functions sebench
    asked for, never what the writer's reference mentions. A red team's writer mentioned a
    function it knew in dead code (`if False: np.mean(x)`) beside the requested one; that
    function then counted as the task's own, and a plain answer that called it on a fixed probe
    changed only under the perturbed rerun: `correct` on every task it wrote. The translated
    reference must still pass with these as evidence (stage 6), so a reference that names the
    requested function without calling it is rejected there. The array constructor is how
    inputs arrive, not what a task is about (as officially), unless it was asked for alone."""
    return tuple(n for n in request.functions if n != CONSTRUCTOR) or request.functions


def _reject(candidate: _Candidate, stage: Stage, reason: str, detail: str) -> Reject:
    task_id = candidate.task.task_id if candidate.task is not None else None
    return Reject(candidate.request, stage, reason, detail, candidate.answer, task_id)


def _done_keys(out: Path, rejects: Path) -> set[str]:
    done = read_completed(out, key=lambda row: row["extra"]["request"])
    done |= read_completed(rejects, key=lambda row: row["request"])
    return {str(key) for key in done}


def _kept_fingerprints(out: Path) -> list[Fingerprint]:
    """The kept tasks of an earlier run, so a resumed run still finds duplicates of them."""
    if not out.exists() or out.stat().st_size == 0:
        return []
    prints = []
    for line, row in iter_jsonl(out):
        task = task_from_official_row(row, SPLIT, path=str(out), line=line)
        if task.numpy_reference:
            prints.append(_fingerprint(task))
    return prints


def _fingerprint(task: Task) -> Fingerprint:
    # One source for a run's tasks and a resumed run's: the reference's calls (with the array
    # constructor) during a run against the row's functions (without it) after a resume never
    # had equal call sets, so no task kept before an interruption was a duplicate of a new one.
    assert task.numpy_reference is not None
    cases = json.dumps([list(task.test_inputs), list(task.expected)], ensure_ascii=False)
    return dataclasses.replace(
        fingerprint(task.task_id, task.numpy_reference, task.selected_functions), cases=cases
    )


def _numpy_docs(library: Library) -> dict[str, str]:
    """NumPy name -> NumPy's own docstring (the api_doc's `docstring` column), cut."""
    by_name = {(row.get("original_name"), row.get("curr_name")): row for row in library.docs()}
    docs = {}
    for entry in library.table.entries:
        row = by_name.get((entry.numpy_name.removeprefix("linalg."), entry.name), {})
        docs[entry.numpy_name] = str(row.get("docstring") or "")[:DOC_CHARS]
    return docs


def _seed(seed: int, key: str) -> int:
    return int(hashlib.sha1(f"{seed}:{key}".encode()).hexdigest()[:8], 16)


def _clip(text: str | None, limit: int = 80) -> str:
    text = "None" if text is None else text
    return repr(text if len(text) <= limit else text[:limit] + "...")
