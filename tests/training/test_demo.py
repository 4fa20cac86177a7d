"""The demo pipeline end to end: mechanics with the tiny model (seconds), and the real paradox
with SmolLM2-135M (slow: minutes)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from sebench.grading.verdicts import VerdictKind
from sebench.training.demo import ROWS, DemoConfig, run_demo
from sebench.training.sft import SFTTrainingConfig

TINY = DemoConfig(
    train_per_function=4,
    test_per_function=2,
    max_new_tokens=8,
    eval_batch_size=6,
    sft=SFTTrainingConfig(max_steps=2, batch_size=2, warmup_steps=0, freeze_fraction=0.5),
)


@pytest.fixture(scope="module")
def tiny_run(seeded_lib, tiny_model, grader, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    events = []
    result = run_demo(
        seeded_lib, tiny_model, TINY, out_dir=out, on_progress=events.append, grader=grader
    )
    return result, out, events


def test_demo_evaluates_base_and_both_arms_in_table_order(tiny_run):
    result, _, _ = tiny_run
    assert [e.key for e in result.evaluations] == [key for key, *_ in ROWS]
    for evaluation in result.evaluations:
        assert evaluation.total == 12  # 6 functions x 2 held-out tasks
        assert sum(evaluation.verdicts.values()) == evaluation.total  # no sample dropped
        assert sum(t for _, t in evaluation.per_function.values()) == evaluation.total
    assert [e.docs_at_test for e in result.evaluations] == [False, False, False, True]
    assert [t.arm for t in result.trainings] == ["closed", "open"]
    assert all(len(t.losses) == 2 for t in result.trainings)


def test_demo_writes_tasks_and_every_graded_response(tiny_run):
    result, out, _ = tiny_run
    train = (out / "tasks_train.jsonl").read_text().splitlines()
    assert len(train) == 24
    for key, *_ in ROWS:
        rows = [json.loads(x) for x in (out / f"responses_{key}.jsonl").read_text().splitlines()]
        assert len(rows) == 12
        assert all(r["verdict"] in set(VerdictKind) and "response" in r for r in rows)


def test_demo_reports_progress_through_the_callback(tiny_run):
    _, _, events = tiny_run
    stages = {e.stage for e in events}
    assert {"tasks", "load", "train", "eval", "done"} <= stages
    train_steps = [e for e in events if e.stage == "train" and e.loss is not None]
    assert len(train_steps) == 4  # two steps per arm, each with its loss


def test_checks_compare_against_the_issue_thresholds(tiny_run):
    result, _, _ = tiny_run
    assert len(result.checks) == 3
    # a random tiny model cannot reach 75% on held-out tasks
    assert result.paradox_shown is False


def test_demo_cli_prints_the_table_and_writes_the_report(tiny_model, tmp_path):
    from typer.testing import CliRunner

    from sebench.cli.main import app

    out = tmp_path / "cli-demo"
    result = CliRunner().invoke(
        app,
        ["demo", "--model", str(tiny_model), "--steps", "1", "--out", str(out)],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "closed-SFT, no docs" in result.output and "Total wall time" in result.output
    assert (out / "demo.md").exists() and (out / "demo.json").exists()
    # Not a terminal: plain progress lines instead of a bar that would print nothing.
    assert "training closed-SFT 1/1" in result.output
    assert "open-SFT, docs at test: answering 24/24" in result.output
    # The precision and the machine go with every timing.
    assert "training in " in result.output and "load average" in result.output
    report = json.loads((out / "demo.json").read_text())
    assert report["precision"]["name"] in ("fp32", "bf16 autocast")
    machine = report["provenance"]["machine_at_start"]
    assert {"capability", "flags", "load_average", "torch_threads"} <= set(machine)
    assert "load average" in (out / "demo.md").read_text()


def test_an_interrupted_demo_keeps_finished_rows_and_runs_only_the_rest(
    seeded_lib, tiny_model, grader, tmp_path
):
    def interrupt_open_training(event):
        if event.stage == "train" and "open-SFT" in event.message and event.done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_demo(
            seeded_lib,
            tiny_model,
            TINY,
            out_dir=tmp_path,
            on_progress=interrupt_open_training,
            grader=grader,
        )
    events = []
    result = run_demo(
        seeded_lib, tiny_model, TINY, out_dir=tmp_path, on_progress=events.append, grader=grader
    )
    assert {e.message for e in events if e.stage == "train"} == {"training open-SFT"}
    assert set(result.resumed) == {"base", "closed_no_docs", "closed-SFT training"}
    assert [e.key for e in result.evaluations] == [key for key, *_ in ROWS]
    assert [t.arm for t in result.trainings] == ["closed", "open"]

    again = []
    run_demo(
        seeded_lib, tiny_model, TINY, out_dir=tmp_path, on_progress=again.append, grader=grader
    )
    assert not [e for e in again if e.stage in ("load", "train", "eval")]

    # Other settings: nothing is kept.
    other = replace(TINY, seed=1)
    fresh = run_demo(seeded_lib, tiny_model, other, out_dir=tmp_path, grader=grader)
    assert fresh.resumed == ()


@pytest.mark.slow
def test_real_demo_shows_the_open_book_paradox(tmp_path):
    """The README's promise, with SmolLM2-135M on this machine's CPU: closed-SFT >= 75% and
    open-SFT <= 5% without docs, open-SFT with docs >= 90%, within five minutes."""
    from sebench.library.cache import seeded_library
    from sebench.rollout.smollm import default_model_dir

    result = run_demo(seeded_library(0), default_model_dir(), DemoConfig(), out_dir=tmp_path)
    table = {e.key: f"{e.correct}/{e.total}" for e in result.evaluations}
    assert result.paradox_shown, (table, result.checks)
    limit = float(os.environ.get("SEBENCH_DEMO_MAX_SECONDS", 300))
    assert result.wall_seconds <= limit, f"{result.wall_seconds:.0f} s"
    assert Path(tmp_path / "responses_open_docs.jsonl").exists()


def test_interrupted_demo_cli_says_what_is_kept(tiny_model, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import sebench.training.demo
    from sebench.cli.main import app

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sebench.training.demo, "run_demo", interrupted)
    out = tmp_path / "cli-demo"
    result = CliRunner().invoke(
        app, ["demo", "--model", str(tiny_model), "--out", str(out)], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 130
    assert "demo_state.json" in result.output and "rerun the same command" in result.output
