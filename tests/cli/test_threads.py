"""The CLI's default thread count: the physical cores, unless the user chose."""

from __future__ import annotations

import os
import subprocess
import sys

from sebench.cli.threads import apply_thread_policy, default_threads
from sebench.training.cpu import physical_cores


def test_threads_are_the_physical_cores_whatever_the_load():
    assert default_threads(8) == 8
    assert default_threads(0) == 1  # never zero


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
