"""Every run of a job the same but for the library: the clock and the entropy a program reads are
fixed in each child.

The rule "the answer depends on the library" (`Grader.confirm_dependence`) reruns a correct
answer with the library's results perturbed and asks whether its answers change. A program that
tosses a coin once per run, right in some runs and wrong in others, changes its answers without
the library, and each rerun is a new toss: a red team's plain-Python answer that read
`time.perf_counter_ns() % 3` was `correct` in 60% of its gradings. So, in a child:

- the `time` module's clocks (`time`, `perf_counter`, `monotonic`, `process_time`,
  `thread_time`, `clock_gettime` and their `_ns` forms; `localtime`, `gmtime`, `ctime`,
  `asctime` and `strftime` without a time) read a virtual clock: the same instant in every child
  (2026-01-01 00:00 UTC for the wall clock, 0 for the others), moving 1 ms per reading, so code
  that measures elapsed time still sees time pass. `datetime.date.today()` and
  `datetime.datetime.today()` read it through `time.time`; `datetime.datetime.now()` and
  `utcnow()` read the system clock in C and are refused by the policy (among its
  `CAPABILITY_ATTRIBUTES`), and the library refuses NumPy's `"now"` and `"today"`. The functions
  that take a clock id are gone (`CLOCK_ID_FUNCTIONS`).
- entropy: a seed of None (`random.seed()`, `random.Random()`, the C base's `seed` and
  `__init__`, which `super()` reaches) is seed 0, and `random.SystemRandom` draws from a
  seeded generator, not the OS. (`random` itself is reseeded in every child, and `hash` has one
  seed: child.py, isolation.py.)

Applied in the child (`apply`, before the program exists), after the harness has taken the real
clock for its own timings; the fork server and the zygote keep theirs (their deadlines read it).

One clock is read in C, out of the virtual clock's reach: NumPy calls the C library's `time()`
for the datetime strings "now" and "today", and text NumPy makes inside one call reaches that
parse (a red team's `add(["n"], ["ow"], out=dates, casting="unsafe")`: `correct` in 23 of 24
gradings of a plain answer with a bare call, after a filter of clock words in the text the
library takes in and hands out had been walked around twice). So the fork server points
NumPy's own calls of `time()` at the virtual epoch (`fix_numpy_clock`): every child inherits
it, whatever text reaches the parse; the `fixed_clock` layer in `sebench doctor`.
"""

from __future__ import annotations

import _random
import ctypes
import os
import random
import struct
import time
from collections.abc import Callable
from typing import Any

EPOCH_S = 1_767_225_600  # 2026-01-01T00:00:00Z, where the virtual wall clock starts
STEP_NS = 1_000_000  # how far it moves per reading: 1 ms

_readings = [0]  # the zygote never reads it: every child starts from 0
_localtime, _gmtime, _ctime = time.localtime, time.gmtime, time.ctime
_asctime, _strftime = time.asctime, time.strftime
_c_seed = _random.Random.seed
_c_init = _random.Random.__init__
# The classes `apply` writes on in each child: left writable (stdlib_guard.freeze_classes).
WRITTEN_CLASSES = (_random.Random,)
_entropy = random.Random(0)  # what SystemRandom draws from; untouched until a child draws


def _elapsed_ns() -> int:
    _readings[0] += 1
    return _readings[0] * STEP_NS


def _wall() -> float:
    return EPOCH_S + _elapsed_ns() / 1e9


def _wall_ns() -> int:
    return EPOCH_S * 10**9 + _elapsed_ns()


def _counter(*_clock: int) -> float:
    return _elapsed_ns() / 1e9


def _counter_ns(*_clock: int) -> int:
    return _elapsed_ns()


def _seconds(secs: float | None) -> float:
    return _wall() if secs is None else secs


def _struct(t: Any) -> Any:
    return _localtime(_wall()) if t is None else t


