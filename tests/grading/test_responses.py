import json

import pytest

from sebench.errors import SebenchError
from sebench.grading.responses import BadRow, Item, load_tasks, read_responses


def write_lines(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def official_row(single_test_dev_path):
    with open(single_test_dev_path, encoding="utf-8") as handle:
        return json.loads(handle.readline())


def test_our_rows_join_their_task_and_number_samples(tmp_path, dev_tasks):
    tasks = {t.task_id: t for t in dev_tasks}
    first = dev_tasks[0].task_id
    path = write_lines(
        tmp_path / "r.jsonl",
        [
            {"task_id": first, "response": "a", "model": "m", "seed": 3},
            {"task_id": first, "response": "b"},
            {"task_id": first, "response": "c", "sample": 7},
        ],
    )
    items = list(read_responses(path, tasks))
    assert [i.sample for i in items] == [0, 1, 7]
    assert items[0].task is tasks[first] and items[0].metadata == {"model": "m", "seed": 3}


def test_official_custom_rows_carry_their_own_task(tmp_path, official_row):
    row = {k: official_row[k] for k in ("query", "test_cases", "right_exe_result", "function_name")}
    unnamed = {k: v for k, v in row.items() if k != "function_name"}
    path = write_lines(
        tmp_path / "r.jsonl", [{**row, "response": "x"}, {**unnamed, "response": "y"}]
    )
    first, second = list(read_responses(path))
    assert first.task.entry_point == "compress_data_chunks"
    assert first.task.expected[0] == "[12, 14, 120, 16]"
    assert second.task.entry_point == ""  # the official rule: the code's first function


def test_bad_rows_name_file_and_line_and_do_not_stop_the_rest(tmp_path, dev_tasks):
    tasks = {t.task_id: t for t in dev_tasks}
    good = {"task_id": dev_tasks[0].task_id, "response": "ok"}
    path = write_lines(
        tmp_path / "r.jsonl",
        [
            good,
            "{not json",
            {"task_id": dev_tasks[0].task_id},
            {"task_id": "nope", "response": "x"},
            {"task_id": dev_tasks[0].task_id, "response": 5},
            {"task_id": dev_tasks[0].task_id, "response": "x", "sample": -1},
            {"something": "else"},
            [1, 2],
            good,
        ],
    )
    results = list(read_responses(path, tasks))
    bad = [r for r in results if isinstance(r, BadRow)]
    assert [b.line for b in bad] == [2, 3, 4, 5, 6, 7, 8]
    assert all(b.message.startswith(f"{path}:{b.line}: ") for b in bad)
    assert "field 'response': is missing" in bad[1].message
    assert "unknown task id 'nope'" in bad[2].message
    assert [r.line for r in results if isinstance(r, Item)] == [1, 9]


def test_rows_in_our_format_without_data_are_bad_rows(tmp_path):
    path = write_lines(tmp_path / "r.jsonl", [{"task_id": "t", "response": "x"}])
    (bad,) = read_responses(path)
    assert isinstance(bad, BadRow) and "--data" in bad.message


def test_load_tasks_takes_the_split_from_the_name_or_the_prefix(single_test_dev_path, dev_tasks):
    by_name = load_tasks([single_test_dev_path])
    assert set(by_name) == {t.task_id for t in dev_tasks}
    by_prefix = load_tasks([f"multiple_test={single_test_dev_path}"])
    assert all(t.split == "multiple_test" for t in by_prefix.values())
    with pytest.raises(SebenchError):
        load_tasks([f"bogus={single_test_dev_path}"])


def test_custom_rows_with_a_known_task_id_take_their_task_from_the_data(tmp_path, dev_tasks):
    """`validate --emit-responses` writes custom-format rows that also carry `task_id`: with
    `--data` they keep their task's split and functions instead of split `custom`."""
    task = dev_tasks[0]
    row = {
        "task_id": task.task_id,
        "sample": 0,
        "query": task.query,
        "function_name": task.signature,
        "response": "x",
        "test_cases": [{"input": text, "output": ""} for text in task.test_inputs],
        "right_exe_result": task.right_exe_result,
        "mode": "numpy-reference",
    }
    unknown = {**row, "task_id": "single_test-unknown"}
    path = write_lines(tmp_path / "r.jsonl", [row, unknown])
    known, custom = list(read_responses(path, {task.task_id: task}))
    assert known.task is task and known.task.split == "single_test"
    assert known.task.selected_functions
    assert custom.task.split == "custom" and custom.task.task_id == "single_test-unknown"
    [alone] = list(read_responses(write_lines(tmp_path / "s.jsonl", [row])))
    assert alone.task.split == "custom"  # without --data the row still carries its own task
