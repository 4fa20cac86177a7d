"""The regimes that learn from the model's own solved training tasks (`sebench data sft`): the
memory baseline end to end against a scripted chat server on 127.0.0.1, and Open-SFT and
Closed-SFT trained with the tiny model on the kept answers of the reference agent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sebench.data.sources import load_file
from sebench.experiments import steps as step_functions
from sebench.experiments.recipe import load_recipe
from sebench.experiments.runner import Outcome, run_experiment
from sebench.jsonl import read_jsonl
from sebench.rollout.agents import AgentKind, ReferenceAgent
from sebench.training.taskprompts import answer
from tests.experiments.conftest import CPU_RECIPE, small
from tests.helpers.chat_server import ChatServer, Reply

FIRST_INSIGHT = "zwc functions keep the NumPy argument order"


def _ran(result) -> set[str]:
    return {step for step, outcome in result.outcomes.items() if outcome is not Outcome.SKIPPED}


def _prompt(body: dict) -> str:
    return body["messages"][-1]["content"]


def _is_memory_build(prompt: str) -> bool:
    return prompt.startswith("You are building a short memory")


def _scripted(run_dir: Path):
    """Open-book answers: the training task's target (all correct); memory builds: Expel
    operations; test rollouts in memory mode: any code."""

    def script(body: dict, attempt: int) -> Reply:
        prompt = _prompt(body)
        if _is_memory_build(prompt):
            first = "(none yet)" in prompt
            return Reply(f"ADD: {FIRST_INSIGHT}" if first else "UPVOTE 1\nADD: results are arrays")
        if "### Notes on" in prompt:
            return Reply("```python\ndef solve(x):\n    return x\n```")
        tasks = load_file(run_dir / "data" / "train.jsonl", "train")
        task = max((t for t in tasks if t.query in prompt), key=lambda t: len(t.query))
        return Reply(answer(task))

    return script


def _memory_values(url: str, **more: object) -> dict[str, object]:
    """The cut CPU recipe with the memory regime alone, its model served by the script."""
    return {
        "model": "scripted",
        "regimes": ["memory"],
        "backend.kind": "openai",
        "backend.base_urls": [url],
        "backend.max_retries": 0,
        "data.limit": 2,
        "sft_data.samples": 1,
        "memory.batch_size": 8,
        **more,
    }


@pytest.fixture(scope="module")
def memory_run(tmp_path_factory):
    """(server, run folder, result): one run of the memory regime; the server stays up."""
    run_dir = tmp_path_factory.mktemp("memory") / "run"
    with ChatServer(_scripted(run_dir)) as server:
        result = run_experiment(load_recipe(CPU_RECIPE, _memory_values(server.url)), run_dir)
        yield server, run_dir, result


def test_the_memory_regime_runs_end_to_end_on_insights_and_no_docs(memory_run):
    server, run_dir, result = memory_run
    assert not result.failed, result.outcomes
    assert _ran(result) == {
        "library",
        "data",
        "sft-data",
        "memory/seed0",
        "rollout/memory/seed0/single",
        "grade/memory/seed0/single",
        "report",
    }
    (arm,) = json.loads((run_dir / "manifest.json").read_text())["arms"]
    assert (arm["regime"], arm["status"]) == ("memory", "done")
    insights = json.loads((run_dir / arm["train_dir"] / "insights.json").read_text())
    assert [i["text"] for i in insights["insights"]] == [FIRST_INSIGHT, "results are arrays"]

    prompts = [_prompt(body) for body in server.requests]
    builds = [p for p in prompts if _is_memory_build(p)]
    tested = [p for p in prompts if "### Notes on" in p]
    open_book = [p for p in prompts if p not in builds and p not in tested]
    assert len(builds) == 3 and len(tested) == 2  # 24 solved tasks, 8 a call; 2 test tasks
    # the kept answers are the solutions the memory build reads
    kept = read_jsonl(run_dir / "sft-data" / "sft.jsonl")
    assert len(kept) == len(open_book) == 24
    assert kept[0]["completion"][0]["content"].split("```python\n")[1][:30] in builds[0]
    assert all(f"- {FIRST_INSIGHT}" in p for p in tested)
    # the docs' headings are in the open-book prompts, and in none of the memory ones
    assert all("#### zwc." in p for p in open_book)
    assert not any("#### zwc." in p for p in tested)
    responses = read_jsonl(run_dir / arm["results"].replace("results.jsonl", "responses.jsonl"))
    assert {r["mode"] for r in responses} == {"memory"}


def test_a_second_memory_run_skips_every_step(memory_run):
    server, run_dir, _ = memory_run
    asked = len(server.requests)
    again = run_experiment(load_recipe(CPU_RECIPE, _memory_values(server.url)), run_dir)
    assert _ran(again) == set() and len(server.requests) == asked


def test_a_changed_memory_setting_reruns_the_build_and_what_reads_it(memory_run, tmp_path):
    server, run_dir, _ = memory_run
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    changed = _memory_values(server.url, **{"memory.batch_size": 12})
    result = run_experiment(load_recipe(CPU_RECIPE, changed), copy)
    assert not result.failed, result.outcomes
    assert _ran(result) == {
        "memory/seed0",
        "rollout/memory/seed0/single",
        "grade/memory/seed0/single",
        "report",
    }
    insights = json.loads((copy / "arms/memory/seed0/train/insights.json").read_text())
    assert insights["provenance"]["config"]["batch_size"] == 12


def test_open_and_closed_sft_train_on_the_same_kept_answers(
    tiny_model, tmp_path, monkeypatch, one_thread
):
    real = step_functions._backend

    def oracle_for_the_base_model(recipe, trained, context):
        # the tiny random model solves nothing: the reference agent writes the SFT data
        if trained is not None:
            return real(recipe, trained, context)
        tasks = load_file(context.train_tasks(), "train")
        return ReferenceAgent(AgentKind.ORACLE, tasks, context.library())

    monkeypatch.setattr(step_functions, "_backend", oracle_for_the_base_model)
    values = small(
        tiny_model,
        regimes=["open-sft", "closed-sft"],
        **{"sft_data.answers": "rollouts", "sft_data.samples": 2, "sft_data.limit": 4},
    )
    run_dir = tmp_path / "run"
    result = run_experiment(load_recipe(CPU_RECIPE, values), run_dir)
    assert not result.failed, result.outcomes
    kept = read_jsonl(run_dir / "sft-data" / "sft.jsonl")
    assert len(kept) == 8  # 4 tasks x 2 samples, all correct
    trained = {
        arm: read_jsonl(run_dir / f"arms/{arm}/seed0/train/sft_examples.jsonl")
        for arm in ("open-sft", "closed-sft")
    }
    completions = {arm: [r["completion"] for r in rows] for arm, rows in trained.items()}
    assert completions["open-sft"] == completions["closed-sft"] == [r["completion"] for r in kept]
    assert [r["prompt"] for r in trained["open-sft"]] == [r["prompts"]["open"] for r in kept]
    assert [r["prompt"] for r in trained["closed-sft"]] == [r["prompts"]["closed"] for r in kept]


def test_sft_data_with_no_correct_answer_fails_and_blocks_what_learns_from_it(
    tiny_model, tmp_path, one_thread
):
    values = small(
        tiny_model,
        regimes=["no-docs", "closed-sft"],
        **{
            "sft_data.answers": "rollouts",
            "sft_data.samples": 1,
            "sft_data.limit": 2,
            "sft_data.max_new_tokens": 8,
        },
    )
    result = run_experiment(load_recipe(CPU_RECIPE, values), tmp_path / "run")
    assert result.outcomes["sft-data"] is Outcome.FAILED  # the random model solves nothing
    assert result.outcomes["train/closed-sft/seed0"] is Outcome.BLOCKED
    assert result.outcomes["grade/no-docs/seed0/single"] is Outcome.DONE
    record = json.loads((tmp_path / "run/steps/sft-data.json").read_text())
    assert "none of the 2 answers to 2 training tasks was correct" in record["error"]