CLOCK: dict[str, Callable[..., Any]] = {
    "time": _wall,
    "time_ns": _wall_ns,
    **{name: _counter for name in ("perf_counter", "monotonic", "process_time", "thread_time")},
    **{
        f"{name}_ns": _counter_ns
        for name in ("perf_counter", "monotonic", "process_time", "thread_time")
    },
    "clock_gettime": _counter,
    "clock_gettime_ns": _counter_ns,
    "localtime": lambda secs=None: _localtime(_seconds(secs)),
    "gmtime": lambda secs=None: _gmtime(_seconds(secs)),
    "ctime": lambda secs=None: _ctime(_seconds(secs)),
    "asctime": lambda t=None: _asctime(_struct(t)),
    "strftime": lambda fmt, t=None: _strftime(fmt, _struct(t)),
}


def _seed(self: Any, n: Any = None) -> None:
    _c_seed(self, 0 if n is None else n)


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    # the C base's `__init__` seeds in C, not through `seed` (`super(random.Random,
    # r).__init__()` drew from the OS: a red team's note, refused by the policy too)
    _c_init(self, *(args if args and args[0] is not None else (0, *args[1:])), **kwargs)


def _urandom(size: int) -> bytes:
    return _entropy.randbytes(size)


# `time` functions that take a clock id, which is a pointer for a thread's clock: glibc reads
# memory at `pthread_getcpuclockid`'s argument (a red team read its own job's mode out of the
# child's heap through it, and the pid through a lock's thread handle), `clock_getres` says
# whether a process exists (a clock id encodes a pid), `clock_settime` is no program's business.
# Gone from the module in a child; the policy refuses the names too.
CLOCK_ID_FUNCTIONS = ("pthread_getcpuclockid", "clock_getres", "clock_settime", "clock_settime_ns")


def _fixed_time(pointer: Any) -> int:
    # what NumPy's `time(&t)` now reads: no ctypes call here (the audit hook refuses those in a
    # child), only a store through the pointer it was given
    if pointer:
        pointer[0] = EPOCH_S
    return EPOCH_S


# made once, in the fork server: C calls this Python function (kept alive by this module)
_TIME = ctypes.CFUNCTYPE(ctypes.c_long, ctypes.POINTER(ctypes.c_long))(_fixed_time)


def fix_numpy_clock(numpy: Any) -> str | None:
    """Point NumPy's calls of the C library's `time()` at `_fixed_time` (in the fork server,
    before any child). They go through a table of addresses in each of NumPy's extension
    modules, filled in when the module loads (or at the first call: one is made first); every
    entry that holds `time`'s address in their writable memory is replaced. None when done
    (checked: "now" reads the epoch), else why not."""
    try:
        numpy.datetime64("now")  # binds the entry, where binding is lazy
        real = ctypes.cast(ctypes.CDLL(None).time, ctypes.c_void_p).value
        folder = os.path.dirname(numpy.__file__) + os.sep
        entries = []
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split()
                if len(fields) < 6 or not fields[5].startswith(folder) or fields[1][:2] != "rw":
                    continue
                low, high = (int(bound, 16) for bound in fields[0].split("-"))
                data = ctypes.string_at(low, high - low)
                entries += [
                    low + offset
                    for offset in range(0, len(data) - 7, 8)
                    if struct.unpack_from("P", data, offset)[0] == real
                ]
        if not entries:
            return "no call of time() found in NumPy's extension modules"
        fixed = ctypes.cast(_TIME, ctypes.c_void_p).value
        for entry in entries:
            ctypes.c_void_p.from_address(entry).value = fixed
        if numpy.datetime64("now", "s") != numpy.datetime64(EPOCH_S, "s"):
            for entry in entries:
                ctypes.c_void_p.from_address(entry).value = real
            return "NumPy still reads another clock after the change"
    except (OSError, AttributeError, ValueError, struct.error) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def apply() -> None:
    """Fix this process's clock and entropy (a child's, before the program exists)."""
    for name, function in CLOCK.items():
        setattr(time, name, function)
    for name in CLOCK_ID_FUNCTIONS:
        if hasattr(time, name):
            delattr(time, name)
    _random.Random.seed = _seed
    _random.Random.__init__ = _init
    random._urandom = _urandom  # what SystemRandom's methods read
