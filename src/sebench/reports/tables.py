"""The numbers of a report, computed once for the HTML page and its Markdown twin.

Accuracies are fractions here; the renderers print percent. A cell's spread is the sample
standard deviation over the seeds that finished (the paper reports the mean of 5 seeds).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.grading.extract import extract_code
from sebench.grading.verdicts import VerdictKind
from sebench.reports.runs import BOUNDS, Arm, Run

MAX_FAILURES = 2000  # the browser's rows over all runs: the page must stay quick to open
MAX_TEXT = 8_000  # characters of a prompt or response kept in the page


@dataclass(frozen=True)
class Cell:
    """One regime x split of the paper's table."""

    values: list[float]  # one accuracy per finished seed
    arms: int  # arms planned for this cell (finished or not)
    waiting: tuple[str, ...]  # the statuses of its arms that gave no number: pending, failed
    expected: float | None  # the paper's number, percent, as the recipe writes it

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.values) if self.values else None

    @property
    def spread(self) -> float | None:
        return statistics.stdev(self.values) if len(self.values) > 1 else None


@dataclass(frozen=True)
class TableRow:
    regime: str
    bound: bool  # a reference row (with docs, NumPy form, no docs), not a trained regime
    cells: dict[str, Cell]
    notes: list[str] = field(default_factory=list)  # arms not done, with why


def paper_table(run: Run) -> list[TableRow]:
    rows = []
    for regime in run.regimes():
        arms = [a for a in run.arms if a.regime == regime]
        cells = {}
        for split in run.splits():
            in_cell = [a for a in arms if a.split == split]
            values = [a.accuracy for a in in_cell if a.accuracy is not None]
            cells[split] = Cell(
                values=values,
                arms=len(in_cell),
                waiting=tuple(sorted({a.status for a in in_cell if a.accuracy is None})),
                expected=run.expected.get(regime, {}).get(split),
            )
        rows.append(TableRow(regime, regime in BOUNDS, cells, _notes(arms)))
    return rows


def _notes(arms: list[Arm]) -> list[str]:
    notes = []
    for arm in arms:
        if arm.status != "done":
            notes.append(f"{arm.label}: {arm.status}")
        elif arm.summary is None or arm.problems:
            notes.append(f"{arm.label}: " + "; ".join(arm.problems or ["no summary"]))
    return notes


def verdict_breakdown(run: Run) -> dict[str, Counter[str]]:
    """Verdict counts per regime, over its finished arms (every split and seed)."""
    table: dict[str, Counter[str]] = {}
    for regime in run.regimes():
        counts: Counter[str] = Counter()
        for arm in run.arms:
            if arm.regime == regime and arm.usable:
                assert arm.summary is not None
                counts.update({k: int(v) for k, v in (arm.summary.get("verdicts") or {}).items()})
        if counts:
            table[regime] = counts
    return table


VERDICT_ORDER = [kind.value for kind in VerdictKind]


@dataclass(frozen=True)
class FunctionMatrix:
    """Accuracy of every library function under every regime (pooled over splits and seeds)."""

    functions: list[str]
    regimes: list[str]
    cells: dict[tuple[str, str], tuple[int, int]]  # (function, regime) -> (correct, samples)

    def accuracy(self, function: str, regime: str) -> float | None:
        correct, samples = self.cells.get((function, regime), (0, 0))
        return correct / samples if samples else None


def function_matrix(run: Run) -> FunctionMatrix:
    cells: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for arm in run.arms:
        if not arm.usable:
            continue
        assert arm.summary is not None
        for name, block in (arm.summary.get("per_function") or {}).items():
            cell = cells[(name, arm.regime)]
            cell[0] += int(block.get("correct", 0))
            cell[1] += int(block.get("samples", 0))
    regimes = [r for r in run.regimes() if any(key[1] == r for key in cells)]
    functions = sorted({key[0] for key in cells})
    return FunctionMatrix(functions, regimes, {k: (v[0], v[1]) for k, v in cells.items()})


def pass_at_k_curves(run: Run) -> dict[tuple[str, str], dict[int, float]]:
    """(regime, split) -> k -> pass@k, the mean over the seeds that have that k."""
    values: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for arm in run.arms:
        if arm.usable:
            assert arm.summary is not None
            for k, v in (arm.summary.get("pass_at_k") or {}).items():
                values[(arm.regime, arm.split)][int(k)].append(float(v))
    return {
        key: {k: statistics.fmean(vs) for k, vs in sorted(curve.items())}
        for key, curve in values.items()
    }


