"""The paper's SFT data: open-book rollouts, graded, the correct answers kept with both prompts.

For each task the model answers `samples` times with the docs in its prompt (official: 5 samples
at temperature 0.6); every answer the grader passes (strict rules, the verdicts of `sebench
eval`) becomes one training row holding the answer and **both** prompts, open (docs first) and
closed (the task alone), so that the same answers train Open-SFT and Closed-SFT and the two arms
differ only in their prompt (`sebench train sft --mode open|closed --data OUT`).

Files next to OUT (`sft.jsonl`), all resumable:
- `sft.rollout.jsonl` (+ `sft.rollout.meta.json`): every sample, the rollout runner's own file;
- `sft.grades.jsonl`: one verdict per graded answer, appended as it is graded; a rerun grades
  only the answers missing there (keyed by task, sample and a digest of the answer and of what
  its verdict depends on: the task, the library's names, the grader's settings and version; so
  an answer generated again, or a changed task or library, is graded again);
- `sft.jsonl`: the kept rows, rewritten from those two at the end of every run;
- `sft.summary.json`: the counts of `SFTDataSummary` and the provenance.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sebench import __version__
from sebench.data.schema import Task
from sebench.errors import InputError
from sebench.grading.rules import Rules
from sebench.grading.runner import EvalConfig
from sebench.grading.verdicts import Verdict, VerdictKind
from sebench.jsonl import JsonlAppender, iter_jsonl, write_jsonl
from sebench.prompts.modes import PromptMode
from sebench.prompts.render import render_prompt, task_docs
from sebench.provenance import provenance
from sebench.rollout.backend import Backend, SamplingConfig
from sebench.rollout.runner import RolloutConfig, RolloutProgress, RolloutSummary, rollout
from sebench.training.sft_data import SFT_DATA_FORMAT

if TYPE_CHECKING:
    from sebench.grading.grader import Grader

GENERATION_MODE = PromptMode.OPEN  # the paper samples its SFT answers with the docs given
ROLLOUT_ERROR = "rollout_error"  # the summary's count of samples whose request failed for good


@dataclass(frozen=True)
class SFTDataConfig:
    """One SFT-data job."""

    samples: int = 5  # official: 5 open-book samples per training task
    seed: int = 0  # base seed of the per-sample seeds (`sebench.rollout.runner.sample_seed`)
    # official: temperature 0.6, 8192 new tokens (SamplingConfig's defaults)
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    limit: int | None = None  # only the first N tasks
    # the grader's settings; strict rules only: the official ones keep an answer whose one
    # library call is dead code (`if False: zwc.f(x)`), and training on it teaches the trick
    grading: EvalConfig = field(default_factory=EvalConfig)
    retry_errors: bool = True  # on resume, sample again the requests that failed for good

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise InputError(f"samples per task must be at least 1 (got {self.samples})")
        if self.grading.rules is not Rules.STRICT:
            raise InputError(
                f"training data is judged by the strict rules (got {self.grading.rules.value}): "
                "the official rules keep answers whose only library call does nothing"
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "seed": self.seed,
            "sampling": asdict(self.sampling),
            "limit": self.limit,
            "grading": self.grading.to_dict(),
            "retry_errors": self.retry_errors,
            "generation_mode": str(GENERATION_MODE),
        }


@dataclass(frozen=True)
class SFTDataProgress:
    stage: str  # "rollout", then "grade"
    done: int
    total: int


@dataclass(frozen=True)
class SFTDataSummary:
    path: Path
    tasks: int
    samples: int  # answers sampled (the rollout's whole plan)
    kept: int  # rows in `path`
    verdicts: dict[str, int]  # per verdict over every sample (`rollout_error`: no answer)
    tasks_without_kept: list[str]  # task ids with no correct answer
    rollout: RolloutSummary

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "tasks": self.tasks,
            "samples": self.samples,
            "kept": self.kept,
            "verdicts": self.verdicts,
            "tasks_without_kept": self.tasks_without_kept,
        }


def side_path(out_path: str | Path, suffix: str) -> Path:
    """`sft.jsonl` -> `sft.<suffix>` (rollout.jsonl, grades.jsonl, summary.json)."""
    out = Path(out_path)
    return out.with_name(f"{out.stem}.{suffix}")


def check_tasks(tasks: Sequence[Task], library: Any, source: str = "tasks") -> None:
    """Refuse what cannot give SFT data: no tasks, repeated ids, tasks whose docs are missing
    (their open prompt would be the closed one, and the two arms would not differ)."""
    if not tasks:
        raise InputError("no tasks", path=source)
    repeated = [task_id for task_id, n in Counter(t.task_id for t in tasks).items() if n > 1]
    if repeated:
        raise InputError(
            f"{len(repeated)} task ids occur more than once (first: {repeated[0]}); "
            "each task needs its own id",
            path=source,
        )
    undocumented = [t.task_id for t in tasks if not task_docs(t, library)]
    if undocumented:
        raise InputError(
            f"{len(undocumented)} tasks name no function documented in library "
            f"{library.package} (first: {undocumented[0]}): their open prompt would show no docs. "
            "Check `selected_functions`, or pass the library the tasks were written for (--lib)",
            path=source,
        )


def build_sft_data(
    tasks: Sequence[Task],
    library: Any,
    backend: Backend,
    out_path: str | Path,
    config: SFTDataConfig | None = None,
    *,
    grader: Grader | None = None,
    on_progress: Callable[[SFTDataProgress], None] | None = None,
    extra_meta: dict[str, Any] | None = None,
    source: str = "tasks",
) -> SFTDataSummary:
    """Sample, grade and keep: write `out_path` (and its side files) and return the counts.

    `grader`: a started grader to reuse (a self-play loop keeps one warm); else one is started
    for the answers to grade, with `config.grading`'s settings. `source` names the tasks in
    error messages (their file).
    """
    config = config or SFTDataConfig()
    out_path = Path(out_path)
    chosen = list(tasks) if config.limit is None else list(tasks)[: config.limit]
    check_tasks(chosen, library, source)
    rollout_path = side_path(out_path, "rollout.jsonl")
    grades_path = side_path(out_path, "grades.jsonl")

    def rollout_progress(update: RolloutProgress) -> None:
        if on_progress is not None:
            on_progress(SFTDataProgress("rollout", update.done, update.total))

    rolled = rollout(
        chosen,
        library,
        backend,
        rollout_path,
        RolloutConfig(
            modes=(GENERATION_MODE,),
            samples=config.samples,
            seed=config.seed,
            sampling=config.sampling,
            retry_errors=config.retry_errors,
        ),
        on_progress=rollout_progress,
        extra_meta=extra_meta,
    )
    by_id = {t.task_id: t for t in chosen}
    answers = _answers(rollout_path, by_id, config.samples)
    verdicts = _grade_missing(answers, by_id, library, grades_path, config, grader, on_progress)

    rows, counts, kept_tasks = [], Counter[str](), set()
    for row, verdict in zip(answers, verdicts, strict=True):
        if verdict is None:
            counts[ROLLOUT_ERROR] += 1
            continue
        counts[verdict] += 1
        if verdict == VerdictKind.CORRECT.value:
            task = by_id[row["task_id"]]
            rows.append(sft_row(task, library, row))
            kept_tasks.add(task.task_id)
    write_jsonl(out_path, rows)
    summary = SFTDataSummary(
        path=out_path,
        tasks=len(chosen),
        samples=len(answers),
        kept=len(rows),
        verdicts=dict(sorted(counts.items())),
        tasks_without_kept=[t.task_id for t in chosen if t.task_id not in kept_tasks],
        rollout=rolled,
    )
    record = provenance(
        config.to_dict(),
        model=backend.model_name,
        library={"package": library.package, "root": str(library.root)},
        **(extra_meta or {}),
    )
    side_path(out_path, "summary.json").write_text(
        json.dumps({**summary.to_dict(), "provenance": record}, indent=2) + "\n"
    )
    return summary


def sft_row(task: Task, library: Any, answer: dict[str, Any]) -> dict[str, Any]:
    """One kept answer with both prompts, in TRL's conversational prompt-completion shape."""
    return {
        "format": SFT_DATA_FORMAT,
        "task_id": task.task_id,
        "split": task.split,
        "sample": answer["sample"],
        # the task itself, for readers that need no prompt (e.g. `sebench memory build`)
        "query": task.query,
        "signature": task.signature,
        "prompts": {
            "open": render_prompt(task, library, PromptMode.OPEN),
            "closed": render_prompt(task, library, PromptMode.CLOSED),
        },
        "completion": [{"role": "assistant", "content": answer["response"]}],
        "model": answer.get("model"),
        "seed": answer.get("seed"),
        "temperature": answer.get("temperature"),
        "generated_with": str(GENERATION_MODE),
    }


