"""`sebench validate`: prove each task solvable with the library, through the real grader.

For every task: the NumPy reference is translated for the library (`sebench.data.translate`)
and graded with the real `Grader` (policy, sandbox, comparator), exactly like a model's response.
When that fails, the NumPy original is run with real NumPy (`sebench.data.references`) to say
whose fault it is: the translator's (the original passes) or the data's (the original itself
disagrees with `right_exe_result`). The dataset's plain-Python reference (`right_code` without
its harness) runs through the same sandbox and comparator; it makes no library call, so only its
results are compared (the library-use rule would reject it by design).

The verified subset (tasks whose translated reference is graded correct) is a filter for
`sebench eval` / `sebench rollout`; a task solvable with the official names is solvable with any
seed, so the set must not depend on the library.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sebench.data.references import ReferenceJob, ReferenceRun, run_references
from sebench.data.schema import Task
from sebench.data.translate import Translation, to_library
from sebench.grading.compare import outputs_match
from sebench.grading.grader import Grader
from sebench.grading.rules import Rules
from sebench.grading.verdicts import Verdict, VerdictKind
from sebench.jsonl import write_json, write_jsonl
from sebench.provenance import provenance

if TYPE_CHECKING:
    from sebench.grading.sandbox.config import SandboxConfig
    from sebench.library.library import Library


class Outcome(StrEnum):
    """Why a task is, or is not, in the verified subset."""

    VERIFIED = "verified"  # the translated NumPy reference is graded correct
    TRANSLATOR_GAP = "translator_gap"  # untranslatable, or the translation fails where NumPy passes
    REFERENCE_DISAGREES = (
        "reference_disagrees"  # the NumPy original disagrees with the ground truth
    )
    REFERENCE_ERROR = "reference_error"  # the NumPy original raises, times out or crashes
    REFERENCE_WITHOUT_LIBRARY = "reference_without_library"  # it calls no NumPy function
    NO_REFERENCE = "no_reference"  # the row has no NumPy reference
    INFRA_ERROR = "infra_error"  # the grader failed; rerun


class PlainOutcome(StrEnum):
    """The dataset's plain-Python reference against the ground truth."""

    AGREES = "agrees"
    DISAGREES = "disagrees"
    ERROR = "error"  # raised, timed out or crashed
    MISSING = "missing"


@dataclass(frozen=True)
class ValidateConfig:
    reference_timeout_s: float = 10.0  # per NumPy original; generous: it only classifies failures
    run_plain: bool = True  # also run the plain-Python references
    rules: Rules = Rules.STRICT  # whose rules grade the translated references


@dataclass(frozen=True)
class TaskValidation:
    task_id: str
    split: str
    outcome: Outcome
    detail: str | None = None  # the reason, for anything but verified
    verdict: Verdict | None = None  # of the translated reference
    translation: Translation | None = None
    numpy_agrees: bool | None = None  # the NumPy original matches the ground truth (None: not run)
    plain: PlainOutcome = PlainOutcome.MISSING
    plain_detail: str | None = None

    @property
    def verified(self) -> bool:
        return self.outcome is Outcome.VERIFIED

    @property
    def faithful(self) -> bool | None:
        """Whether translation kept the NumPy original's correctness (None: original not run)."""
        if self.numpy_agrees is None or self.translation is None or not self.translation.ok:
            return None
        return self.numpy_agrees == self.verified

    def to_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "split": self.split,
            "outcome": self.outcome.value,
            "detail": self.detail,
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
            "translation_problems": None if self.translation is None else self.translation.problems,
            "numpy_agrees": self.numpy_agrees,
            "plain": self.plain.value,
            "plain_detail": self.plain_detail,
        }


@dataclass(frozen=True)
class ValidationReport:
    split: str
    library: dict[str, Any]  # package, origin, seed
    tasks: tuple[TaskValidation, ...]
    config: ValidateConfig = field(default_factory=ValidateConfig)

    @property
    def verified_ids(self) -> list[str]:
        return [v.task_id for v in self.tasks if v.verified]

    @property
    def fraction(self) -> float:
        return len(self.verified_ids) / len(self.tasks) if self.tasks else 0.0

    def counts(self) -> dict[str, int]:
        counted = Counter(v.outcome.value for v in self.tasks)
        return {outcome.value: counted.get(outcome.value, 0) for outcome in Outcome}

    def plain_counts(self) -> dict[str, int]:
        counted = Counter(v.plain.value for v in self.tasks)
        return {outcome.value: counted.get(outcome.value, 0) for outcome in PlainOutcome}

    def unfaithful(self) -> list[str]:
        """Tasks whose translation passes where the NumPy original fails, or the reverse."""
        return [v.task_id for v in self.tasks if v.faithful is False]

    def summary(self) -> dict[str, Any]:
        return {
            "split": self.split,
            "tasks": len(self.tasks),
            "verified": len(self.verified_ids),
            "fraction": round(self.fraction, 4),
            "outcomes": self.counts(),
            "plain_reference": self.plain_counts(),
            "unfaithful_translations": self.unfaithful(),
        }


