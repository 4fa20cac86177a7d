"""Every run of a job reads the same clock and entropy (sandbox/determinism.py) and starts from the
same memory (zygote.py): a program cannot toss a coin that lands differently in its perturbed
reruns (a red team's clock coin was `correct` in 60% of its gradings; addresses and the depth a
program may recurse to differed between a fresh server and a used one, and after other jobs)."""

from __future__ import annotations

import textwrap
import time

from sebench.grading.sandbox import Job, SandboxConfig, SandboxPool
from sebench.grading.sandbox.perturbation import Perturbation

# Every coin the allowed modules offer: the clocks, the dates read through them, a seed of None
# (also the C base's `seed` and `__init__`, through `super`), the OS's entropy, and an object's
# address.
COINS = """
import datetime
import random
import time


def solve(x):
    fresh, unseeded = random.Random(), random.Random(None)
    random.seed()
    system = random.SystemRandom()
    base = random.Random(5)
    super(random.Random, base).seed()
    initialised = random.Random(5)
    super(random.Random, initialised).__init__()  # the C base's own seeding, not `seed`
    clocks = [
        time.time(), time.time_ns(), time.perf_counter(), time.perf_counter_ns(),
        time.monotonic(), time.monotonic_ns(), time.process_time(), time.process_time_ns(),
        time.thread_time(), time.thread_time_ns(), time.clock_gettime(1),
        time.clock_gettime_ns(1), time.localtime()[:6], time.gmtime()[:6], time.ctime(),
        time.asctime(), time.strftime("%Y %H:%M:%S"), str(datetime.date.today()),
        str(datetime.datetime.today()), fresh.random(), unseeded.random(), random.random(),
        system.random(), system.getrandbits(64), system.randbytes(4), base.random(),
        initialised.random(), x,
    ]
    texts = [str(size) * size for size in range(0, 600, 8)]
    addresses = [id(object()), hash(object()), repr(object()), [id(t) % 4096 for t in texts]]
    return repr(clocks) + " @@ " + repr(addresses) + " @@ " + str(depth(0))


def depth(n):
    try:
        return depth(n + 1)
    except RecursionError:
        return n
"""
# Other jobs between the runs, of other sizes and numbers of inputs: a job decoded on the
# zygote's heap left it otherwise (one with 9 inputs moved every later child's addresses).
FILLER = "def solve(x):\n    return [str(x) * {size}]\n"


def test_every_run_reads_the_same_clock_and_entropy_whatever_the_worker_and_the_moment(
    standin_library,
):
    printed = set()
    config = SandboxConfig(workers=2, timeout_s=3.0)
    with SandboxPool(standin_library, config) as pool:
        # addresses are the same only where the servers could turn address randomisation off
        # (`personality`; some container runtimes refuse it, and `doctor` says so)
        fixed = pool.layers["fixed_layout"]
        for round_ in range(2):
            for mode in Perturbation:
                for cases in (1, 2):  # a rerun that decides on a prefix runs fewer cases
                    job = Job(textwrap.dedent(COINS), "solve", ("x=1", "x=2"), mode, cases)
                    execution = pool.run(job)
                    assert execution.cases[0].printed, execution
                    clocks, addresses, depth = execution.cases[0].printed.split(" @@ ")
                    printed.add((clocks, addresses if fixed else None, depth))
                    size = len(printed) * 37 + cases
                    pool.run(Job(FILLER.format(size=size), "solve", ("x=1",) * (size % 11 + 1)))
            time.sleep(0.2 * (round_ + 1))  # the real clock moves on
    assert len(printed) == 1, printed


def test_the_virtual_clock_starts_in_2026_and_moves_a_millisecond_per_reading(pool):
    code = (
        "import time\n\ndef solve():\n    a = time.perf_counter()\n"
        "    return time.perf_counter() > a, a, time.gmtime()[:3]\n"
    )
    execution = pool.run(Job(code, "solve", ("",)))
    assert execution.cases[0].printed == "(True, 0.001, (2026, 1, 1))", execution


def test_no_time_function_takes_a_clock_id_in_a_child(pool):
    """`pthread_getcpuclockid` has glibc read memory at its argument: a red team read its own
    job's mode out of the child's heap, and the pid through a lock's thread handle;
    `clock_getres` tells whether a pid exists. Gone in a child (and refused by the policy)."""
    code = (
        "import time\n\ndef solve():\n    return [n for n in ('pthread_getcpuclockid', "
        "'clock_getres', 'clock_settime', 'clock_settime_ns') if hasattr(time, n)]\n"
    )
    execution = pool.run(Job(code, "solve", ("",)))
    assert execution.cases[0].printed == "[]", execution
