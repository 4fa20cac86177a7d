"""The RL demo end to end: mechanics with the tiny model (seconds), and RL alone staying near
zero with SmolLM2-135M (slow: minutes)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from sebench.errors import SebenchError
from sebench.prompts.modes import PromptMode
from sebench.reports.demo_table import write_rl_demo_report
from sebench.training.grpo import RLMode, build_trainer
from sebench.training.rl_demo import (
    ARMS,
    SFT_MODEL,
    STATE_FILE,
    RLDemoConfig,
    demo_prompts,
    parse_seeds,
    run_rl_demo,
)
from sebench.training.sft import SFTTrainingConfig, load_model
from sebench.training.taskprompts import closed_messages, open_messages

TINY = RLDemoConfig(
    seeds=(0, 1),
    train_per_function=4,
    test_per_function=2,
    max_new_tokens=8,
    eval_batch_size=12,
    sft=SFTTrainingConfig(max_steps=2, batch_size=2, warmup_steps=0, freeze_fraction=0.5),
    rl=replace(
        RLDemoConfig().rl,
        prompts_per_step=2,
        generations_per_prompt=2,
        micro_batch_size=4,
        max_steps=2,
        max_completion_length=8,
    ),
)


# tiny-model tests: one PyTorch thread (tests/training/conftest.py)
pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def tiny_run(seeded_lib, tiny_model, grader, tmp_path_factory):
    out = tmp_path_factory.mktemp("rl-demo")
    events = []
    result = run_rl_demo(
        seeded_lib, tiny_model, TINY, out_dir=out, on_progress=events.append, grader=grader
    )
    return result, out, events


def test_every_arm_of_every_seed_is_trained_and_tested_without_docs(tiny_run):
    result, out, _ = tiny_run
    assert [(r.arm, r.seed) for r in result.runs] == [
        (arm, seed) for arm, _ in ARMS for seed in (0, 1)
    ]
    for run in result.runs:
        e = run.evaluation
        assert e.total == 12 and sum(e.verdicts.values()) == 12 and not e.docs_at_test
        rows = (out / f"seed-{run.seed}" / f"responses_{run.arm}.jsonl").read_text().splitlines()
        assert len(rows) == 12 and all(json.loads(r)["mode"] == "closed" for r in rows)
    by = {(r.seed, r.arm): r for r in result.runs}
    assert len(by[(0, "sft")].losses) == 2 and by[(0, "sft")].steps == ()
    # Closed-RL generates and grades every step; Open-RL reuses its batch for a second update.
    for arm in ("sft_rl", "closed_rl"):
        assert [sum(s["verdicts"].values()) for s in by[(0, arm)].steps] == [4, 4]
    assert [sum(s["verdicts"].values()) for s in by[(0, "open_rl")].steps] == [4, 0]
    assert all(s["frac_zero_spread"] is not None for s in by[(0, "closed_rl")].steps)
    # The seeds differ in their tasks (parameter names, order), not only in their label.
    seed0 = (out / "seed-0" / "tasks_train.jsonl").read_text()
    assert seed0 != (out / "seed-1" / "tasks_train.jsonl").read_text()
    # The SFT checkpoint is removed once SFT->RL has used it (540 MB with SmolLM2), and RL
    # writes no checkpoints (1 GB an arm): the demo leaves only its results.
    assert not (out / "seed-0" / SFT_MODEL).exists()
    assert not list(out.glob("seed-*/*/checkpoints/*")), "the demo left checkpoints behind"
    record = json.loads((out / "seed-0" / "sft_rl" / "sebench_grpo.json").read_text())
    assert record["init"].endswith(SFT_MODEL) and record["mode"] == "closed"


def test_the_report_has_means_per_seed_values_and_rl_diagnostics(tiny_run, tmp_path):
    result, _, _ = tiny_run
    files = write_rl_demo_report(result, tmp_path)
    report = json.loads(files["json"].read_text())
    arms = {a["arm"]: a for a in report["arms"]}
    assert set(arms) == {arm for arm, _ in ARMS}
    for arm in arms.values():
        assert len(arm["accuracy_per_seed"]) == 2
        assert arm["mean_accuracy"] == pytest.approx(sum(arm["accuracy_per_seed"]) / 2, abs=1e-4)
    assert report["checks"] and "machine_at_start" in report["provenance"]
    markdown = files["markdown"].read_text()
    assert "| arm (tested without docs) | mean | seed 0 | seed 1 |" in markdown
    assert "zero-spread groups" in markdown and "load average" in markdown
    assert markdown.count("| Open-RL from base | ") == 3  # the accuracy row, one per seed
    if "chart" in files:
        assert files["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_rl_only_bound_holds_on_every_seed_not_on_the_mean(tiny_run):
    result, _, _ = tiny_run
    assert result.rl_only_near_zero  # a random model solves nothing
    run = next(r for r in result.runs if r.arm == "open_rl" and r.seed == 1)
    lucky = replace(run, evaluation=replace(run.evaluation, correct=1))  # 1/12: 8%, mean 4%
    other = replace(result, runs=[lucky if r is run else r for r in result.runs])
    assert other.mean("open_rl") <= 0.05 and not other.rl_only_near_zero
    assert other.checks["Open-RL from base, no docs, every seed <= 5%"] is False


def test_progress_shows_rl_steps_with_their_learning_signal(tiny_run):
    _, _, events = tiny_run
    rl_steps = [e for e in events if e.stage == "train" and "RL" in e.message and e.done]
    assert len(rl_steps) == 2 * 3 * 2  # seeds x RL arms x steps
    assert all("zero-spread" in e.extra for e in rl_steps if e.done == 1)


def test_demo_rl_trains_on_the_sft_demos_short_prompts(tiny_model, task_set, seeded_lib, grader):
    """GRPO's generation sees the demo's open prompt; Closed-RL's loss its closed prompt."""
    from sebench.training.rewards import SebenchReward

    tasks = task_set.train[:2]
    model, tokenizer = load_model(tiny_model)
    trainer = build_trainer(
        model,
        tokenizer,
        tasks,
        seeded_lib,
        SebenchReward(grader, {t.task_id: t for t in tasks}),
        TINY.rl,
        RLMode.CLOSED,
        "unused",
        prompts=demo_prompts,
    )
    assert trainer.train_dataset[0]["prompt"] == open_messages(tasks[0])
    closed = trainer.rollout_func.closed
    assert sorted(map(json.dumps, closed.values())) == sorted(
        json.dumps(closed_messages(t)) for t in tasks
    )
    assert demo_prompts(tasks[0], PromptMode.CLOSED) == closed_messages(tasks[0])


