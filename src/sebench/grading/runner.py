"""`sebench eval` as a library function: grade a responses file, resumably, and summarize.

Results are appended and flushed one row per sample as they are graded, so a crash or Ctrl-C
loses nothing; rerunning the same command grades only the (task_id, mode, sample) samples that
are missing (one rollout file may hold several prompt modes; `mode` is None when rows carry
none). A result counts only for what it graded (`graded_as`: a digest of the response, the
task, the library, the rules and limits, the version): a changed response, task file, library
or setting is graded again, never answered by an older verdict for the same sample (a red
team's: an honest row's `correct` stayed for a wrong row graded into the same file). The
summary is computed from the results file, so it is the same whether the run was done in one
go or resumed.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sebench.data.schema import Task
from sebench.errors import SebenchError
from sebench.grading.compare import DEFAULT_TOLERANCE
from sebench.grading.evidence import unknown_functions
from sebench.grading.extract import MAX_CODE_CHARS, MAX_RESPONSE_CHARS
from sebench.grading.metrics import Graded, breakdown, score
from sebench.grading.responses import BadRow, Item, SampleKey, load_tasks, read_responses
from sebench.grading.rules import Rules
from sebench.grading.verdicts import OfficialCategory, Verdict, VerdictKind
from sebench.jsonl import JsonlAppender, iter_jsonl, write_json
from sebench.prompts.modes import PromptMode
from sebench.provenance import provenance

if TYPE_CHECKING:
    from sebench.grading.sandbox.config import SandboxConfig
    from sebench.library.library import Library
    from sebench.library.table import NameTable

MAX_REPORTED_BAD_ROWS = 20
ProgressCallback = Callable[[int, int, Verdict], None]  # (graded so far, to grade, verdict)


@dataclass(frozen=True)
class EvalConfig:
    tolerance: float = DEFAULT_TOLERANCE  # official absolute tolerance
    rel_tolerance: float | None = None  # off officially
    sandbox: SandboxConfig | None = None  # None: the sandbox defaults (3 s official timeout)
    data: tuple[str, ...] = ()
    subset: str | None = None
    max_response_chars: int = MAX_RESPONSE_CHARS  # larger: `policy` / `response-too-large`
    max_code_chars: int = MAX_CODE_CHARS  # of the extracted block; the same verdict
    # whose rules decide `verdict`; every row also carries the official-rules category
    rules: Rules = Rules.STRICT

    def to_dict(self) -> dict[str, Any]:
        sandbox = self.sandbox.to_dict() if self.sandbox is not None else None
        return {
            "tolerance": self.tolerance,
            "rel_tolerance": self.rel_tolerance,
            "sandbox": sandbox,
            "data": list(self.data),
            "subset": self.subset,
            "max_response_chars": self.max_response_chars,
            "max_code_chars": self.max_code_chars,
            "rules": Rules(self.rules).value,
        }


@dataclass
class _Plan:
    to_grade: int = 0
    already_done: int = 0
    # every sample of this run, with what its result must have graded (`_digest`)
    keys: dict[SampleKey, str] = field(default_factory=dict)


def default_library(data: Sequence[str | Path] = ()) -> Library:
    """The official library, built once into the cache from the official `api_doc.jsonl` (found
    next to the first `--data` source, else through `SEBENCH_DATA` / the hub)."""
    from sebench.data.sources import find_api_doc
    from sebench.library.cache import official_library

    source = str(data[0]).rpartition("=")[2] if data else None
    try:
        # eval has no --api-doc: the fix named in the message is eval's own options
        api_doc = find_api_doc(
            source,
            fix="pass --lib DIR (a library built by `sebench lib build`) or --data with the "
            "official data (api_doc.jsonl next to it)",
        )
    except SebenchError as exc:
        raise SebenchError(f"without --lib the official library is built: {exc}") from None
    return official_library(api_doc)


def evaluate(
    responses_path: str | Path,
    out_path: str | Path,
    summary_path: str | Path,
    *,
    library: Library | None = None,
    config: EvalConfig | None = None,
    on_progress: ProgressCallback | None = None,
) -> dict[str, Any]:
    """Grade every response not yet in `out_path`, append results, write and return the summary."""
    from sebench.grading.grader import Grader

    config = config or EvalConfig()
    check_responses_path(responses_path)  # before the library and data, which take a while
    library = library or default_library(config.data)
    tasks = load_tasks(config.data) if config.data else None
    subset = None
    if config.subset is not None:
        from sebench.data.sources import load_subset

        subset = load_subset(config.subset)
    done = _completed_keys(out_path)
    context = _grading_context(library, config)
    plan = _plan(responses_path, tasks, subset, done, context)
    functions = _library_names(library.table)

    with JsonlAppender(out_path) as out:
        for row in _rows_to_restore(out_path, plan.keys):
            out.write(row)
        for bad in _fresh_bad_rows(responses_path, tasks, done):
            out.write({"error": bad.message, "source_line": bad.line})
        if plan.to_grade:
            graded = 0

            def record(item: Item, verdict: Verdict) -> None:
                nonlocal graded
                out.write(_result_row(item, verdict, functions, _digest(item, context)))
                graded += 1
                if on_progress is not None:
                    on_progress(graded, plan.to_grade, verdict)

            def work() -> Iterator[tuple[Task, str | None, Item]]:
                # runs in this thread, pulled by grade_many: `record` needs no lock
                for item in _items_to_grade(responses_path, tasks, subset, done, context):
                    if item.rollout_error is not None:
                        record(item, rollout_failure(item.rollout_error))
                    else:
                        yield (item.task, item.response, item)

            with Grader(
                library,
                config.sandbox,
                config.tolerance,
                config.rel_tolerance,
                max_response_chars=config.max_response_chars,
                max_code_chars=config.max_code_chars,
                rules=config.rules,
            ) as grader:
                for (_, _, item), verdict in grader.grade_many(work(), numpy_form=_numpy_form):
                    record(item, verdict)

    summary = summarize(
        out_path, plan.keys, library=library, config=config, responses_path=responses_path
    )
    write_json(summary_path, summary)
    return summary


def _numpy_form(entry: tuple[Any, ...]) -> bool:
    """Rows of the prompt mode `numpy` (the paper's upper bound, NumPy-form tasks) are graded
    with NumPy allowed and the library not required."""
    return entry[2].mode == PromptMode.NUMPY


def check_responses_path(responses_path: str | Path) -> None:
    """Fail at once, naming the file, when the responses file is not there."""
    path = Path(responses_path)
    if path.is_dir():
        raise SebenchError(f"{path}: is a folder, expected a responses .jsonl file")
    if not path.is_file():
        raise SebenchError(f"{path}: no such file (expected a responses .jsonl)")


def rollout_failure(error: str) -> Verdict:
    """The verdict of a sample whose rollout request failed for good: the model was never heard,
    so it is an infra error (counted, never dropped), not a response without code."""
    return Verdict(VerdictKind.INFRA_ERROR, detail=_short(f"rollout: {error}"))


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def summarize(
    out_path: str | Path,
    keys: dict[SampleKey, str] | None = None,
    *,
    library: Library | None = None,
    config: EvalConfig | None = None,
    responses_path: str | Path | None = None,
) -> dict[str, Any]:
    """The summary of a results file: restricted to `keys` when given (each sample's digest,
    `graded_as`: the row that graded what the responses file holds now), else each sample's
    last row."""
    rows: dict[SampleKey, dict[str, Any]] = {}
    bad: list[str] = []
    for _, row in iter_jsonl(out_path) if Path(out_path).exists() else ():
        if "error" in row:
            bad.append(row["error"])
            continue
        key = _result_key(row)
        if keys is None or (key in keys and row.get("graded_as") == keys[key]):
            rows[key] = row
    seen = set(rows)
    samples: list[Graded] = []
    unknown: Counter[str] = Counter()
    for row in rows.values():
        unknown.update(row.get("unknown_functions") or ())
        samples.append(
            Graded(
                task_id=row["task_id"],
                sample=row["sample"],
                kind=VerdictKind(row["verdict"]),
                split=row.get("split"),
                functions=tuple(row.get("functions") or ()),
                official=OfficialCategory(row["official"]) if row.get("official") else None,
                mode=row.get("mode"),
            )
        )
    summary = score(samples)
    # `verdicts` and `accuracy` follow these rules; `official` is always the official rules'
    summary["rules"] = Rules(config.rules if config is not None else Rules.STRICT).value
    summary["infra_errors"] = summary["verdicts"][VerdictKind.INFRA_ERROR.value]
    summary["bad_rows"] = len(bad)
    # Under strict rules a task's own functions are the evidence of library use; a task that
    # names none (an official custom row without `selected_functions`) counts every function,
    # where a canary on any function passes a plain answer (docs/grading.md): said, not hidden.
    summary["samples_naming_no_function"] = sum(not s.functions for s in samples)
    # ...and a task that names functions the library lacks counts none of them (that falls
    # closed: such a task's correct answers are `no_library`); the names say what to fix
    summary["unknown_functions"] = dict(unknown.most_common())
    summary["bad_row_errors"] = bad[:MAX_REPORTED_BAD_ROWS]
    if keys is not None:
        summary["missing"] = len(set(keys) - seen)  # not graded yet (an interrupted run)
    summary["per_split"] = breakdown(samples, "split")
    if any(s.mode is not None for s in samples):  # e.g. closed vs the NumPy-form upper bound
        summary["per_mode"] = breakdown(samples, "mode")
    summary["per_function"] = breakdown(samples, "function")
    extra: dict[str, Any] = {"results": str(out_path)}
    if responses_path is not None:
        extra["responses"] = str(responses_path)
    if library is not None:
        extra["library"] = {"root": str(library.root), "package": library.package}
    summary["provenance"] = provenance(config.to_dict() if config is not None else None, **extra)
    return summary


def _library_names(table: NameTable) -> dict[str, str]:
    """NumPy name -> library name, for `functions` and `per_function`: also for the linalg
    functions the data lists bare (`cond` for `linalg.cond`, 10 of the 64 dev rows), which would
    otherwise stay NumPy names; a bare name that is also a top-level function stays top-level."""
    names = table.numpy_to_library()
    for entry in table.linalg:
        names.setdefault(entry.numpy_name.removeprefix("linalg."), table.qualified(entry))
    return names


def _result_row(
    item: Item, verdict: Verdict, functions: dict[str, str], digest: str
) -> dict[str, Any]:
    unknown = unknown_functions(item.task.selected_functions, functions)
    return {
        "task_id": item.task.task_id,
        "sample": item.sample,
        "graded_as": digest,
        "split": item.task.split,
        "functions": [functions.get(name, name) for name in item.task.selected_functions],
        **({"unknown_functions": list(unknown)} if unknown else {}),
        **verdict.to_dict(),
        "source_line": item.line,
        **item.metadata,
    }


def _completed_keys(out_path: str | Path) -> set[tuple[Any, ...]]:
    """What `out_path` holds already: each result as (its sample's key, what it graded), each
    bad row by its line."""
    from sebench.jsonl import read_completed

    def key(row: dict[str, Any]) -> tuple[Any, ...]:
        if "error" in row:
            return ("!bad-row", None, row["source_line"])
        return (_result_key(row), row.get("graded_as"))

    return read_completed(out_path, key)  # type: ignore[return-value]


def _rows_to_restore(out_path: str | Path, wanted: dict[SampleKey, str]) -> list[dict[str, Any]]:
    """The earlier rows that graded what the responses file holds now, for samples whose last
    row graded something else (responses A, then B, then A again): appended again, so that
    the file's last row of each sample is this run's, as reports read it (a red team's)."""
    if not Path(out_path).exists():
        return []
    last: dict[SampleKey, Any] = {}
    matching: dict[SampleKey, dict[str, Any]] = {}
    for _, row in iter_jsonl(out_path):
        if "error" in row:
            continue
        key = _result_key(row)
        last[key] = row.get("graded_as")
        if key in wanted and row.get("graded_as") == wanted[key]:
            matching[key] = row
    return [row for key, row in matching.items() if last[key] != wanted[key]]


def _grading_context(library: Library, config: EvalConfig) -> str:
    """Everything of a run a verdict depends on besides the sample: the library's names, the
    rules, tolerances and limits (not the worker count), sebench's version."""
    from sebench import __version__

    settings = config.to_dict()
    for name in ("data", "subset"):  # the tasks themselves are in each sample's digest
        settings.pop(name)
    if settings["sandbox"] is not None:
        settings["sandbox"] = {k: v for k, v in settings["sandbox"].items() if k != "workers"}
    return json.dumps([__version__, library.table.to_json(), settings], sort_keys=True)


def _digest(item: Item, context: str) -> str:
    """What a result graded (`graded_as`): the response, the task as graded, the context."""
    task = item.task
    graded = [
        context,
        item.response,
        item.rollout_error,
        item.mode,
        task.task_id,
        task.entry_point,
        list(task.test_inputs),
        list(task.expected),
        list(task.selected_functions),
    ]
    text = json.dumps(graded, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _result_key(row: dict[str, Any]) -> tuple[Any, ...]:
    # the same key as `Item.key`: results rows carry the response row's `mode`
    return (row.get("task_id"), row.get("mode"), row.get("sample"))


def _plan(
    responses_path: str | Path,
    tasks: dict[str, Task] | None,
    subset: frozenset[str] | None,
    done: set,
    context: str,
) -> _Plan:
    plan = _Plan()
    for item in read_responses(responses_path, tasks):
        if isinstance(item, BadRow) or not _wanted(item, subset):
            continue
        if item.key in plan.keys:
            continue  # a duplicate (task_id, mode, sample): reported as a bad row
        digest = _digest(item, context)
        plan.keys[item.key] = digest
        if (item.key, digest) in done:
            plan.already_done += 1
        else:
            plan.to_grade += 1
    return plan


def _items_to_grade(
    responses_path: str | Path,
    tasks: dict[str, Task] | None,
    subset: frozenset[str] | None,
    done: set,
    context: str,
) -> Iterator[Item]:
    seen: set[SampleKey] = set()
    for item in read_responses(responses_path, tasks):
        if isinstance(item, BadRow) or not _wanted(item, subset) or item.key in seen:
            continue
        seen.add(item.key)
        if (item.key, _digest(item, context)) not in done:
            yield item


def _fresh_bad_rows(
    responses_path: str | Path, tasks: dict[str, Task] | None, done: set
) -> Iterator[BadRow]:
    seen: set[SampleKey] = set()
    for item in read_responses(responses_path, tasks):
        if isinstance(item, Item):
            if item.key in seen:
                mode = f" in mode {item.mode}" if item.mode is not None else ""
                item = BadRow(
                    str(responses_path),
                    item.line,
                    f"{responses_path}:{item.line}: duplicate sample {item.sample} of "
                    f"task {item.task.task_id}{mode} (only the first one is graded)",
                )
            else:
                seen.add(item.key)
                continue
        if item.key not in done:
            yield item


def _wanted(item: Item, subset: frozenset[str] | None) -> bool:
    return subset is None or item.task.task_id in subset
