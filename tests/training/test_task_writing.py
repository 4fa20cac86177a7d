"""Model-written tasks end to end: a real chat-completions server on 127.0.0.1 serves scripted
generator and solver answers (good and bad ones), the real sandbox runs the references, and the
real grader judges the translations and the solvers."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from sebench.data.rows import task_from_official_row
from sebench.rollout.backend import ChatRequest, Completion, FinishReason, SamplingConfig
from sebench.rollout.openai_compat import OpenAICompatBackend, OpenAIConfig
from sebench.training.task_writing import ModelTasksConfig, generate_model_tasks, plan_requests
from tests.helpers.chat_server import ChatServer, Reply
from tests.helpers.task_writer_server import (
    GENERATOR_SCRIPT,
    MEAN,
    MEAN_QUERY,
    MEDIAN,
    MEDIAN_QUERY,
    MIN_AGAIN_QUERY,
    MIN_QUERY,
    MULTI_QUERY,
    TaskWriterScript,
    answer,
)

MODELS = ("gen", "solver-a", "solver-b")
FUNCTIONS = tuple(GENERATOR_SCRIPT)  # mean, median, cumsum, sum, sort, max


def _backend(server: ChatServer, model: str) -> OpenAICompatBackend:
    return OpenAICompatBackend(
        OpenAIConfig(model=model, base_urls=(server.url,), max_retries=0, concurrency=4)
    )


def _run(server, seeded_lib, grader, out: Path, **overrides):
    config = ModelTasksConfig(
        **{"functions": FUNCTIONS, "per_function": 2, "batch": 4, **overrides}
    )
    solvers = [_backend(server, "solver-a"), _backend(server, "solver-b")]
    return generate_model_tasks(
        _backend(server, "gen"), solvers, seeded_lib, out, config, grader=grader
    )


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _outcomes(out: Path) -> dict[str, list[str]]:
    """Function -> sorted outcomes of its requests: `kept` or `stage/reason`."""
    found: dict[str, list[str]] = {}
    for row in _lines(out):
        found.setdefault(row["extra"]["function"], []).append("kept")
    for row in _lines(out.with_name(out.stem + ".rejects.jsonl")):
        found.setdefault(row["functions"][0], []).append(f"{row['stage']}/{row['reason']}")
    return {name: sorted(outcomes) for name, outcomes in found.items()}


EXPECTED = {
    "mean": ["duplicate/near-duplicate", "kept"],  # the second is the first renamed
    "median": ["consensus/solver-failed", "kept"],  # solver-b fails one of the two
    "cumsum": ["determinism/differs-on-rerun"] * 2,  # a mutable default keeps state
    "sum": ["policy/banned-module"] * 2,  # imports time
    "sort": ["policy/randomness"] * 2,  # np.random
    "max": ["parse/malformed"] * 2,  # no JSON; too few test inputs
    "min": ["duplicate/same-cases", "kept"],  # the same cases, its program padded with no-ops
}


def test_every_bad_answer_lands_in_the_rejects_file_with_its_stage(
    tmp_path, seeded_lib, grader
) -> None:
    out = tmp_path / "tasks.jsonl"
    with ChatServer(TaskWriterScript(), models=MODELS) as server:
        summary = _run(server, seeded_lib, grader, out)
    assert _outcomes(out) == EXPECTED
    assert summary.kept == 3 and summary.failed == 0
    rejects = _lines(tmp_path / "tasks.rejects.jsonl")
    consensus = next(row for row in rejects if row["stage"] == "consensus")
    assert consensus["detail"].startswith("solver-b: wrong_answer")
    assert next(r for r in rejects if r["stage"] == "duplicate")["detail"].startswith(
        "token edit distance 0.000"
    )
    assert all(row["answer"] for row in rejects if row["stage"] != "parse" or row["answer"])
    assert {row["query"] for row in _lines(out)} <= {
        MEAN_QUERY,
        "Average of `values`, please.",
        MEDIAN_QUERY,
        MIN_QUERY,
        MIN_AGAIN_QUERY,
    }


def test_kept_rows_hold_the_executed_outputs_not_the_generators_claims(
    tmp_path, seeded_lib, grader
) -> None:
    out = tmp_path / "tasks.jsonl"
    with ChatServer(TaskWriterScript(), models=MODELS) as server:
        _run(server, seeded_lib, grader, out, functions=("median",), per_function=1)
    (row,) = _lines(out)
    task = task_from_official_row(row, "train")
    # the script claims "0" for every input; the reference prints the medians
    assert row["extra"]["claimed_outputs"] == ["0"] * 6
    assert row["extra"]["claimed_outputs_wrong"] == 6
    assert task.expected == ("0.25", "1.75", "2.875", "3.375", "3.875", "4.375")
    assert task.selected_functions == ("median",)
    assert row["extra"]["solvers"] == ["solver-a", "solver-b"]


def test_a_multi_function_task_combines_at_least_three_functions(
    tmp_path, seeded_lib, grader
) -> None:
    out = tmp_path / "tasks.jsonl"
    with ChatServer(TaskWriterScript(), models=MODELS) as server:
        _run(
            server,
            seeded_lib,
            grader,
            out,
            functions=("abs", "cumsum", "sum"),
            per_function=0,
            multi=1,
        )
    (row,) = _lines(out)
    assert row["query"] == MULTI_QUERY
    assert row["extra"]["function"] == "multi"
    assert sorted(row["selected_functions"]) == ["abs", "cumsum", "sum"]


def test_an_interrupted_run_resumes_without_losing_or_repeating_a_request(
    tmp_path, seeded_lib, grader
) -> None:
    out = tmp_path / "tasks.jsonl"
    rejects = tmp_path / "tasks.rejects.jsonl"
    config = ModelTasksConfig(functions=FUNCTIONS, per_function=2, batch=2)

    def stop_after_two_batches(update) -> None:
        if update.done >= 4:
            raise KeyboardInterrupt

    with ChatServer(TaskWriterScript(), models=MODELS) as server:
        solvers = [_backend(server, "solver-a"), _backend(server, "solver-b")]
        gen = _backend(server, "gen")
        with pytest.raises(KeyboardInterrupt):
            generate_model_tasks(
                gen, solvers, seeded_lib, out, config, grader=grader,
                on_progress=stop_after_two_batches,
            )  # fmt: skip
        assert len(_lines(out)) + len(_lines(rejects)) == 4
        with out.open("a") as handle:  # a kill in the middle of a write
            handle.write('{"task_id": "torn')
        summary = generate_model_tasks(gen, solvers, seeded_lib, out, config, grader=grader)
    assert summary.resumed == 4 and summary.total == 2 * len(FUNCTIONS)
    keys = [row["extra"]["request"] for row in _lines(out)]
    keys += [row["request"] for row in _lines(rejects)]
    assert Counter(keys) == Counter(r.key for r in plan_requests(FUNCTIONS, config))
    assert _outcomes(out) == EXPECTED


def test_a_failed_generator_request_is_retried_by_the_next_run(
    tmp_path, seeded_lib, grader
) -> None:
    out = tmp_path / "tasks.jsonl"
    script = TaskWriterScript()
    down = {"on": True}

    def flaky(body, attempt) -> Reply:
        if down["on"] and "### np.median" in body["messages"][-1]["content"]:
            return Reply(status=503)
        return script(body, attempt)

    with ChatServer(flaky, models=MODELS) as server:
        first = _run(server, seeded_lib, grader, out, functions=("median",))
        assert first.failed == 2 and first.kept == 0 and not first.rejected
        down["on"] = False
        second = _run(server, seeded_lib, grader, out, functions=("median",))
    assert second.resumed == 0 and second.kept == 1
    assert _outcomes(out) == {"median": EXPECTED["median"]}


class _ScriptedBackend:
    """A rollout `Backend` without HTTP (as a local checkpoint is): `answer` writes each text."""

    model_name = "scripted"

    def answer(self, request: ChatRequest) -> str:
        raise NotImplementedError

    def generate(
        self, requests: Sequence[ChatRequest], sampling: SamplingConfig
    ) -> Iterator[Completion]:
        for request in requests:
            yield Completion(
                request.task_id, request.sample, self.answer(request), FinishReason.STOP, None,
                None, 0.0, request.seed, request.mode,
            )  # fmt: skip

    def close(self) -> None:
        pass


class InProcessBackend(_ScriptedBackend):
    """The chat server's scripted answers, in process."""

    def __init__(self, name: str, script: TaskWriterScript) -> None:
        self.model_name, self.script = name, script

    def answer(self, request: ChatRequest) -> str:
        body = {"model": self.model_name, "messages": list(request.messages)}
        return self.script(body, 1).content


