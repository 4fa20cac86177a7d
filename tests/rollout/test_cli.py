"""`sebench rollout` and `sebench run` as a user runs them (real subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from sebench.jsonl import read_jsonl
from tests.helpers.chat_server import ChatServer, Reply, echo_answer

# One BLAS thread: on a small shared CPU, torch's thread pool spinning against other
# processes makes generation many times slower.
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def _sebench(*args: str, timeout: int = 600, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sebench.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env or ENV,
    )


def test_rollout_against_a_server_sends_the_api_key_from_the_environment(
    tmp_path, single_test_dev_path
):
    out = tmp_path / "responses.jsonl"
    with ChatServer() as server:
        done = _sebench(
            "rollout",
            "--backend",
            "openai",
            "--model",
            "served",
            "--base-url",
            server.url,
            "--data",
            str(single_test_dev_path),
            "--limit",
            "3",
            "--mode",
            "closed",
            "--mode",
            "open",
            "--samples",
            "2",
            "--api-key-env",
            "MY_KEY",
            "--out",
            str(out),
            env={**ENV, "MY_KEY": "sk-test-123"},
        )
    assert done.returncode == 0, done.stderr
    rows = read_jsonl(out)
    assert len(rows) == 12 and {r["mode"] for r in rows} == {"closed", "open"}
    assert {h.get("authorization") for h in server.headers} == {"Bearer sk-test-123"}
    meta = json.loads((tmp_path / "responses.meta.json").read_text())
    assert "sk-test-123" not in json.dumps(meta)  # the key is never written down


def test_rollout_with_an_unreachable_server_fails_before_sampling(tmp_path, single_test_dev_path):
    out = tmp_path / "responses.jsonl"
    done = _sebench(
        "rollout",
        "--backend",
        "openai",
        "--model",
        "served",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--max-retries",
        "1",
        "--data",
        str(single_test_dev_path),
        "--limit",
        "2",
        "--out",
        str(out),
    )
    assert done.returncode == 2, done.stderr
    assert "cannot reach" in done.stderr and "http://127.0.0.1:9/v1" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()


def _rollout_against(server, model, data, out):
    return _sebench(
        "rollout",
        "--backend",
        "openai",
        "--model",
        model,
        "--base-url",
        server.url,
        "--max-retries",
        "0",
        "--data",
        str(data),
        "--limit",
        "2",
        "--out",
        str(out),
    )


def test_rollout_with_a_model_the_server_does_not_serve_fails_naming_both(
    tmp_path, single_test_dev_path
):
    out = tmp_path / "responses.jsonl"
    with ChatServer(models=("served",)) as server:
        done = _rollout_against(server, "mistyped", single_test_dev_path, out)
    assert done.returncode == 2, done.stderr
    assert "'mistyped'" in done.stderr and "served" in done.stderr and server.url in done.stderr
    assert server.requests == [] and not out.exists()


def test_rollout_exits_non_zero_when_every_request_failed(tmp_path, single_test_dev_path):
    """A server with no model list (so no preflight can tell) answering 404 to everything."""
    out = tmp_path / "responses.jsonl"
    with ChatServer(lambda body, attempt: Reply(status=404)) as server:
        done = _rollout_against(server, "served", single_test_dev_path, out)
    assert done.returncode == 2, done.stderr
    assert "every request failed (2 of 2" in done.stderr and "404" in done.stderr
    assert len(read_jsonl(out)) == 2  # kept, and retried on the next run


def test_rollout_with_some_failures_warns_with_counts_and_succeeds(tmp_path, single_test_dev_path):
    out = tmp_path / "responses.jsonl"
    first = {}

    def one_fails(body, attempt):
        first.setdefault("seed", body["seed"])
        return Reply(status=404) if body["seed"] == first["seed"] else echo_answer(body, attempt)

    with ChatServer(one_fails, models=("served",)) as server:
        done = _rollout_against(server, "served", single_test_dev_path, out)
    assert done.returncode == 0, done.stderr
    assert "1 failed for good" in done.stderr


def test_run_grades_the_model_and_the_reference_agents_in_one_table(
    tmp_path, single_test_dev_path, tiny_model
):
    out = tmp_path / "run"
    done = _sebench(
        "run",
        "--model",
        str(tiny_model),
        "--data",
        str(single_test_dev_path),
        "--tasks",
        "6",
        "--max-new-tokens",
        "6",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    rows = {r["system"]: r for r in json.loads((out / "summary.json").read_text())["rows"]}
    assert set(rows) == {"tiny-model", "oracle", "numpy-agent", "plain-python-agent"}
    assert all(r["samples"] == 6 for r in rows.values())
    assert rows["oracle"]["official"]["acc"] >= 0.5
    assert rows["numpy-agent"]["official"]["acc"] == 0.0
    assert rows["numpy-agent"]["verdicts"]["correct"] == 0
    # shown as NumPy use, though officially without_zwc (no library call in the function)
    assert rows["numpy-agent"]["verdicts"]["uses_numpy"] == 6
    assert rows["numpy-agent"]["official"]["without_zwc"] == 1.0
    # some official plain references (`right_code`) import NumPy: those show as uses_numpy
    plain = rows["plain-python-agent"]
    assert plain["verdicts"]["no_library"] >= 1
    assert plain["verdicts"]["no_library"] + plain["verdicts"]["uses_numpy"] == 6
    assert plain["official"]["without_zwc"] == 1.0
    assert rows["tiny-model"]["truncated"] == 6
    markdown = (out / "summary.md").read_text()
    assert sum(line.startswith("| ") for line in markdown.splitlines()) == 5  # header + 4
    assert "oracle" in done.stdout


@pytest.mark.slow
def test_default_run_finishes_on_a_cpu_with_smollm(tmp_path, single_test_dev_path):
    # The README's first command: SmolLM2-135M-Instruct on 8 tasks next to the agents.
    out = tmp_path / "run"
    done = _sebench("run", "--data", str(single_test_dev_path), "--out", str(out), timeout=900)
    assert done.returncode == 0, done.stderr
    rows = json.loads((out / "summary.json").read_text())["rows"]
    assert [r["system"] for r in rows][1:] == ["oracle", "numpy-agent", "plain-python-agent"]
    assert all(r["samples"] == 8 for r in rows)
