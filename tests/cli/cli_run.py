"""Run the `sebench` command as a user does, in a real subprocess, and a tiny task file to feed it.

The task file is made here (no external data): two tasks on `mean` and on the bare-listed linalg
function `det`, with NumPy references that `validate` translates into whatever library it is given.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

TASKS = [
    {
        "query": "Return the mean of the numbers `xs` as a float.",
        "function_name": "def average(xs):",
        "selected_functions": ["mean"],
        "test_cases": [{"input": "xs=[1, 2, 3]"}, {"input": "xs=[2.5, 3.5]"}],
        "right_exe_result": "2.0#3.0",
        "example_output": [
            "import numpy as np\n\ndef average(xs):\n    return float(np.mean(np.array(xs)))\n"
        ],
        "right_code": "def average(xs):\n    return sum(xs) / len(xs)\n",
    },
    {
        "query": "Return the determinant of the square matrix `m`, rounded to 6 places.",
        "function_name": "def determinant(m):",
        "selected_functions": ["det"],  # the official data lists linalg functions bare too
        "test_cases": [{"input": "m=[[1, 2], [3, 4]]"}, {"input": "m=[[2, 0], [0, 2]]"}],
        "right_exe_result": "-2.0#4.0",
        "example_output": [
            "import numpy as np\n\ndef determinant(m):\n"
            "    return round(float(np.linalg.det(np.array(m))), 6)\n"
        ],
    },
]


def sebench(*args: object, cwd: Path | None = None, env: dict[str, str] | None = None):
    """`sebench ARGS` with this checkout's code; returns the finished process."""
    environment = {**os.environ, **(env or {})}
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(SRC), environment.get("PYTHONPATH")])
    )
    return subprocess.run(
        [sys.executable, "-m", "sebench.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=300,
    )


def write_tasks(path: Path) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in TASKS), encoding="utf-8")
    return path


if __name__ == "__main__":  # scripts/check_core_install.sh: the task file, without pytest
    write_tasks(Path(sys.argv[1]))