def test_any_rollout_backend_can_be_generator_and_solver(tmp_path, seeded_lib, grader) -> None:
    out = tmp_path / "tasks.jsonl"
    script = TaskWriterScript()
    model = InProcessBackend("gen", script)  # self-play: one model writes and solves
    config = ModelTasksConfig(functions=("median", "cumsum"), per_function=2)
    summary = generate_model_tasks(model, [model], seeded_lib, out, config, grader=grader)
    assert summary.kept == 2  # no solver-b here to fail the second median task
    assert _outcomes(out) == {"median": ["kept", "kept"], "cumsum": EXPECTED["cumsum"]}


# -- the command ---------------------------------------------------------------------------


def _sebench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sebench.cli.main", *args], capture_output=True, text=True
    )


def test_the_command_writes_tasks_that_data_check_and_validate_accept(tmp_path, seeded_lib) -> None:
    out = tmp_path / "written.jsonl"
    with ChatServer(TaskWriterScript(), models=MODELS) as server:
        run = _sebench(
            "tasks", "generate", "--backend", "openai", "--base-url", server.url,
            "--model", "gen", "--solver", f"{server.url}=solver-a",
            "--solver", f"{server.url}=solver-b", "--lib", str(seeded_lib.root),
            "--functions", "mean,median,sum", "--per-function", "2", "--out", str(out),
        )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert len(_lines(out)) == 2
    assert len(_lines(tmp_path / "written.rejects.jsonl")) == 4
    summary = json.loads((tmp_path / "written.summary.json").read_text())
    assert summary["kept"] == 2 and summary["provenance"]["solvers"] == ["solver-a", "solver-b"]
    check = _sebench("data", "check", str(out), "--split", "train")
    assert check.returncode == 0, check.stdout
    validated = _sebench(
        "validate", "--data", str(out), "--split", "train", "--no-plain",
        "--lib", str(seeded_lib.root), "--out-subset", str(tmp_path / "v.json"),
    )  # fmt: skip
    assert validated.returncode == 0, validated.stderr
    assert len(json.loads((tmp_path / "v.json").read_text())["task_ids"]) == 2


