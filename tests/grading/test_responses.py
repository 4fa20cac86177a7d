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
