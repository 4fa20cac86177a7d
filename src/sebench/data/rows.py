"""Official dataset rows -> typed `Task`s, with located errors for malformed rows."""

from __future__ import annotations

import json
from typing import Any

from sebench.data.schema import Task, entry_point_of, make_task_id
from sebench.errors import InputError

# `right_code` ends with a harness (`import zwc`, `if __name__ == "__main__":`, the test calls
# and prints); everything from the first of these lines on is not part of the solution.
_HARNESS_STARTS = ("import zwc", "from zwc", "if __name__", "test_cases =", "result_list =")


def strip_harness(code: str) -> str:
    kept = []
    for line in code.splitlines():
        if line.startswith(_HARNESS_STARTS):
            break
        kept.append(line)
    return "\n".join(kept).rstrip() + "\n"


def _field(row: dict[str, Any], name: str, kind: type | tuple[type, ...], where: dict) -> Any:
    if name not in row:
        raise InputError("is missing", field=name, **where)
    value = row[name]
    if not isinstance(value, kind):
        expected = (
            kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        )
        raise InputError(f"expected {expected}, got {type(value).__name__}", field=name, **where)
    return value


def task_from_official_row(
    row: dict[str, Any], split: str, *, path: str | None = None, line: int | None = None
) -> Task:
    """Validate one official row (hub, folder or JSONL) into a `Task`."""
    where = {"path": path, "line": line}
    query = _field(row, "query", str, where)
    signature = _field(row, "function_name", str, where)
    entry_point = entry_point_of(signature)
    if entry_point is None:
        raise InputError(f"not a function signature: {signature!r}", field="function_name", **where)
    expected_text = _field(row, "right_exe_result", str, where)
    test_cases = row.get("test_cases")
    if isinstance(test_cases, str):  # some exports store the list as a JSON string
        try:
            test_cases = json.loads(test_cases)
        except json.JSONDecodeError:
            raise InputError(
                "is a string that is not valid JSON", field="test_cases", **where
            ) from None
    if not isinstance(test_cases, list) or not test_cases:
        raise InputError("expected a non-empty list of {'input': ...}", field="test_cases", **where)
    inputs = []
    for index, case in enumerate(test_cases):
        if not isinstance(case, dict) or not isinstance(case.get("input"), str):
            raise InputError(
                f"test case {index} has no string 'input'", field="test_cases", **where
            )
        inputs.append(case["input"])
    expected = expected_text.split("#")
    if len(expected) != len(inputs):
        raise InputError(
            f"{len(expected)} '#'-separated results for {len(inputs)} test cases",
            field="right_exe_result",
            **where,
        )
    selected = row.get("selected_functions") or []
    if isinstance(selected, str):
        selected = [selected]
    if not isinstance(selected, list) or not all(isinstance(s, str) for s in selected):
        raise InputError(
            "expected a list of NumPy function names", field="selected_functions", **where
        )
    reference = row.get("example_output")
    if isinstance(reference, list):
        reference = reference[0] if reference else None
    right_code = row.get("right_code")
    example = row.get("example") if isinstance(row.get("example"), dict) else test_cases[0]
    source_id = row.get("1func_query_id")
    return Task(
        task_id=row.get("task_id") or make_task_id(split, query, signature, expected_text),
        split=split,
        query=query,
        signature=signature.strip(),
        entry_point=entry_point,
        test_inputs=tuple(inputs),
        expected=tuple(expected),
        selected_functions=tuple(
            s.strip().removeprefix("np.").removeprefix("numpy.") for s in selected
        ),
        numpy_reference=reference if isinstance(reference, str) else None,
        plain_reference=strip_harness(right_code) if isinstance(right_code, str) else None,
        example_input=example.get("input"),
        example_output=example.get("output"),
        source_id=None if source_id is None else str(source_id),
        extra={
            **(row["extra"] if isinstance(row.get("extra"), dict) else {}),
            # the model-written outputs, kept only to write rows back in the official format
            "test_case_outputs": [case.get("output") for case in test_cases],
        },
    )


def official_row(task: Task) -> dict[str, Any]:
    """`task` as a row of the official schema, which `task_from_official_row` reads back into
    the same task: how generated tasks are written, so that every command takes them. What the
    official schema has no field for (a generated task's target answer and prompt docs) goes
    into `extra`."""
    outputs = task.extra.get("test_case_outputs") or list(task.expected)
    row: dict[str, Any] = {
        "task_id": task.task_id,
        "query": task.query,
        "function_name": task.signature,
        "test_cases": [
            {"input": text, "output": output}
            for text, output in zip(task.test_inputs, outputs, strict=False)
        ],
        "right_exe_result": task.right_exe_result,
        "selected_functions": list(task.selected_functions),
        "example": {"input": task.example_input, "output": task.example_output},
    }
    if task.numpy_reference is not None:
        row["example_output"] = task.numpy_reference
    if task.plain_reference is not None:
        row["right_code"] = task.plain_reference
    if task.source_id is not None:
        row["1func_query_id"] = task.source_id
    extra = {k: v for k, v in task.extra.items() if k != "test_case_outputs"}
    if extra:
        row["extra"] = extra
    return row
