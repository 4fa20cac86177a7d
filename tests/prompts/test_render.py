"""The four prompt modes, for the official library and a fresh-seed one."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from sebench.prompts import PromptMode, render_prompt, render_text, retrieved_docs, task_docs
from tests.prompts.conftest import task_with

SECTIONS = ("### Problem", "### Example test case", "### Function to complete", "### Requirements")


def _doc_headers(text: str) -> list[str]:
    return re.findall(r"^#### (\S+)$", text, flags=re.M)


@pytest.mark.parametrize("mode", list(PromptMode))
def test_prompt_is_one_user_message_without_system_prompt(mode, official_lib, dev_tasks):
    from sebench.prompts.memory import Insight, Memory

    memory = Memory(official_lib.package, (Insight("an insight", 2, ()),))
    messages = render_prompt(dev_tasks[0], official_lib, mode, memory=memory)
    assert [m["role"] for m in messages] == ["user"]


def test_closed_prompt_has_the_official_sections_and_no_docs(official_lib, dev_tasks):
    task = dev_tasks[0]
    text = render_text(task, official_lib, PromptMode.CLOSED)
    positions = [text.index(section) for section in SECTIONS]
    assert positions == sorted(positions)
    assert task.query.strip() in text
    assert task.signature in text
    assert task.example_input in text
    assert "only guarantees that its data structures are valid" in text
    assert "import zwc" in text
    assert "```python" in text  # the answer format is asked for
    assert _doc_headers(text) == []
    assert "numpy" not in text.lower()


def test_open_prompt_puts_the_selected_functions_docs_first(official_lib, dev_tasks):
    task = task_with(dev_tasks, "mean")
    text = render_text(task, official_lib, PromptMode.OPEN)
    assert _doc_headers(text) == ["zwc.kocito"]
    assert text.index("### zwc functions") < text.index("### Problem")
    assert official_lib.doc_for("mean")["rewritten_doc"].strip() in text


def test_open_prompt_shows_both_docs_for_a_name_in_top_level_and_linalg(official_lib, dev_tasks):
    task = task_with(dev_tasks, "outer")
    headers = _doc_headers(render_text(task, official_lib, PromptMode.OPEN))
    assert sorted(headers) == ["zwc.maqibu", "zwc.rfx.quticem"]


def test_open_prompt_finds_linalg_docs_from_bare_numpy_names(official_lib, dev_tasks):
    task = task_with(dev_tasks, "cond")  # official rows say "cond" for numpy.linalg.cond
    assert [d.qualified_name for d in task_docs(task, official_lib)] == ["zwc.rfx.vuwaqoc"]


def test_every_dev_task_gets_at_least_one_doc(official_lib, dev_tasks):
    missing = [t.selected_functions for t in dev_tasks if not task_docs(t, official_lib)]
    assert missing == []


def test_seeded_library_prompts_use_its_own_names(seeded_lib, dev_tasks):
    task = task_with(dev_tasks, "cond")
    closed = render_text(task, seeded_lib, PromptMode.CLOSED)
    opened = render_text(task, seeded_lib, PromptMode.OPEN)
    assert "import quvar" in closed and "zwc" not in closed
    entry = seeded_lib.table.entry("linalg.cond")
    assert _doc_headers(opened) == [f"quvar.lomi.{entry.name}"]
    assert "### quvar functions" in opened
    assert "zwc" not in opened


def test_numpy_prompt_asks_for_numpy_and_never_names_the_library(official_lib, dev_tasks):
    task = dev_tasks[0]
    text = render_text(task, official_lib, PromptMode.NUMPY)
    assert "import numpy as np" in text
    assert "zwc" not in text
    assert task.signature in text


def test_retrieved_prompt_holds_top_k_docs_from_the_whole_api(official_lib, dev_tasks):
    task = dev_tasks[0]
    text = render_text(task, official_lib, PromptMode.OPEN_RETRIEVED, top_k=3)
    assert len(_doc_headers(text)) == 3


def test_retrieval_finds_the_right_doc_in_the_top_5_for_a_good_share(official_lib, dev_tasks):
    # Measured: 30 of the 64 dev tasks (BM25 over the docs' summaries, query = problem text);
    # 18 of the 41 stand-in tasks (tests/helpers/standin_data.py).
    hits = sum(
        bool(
            {d.qualified_name for d in task_docs(t, official_lib)}
            & {d.qualified_name for d in retrieved_docs(t, official_lib, 5)}
        )
        for t in dev_tasks
    )
    assert hits >= 0.375 * len(dev_tasks)  # 24 of the 64


def test_prompt_show_prints_exactly_the_rendered_text(
    official_lib, dev_tasks, single_test_dev_path, api_doc_path
):
    task = dev_tasks[3]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "sebench.cli.main",
            "prompt",
            "show",
            task.task_id,
            "--mode",
            "open",
            "--data",
            str(single_test_dev_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == render_text(task, official_lib, PromptMode.OPEN) + "\n"


def test_prompt_show_names_an_unknown_task(single_test_dev_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "sebench.cli.main",
            "prompt",
            "show",
            "single_test-nope",
            "--data",
            str(single_test_dev_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert "no task 'single_test-nope'" in out.stderr