@dataclass(frozen=True)
class Change:
    """One function's accuracy in two runs (pooled over regimes both runs have)."""

    function: str
    before: float | None
    after: float | None

    @property
    def delta(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


def compare_functions(before: Run, after: Run) -> list[Change]:
    """Per function: accuracy in each run over the regimes both share, largest change first."""
    a, b = function_matrix(before), function_matrix(after)
    shared = [r for r in a.regimes if r in b.regimes]

    def pooled(matrix: FunctionMatrix, function: str) -> float | None:
        correct = samples = 0
        for regime in shared:
            c, n = matrix.cells.get((function, regime), (0, 0))
            correct, samples = correct + c, samples + n
        return correct / samples if samples else None

    changes = [
        Change(f, pooled(a, f), pooled(b, f)) for f in sorted(set(a.functions) | set(b.functions))
    ]
    return sorted(
        changes, key=lambda c: (-(abs(c.delta) if c.delta is not None else -1), c.function)
    )


def compare_tables(before: Run, after: Run) -> list[tuple[str, str, float | None, float | None]]:
    """(regime, split, accuracy before, after) for every cell either run has a number for."""
    a = {row.regime: row for row in paper_table(before)}
    b = {row.regime: row for row in paper_table(after)}
    splits = list(dict.fromkeys(before.splits() + after.splits()))
    found = []
    for regime in dict.fromkeys([*a, *b]):
        for split in splits:
            cells = [rows[regime].cells.get(split) if regime in rows else None for rows in (a, b)]
            values = [cell.mean if cell is not None else None for cell in cells]
            if values != [None, None]:
                found.append((regime, split, values[0], values[1]))
    return found


def failures(runs: list[Run]) -> tuple[list[dict[str, Any]], int]:
    """The rows of the failure browser: every graded sample that is not correct, with the task's
    question, the response and the code the grader extracted. Past MAX_FAILURES in all, each arm
    keeps an equal share (its first failures), so that every arm can still be browsed. Returns
    the rows kept and the number of failures in all."""
    from sebench.grading.responses import load_tasks

    arms = [(run, arm) for run in runs for arm in run.arms if arm.results]
    per_arm = MAX_FAILURES // max(1, len(arms))
    rows: list[dict[str, Any]] = []
    total = 0
    loaded: dict[tuple[str, ...], dict[str, str]] = {}  # arms graded on the same data share it
    for run, arm in arms:
        queries = _queries(run.root, arm, load_tasks, loaded)
        kept = 0
        for result in arm.results:
            if "error" in result or result.get("verdict") == VerdictKind.CORRECT.value:
                continue
            total += 1
            if kept >= per_arm:
                continue
            kept += 1
            source = arm.responses.get(result.get("source_line"), {})
            response = source.get("response")
            response = response if isinstance(response, str) else None
            code = extract_code(response) if response else None
            rows.append(
                {
                    "run": run.name,
                    "arm": arm.label,
                    "regime": arm.regime,
                    "task": str(result.get("task_id")),
                    "sample": result.get("sample"),
                    "verdict": str(result.get("verdict")),
                    "functions": [str(f) for f in result.get("functions") or ()],
                    "error": _error_text(result),
                    "prompt": _clip(queries.get(str(result.get("task_id")))),
                    "response": _clip(response),
                    "code": _clip(code),
                }
            )
    return rows, total


def _queries(
    root: Path, arm: Arm, load_tasks: Any, loaded: dict[tuple[str, ...], dict[str, str]]
) -> dict[str, str]:
    """Task id -> question, from the data the arm was graded with (its summary's provenance),
    each path resolved against the run folder, then as written."""
    data = (((arm.summary or {}).get("provenance") or {}).get("config") or {}).get("data") or []
    key = tuple(_resolve(root, str(spec)) for spec in data)
    if not arm.results or not key:
        return {}
    if key not in loaded:
        try:
            loaded[key] = {task_id: task.query for task_id, task in load_tasks(key).items()}
        except (SebenchError, OSError):
            loaded[key] = {}  # the data has moved since grading: the browser shows no prompt
    return loaded[key]


def _resolve(root: Path, spec: str) -> str:
    split, _, location = spec.rpartition("=")  # `SPLIT=PATH` or a bare path
    if (root / location).exists():
        location = str(root / location)
    return f"{split}={location}" if split else location


def _error_text(result: dict[str, Any]) -> str:
    parts = []
    if result.get("error_type"):
        parts.append(str(result["error_type"]))
    if result.get("rule"):
        parts.append(f"rule {result['rule']}")
    if result.get("line") is not None:
        parts.append(f"line {result['line']}")
    if result.get("case") is not None:
        parts.append(f"case {result['case']}")
    head = ", ".join(parts)
    detail = str(result.get("detail") or "")
    return f"{head}: {detail}" if head and detail else head or detail


def _clip(text: str | None) -> str | None:
    if text is None or len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"\n... [{len(text) - MAX_TEXT} more characters]"
