import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "grader_throughput.py"


@pytest.mark.slow
def test_throughput_benchmark_is_faster_than_the_official_approach(tmp_path, single_test_dev_path):
    result = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--samples",
            "12",
            "--workers",
            "2",
            "--data",
            str(single_test_dev_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "SEBENCH_CACHE": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    ratio = float(
        next(line for line in result.stdout.splitlines() if line.startswith("ratio:"))
        .split()[1]
        .rstrip("x")
    )
    assert ratio > 3, result.stdout  # 30x measured on 300 samples; 12 samples are noisy
    # the dependence rerun's cost, measured beside it (every sample here is correct: it pays)
    assert "ours without the dependence rerun:" in result.stdout, result.stdout


@pytest.mark.slow
def test_throughput_benchmark_grades_a_responses_file(tmp_path, single_test_dev_path):
    """--responses: a responses file's own mix of verdicts (here a right and a plain-Python
    answer per task), not the translated references."""
    from sebench.data.sources import find_api_doc, load
    from sebench.data.translate import to_library
    from sebench.library.cache import official_library

    library = official_library(find_api_doc(single_test_dev_path))
    rows = []
    for task in load("single_test", single_test_dev_path)[:4]:
        right = to_library(task.numpy_reference or "", library.table).code
        for code in (right, f"def {task.entry_point}(*args):\n    return 0\n"):
            rows.append({"task_id": task.task_id, "response": f"```python\n{code}\n```"})
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--samples", "8", "--rounds", "2", "--workers", "2"]
        + ["--data", str(single_test_dev_path), "--responses", str(responses)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "SEBENCH_CACHE": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    assert "8 samples (responses of responses.jsonl)" in result.stdout, result.stdout
    assert any(line.startswith("ratio:") for line in result.stdout.splitlines()), result.stdout
