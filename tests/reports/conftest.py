"""Run folders for the report tests, graded for real by `evaluate` (the model is scripted).

Each arm's responses are reference answers (the dev tasks' NumPy solutions translated into the
library), wrong answers, NumPy answers, no code, and one hostile response that tries to inject
HTML and JS into the report. The manifest is written by hand, as `sebench experiment run` would.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from sebench.grading.runner import EvalConfig, evaluate
from sebench.grading.sandbox import SandboxConfig
from sebench.training.grpo import StepLog

TASKS = 6
HOSTILE = (
    'Sure.\n</script><script>alert(1)</script><img src=x onerror="alert(2)">\n'
    "```python\ndef f():\n    return '</script><script>alert(3)</script><img src=x onerror=alert(4)>'\n"
    "```\n"
)


def fenced(code: str) -> str:
    return f"Here is my solution.\n\n```python\n{code}\n```\n"


def _responses(tasks, library, right: int, seed: int) -> list[dict]:
    """Two samples per task: the reference answer for the first `right` tasks, else a wrong one;
    the second sample cycles through NumPy code, no code and the hostile response."""
    from sebench.data.translate import to_library

    rows = []
    for index, task in enumerate(tasks[:TASKS]):
        code = to_library(task.numpy_reference, library.table).code
        first = fenced(code) if index < right else fenced(f"{task.signature}\n    return 0\n")
        second = [fenced(task.numpy_reference), "I do not know.", HOSTILE][(index + seed) % 3]
        rows.append({"task_id": task.task_id, "sample": 0, "response": first})
        rows.append({"task_id": task.task_id, "sample": 1, "response": second})
    return rows


def _grade(root: Path, name: str, rows: list[dict], data: Path, library) -> dict:  # noqa: ANN001
    folder = root / "arms" / name
    folder.mkdir(parents=True)
    responses = folder / "responses.jsonl"
    responses.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    evaluate(
        responses,
        folder / "results.jsonl",
        folder / "summary.json",
        library=library,
        config=EvalConfig(sandbox=SandboxConfig(workers=2), data=(str(data),)),
    )
    return {"results": f"arms/{name}/results.jsonl", "summary": f"arms/{name}/summary.json"}


def _grpo_log(folder: Path, steps: int, slope: float) -> Path:
    """A `train grpo` step log, written through the trainer's own record type."""
    folder.mkdir(parents=True)
    lines = []
    for step in range(1, steps + 1):
        entry = StepLog(
            step=step,
            max_steps=steps,
            reward_mean=min(1.0, 0.1 + slope * step),
            frac_zero_spread=max(0.0, 0.8 - slope * step),
            completion_length=120.0,
            loss=0.05 / step,
            verdicts={},
            hacking_signals={},
            infra_retried=0,
            unscored=0,
            samples=[],
            seconds=1.0,
        )
        lines.append(json.dumps(asdict(entry)))
    (folder / "grpo_log.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def make_run(root: Path, name: str, right: list[int], data: Path, library) -> Path:  # noqa: ANN001
    """A run: with-docs (2 seeds), closed-rl (2 seeds, trained) and open-sft graded on the single
    split; multiple pending, open-rl failed; `right[i]` is how many tasks arm i answers right."""
    from sebench.data.sources import load

    tasks = load("single_test", data)
    arms = []
    plan = [("with-docs", 0), ("with-docs", 1), ("closed-rl", 0), ("closed-rl", 1), ("open-sft", 0)]
    for (regime, seed), count in zip(plan, right, strict=True):
        files = _grade(
            root, f"{regime}-{seed}", _responses(tasks, library, count, seed), data, library
        )
        train_dir = None
        if regime == "closed-rl":
            train_dir = f"train/{regime}-{seed}"
            _grpo_log(root / train_dir, steps=12, slope=0.03 + 0.02 * seed)
        arms.append(
            {"regime": regime, "seed": seed, "split": "single", **files, "train_dir": train_dir}
            | {"status": "done"}
        )
    arms.append(
        {"regime": "closed-rl", "seed": 0, "split": "multiple", "results": None, "summary": None}
        | {"train_dir": None, "status": "pending"}
    )
    arms.append(
        {"regime": "open-rl", "seed": 0, "split": "single", "results": "arms/x/results.jsonl"}
        | {"summary": "arms/x/summary.json", "train_dir": None, "status": "failed"}
    )
    manifest = {
        "schema": 1,
        "name": name,
        "model": "scripted-answers",
        "library": {"kind": "official", "seed": None, "hash": "0123456789abcdef"},
        "expected": {
            "with-docs": {"single": 89.6, "multiple": 60.2},
            "closed-rl": {"single": 40.0, "multiple": None},
        },
        "arms": arms,
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return root


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory, single_test_dev_path, official_library):
    root = tmp_path_factory.mktemp("run_before")
    return make_run(root, "before", [5, 3, 1, 2, 0], single_test_dev_path, official_library)


@pytest.fixture(scope="session")
def second_run_dir(tmp_path_factory, single_test_dev_path, official_library):
    root = tmp_path_factory.mktemp("run_after")
    return make_run(root, "after", [6, 5, 4, 3, 2], single_test_dev_path, official_library)
