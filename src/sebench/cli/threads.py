"""How many threads PyTorch's matrix work uses when the user did not say.

Set in the environment before PyTorch (or NumPy) is first imported: the OpenMP and MKL pools
are sized when the library loads. The rule: the physical cores this process may run on (a
hyperthread sibling adds nothing to a matmul). Not fewer when the machine is busy: a count that
follows the load average makes timings depend on what ran the minute before (under CI's test
run it halved the demo's threads), and the user who shares a machine says so with
OMP_NUM_THREADS. Measured on the 2-core machine (fp32 768x576 @ 576x1536 matmul with backward,
20 times): idle, 2 threads 0.5 s; at a load average of 6-10, 2 threads 2.3-4.7 s and 1 thread
0.9-1.8 s. The grader's sandbox servers set their own (one thread each), so this only sizes
training and local generation.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

from sebench.training.cpu import physical_cores

# Variables that size the pools; if the user set any, the user decided.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def apply_thread_policy(environ: MutableMapping[str, str] | None = None) -> int | None:
    """Set the thread variables unless the user did; returns the count set (None: untouched)."""
    environ = os.environ if environ is None else environ
    if any(name in environ for name in THREAD_VARIABLES):
        return None
    threads = physical_cores()  # at least 1: the CPUs this process may run on, at worst
    for name in THREAD_VARIABLES:
        environ[name] = str(threads)
    return threads
