"""Labels and the OpenRLHF format without a server: the response cut from the query, task ids and
task rows resolving to the same task, and the engine modules importing nothing heavy."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sebench.integrations.labels import LabelError, TaskLabels, task_label
from sebench.integrations.openrlhf import response_text


def test_the_response_is_the_query_after_its_prompt():
    assert response_text("PROMPT answer<|im_end|>", "PROMPT") == " answer<|im_end|>"
    # a BOS token decoded in front of the prompt text
    assert response_text("<s>PROMPT answer", "PROMPT") == " answer"
    assert response_text("something else", "PROMPT") is None


def test_an_id_a_row_and_a_row_object_name_the_same_task(shift_task):
    labels = TaskLabels({shift_task.task_id: shift_task})
    row = task_label(shift_task)
    assert labels.resolve(shift_task.task_id) == shift_task
    assert labels.resolve(row) == shift_task
    assert labels.resolve(json.loads(row)) == shift_task
    assert TaskLabels().resolve(row) == shift_task  # a row needs no task file


@pytest.mark.parametrize(
    ("label", "reason"),
    [
        ("nope", "unknown task id 'nope'"),
        ("{broken", "not valid JSON"),
        ('{"query": "q"}', "malformed task row"),
        (7, "expected a task id or a task row, got int"),
    ],
)
def test_bad_labels_say_why(label, reason):
    with pytest.raises(LabelError, match="labels\\[3\\]: .*" + reason.replace("(", "\\(")):
        TaskLabels().resolve(label, where="labels[3]")


@pytest.mark.parametrize(
    "module", ["sebench.training.rewards", "sebench.integrations.verl", "sebench.cli.serve_cmd"]
)
def test_reward_modules_import_no_heavy_extra(module):
    """TRL's reward function, verl's and the service load in a trainer's process: no torch,
    transformers, trl, datasets or pyarrow come with them."""
    code = (
        f"import sys, {module};"
        "heavy=('torch','transformers','trl','datasets','pyarrow','vllm');"
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