def validate(
    tasks: Sequence[Task],
    library: Library,
    *,
    sandbox_config: SandboxConfig | None = None,
    config: ValidateConfig | None = None,
    on_result: Callable[[TaskValidation], None] | None = None,
    grader: Grader | None = None,
) -> ValidationReport:
    """Validate the tasks of one split against `library` (see the module docstring)."""
    config = config or ValidateConfig()
    split = tasks[0].split if tasks else ""
    translations = {
        t.task_id: to_library(t.numpy_reference, library.table)
        for t in tasks
        if t.numpy_reference is not None
    }
    own_grader = grader is None
    grader = grader or Grader(library, sandbox_config, rules=config.rules)
    try:
        grader.start()
        verdicts = _grade_translations(grader, tasks, translations)
        plain = _run_plain(grader, tasks) if config.run_plain else {}
    finally:
        if own_grader:
            grader.close()
    originals = run_references(
        (
            ReferenceJob(t.task_id, t.numpy_reference, t.entry_point, t.test_inputs)
            for t in tasks
            if t.numpy_reference is not None
        ),
        timeout_s=config.reference_timeout_s,
    )
    results = []
    for task in tasks:
        result = _classify(
            task,
            translations.get(task.task_id),
            verdicts.get(task.task_id),
            originals.get(task.task_id),
            plain.get(task.task_id),
            grader,
        )
        results.append(result)
        if on_result is not None:
            on_result(result)
    info = {"package": library.package, **_library_origin(library)}
    return ValidationReport(split, info, tuple(results), config)


def write_subset(path: str | Path, reports: Iterable[ValidationReport]) -> Path:
    """The verified-subset file: a JSON object with `task_ids` (what `--subset` reads) and the
    provenance (library, counts, versions)."""
    reports = list(reports)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "task_ids": [task_id for report in reports for task_id in report.verified_ids],
        "splits": [report.summary() for report in reports],
        "provenance": provenance(
            reports[0].config if reports else None,
            library=reports[0].library if reports else None,
            what="tasks whose translated NumPy reference the real grader grades correct",
        ),
    }
    return write_json(path, data, indent=1)


def write_report(path: str | Path, reports: Iterable[ValidationReport]) -> Path:
    """Every task's validation, one JSON row each."""
    write_jsonl(path, (v.to_dict() for report in reports for v in report.tasks))
    return Path(path)


def write_responses(
    path: str | Path, tasks: Sequence[Task], reports: Iterable[ValidationReport]
) -> int:
    """The translated references as a responses file in the official custom format (`query`,
    `function_name`, `response` with the code in a python block, `test_cases`,
    `right_exe_result`), plus `task_id` / `sample` so that `sebench eval` reads it too."""
    by_id = {v.task_id: v for report in reports for v in report.tasks}
    rows = []
    for task in tasks:
        validation = by_id.get(task.task_id)
        if validation is None or validation.translation is None or not validation.translation.ok:
            continue
        outputs = task.extra.get("test_case_outputs") or list(task.expected)
        rows.append(
            {
                "task_id": task.task_id,
                "sample": 0,
                "query": task.query,
                "function_name": task.signature,
                "response": response_for(validation.translation.code or ""),
                "test_cases": [
                    {"input": text, "output": output}
                    for text, output in zip(task.test_inputs, outputs, strict=False)
                ],
                "right_exe_result": task.right_exe_result,
                "model": "oracle-translator",
                "mode": "numpy-reference",
            }
        )
    write_jsonl(path, rows)
    return len(rows)


def response_for(code: str) -> str:
    """A response holding `code` as its one fenced python block."""
    return f"```python\n{code.rstrip()}\n```"


# -- internals -----------------------------------------------------------------------------


def _grade_translations(
    grader: Grader, tasks: Sequence[Task], translations: dict[str, Translation]
) -> dict[str, Verdict]:
    items = [
        (task, response_for(translations[task.task_id].code or ""))
        for task in tasks
        if task.task_id in translations and translations[task.task_id].ok
    ]
    return {item[0].task_id: verdict for item, verdict in grader.grade_many(items)}


