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
