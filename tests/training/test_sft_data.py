"""SFT examples: the two arms differ only in the prompt."""

from __future__ import annotations

import pytest

from sebench.errors import InputError
from sebench.training.sft_data import build_examples, read_examples, write_examples
from sebench.training.taskprompts import Arm, answer, open_messages


def test_arms_share_targets_and_order_and_differ_only_by_the_docs_block(task_set):
    closed = build_examples(task_set.train, Arm.CLOSED)
    opened = build_examples(task_set.train, Arm.OPEN)
    assert [e.task_id for e in closed] == [e.task_id for e in opened]
    assert [e.completion for e in closed] == [e.completion for e in opened]
    for c, o in zip(closed, opened, strict=True):
        closed_text, open_text = c.prompt[-1]["content"], o.prompt[-1]["content"]
        assert "Docs:" not in closed_text
        assert open_text.startswith("Docs:")
        assert open_text.endswith(closed_text)
        assert c.prompt[:-1] == o.prompt[:-1]  # the same (empty) system message


def test_open_prompt_documents_the_tasks_function_and_the_constructor(seeded_lib, task_set):
    names = seeded_lib.table.numpy_to_library()
    task = task_set.test[0]
    text = open_messages(task)[-1]["content"]
    assert f"- {names[task.selected_functions[0]]}(" in text
    assert f"- {seeded_lib.table.constructor}(" in text


def test_distractor_docs_come_from_other_functions(task_set):
    examples = build_examples(task_set.train[:10], Arm.OPEN, distractors=3)
    for example, task in zip(examples, task_set.train[:10], strict=True):
        lines = [x for x in example.prompt[-1]["content"].splitlines() if x.startswith("- ")]
        assert len(lines) == 2 + 3
        own = {f"- {d}" for d in task.extra["docs"]}
        assert own <= set(lines)


def test_completion_is_one_fenced_python_block(task_set):
    text = answer(task_set.train[0])
    assert text.startswith("```python\nimport ") and text.endswith("```")
    assert text.count("```") == 2


def test_examples_round_trip_through_jsonl(tmp_path, task_set):
    examples = build_examples(task_set.train[:5], Arm.OPEN)
    write_examples(tmp_path / "ex.jsonl", examples)
    assert read_examples(tmp_path / "ex.jsonl") == examples


def test_a_bad_example_row_names_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"task_id": "a", "arm": "sideways", "prompt": [], "completion": []}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:1:"):
        read_examples(path)
