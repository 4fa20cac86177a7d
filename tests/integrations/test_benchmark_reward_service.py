"""benchmarks/reward_service.py runs end to end and both paths give the same verdicts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "reward_service.py"


@pytest.mark.slow
def test_the_benchmark_prints_both_rates_and_the_verdicts_agree(tmp_path, single_test_dev_path):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--samples", "16", "--batch", "4", "--workers", "2",
         "--rounds", "1", "--data", str(single_test_dev_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "SEBENCH_CACHE": str(tmp_path)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("ratio:") for line in lines), result.stdout
    assert "verdicts identical: yes" in lines, result.stdout