def interrupt(seeded_lib, tiny_model, grader, config, out, arm: str, at_step: int) -> None:
    """Run the demo into `out` and stop it (Ctrl-C) when the first arm whose label holds `arm`
    reports training step `at_step`."""

    def stop(event):
        if event.stage == "train" and arm in event.message and event.done == at_step:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_rl_demo(seeded_lib, tiny_model, config, out_dir=out, on_progress=stop, grader=grader)


def test_an_interrupted_rl_demo_keeps_finished_arms_and_runs_only_the_rest(
    seeded_lib, tiny_model, grader, tmp_path
):
    config = replace(TINY, seeds=(0,))
    interrupt(seeded_lib, tiny_model, grader, config, tmp_path, "Open-RL", at_step=1)
    events = []
    result = run_rl_demo(
        seeded_lib, tiny_model, config, out_dir=tmp_path, on_progress=events.append, grader=grader
    )
    trained = {e.message for e in events if e.stage == "train"}
    assert trained == {"seed 0: Open-RL from base"}
    assert set(result.resumed) == {"seed 0 sft", "seed 0 sft_rl", "seed 0 closed_rl"}
    assert [r.arm for r in result.runs] == [arm for arm, _ in ARMS]
    # The resumed arm's log holds only the rerun's steps, not the interrupted run's too.
    assert len((tmp_path / "seed-0" / "open_rl" / "grpo_log.jsonl").read_text().splitlines()) == 2

    # The same command again runs nothing.
    again = []
    run_rl_demo(
        seeded_lib, tiny_model, config, out_dir=tmp_path, on_progress=again.append, grader=grader
    )
    assert not [e for e in again if e.stage in ("load", "train", "eval")]
    state = json.loads((tmp_path / STATE_FILE).read_text())
    assert len(state["runs"]) == 4