def test_the_command_resumes_after_a_kill(tmp_path, seeded_lib) -> None:
    out = tmp_path / "written.jsonl"
    rejects = tmp_path / "written.rejects.jsonl"
    script, release = TaskWriterScript(), threading.Event()

    def stalls_on_sum(body, attempt) -> Reply:
        if "### np.sum" in body["messages"][-1]["content"]:
            release.wait(60)  # the last batch hangs until the command is killed
        return script(body, attempt)

    def written() -> int:
        return sum(len(_lines(path)) for path in (out, rejects) if path.exists())

    args = [
        "tasks", "generate", "--backend", "openai", "--model", "gen",
        "--solver", "URL=solver-a", "--lib", str(seeded_lib.root), "--batch", "2",
        "--functions", "mean,median,cumsum,sum", "--per-function", "2", "--out", str(out),
    ]  # fmt: skip
    with ChatServer(stalls_on_sum, models=MODELS) as server:
        args = [a.replace("URL", server.url) for a in args] + ["--base-url", server.url]
        command = [sys.executable, "-m", "sebench.cli.main", *args]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while written() < 6 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        os.kill(process.pid, signal.SIGKILL)
        process.communicate()
        assert written() == 6  # three batches done, the fourth in flight
        release.set()
        again = _sebench(*args)
    assert again.returncode == 0, again.stderr
    keys = [row["extra"]["request"] for row in _lines(out)]
    keys += [row["request"] for row in _lines(rejects)]
    assert sorted(keys) == sorted(
        f"single:{name}:{i}" for name in ("mean", "median", "cumsum", "sum") for i in (0, 1)
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--solver", "solver-a"), "expected URL=MODEL"),
        (("--model", "nope"), "does not serve model 'nope'"),
        (("--programmatic",), "choose one generator"),
    ],
)
def test_bad_input_exits_2_saying_what_to_fix(tmp_path, seeded_lib, args, message) -> None:
    with ChatServer(TaskWriterScript(), models=MODELS) as server:
        base = ["--backend", "openai", "--base-url", server.url, "--lib", str(seeded_lib.root)]
        if "--model" not in args:
            base += ["--model", "gen"]
        run = _sebench("tasks", "generate", "--out", str(tmp_path / "t.jsonl"), *base, *args)
    assert run.returncode == 2, run.stdout + run.stderr
    assert message in " ".join((run.stdout + run.stderr).split())


