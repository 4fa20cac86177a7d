"""Every problem of a data file at once, with its counts (`sebench data check FILE`).

Loading (`sources.load`) stops at the first malformed row; checking goes on to the end, so that one
run lists everything to fix. Each problem is located (file, line, field) and is one line of text.
"""

from __future__ import annotations

import ast
import enum
import statistics
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.data.rows import task_from_official_row
from sebench.data.schema import Task
from sebench.errors import InputError

# a NUL byte in the first block is what `file`, git and grep call binary
_BINARY_PROBE = 8192


class Severity(enum.Enum):
    ERROR = "error"  # the row cannot be used
    WARNING = "warning"  # the row loads, but part of it will not work (e.g. its reference)


@dataclass(frozen=True)
class Problem:
    severity: Severity
    message: str
    path: str
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        what = f"field '{self.field}': " if self.field else ""
        return f"{where}: {self.severity.value}: {what}{self.message}"


@dataclass(frozen=True)
class CheckReport:
    path: str
    rows: int  # non-blank lines
    valid: int  # rows that load into a `Task`
    problems: tuple[Problem, ...]
    functions: dict[str, int]  # selected NumPy function -> number of valid tasks using it
    cases_per_task: tuple[int, ...]  # over valid tasks

    @property
    def errors(self) -> int:
        return sum(p.severity is Severity.ERROR for p in self.problems)

    @property
    def warnings(self) -> int:
        return sum(p.severity is Severity.WARNING for p in self.problems)

    @property
    def ok(self) -> bool:
        return self.errors == 0

    def cases_summary(self) -> tuple[int, float, int] | None:
        """(min, median, max) test cases per valid task."""
        if not self.cases_per_task:
            return None
        cases = self.cases_per_task
        return min(cases), statistics.median(cases), max(cases)

    def to_dict(self) -> dict[str, Any]:
        summary = self.cases_summary()
        return {
            "path": self.path,
            "rows": self.rows,
            "valid": self.valid,
            "errors": self.errors,
            "warnings": self.warnings,
            "functions_covered": len(self.functions),
            "functions": dict(sorted(self.functions.items())),
            "cases_per_task": None
            if summary is None
            else dict(zip(("min", "median", "max"), summary, strict=True)),
            "problems": [str(p) for p in self.problems],
        }


def check_file(
    path: str | Path, split: str = "single_test", known_functions: frozenset[str] | None = None
) -> CheckReport:
    """Check every row of an official-format JSONL file, collecting all problems.

    `known_functions` (NumPy names of a library's table, e.g. `mean`, `linalg.inv`) adds a check
    that each task's `selected_functions` exist in that library.
    """
    path = Path(path)
    label = str(path)
    problems: list[Problem] = []
    if not path.exists():
        return _fatal(label, "no such file")
    if path.is_dir():
        return _fatal(label, "is a folder, expected a .jsonl file")
    data = path.read_bytes()
    if not data.strip():
        return _fatal(label, "is empty: no rows")
    if b"\x00" in data[:_BINARY_PROBE]:
        return _fatal(label, "is a binary file, not JSONL text", line=1)

    rows = valid = 0
    functions: Counter[str] = Counter()
    cases: list[int] = []
    seen: dict[str, int] = {}
    for number, row, problem in _rows(data, label):
        rows += 1
        if problem is not None:
            problems.append(problem)
            continue
        row_problems = list(_field_problems(row, label, number))
        try:
            task = task_from_official_row(row, split, path=label, line=number)
        except InputError as exc:
            if not row_problems:  # a check below missed it: still report it, never drop it
                row_problems.append(
                    Problem(Severity.ERROR, _strip_where(exc), label, number, exc.field)
                )
            problems.extend(row_problems)
            continue
        problems.extend(row_problems)
        valid += 1
        cases.append(len(task.test_inputs))
        functions.update(task.selected_functions)
        problems.extend(_task_problems(task, label, number, known_functions))
        first = seen.setdefault(task.task_id, number)
        if first != number:
            problems.append(
                Problem(
                    Severity.WARNING,
                    f"duplicate of line {first} (same query, signature and results)",
                    label,
                    number,
                )
            )
    return CheckReport(label, rows, valid, tuple(problems), dict(functions), tuple(cases))