def _run_plain(grader: Grader, tasks: Sequence[Task]) -> dict[str, tuple[PlainOutcome, str | None]]:
    """Run each plain reference in the sandbox and compare its prints (no library rule)."""
    from sebench.grading.sandbox.execution import ExecStatus, Job

    def one(task: Task) -> tuple[str, tuple[PlainOutcome, str | None]]:
        code = task.plain_reference or ""
        if "numpy" in code:
            # Some `right_code` solutions use NumPy after all; the sandbox refuses NumPy, so they
            # run translated into the library, like the NumPy references.
            translation = to_library(code, grader.library.table)
            if not translation.ok:
                return task.task_id, (
                    PlainOutcome.ERROR,
                    f"uses NumPy, untranslatable: {'; '.join(translation.problems)}",
                )
            code = translation.code or ""
        job = Job(code, task.entry_point, tuple(task.test_inputs))
        execution = grader.execute(job)
        if execution.setup_error is not None:
            return task.task_id, (PlainOutcome.ERROR, f"setup failed: {execution.setup_error}")
        if execution.status is not ExecStatus.OK:
            return task.task_id, (PlainOutcome.ERROR, execution.status.value)
        for index, (case, expected) in enumerate(zip(execution.cases, task.expected, strict=False)):
            if case.error_type is not None:
                return task.task_id, (PlainOutcome.ERROR, f"case {index}: {case.error_type}")
            if not outputs_match(case.printed, expected, grader.tolerance):
                return task.task_id, (
                    PlainOutcome.DISAGREES,
                    f"case {index}: printed {_clip(case.printed)}, expected {_clip(expected)}",
                )
        return task.task_id, (PlainOutcome.AGREES, None)

    runnable = [t for t in tasks if t.plain_reference]
    with ThreadPoolExecutor(max_workers=max(1, grader.workers)) as threads:
        return dict(threads.map(one, runnable))


def _classify(
    task: Task,
    translation: Translation | None,
    verdict: Verdict | None,
    original: ReferenceRun | None,
    plain: tuple[PlainOutcome, str | None] | None,
    grader: Grader,
) -> TaskValidation:
    plain_outcome, plain_detail = plain or (PlainOutcome.MISSING, None)
    numpy_agrees, numpy_detail = _original_agrees(task, original, grader)
    common = {
        "task_id": task.task_id,
        "split": task.split,
        "translation": translation,
        "verdict": verdict,
        "numpy_agrees": numpy_agrees,
        "plain": plain_outcome,
        "plain_detail": plain_detail,
    }
    if translation is None:
        return TaskValidation(outcome=Outcome.NO_REFERENCE, detail="no NumPy reference", **common)
    if not translation.ok:
        return TaskValidation(
            outcome=Outcome.TRANSLATOR_GAP, detail="; ".join(translation.problems), **common
        )
    assert verdict is not None
    if verdict.correct:
        return TaskValidation(outcome=Outcome.VERIFIED, **common)
    if verdict.kind is VerdictKind.INFRA_ERROR:
        return TaskValidation(outcome=Outcome.INFRA_ERROR, detail=str(verdict), **common)
    if verdict.kind is VerdictKind.NO_LIBRARY:
        return TaskValidation(
            outcome=Outcome.REFERENCE_WITHOUT_LIBRARY,
            detail="the NumPy reference calls no NumPy function besides the array constructor",
            **common,
        )
    if numpy_agrees:
        return TaskValidation(
            outcome=Outcome.TRANSLATOR_GAP,
            detail=f"the NumPy original passes, its translation is graded {verdict}",
            **common,
        )
    if original is not None and (not original.completed or any(original.errors)):
        return TaskValidation(outcome=Outcome.REFERENCE_ERROR, detail=numpy_detail, **common)
    return TaskValidation(outcome=Outcome.REFERENCE_DISAGREES, detail=numpy_detail, **common)


def _original_agrees(
    task: Task, original: ReferenceRun | None, grader: Grader
) -> tuple[bool | None, str | None]:
    if original is None:
        return None, None
    if original.timed_out:
        return False, "the NumPy original timed out"
    if original.crashed:
        return False, "the NumPy original crashed"
    if original.setup_error is not None:
        return False, f"the NumPy original fails to load: {original.setup_error}"
    for index, expected in enumerate(task.expected):
        error = original.errors[index] if index < len(original.errors) else "no result"
        if error is not None:
            return False, f"case {index}: the NumPy original raises {_clip(error)}"
        printed = original.printed[index]
        if not outputs_match(printed, expected, grader.tolerance):
            return False, (
                f"case {index}: the NumPy original prints {_clip(printed)}, "
                f"right_exe_result has {_clip(expected)}"
            )
    return True, None


def _library_origin(library: Library) -> dict[str, Any]:
    try:
        meta = library.meta
    except (OSError, ValueError):
        return {}
    return {key: meta.get(key) for key in ("origin", "seed") if key in meta}


def _clip(text: str | None, limit: int = 80) -> str:
    if text is None:
        return "nothing"
    return repr(text if len(text) <= limit else text[:limit] + "...")