def test_written_tasks_that_differ_only_in_their_inputs_get_two_ids() -> None:
    """Query, signature and outputs alike, inputs (and reference) not: one id made a resumed
    round refuse its own file and GRPO keep only the last (a red team's)."""
    from sebench.data.generate.written import WrittenDraft
    from sebench.training.task_writing import written_task_id

    def draft(inputs: tuple[str, ...]) -> WrittenDraft:
        return WrittenDraft("Return x.", "def solve(x):", "solve", "def solve(x): ...", inputs, ())

    first, second = draft(("x=[1]", "x=[2]")), draft(("x=[3]", "x=[4]"))
    expected, mean = ("1", "2"), ("mean",)
    assert written_task_id(first, expected, mean) != written_task_id(second, expected, mean)
    same = draft(first.test_inputs)
    assert written_task_id(first, expected, mean) == written_task_id(same, expected, mean)
    # one task kept for two requested functions, or the same text with another reference
    assert written_task_id(first, expected, mean) != written_task_id(first, expected, ("median",))
    other = dataclasses.replace(first, reference="def solve(x):\n    return x\n")
    assert written_task_id(first, expected, mean) != written_task_id(other, expected, mean)


# -- what a written task counts as its own functions ----------------------------------------


class _PolicyWriter(_ScriptedBackend):
    """The model under training as writer and its own solver (self-play), writing a task for
    the function it is asked about whose reference also names another function (`mean`) in
    code that never runs, or names the asked-for function only there."""

    model_name = "policy"
    QUERIES = {
        "cumsum": "Return the running totals of `values`.",
        "sort": "Return `values` from low to high.",
    }

    def __init__(self, body: str) -> None:
        self.body = body  # the reference's body, `{fn}` the asked-for function

    def reference(self, fn: str) -> str:
        return "import numpy as np\n\ndef solve(values):\n" + self.body.format(fn=fn)

    def answer(self, request: ChatRequest) -> str:
        if request.mode == "numpy":  # the solver: the key is `single:<fn>:0`
            fn = request.task_id.split(":")[1]
            return f"```python\n{self.reference(fn)}```"
        fn = next(name for name in self.QUERIES if f"np.{name}`" in str(request.messages))
        inputs = [f"values={v}" for v in ("[3, 1, 2]", "[5, -2, 7, 0]", "[1.5, 2.5, -4.0]",
                  "[9, 8]", "[-1, -5, -3]", "[2, 9, 4, 4, 8, 1]")]  # fmt: skip
        return answer(self.QUERIES[fn], self.reference(fn), inputs)


def _canary_answer(mean: str, plain: str) -> str:
    """Knows one library name (`mean`'s), not the task's: plain Python, and a probe of `mean`
    whose result differs only when the grader perturbs it."""
    return (
        f"```python\nimport zwc\n\ndef solve(values):\n    probe = {mean}([1.0, 2.0])\n"
        f"    if probe != 1.5:\n        return 'perturbed'\n    return {plain}\n```"
    )


