"""The rollout runner: rows, seeds, selection, and resuming without loss or duplicates."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from sebench.errors import InputError
from sebench.jsonl import read_jsonl
from sebench.prompts import PromptMode
from sebench.rollout.backend import SamplingConfig
from sebench.rollout.openai_compat import OpenAICompatBackend, OpenAIConfig
from sebench.rollout.runner import RolloutConfig, meta_path, rollout, sample_seed
from tests.helpers.chat_server import ChatServer, Reply, echo_answer

ROW_FIELDS = {
    "task_id",
    "sample",
    "mode",
    "model",
    "response",
    "finish_reason",
    "truncated",
    "completion_tokens",
    "latency_s",
    "seed",
}


def _backend(server: ChatServer, model: str = "scripted", **overrides) -> OpenAICompatBackend:
    options = {"backoff_s": 0.01, "backoff_max_s": 0.02, **overrides}
    return OpenAICompatBackend(OpenAIConfig(model=model, base_urls=(server.url,), **options))


def _keys(rows):
    return [(r["task_id"], r["mode"], r["sample"]) for r in rows]


def test_one_row_per_task_mode_and_sample_with_eval_fields(tmp_path, official_lib, dev_tasks):
    out = tmp_path / "responses.jsonl"
    config = RolloutConfig(modes=(PromptMode.CLOSED, PromptMode.OPEN), samples=2, limit=3)
    with ChatServer() as server:
        summary = rollout(dev_tasks, official_lib, _backend(server), out, config)
    rows = read_jsonl(out)
    assert summary.generated == len(rows) == 3 * 2 * 2
    assert len(set(_keys(rows))) == 12
    assert all(row.keys() >= ROW_FIELDS for row in rows)
    assert {r["model"] for r in rows} == {"scripted"}
    assert {r["temperature"] for r in rows} == {0.6} and {r["max_new_tokens"] for r in rows} == {
        8192
    }
    meta = json.loads(meta_path(out).read_text())
    assert meta["model"] == "scripted" and meta["config"]["samples"] == 2
    assert "versions" in meta


def test_each_sample_gets_its_own_stable_seed(tmp_path, official_lib, dev_tasks):
    out = tmp_path / "responses.jsonl"
    with ChatServer() as server:
        rollout(dev_tasks, official_lib, _backend(server), out, RolloutConfig(samples=4, limit=2))
    rows = read_jsonl(out)
    assert len({r["seed"] for r in rows}) == 8
    for row in rows:
        assert row["seed"] == sample_seed(0, row["task_id"], row["mode"], row["sample"])
        assert f"return {row['seed']}" in row["response"]  # the server got that seed


def test_rerun_generates_nothing_twice(tmp_path, official_lib, dev_tasks):
    out = tmp_path / "responses.jsonl"
    with ChatServer() as server:
        rollout(dev_tasks, official_lib, _backend(server), out, RolloutConfig(limit=3))
        again = rollout(dev_tasks, official_lib, _backend(server), out, RolloutConfig(limit=5))
    assert again.resumed == 3 and again.generated == 2
    assert len(server.requests) == 5
    assert len(read_jsonl(out)) == 5


def test_failed_samples_are_recorded_then_retried_on_rerun(tmp_path, official_lib, dev_tasks):
    out = tmp_path / "responses.jsonl"
    broken = {"on": True}

    def script(body, attempt):
        return Reply(status=500) if broken["on"] else echo_answer(body, attempt)

    with ChatServer(script) as server:
        first = rollout(
            dev_tasks, official_lib, _backend(server, max_retries=1), out, RolloutConfig(limit=2)
        )
        assert first.errors == 2
        assert all(r["error"] and r["finish_reason"] == "error" for r in read_jsonl(out))
        broken["on"] = False
        second = rollout(dev_tasks, official_lib, _backend(server), out, RolloutConfig(limit=2))
    rows = read_jsonl(out)
    assert second.generated == 2 and len(rows) == 2
    assert all(r["error"] is None for r in rows)


def test_rerun_with_another_model_is_refused(tmp_path, official_lib, dev_tasks):
    out = tmp_path / "responses.jsonl"
    with ChatServer() as server:
        rollout(dev_tasks, official_lib, _backend(server), out, RolloutConfig(limit=1))
        with pytest.raises(InputError, match="already holds responses of model 'scripted'"):
            rollout(
                dev_tasks,
                official_lib,
                _backend(server, model="other"),
                out,
                RolloutConfig(limit=1),
            )


def test_subset_and_limit_select_the_tasks(tmp_path, official_lib, dev_tasks):
    out = tmp_path / "responses.jsonl"
    chosen = frozenset(t.task_id for t in dev_tasks[10:20])
    with ChatServer() as server:
        rollout(
            dev_tasks, official_lib, _backend(server), out, RolloutConfig(subset=chosen, limit=4)
        )
    assert [r["task_id"] for r in sorted(read_jsonl(out), key=lambda r: r["task_id"])] == sorted(
        t.task_id for t in dev_tasks[10:14]
    )


def test_progress_reports_every_sample(tmp_path, official_lib, dev_tasks):
    seen = []
    with ChatServer() as server:
        rollout(
            dev_tasks,
            official_lib,
            _backend(server),
            tmp_path / "r.jsonl",
            RolloutConfig(limit=3),
            on_progress=seen.append,
        )
    assert [p.done for p in seen] == [0, 1, 2, 3] and seen[-1].total == 3


def test_killed_run_resumes_without_duplicates_or_losses(tmp_path, single_test_dev_path):
    out = tmp_path / "responses.jsonl"

    def slow(body, attempt):
        reply = echo_answer(body, attempt)
        reply.delay_s = 0.1
        return reply

    with ChatServer(slow) as server:
        command = [
            sys.executable,
            "-m",
            "sebench.cli.main",
            "rollout",
            "--backend",
            "openai",
            "--model",
            "scripted",
            "--base-url",
            server.url,
            "--data",
            str(single_test_dev_path),
            "--limit",
            "30",
            "--concurrency",
            "2",
            "--out",
            str(out),
        ]
        child = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if out.exists() and len(out.read_bytes().splitlines()) >= 5:
                break
            time.sleep(0.05)
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        before = len(read_jsonl(out))
        assert 5 <= before < 30
        requests_before = len(server.requests)
        finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr
        requests_after = len(server.requests) - requests_before
    rows = read_jsonl(out)
    assert len(rows) == 30
    assert max(Counter(_keys(rows)).values()) == 1
    assert requests_after == 30 - before  # the saved samples were not asked for again


def test_default_sampling_is_the_official_one():
    assert SamplingConfig().temperature == 0.6 and SamplingConfig().max_new_tokens == 8192


def test_ctrl_c_exits_at_once_and_keeps_finished_rows(tmp_path, single_test_dev_path):
    out = tmp_path / "responses.jsonl"

    def script(body, attempt):
        reply = echo_answer(body, attempt)
        # the first few answers come fast, the rest hang far beyond the test's patience
        reply.delay_s = 0.0 if len(server.requests) <= 3 else 60.0
        return reply

    with ChatServer(script) as server:
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sebench.cli.main",
                "rollout",
                "--backend",
                "openai",
                "--model",
                "scripted",
                "--base-url",
                server.url,
                "--data",
                str(single_test_dev_path),
                "--limit",
                "10",
                "--concurrency",
                "1",
                "--out",
                str(out),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while len(server.requests) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        start = time.monotonic()
        _, stderr = child.communicate(timeout=30)
        took = time.monotonic() - start
    assert child.returncode == 130, stderr
    assert took < 10  # not held up by the request still in flight
    assert "rerun the same command to resume" in stderr
    assert len(read_jsonl(out)) == 3
