"""The CLI's default thread count: the physical cores, unless the user chose."""

from __future__ import annotations

import os
import subprocess
import sys

from sebench.cli.threads import apply_thread_policy
from sebench.training.cpu import physical_cores


def test_both_pools_get_the_physical_cores_when_the_user_chose_nothing():
    environ: dict[str, str] = {"PATH": "/bin"}
    assert apply_thread_policy(environ) == physical_cores() >= 1
    cores = str(physical_cores())
    assert environ == {"PATH": "/bin", "OMP_NUM_THREADS": cores, "MKL_NUM_THREADS": cores}


def test_a_thread_count_set_by_the_user_is_kept():
    environ = {"OMP_NUM_THREADS": "3"}
    assert apply_thread_policy(environ) is None
    assert environ == {"OMP_NUM_THREADS": "3"}


def test_the_cli_sizes_pytorch_before_importing_it():
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    probe = (
        "import os, sys; from sebench.cli import main; "
        "main.app.command('probe')(lambda: print(os.environ['OMP_NUM_THREADS'], "
        "__import__('torch').get_num_threads())); sys.argv = ['sebench', 'probe']; main.main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    chosen, used = map(int, done.stdout.split())
    assert used == chosen  # PyTorch took the count set before it loaded
    assert chosen == physical_cores()