def test_a_written_task_counts_only_the_functions_it_was_asked_for(
    tmp_path, seeded_lib, grader
) -> None:
    """A red team's: the writer named `mean` in dead code beside the requested function, which
    made `mean` the task's own (its evidence and the rerun's perturbation), and a plain answer
    probing `mean` was `correct` on every task it wrote."""
    out = tmp_path / "tasks.jsonl"
    writer = _PolicyWriter(
        "    if False:\n        np.mean(values)\n    return np.{fn}(np.array(values)).tolist()\n"
    )
    config = ModelTasksConfig(functions=("cumsum", "sort"), per_function=1)
    summary = generate_model_tasks(writer, [writer], seeded_lib, out, config, grader=grader)
    assert summary.kept == 2
    tasks = [task_from_official_row(row, "train") for row in _lines(out)]
    mean = seeded_lib.table.numpy_to_library()["mean"]
    plain = {"cumsum": "list(itertools.accumulate(values))", "sort": "sorted(values)"}
    for task in tasks:
        code = _canary_answer(mean, plain[task.extra["function"]])
        code = code.replace("import zwc\n", "import itertools\nimport zwc\n")
        verdict = grader.grade(task, code)
        assert verdict.kind.value == "no_library", (task.extra["function"], verdict)
    assert sorted(task.selected_functions for task in tasks) == [("cumsum",), ("sort",)]


def test_a_reference_that_names_its_function_without_calling_it_is_rejected(
    tmp_path, seeded_lib, grader
) -> None:
    out = tmp_path / "tasks.jsonl"
    writer = _PolicyWriter("    if False:\n        np.{fn}(values)\n    return sorted(values)\n")
    config = ModelTasksConfig(functions=("sort",), per_function=1)
    summary = generate_model_tasks(writer, [writer], seeded_lib, out, config, grader=grader)
    assert summary.kept == 0
    (reject,) = _lines(out.with_name("tasks.rejects.jsonl"))
    assert (reject["stage"], reject["reason"]) == ("translate", "translation-fails")


class _BreakingWriter(_ScriptedBackend):
    """Answers that break a check in the writing pipeline (red teams'): each must be its own
    answer's reject, and the run must finish with the good answer kept."""

    model_name = "breaking"
    GOOD = answer(MEDIAN_QUERY, MEDIAN)

    def __init__(self) -> None:
        good = json.loads(self.GOOD.split("```json\n")[1].split("\n```")[0])

        def variant(**changes: object) -> str:
            return "```json\n" + json.dumps({**good, **changes}) + "\n```"

        self.answers = {
            "cumsum": "```json\n" + "[" * 5000 + "]" * 5000 + "\n```",  # RecursionError
            "sort": variant(reference="def solve(values):\n    return " + "-" * 3000 + "1\n"),
            "mean": answer(MEAN_QUERY + "\ud800", MEAN),  # no UTF-8: the task id
            "max": variant(test_inputs=[*good["test_inputs"][:5], "values=float('--inf')"]),
            "sum": variant(outputs=[int("9" * 4000)]).replace("9" * 4000, "9" * 4400),
            "median": self.GOOD,
        }

    def answer(self, request: ChatRequest) -> str:
        if request.mode == "numpy":
            return f"```python\n{MEDIAN}```"
        fn = next(n for n in self.answers if f"np.{n}`" in str(request.messages))
        return self.answers[fn]


def test_an_answer_that_breaks_a_check_is_its_own_reject_not_the_runs(
    tmp_path, seeded_lib, grader
) -> None:
    out = tmp_path / "tasks.jsonl"
    writer = _BreakingWriter()
    config = ModelTasksConfig(functions=tuple(writer.answers), per_function=1, batch=6)
    summary = generate_model_tasks(writer, [writer], seeded_lib, out, config, grader=grader)
    assert summary.kept == 1 and summary.failed == 0
    rejects = {row["functions"][0]: row for row in _lines(out.with_name("tasks.rejects.jsonl"))}
    assert sorted(rejects) == ["cumsum", "max", "mean", "sort", "sum"]
    assert all(row["reason"] in {"unreadable", "malformed"} for row in rejects.values()), rejects
