"""The memory baseline: Expel's insight operations, `sebench memory build` against a scripted chat
server on 127.0.0.1, and prompt mode `memory` in `prompt show` and `rollout`."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from sebench.jsonl import read_jsonl
from sebench.prompts.memory import Insight, Memory, load_memory, write_memory
from sebench.prompts.render import render_text
from sebench.training.insights import MemoryBuildConfig, apply_operations, cap_length
from tests.cli.cli_run import sebench
from tests.helpers.chat_server import ChatServer, Reply

CONFIG = MemoryBuildConfig(max_insight_chars=60)


def _insight(text: str, importance: int = 2) -> Insight:
    return Insight(text, importance, ("t0",))


def test_operations_follow_expel_arithmetic_with_numbers_of_the_list_shown():
    shown = [_insight("first"), _insight("second", 1), _insight("third")]
    answer = "\n".join(
        [
            "ADD: zwc.kocito(a, axis=None) returns the mean",
            "UPVOTE 1",
            "DOWNVOTE 2",  # importance 1 -> 0: removed, after the batch
            "EDIT 3: third, corrected",
            "UPVOTE 4",  # no insight 4 in the list shown: ignored
            "Here are my operations:",  # chatter: ignored
            "ADD: " + "x" * 61,  # too long: ignored
        ]
    )
    after, counts, merged = apply_operations(shown, answer, ("t1", "t2"), CONFIG)
    assert [(i.text, i.importance) for i in after] == [
        ("first", 3),
        ("third, corrected", 3),
        ("zwc.kocito(a, axis=None) returns the mean", 2),
    ]
    assert after[0].sources == ("t0", "t1", "t2")
    assert after[2].sources == ("t1", "t2")
    assert counts == {"ADD": 1, "UPVOTE": 1, "DOWNVOTE": 1, "EDIT": 1, "ignored": 3}
    assert merged == 0


def test_an_add_that_repeats_an_insight_upvotes_it_instead():
    shown = [_insight("zwc.kocito(a, axis=None) returns the mean")]
    after, counts, merged = apply_operations(
        shown, "- ADD: zwc.kocito(a, axis=None) returns the mean.", ("t1",), CONFIG
    )
    assert [(i.text, i.importance, i.sources) for i in after] == [
        ("zwc.kocito(a, axis=None) returns the mean", 3, ("t0", "t1"))
    ]
    assert merged == 1 and counts["ADD"] == 1


def test_the_cap_keeps_the_most_important_insights_that_fit():
    insights = [_insight("a" * 10, 2), _insight("b" * 10, 5), _insight("c" * 10, 3)]
    assert [i.text[0] for i in cap_length(insights, 22)] == ["b", "c"]


@pytest.fixture(scope="module")
def solved(single_test_dev_path: Path, api_doc_path: Path, tmp_path_factory) -> Path:
    """Four solved tasks, made by `sebench data sft` with the oracle."""
    out = tmp_path_factory.mktemp("solved") / "sft.jsonl"
    done = sebench(
        "data", "sft", "--data", single_test_dev_path, "--api-doc", api_doc_path,
        "--backend", "oracle", "-k", "1", "--limit", "4", "--out", out, "--workers", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def _scripted(body: dict, attempt: int) -> Reply:
    prompt = body["messages"][-1]["content"]
    if "Write your final implementation" in prompt:  # a rollout: any answer will do
        return Reply("```python\ndef f():\n    return 1\n```")
    if "(none yet)" in prompt:  # the first batch
        return Reply("ADD: call functions as zwc.NAME(...)\nADD: results are ZWCArray objects")
    return Reply("Sure.\nUPVOTE 1\nADD: call functions as zwc.NAME(...).\nADD: rfx holds linalg")


def test_memory_build_then_memory_mode_in_prompt_show_and_rollout(
    solved: Path, single_test_dev_path: Path, api_doc_path: Path, tmp_path
):
    kept = read_jsonl(solved)
    insights = tmp_path / "insights.json"
    with ChatServer(_scripted) as server:
        done = sebench(
            "memory", "build", "--data", solved, "--out", insights, "--backend", "openai",
            "--base-url", server.url, "--model", "scripted", "--tasks-per-call", "2",
            "--max-retries", "0",  # no --lib: the library `data sft` recorded beside --data
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        builds = [r["messages"][-1]["content"] for r in server.requests]
        assert len(builds) == -(-len({r["task_id"] for r in kept}) // 2)
        # The model sees the solutions and, from the second call, the numbered insights.
        assert kept[0]["completion"][0]["content"].split("```python\n")[1][:40] in builds[0]
        assert "1. call functions as zwc.NAME(...)" in builds[1]

        record = json.loads(insights.read_text())
        first_batch = [r["task_id"] for r in kept[:2]]
        assert record["insights"][0] == {
            "text": "call functions as zwc.NAME(...)",
            "importance": 4,  # added, upvoted, and added again (merged)
            "sources": list(dict.fromkeys(r["task_id"] for r in kept)),
        }
        assert record["insights"][1]["sources"] == first_batch
        assert [i["text"] for i in record["insights"]][2:] == ["rfx holds linalg"]
        assert record["stats"]["merged"] == 1 and record["stats"]["operations"]["ignored"] == 1
        assert record["provenance"]["model"] == "scripted"
        assert record["batches"][1]["answer"].startswith("Sure.\nUPVOTE 1")

        task = kept[0]["task_id"]
        shown = sebench(
            "prompt", "show", task, "--mode", "memory", "--memory", insights,
            "--data", single_test_dev_path, "--api-doc", api_doc_path,
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        assert "- rfx holds linalg" in shown.stdout and "#### zwc." not in shown.stdout

        responses = tmp_path / "responses.jsonl"
        rolled = sebench(
            "rollout", "--backend", "openai", "--base-url", server.url, "--model", "scripted",
            "--data", single_test_dev_path, "--api-doc", api_doc_path, "--limit", "2",
            "--mode", "memory", "--memory", insights, "--out", responses,
        )  # fmt: skip
        assert rolled.returncode == 0, rolled.stderr
        assert all(
            "- rfx holds linalg" in r["messages"][-1]["content"] for r in server.requests[-2:]
        )
        meta = json.loads((tmp_path / "responses.meta.json").read_text())
        assert meta["config"]["memory"] == load_memory(insights).describe()
        assert {r["mode"] for r in read_jsonl(responses)} == {"memory"}


def test_memory_mode_without_insights_is_a_user_error(single_test_dev_path, api_doc_path):
    done = sebench(
        "prompt", "show", "0", "--mode", "memory", "--data", single_test_dev_path,
        "--api-doc", api_doc_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert "pass --memory insights.json" in done.stderr


def test_memory_and_closed_prompts_differ_only_by_the_notes(lib, dev_task):
    memory = Memory(lib.package, (_insight("zwc.kocito averages"),))
    closed = render_text(dev_task, lib, "closed")
    noted = render_text(dev_task, lib, "memory", memory=memory)
    section = f"### Notes on {lib.package}\n\n- zwc.kocito averages\n"
    assert section in noted
    changed = [
        line
        for line in difflib.ndiff(closed.splitlines(), noted.replace(section, "").splitlines())
        if line[:1] in "+-"
    ]
    added = [line for line in changed if line.startswith("+ ") and line.strip("+ ")]
    assert added and all("notes" in line for line in added), added
    assert len([line for line in changed if line.startswith("- ")]) == len(added)


def test_a_memory_about_another_library_is_refused(lib, dev_task):
    from sebench.errors import SebenchError

    memory = Memory("other", (_insight("x"),), source="insights.json")
    with pytest.raises(SebenchError, match="about library 'other'"):
        render_text(dev_task, lib, "memory", memory=memory)


@pytest.fixture(scope="module")
def lib(api_doc_path: Path):
    from sebench.library.cache import official_library

    return official_library(api_doc_path)


@pytest.fixture(scope="module")
def dev_task(single_test_dev_path: Path):
    from sebench.data.sources import load

    return load("single_test", single_test_dev_path)[0]


def test_run_shows_the_insights_in_memory_mode(single_test_dev_path, api_doc_path, lib, tmp_path):
    insights = tmp_path / "insights.json"
    write_memory(insights, Memory(lib.package, (_insight("zwc.kocito averages"),)))
    out = tmp_path / "run"
    with ChatServer(_scripted) as server:
        done = sebench(
            "run", "--backend", "openai", "--base-url", server.url, "--model", "scripted",
            "--data", single_test_dev_path, "--api-doc", api_doc_path, "--tasks", "2",
            "--no-agents", "--mode", "memory", "--memory", insights, "--out", out,
            "--workers", "1", "--max-retries", "0",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    prompts = [r["messages"][-1]["content"] for r in server.requests]
    assert len(prompts) == 2 and all("- zwc.kocito averages" in p for p in prompts)
    summary = json.loads((out / "summary.json").read_text())
    assert [row["mode"] for row in summary["rows"]] == ["memory"]
    assert summary["provenance"]["config"]["memory"]["insights"] == 1


def test_a_memory_build_cut_off_by_a_failed_call_resumes_where_it_stopped(solved: Path, tmp_path):
    """The second batch's call fails for good: the first batch's answer is kept in the journal,
    and the same command again asks only for the batches after it. The insights equal those of
    a build that never stopped; other settings on that journal are refused."""
    build = (
        "memory", "build", "--data", solved, "--backend", "openai", "--model", "scripted",
        "--tasks-per-call", "2", "--max-retries", "0",
    )  # fmt: skip
    whole = tmp_path / "whole.json"
    with ChatServer(_scripted) as server:
        done = sebench(*build, "--base-url", server.url, "--out", whole)
        assert done.returncode == 0, done.stderr
        batches = len(server.requests)
    assert batches >= 2

    def second_call_fails(body: dict, attempt: int) -> Reply:
        if "(none yet)" in body["messages"][-1]["content"]:
            return _scripted(body, attempt)
        return Reply("overloaded", status=500)

    cut = tmp_path / "cut.json"
    journal = tmp_path / "cut.journal.jsonl"
    with ChatServer(second_call_fails) as server:
        failed = sebench(*build, "--base-url", server.url, "--out", cut)
    assert failed.returncode != 0 and not cut.exists()
    assert "batch 2 of" in failed.stderr and "the same command again" in failed.stderr
    assert [row.get("batch") for row in read_jsonl(journal)] == [None, 0]  # header, batch 0

    with ChatServer(_scripted) as server:
        refused = sebench(
            *build[:-4], "--tasks-per-call", "1", "--max-retries", "0",
            "--base-url", server.url, "--out", cut,
        )  # fmt: skip
        assert refused.returncode == 2 and "journal" in refused.stderr
        assert server.requests == []
        resumed = sebench(*build, "--base-url", server.url, "--out", cut)
        assert resumed.returncode == 0, resumed.stderr
        assert "continuing the build" in resumed.stderr
        assert len(server.requests) == batches - 1  # the first batch was not asked again
        assert "(none yet)" not in server.requests[0]["messages"][-1]["content"]
    assert json.loads(cut.read_text())["insights"] == json.loads(whole.read_text())["insights"]
    assert not journal.exists()
