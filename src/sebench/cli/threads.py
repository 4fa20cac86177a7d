"""How many threads PyTorch's matrix work uses when the user did not say.

Set in the environment before PyTorch (or NumPy) is first imported: the OpenMP and MKL pools
are sized when the library loads. The rule: the physical cores (a hyperthread sibling adds
nothing to a matmul), minus the cores other work already keeps busy (the 1-minute load
average). An OpenMP thread pool larger than the free cores is far slower than a smaller one:
each parallel region waits for its slowest thread, and a thread that lost its core makes every
other one wait. Measured on the 2-core machine at a load average of 6-10 (fp32 768x576 @
576x1536 matmul with backward, 20 times, best of 3, three alternating rounds): 2 threads
2.3-4.7 s, 1 thread 0.9-1.8 s; idle, 2 threads took 0.5 s. The grader's sandbox servers set
their own (one thread each), so this only sizes training and local generation.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

from sebench.training.cpu import physical_cores

# Variables that size the pools; if the user set any, the user decided.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def default_threads(cores: int, load_average: float) -> int:
    """Free physical cores: `cores` minus the whole cores that the load keeps busy, at least 1."""
    return max(1, cores - int(load_average))


def apply_thread_policy(environ: MutableMapping[str, str] | None = None) -> int | None:
    """Set the thread variables unless the user did; returns the count set (None: untouched)."""
    environ = os.environ if environ is None else environ
    if any(name in environ for name in THREAD_VARIABLES):
        return None
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    threads = default_threads(physical_cores(), load)
    for name in THREAD_VARIABLES:
        environ[name] = str(threads)
    return threads
