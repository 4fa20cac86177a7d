"""A holder that drops the callable or iterator it is calling frees nothing still running
(`stdlib_guard.safe_holders`).

In CPython 3.11, `iter(callable, sentinel)` drops its callable once a re-entered `next` returns
the sentinel, a `defaultdict` calls its `default_factory` through a borrowed pointer that the
factory's own work can set to None, and `chain`, `islice`, `cycle`, `zip_longest` and `pairwise`
drop an inner iterator that a re-entered `next` has exhausted; the callee (`partial`,
`lru_cache`'s wrapper, `filter`, `map`, a generator's `close`) then ran on in freed memory
(red team OL: each program below a segmentation fault of a plain `python` 3.11.7).
"""

from __future__ import annotations

import pytest

from sebench.grading.sandbox import ExecStatus, Job

FACTORY_DROPPED = """
import collections
import functools

state = {}


def f():
    state["d"].default_factory = None
    state["junk"] = [bytearray(b"A" * 100) for i in range(4000)]
    return 1


def solve(x):
    d = collections.defaultdict(functools.lru_cache(maxsize=None)(f))
    state["d"] = d
    return d[0], d.default_factory
"""

CALLABLE_DROPPED = """
import functools

state = {"depth": 0}
SENT = object()


def f():
    state["depth"] += 1
    if state["depth"] == 1:
        next(state["it"], None)
        state["junk"] = [bytearray(b"A" * 100) for i in range(4000)]
        return 1
    return SENT


def solve(x):
    it = iter(functools.lru_cache(maxsize=None)(f), SENT)
    state["it"] = it
    try:
        return next(it)
    except ValueError as exc:
        return str(exc)
"""

ITERATOR_DROPPED = """
import itertools

state = {"depth": 0}


class A:
    __slots__ = ("n",)

    def __init__(self):
        self.n = 0

    def __iter__(self):
        return self

    def __next__(self):
        state["depth"] += 1
        if state["depth"] == 1:
            next(state["outer"], None)
            state["junk"] = [bytearray(b"A" * 48) for i in range(4000)]
            return 1
        raise StopIteration


def solve(kind):
    inner = filter(lambda x: True, A())
    state["depth"] = 0
    state["outer"] = {
        "chain": lambda: itertools.chain(inner),
        "from_iterable": lambda: itertools.chain.from_iterable([inner]),
        "islice": lambda: itertools.islice(inner, 5),
        "cycle": lambda: itertools.cycle(inner),
        "zip_longest": lambda: itertools.zip_longest(inner, [1, 2, 3]),
        "pairwise": lambda: itertools.pairwise(inner),
    }[kind]()
    try:
        return next(state["outer"], None)
    except ValueError as exc:
        return str(exc)
"""

REENTERED = "generator already executing"
CASES = {
    "factory": (FACTORY_DROPPED, "x=1", "(1, None)"),
    "callable": (CALLABLE_DROPPED, "x=1", REENTERED),
}
for kind in ("chain", "from_iterable", "islice", "cycle", "zip_longest", "pairwise"):
    CASES[kind] = (ITERATOR_DROPPED, repr(kind), REENTERED)


@pytest.mark.parametrize("name", CASES)
def test_a_holder_dropping_what_it_calls_frees_nothing_still_running(pool, name):
    code, arguments, printed = CASES[name]
    execution = pool.run(Job(code, "solve", (arguments,)))
    assert execution.status is ExecStatus.OK, execution.detail
    assert execution.cases[0].printed == printed, execution.cases[0]


def test_the_holders_work_as_before(pool):
    code = (
        "import collections, itertools\n"
        "def solve(x):\n"
        "    d = collections.defaultdict(list)\n"
        "    d['a'].append(1)\n"
        "    it = iter([1, 2, None, 4])\n"
        "    return (dict(d), list(iter(it.__next__, None)), list(itertools.chain('ab', 'c')),\n"
        "            list(itertools.chain.from_iterable(['ab', 'c'])),\n"
        "            list(itertools.islice(range(10), 1, 8, 3)),\n"
        "            list(itertools.islice(itertools.cycle('ab'), 5)),\n"
        "            list(itertools.zip_longest('ab', 'c', fillvalue='-')),\n"
        "            list(itertools.pairwise('abc')), repr(d))"
    )
    execution = pool.run(Job(code, "solve", ("x=1",)))
    assert execution.cases[0].printed == (
        "({'a': [1]}, [1, 2], ['a', 'b', 'c'], ['a', 'b', 'c'], [1, 4, 7], "
        "['a', 'b', 'a', 'b', 'a'], [('a', 'c'), ('b', '-')], [('a', 'b'), ('b', 'c')], "
        "\"defaultdict(<class 'list'>, {'a': [1]})\")"
    )