# -- internals -----------------------------------------------------------------------------


def _fatal(label: str, message: str, line: int | None = None) -> CheckReport:
    return CheckReport(label, 0, 0, (Problem(Severity.ERROR, message, label, line),), {}, ())


def _strip_where(exc: InputError) -> str:
    """The message of an `InputError` without its `path:line: field 'x': ` prefix."""
    text = str(exc)
    for prefix in (f"{exc.path}:{exc.line}: ", f"{exc.path}: ", f"field '{exc.field}': "):
        text = text.removeprefix(prefix)
    return text


def _rows(data: bytes, label: str) -> Iterator[tuple[int, dict[str, Any], Problem | None]]:
    import json

    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield (
                number,
                {},
                Problem(Severity.ERROR, f"not UTF-8 text (byte {exc.start + 1})", label, number),
            )
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            message = f"invalid JSON ({exc.msg} at column {exc.colno})"
            if exc.pos >= len(text.rstrip()) - 1:
                message += "; the line looks truncated"
            yield number, {}, Problem(Severity.ERROR, message, label, number)
            continue
        if not isinstance(obj, dict):
            yield (
                number,
                {},
                Problem(
                    Severity.ERROR,
                    f"expected a JSON object, got {type(obj).__name__}",
                    label,
                    number,
                ),
            )
            continue
        yield number, obj, None


_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "query": str,
    "function_name": str,
    "right_exe_result": str,
    "test_cases": (list, str),
}
_OPTIONAL: dict[str, type | tuple[type, ...]] = {
    "selected_functions": (list, str),
    "example_output": (list, str),
    "right_code": str,
    "example": dict,
}


def _field_problems(row: dict[str, Any], label: str, line: int) -> Iterator[Problem]:
    """Every field-level problem of one row (loading reports only the first)."""
    for name, kind in _REQUIRED.items():
        if name not in row:
            yield Problem(Severity.ERROR, "is missing", label, line, name)
        elif not isinstance(row[name], kind):
            yield Problem(
                Severity.ERROR,
                f"expected {_kind_name(kind)}, got {type(row[name]).__name__}",
                label,
                line,
                name,
            )
    for name, kind in _OPTIONAL.items():
        if row.get(name) is not None and not isinstance(row[name], kind):
            severity = Severity.ERROR if name == "selected_functions" else Severity.WARNING
            yield Problem(
                severity,
                f"expected {_kind_name(kind)}, got {type(row[name]).__name__}",
                label,
                line,
                name,
            )


def _kind_name(kind: type | tuple[type, ...]) -> str:
    return kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)


def _task_problems(
    task: Task, label: str, line: int, known_functions: frozenset[str] | None
) -> Iterator[Problem]:
    """Problems of a row that loads: what would fail later, at prompt, reference or grading time."""
    for index, text in enumerate(task.test_inputs):
        try:
            ast.parse(f"f({text})", mode="eval")
        except SyntaxError as exc:
            yield Problem(
                Severity.ERROR,
                f"test case {index} input is not keyword arguments ({exc.msg})",
                label,
                line,
                "test_cases",
            )
    if not task.selected_functions:
        yield Problem(
            Severity.WARNING,
            "is empty: the task names no library function",
            label,
            line,
            "selected_functions",
        )
    elif known_functions is not None:
        unknown = [name for name in task.selected_functions if name not in known_functions]
        if unknown:
            yield Problem(
                Severity.WARNING,
                f"not in the library: {', '.join(unknown)}",
                label,
                line,
                "selected_functions",
            )
    for name, code in (
        ("example_output", task.numpy_reference),
        ("right_code", task.plain_reference),
    ):
        if code is None:
            yield Problem(Severity.WARNING, "no reference solution", label, line, name)
            continue
        try:
            ast.parse(code)
        except SyntaxError as exc:
            yield Problem(
                Severity.WARNING,
                f"reference does not parse (line {exc.lineno}: {exc.msg})",
                label,
                line,
                name,
            )