def test_a_finished_sft_row_is_trained_again_when_its_checkpoint_is_gone(
    seeded_lib, tiny_model, grader, tmp_path
):
    """SFT->RL starts from the SFT checkpoint: killed between the two, with the checkpoint
    removed, the rerun trains SFT again instead of failing."""
    config = replace(TINY, seeds=(0,))
    interrupt(seeded_lib, tiny_model, grader, config, tmp_path, "Closed-RL", at_step=0)
    import shutil

    shutil.rmtree(tmp_path / "seed-0" / SFT_MODEL)
    events = []
    result = run_rl_demo(
        seeded_lib, tiny_model, config, out_dir=tmp_path, on_progress=events.append, grader=grader
    )
    assert "seed 0: closed-SFT (short)" in {e.message for e in events if e.stage == "train"}
    assert len(result.runs) == 4


def test_seeds_are_parsed_and_checked():
    assert parse_seeds("0,1, 2") == (0, 1, 2)
    with pytest.raises(SebenchError):
        parse_seeds("0,x")
    with pytest.raises(SebenchError, match="repeated"):
        replace(TINY, seeds=(1, 1)).check()
    with pytest.raises(SebenchError, match="at least 1"):
        replace(TINY, rl=replace(TINY.rl, max_steps=0)).check()


def test_demo_rl_cli_writes_the_report_and_refuses_mixed_options(tiny_model, tmp_path):
    from typer.testing import CliRunner

    from sebench.cli.main import app

    out = tmp_path / "cli-rl"
    args = ["demo", "--rl", "--model", str(tiny_model), "--seeds", "0", "--out", str(out)]
    result = CliRunner().invoke(
        app, [*args, "--steps", "1", "--rl-steps", "1"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert "Open-RL from base" in result.output and "Total wall time" in result.output
    assert "zero-spread groups" in result.output and "load average" in result.output
    # Not a terminal: plain progress lines.
    assert "seed 0: Closed-RL from base 1/1" in result.output
    assert json.loads((out / "rl_demo.json").read_text())["config"]["seeds"] == [0]
    assert (out / "rl_demo.md").exists()

    for wrong in (["demo", "--rl", "--seed", "1"], ["demo", "--seeds", "0,1"]):
        refused = CliRunner().invoke(app, wrong)
        assert refused.exit_code == 2, refused.output


@pytest.mark.slow
def test_real_rl_demo_keeps_rl_alone_near_zero(tmp_path):
    """Issue 14, with SmolLM2-135M on this machine's CPU, in the RL demo's smallest setting (the
    recipe with one seed): Closed-RL and Open-RL from the base model stay at or below 5% without
    docs; the report files are written and parse."""
    from sebench.library.cache import seeded_library
    from sebench.rollout.smollm import default_model_dir

    config = RLDemoConfig(seeds=(0,))
    assert config.rl.max_steps == 2  # the recipe's own: nothing smaller shows Open-RL's updates
    result = run_rl_demo(seeded_library(0), default_model_dir(), config, out_dir=tmp_path)
    files = write_rl_demo_report(result, tmp_path)
    table = {r.arm: f"{r.evaluation.correct}/{r.evaluation.total}" for r in result.runs}
    assert len(result.runs) == len(ARMS), table
    assert result.rl_only_near_zero, (table, result.checks)
    report = json.loads(files["json"].read_text())
    assert {a["arm"] for a in report["arms"]} == {arm for arm, _ in ARMS}
    assert "Closed-RL from base" in files["markdown"].read_text()
    if "chart" in files:
        assert files["chart"].stat().st_size > 0
