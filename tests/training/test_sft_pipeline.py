"""`sebench data sft`: open-book answers of a reference agent, graded by the real grader, kept with
both prompts, and read back by `sebench train sft`."""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from sebench.errors import InputError
from sebench.grading.rules import Rules
from sebench.grading.runner import EvalConfig
from sebench.grading.sandbox import SandboxConfig
from sebench.jsonl import read_jsonl
from sebench.prompts import templates
from sebench.prompts.render import task_docs
from sebench.rollout.agents import ReferenceAgent
from sebench.rollout.backend import ChatRequest, Completion, SamplingConfig
from sebench.training.sft_data import read_sft_data
from sebench.training.sft_pipeline import SFTDataConfig, build_sft_data, side_path
from sebench.training.taskprompts import Arm
from tests.cli.cli_run import sebench

TASKS = 6


@pytest.fixture(scope="module")
def dev_tasks(single_test_dev_path: Path):
    from sebench.data.sources import load

    return load("single_test", single_test_dev_path)[:TASKS]


@pytest.fixture(scope="module")
def lib(api_doc_path: Path):
    from sebench.library.cache import official_library

    return official_library(api_doc_path)


@pytest.fixture(scope="module")
def oracle_run(single_test_dev_path: Path, api_doc_path: Path, tmp_path_factory) -> Path:
    """`sebench data sft` with the oracle, 2 samples of the first tasks, as a user runs it."""
    out = tmp_path_factory.mktemp("sft") / "sft.jsonl"
    done = sebench(
        "data", "sft", "--data", single_test_dev_path, "--api-doc", api_doc_path,
        "--backend", "oracle", "-k", "2", "--limit", TASKS, "--out", out, "--workers", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def _config(**changes) -> SFTDataConfig:
    return SFTDataConfig(samples=2, grading=EvalConfig(sandbox=SandboxConfig(workers=2)), **changes)


def test_data_sft_keeps_exactly_the_answers_the_grader_passes(oracle_run: Path):
    grades = read_jsonl(side_path(oracle_run, "grades.jsonl"))
    kept = read_jsonl(oracle_run)
    summary = json.loads(side_path(oracle_run, "summary.json").read_text())
    assert len(grades) == TASKS * 2 == summary["samples"]
    correct = {(g["task_id"], g["sample"]) for g in grades if g["verdict"] == "correct"}
    assert {(r["task_id"], r["sample"]) for r in kept} == correct
    assert summary["kept"] == len(kept) > 0
    assert sum(summary["verdicts"].values()) == summary["samples"]
    assert summary["tasks_without_kept"] == sorted(
        {g["task_id"] for g in grades} - {t for t, _ in correct},
        key=[g["task_id"] for g in grades].index,
    )
    responses = {(r["task_id"], r["sample"]): r["response"] for r in read_jsonl(
        side_path(oracle_run, "rollout.jsonl")
    )}  # fmt: skip
    for row in kept:
        assert row["completion"] == [
            {"role": "assistant", "content": responses[(row["task_id"], row["sample"])]}
        ]
        assert row["generated_with"] == "open"


def test_open_and_closed_prompts_differ_only_by_the_docs(oracle_run: Path, dev_tasks, lib):
    by_id = {t.task_id: t for t in dev_tasks}
    for row in read_jsonl(oracle_run):
        task = by_id[row["task_id"]]
        opened = row["prompts"]["open"][0]["content"]
        closed = row["prompts"]["closed"][0]["content"]
        section = templates.docs_section(task_docs(task, lib), lib.package)
        assert section in opened and "####" not in closed
        # Without the docs section, what is left differs only in the lines that mention them.
        changed = [
            line
            for line in difflib.ndiff(closed.splitlines(), opened.replace(section, "").splitlines())
            if line[:1] in "+-"
        ]
        added = [line for line in changed if line.startswith("+ ") and line.strip("+ ")]
        removed = [line for line in changed if line.startswith("- ")]
        assert added and all("document" in line for line in added), added
        assert len(removed) == len(added)


def test_train_sft_trains_each_arm_on_the_data_sft_file(oracle_run: Path, tiny_model, tmp_path):
    for arm in ("closed", "open"):
        out = tmp_path / arm
        done = sebench(
            "train", "sft", "--mode", arm, "--data", oracle_run, "--out", out,
            "--model", tiny_model, "--steps", "2", "--batch-size", "2",
            "--freeze-fraction", "0.5", "--no-bf16",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        trained = read_jsonl(out / "sft_examples.jsonl")
        kept = read_jsonl(oracle_run)
        assert [e["prompt"] for e in trained] == [r["prompts"][arm] for r in kept]
        assert [e["completion"] for e in trained] == [r["completion"] for r in kept]
        record = json.loads((out / "sebench_sft.json").read_text())
        assert len(record["losses"]) == 2


def test_both_arms_read_the_same_answers_in_the_same_order(oracle_run: Path):
    closed, opened = read_sft_data(oracle_run, Arm.CLOSED), read_sft_data(oracle_run, Arm.OPEN)
    assert [e.completion for e in closed] == [e.completion for e in opened]
    assert all(c.prompt != o.prompt for c, o in zip(closed, opened, strict=True))


def test_nothing_kept_exits_1_and_lists_every_task(
    single_test_dev_path: Path, api_doc_path: Path, tmp_path
):
    done = sebench(
        "data", "sft", "--data", single_test_dev_path, "--api-doc", api_doc_path,
        "--backend", "numpy-agent", "-k", "1", "--limit", "3", "--out", tmp_path / "sft.jsonl",
        "--workers", "1",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "no answer was kept" in done.stderr
    summary = json.loads((tmp_path / "sft.summary.json").read_text())
    assert summary["verdicts"] == {"uses_numpy": 3}
    assert len(summary["tasks_without_kept"]) == 3


def test_bad_task_rows_fail_with_the_file_and_line(
    single_test_dev_path: Path, api_doc_path: Path, tmp_path
):
    rows = single_test_dev_path.read_text().splitlines()[:2]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(rows[0] + "\n{not json\n")
    done = sebench(
        "data", "sft", "--data", bad, "--api-doc", api_doc_path, "--backend", "oracle",
        "--out", tmp_path / "sft.jsonl",
    )  # fmt: skip
    assert done.returncode == 2
    assert f"{bad}:2: invalid JSON" in done.stderr


def test_tasks_whose_functions_have_no_docs_are_refused(dev_tasks, lib, tmp_path):
    import dataclasses

    from sebench.errors import InputError

    odd = dataclasses.replace(dev_tasks[0], selected_functions=("no_such_function",))
    agent = ReferenceAgent("oracle", [odd], lib)
    with pytest.raises(InputError, match="no function documented"):
        build_sft_data([odd], lib, agent, tmp_path / "sft.jsonl", _config())
    assert not (tmp_path / "sft.rollout.jsonl").exists()  # refused before any sampling


class _Interrupted(ReferenceAgent):
    """The oracle, killed (Ctrl-C) after `after` answers."""

    def __init__(self, after: int, *args) -> None:
        super().__init__(*args)
        self.after = after

    def generate(
        self, requests: Sequence[ChatRequest], sampling: SamplingConfig
    ) -> Iterator[Completion]:
        for done, completion in enumerate(super().generate(requests, sampling)):
            if done == self.after:
                raise KeyboardInterrupt
            yield completion


class _Counting(ReferenceAgent):
    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.asked: list[tuple[str, int]] = []

    def generate(
        self, requests: Sequence[ChatRequest], sampling: SamplingConfig
    ) -> Iterator[Completion]:
        self.asked += [(r.task_id, r.sample) for r in requests]
        yield from super().generate(requests, sampling)


def test_a_killed_run_resumes_without_sampling_or_grading_twice(dev_tasks, lib, tmp_path):
    out = tmp_path / "sft.jsonl"
    with pytest.raises(KeyboardInterrupt):
        build_sft_data(dev_tasks, lib, _Interrupted(5, "oracle", dev_tasks, lib), out, _config())
    assert len(read_jsonl(side_path(out, "rollout.jsonl"))) == 5

    counting = _Counting("oracle", dev_tasks, lib)
    first = build_sft_data(dev_tasks, lib, counting, out, _config())
    assert len(counting.asked) == TASKS * 2 - 5

    # Killed while grading: the last two verdicts never reached the disk, the last one torn.
    grades = side_path(out, "grades.jsonl")
    lines = grades.read_text().splitlines(keepends=True)
    grades.write_text("".join(lines[:-2]) + lines[-2][:10])
    again = _Counting("oracle", dev_tasks, lib)
    second = build_sft_data(dev_tasks, lib, again, out, _config())
    assert again.asked == []
    assert len(read_jsonl(grades)) == TASKS * 2  # the two missing graded again, once
    assert (second.kept, second.verdicts) == (first.kept, first.verdicts)

    fresh = tmp_path / "fresh" / "sft.jsonl"
    build_sft_data(dev_tasks, lib, ReferenceAgent("oracle", dev_tasks, lib), fresh, _config())
    assert read_jsonl(out) == read_jsonl(fresh)


def test_a_rerun_grades_again_what_a_changed_task_or_library_would_judge_otherwise(
    dev_tasks, lib, tmp_path
):
    """Stored verdicts are keyed by what they depend on (the task, the library, the grader's
    settings and version), not by the answer alone: a red team's rerun into the same folder kept
    verdicts of another library, and of a task as written before a grader fix."""
    out = tmp_path / "sft.jsonl"
    first = build_sft_data(dev_tasks, lib, ReferenceAgent("oracle", dev_tasks, lib), out, _config())
    graded = len(read_jsonl(side_path(out, "grades.jsonl")))
    changed = dataclasses.replace(
        dev_tasks[0], expected=tuple("[999]" for _ in dev_tasks[0].expected)
    )
    tasks = [changed, *dev_tasks[1:]]
    again = _Counting("oracle", dev_tasks, lib)
    second = build_sft_data(tasks, lib, again, out, _config())
    assert again.asked == []  # the answers are kept; only their verdicts are not
    assert len(read_jsonl(side_path(out, "grades.jsonl"))) == graded + 2  # its 2 samples
    assert second.kept == first.kept - 2
    assert second.verdicts["wrong_answer"] == first.verdicts.get("wrong_answer", 0) + 2


def test_a_server_that_never_answers_is_an_error_not_an_empty_file(
    single_test_dev_path: Path, api_doc_path: Path, tmp_path
):
    from tests.helpers.chat_server import ChatServer, Reply

    with ChatServer(lambda body, attempt: Reply(status=400)) as server:
        done = sebench(
            "data", "sft", "--data", single_test_dev_path, "--api-doc", api_doc_path,
            "--backend", "openai", "--base-url", server.url, "--model", "m", "-k", "1",
            "--limit", "2", "--max-retries", "0", "--out", tmp_path / "sft.jsonl",
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "every request failed" in done.stderr


def test_verdicts_are_those_of_sebench_eval(oracle_run: Path, single_test_dev_path: Path, tmp_path):
    from sebench.grading.runner import evaluate

    evaluate(
        side_path(oracle_run, "rollout.jsonl"),
        tmp_path / "results.jsonl",
        tmp_path / "summary.json",
        config=EvalConfig(
            sandbox=SandboxConfig(workers=2), data=(f"single_test={single_test_dev_path}",)
        ),
    )
    evaluated = {
        (r["task_id"], r["sample"]): r["verdict"] for r in read_jsonl(tmp_path / "results.jsonl")
    }
    graded = {
        (r["task_id"], r["sample"]): r["verdict"]
        for r in read_jsonl(side_path(oracle_run, "grades.jsonl"))
    }
    assert graded == evaluated


def test_training_data_is_never_judged_by_the_official_rules():
    """They pass an answer whose only library call is dead code: training on it teaches the
    trick (a red team's recipe with `grading.rules = "official"` kept such answers)."""
    with pytest.raises(InputError, match="strict rules"):
        SFTDataConfig(grading=EvalConfig(rules=Rules.OFFICIAL))
