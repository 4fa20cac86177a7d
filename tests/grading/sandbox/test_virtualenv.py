"""The sandbox works when Python lives in a virtual environment under /tmp.

A private tmpfs over /tmp would hide such an installation from the server and its children, so
the server keeps the host's /tmp then (Landlock still limits what children can read there).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from tests.grading.sandbox.conftest import build_standin

SCRIPT = textwrap.dedent(
    """
    import sys
    from sebench.grading.sandbox import Job, SandboxConfig, SandboxPool
    from sebench.grading.sandbox.execution import ExecStatus
    from tests.grading.sandbox.conftest import StandInLibrary

    library = StandInLibrary(__import__("pathlib").Path(sys.argv[1]))
    with SandboxPool(library, SandboxConfig(workers=1)) as pool:
        job = Job("import zwc\\ndef solve(x):\\n    return zwc.kocito([x, 3])\\n", "solve", ("x=1",))
        execution = pool.run(job)
        assert pool.layers["landlock"], pool.layers
    assert execution.status is ExecStatus.OK, execution
    print(execution.cases[0].printed)
    """
)


def test_sandbox_runs_from_a_virtualenv_under_tmp(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[3]
    with tempfile.TemporaryDirectory(prefix="sebench-venv-", dir="/tmp") as venv:
        subprocess.run(
            [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv],
            check=True,
        )
        library = build_standin(tmp_path / "lib")
        done = subprocess.run(
            [f"{venv}/bin/python", "-c", SCRIPT, str(library.root)],
            capture_output=True,
            text=True,
            cwd=repo,
            timeout=120,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{repo}/src:{repo}"},
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "2.0"