def _answers(path: Path, by_id: dict[str, Task], samples: int) -> list[dict[str, Any]]:
    """This run's rows of the rollout file (earlier runs with more tasks or samples may have left
    others), in task order, then sample order."""
    found: dict[tuple[str, int], dict[str, Any]] = {}
    for _, row in iter_jsonl(path):
        key = (row.get("task_id"), row.get("sample"))
        if key[0] in by_id and isinstance(key[1], int) and key[1] < samples:
            found.setdefault(key, row)  # type: ignore[arg-type]
    order = {task_id: i for i, task_id in enumerate(by_id)}
    return [found[k] for k in sorted(found, key=lambda k: (order[k[0]], k[1]))]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _grade_key(row: dict[str, Any], context: str) -> tuple[str, int, str]:
    return (row["task_id"], int(row["sample"]), _digest(context + (row.get("response") or "")))


def _grading_context(task: Task, library: Any, config: SFTDataConfig) -> str:
    """What a verdict depends on besides the answer: the task as a whole, the library's names
    and the grader's settings and version. Part of each stored verdict's key, so that a rerun
    into the same folder after any of them changed grades again (a red team's: verdicts of
    another library, and of a task as written before a grader fix, were kept)."""
    return json.dumps(
        [task.to_dict(), library.table.to_json(), config.grading.to_dict(), __version__],
        sort_keys=True,
        default=str,
    )


def _grade_missing(
    answers: list[dict[str, Any]],
    by_id: dict[str, Task],
    library: Any,
    grades_path: Path,
    config: SFTDataConfig,
    grader: Grader | None,
    on_progress: Callable[[SFTDataProgress], None] | None,
) -> list[str | None]:
    """Verdict kind per answer (None: its request failed): those already in `grades_path`, and
    the rest graded now."""
    verdicts: dict[tuple[str, int, str], str] = {}
    with grades_path.open("rb") if grades_path.exists() else nullcontext(()) as lines:
        for raw in lines:
            try:
                row = json.loads(raw)
                verdicts[(row["task_id"], int(row["sample"]), row["digest"])] = row["verdict"]
            except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
                continue  # a torn last line from a kill: that answer is graded again below
    contexts = {task_id: _grading_context(task, library, config) for task_id, task in by_id.items()}
    keys = [_grade_key(r, contexts[r["task_id"]]) for r in answers]
    todo = [(r, key) for r, key in zip(answers, keys, strict=True) if not r.get("error")]
    todo = [(r, key) for r, key in todo if key not in verdicts]
    total = len(todo)
    if on_progress is not None:
        on_progress(SFTDataProgress("grade", 0, total))
    if todo:
        _grade(todo, by_id, library, grades_path, config, grader, verdicts, on_progress)
    return [
        None if row.get("error") else verdicts[key] for row, key in zip(answers, keys, strict=True)
    ]


def _grade(
    todo: list[tuple[dict[str, Any], tuple[str, int, str]]],
    by_id: dict[str, Task],
    library: Any,
    grades_path: Path,
    config: SFTDataConfig,
    grader: Grader | None,
    verdicts: dict[tuple[str, int, str], str],
    on_progress: Callable[[SFTDataProgress], None] | None,
) -> None:
    total = len(todo)

    def items() -> Iterator[tuple[Task, str, tuple[str, int, str]]]:
        for row, key in todo:
            yield (by_id[row["task_id"]], row.get("response") or "", key)

    def grade_all(active: Grader) -> None:
        with JsonlAppender(grades_path) as out:
            for done, ((_, _, key), verdict) in enumerate(active.grade_many(items()), start=1):
                out.write(_grade_row(key, verdict))
                verdicts[key] = verdict.kind.value
                if on_progress is not None:
                    on_progress(SFTDataProgress("grade", done, total))

    if grader is not None:
        grade_all(grader)
        return
    from sebench.grading.grader import Grader

    grading = config.grading
    with Grader(
        library,
        grading.sandbox,
        grading.tolerance,
        grading.rel_tolerance,
        max_response_chars=grading.max_response_chars,
        max_code_chars=grading.max_code_chars,
        rules=grading.rules,
    ) as started:
        grade_all(started)


def _grade_row(key: tuple[str, int, str], verdict: Verdict) -> dict[str, Any]:
    task_id, sample, digest = key
    return {"task_id": task_id, "sample": sample, "digest": digest, **verdict.to_dict()}
