"""The standard library's C code that CPython 3.11 lets a program's own code free memory under
is Python for the program (`stdlib_guard.safe_containers`, `safe_itertools`, `safe_holders`).

Each program below is a red team's, with the spray that refills the freed memory; each was a
segmentation fault (or another answer) of the child before, and runs cleanly now; the
`..._as_before` tests check that honest use answers as the C versions do.

Containers (red teams OH, OJ): `OrderedDict` equality walks both dicts' nodes by raw pointers
while it compares their keys (gh-119004), and `deque.index` compares each item without holding
it (gh-115243); a key's comparison runs the program's code through a dataclass's generated
`__eq__` reading a field that is a property, which empties the container. Both were `correct`
knowing no name.

`itertools.count`, `accumulate`, `groupby` (red team OK) hold a borrowed pointer across a step
that runs the program's code (an addition, a key comparison); a `next()` of the same object from
there freed the number or key the outer step then handed out or compared.

Holders (red team OL): `iter(callable, sentinel)` drops its callable once a re-entered `next`
returns the sentinel, a `defaultdict` calls its `default_factory` through a borrowed pointer that
the factory's own work can set to None, and `chain`, `islice`, `cycle`, `zip_longest` and
`pairwise` drop an inner iterator that a re-entered `next` has exhausted; the callee
(`partial`, `lru_cache`'s wrapper, `filter`, `map`, a generator's `close`) then ran on in freed
memory.
"""

from __future__ import annotations

import pytest

from sebench.grading.sandbox import ExecStatus, Job


def printed(pool, code: str, arguments: str = "x=1") -> str:
    """What `solve(arguments)` printed, the program having run to its end without an error."""
    execution = pool.run(Job(code, "solve", (arguments,)))
    assert execution.status is ExecStatus.OK, execution.detail
    assert execution.cases[0].error_type is None, execution.cases[0]
    return execution.cases[0].printed


# --- containers ---------------------------------------------------------------------------

EMPTYING = """
import collections
import dataclasses
import typing

state = {"n": 0, "at": 0, "ods": []}


def getk(self):
    state["n"] += 1
    if state["n"] == state["at"]:
        for od in state["ods"]:
            od.clear()
        state["junk"] = [bytes(24) for i in range(5000)]
    return 0


def setk(self, v):
    pass


@dataclasses.dataclass(frozen=True)
class Key:
    h: int
    k: object = dataclasses.field(default=property(getk, setk), hash=False)


def solve(kind, at):
    make = {"collections": collections.OrderedDict, "typing": typing.OrderedDict}[kind]
    answers = []
    for op in ("==", "!="):
        a, b = make(), make()
        for i in range(8):
            a[Key(i)] = b[Key(i)] = i
        state.update(n=0, at=at, ods=[a, b])
        answers.append(a == b if op == "==" else a != b)
    return answers, len(a), len(b), state["n"] >= at
"""


@pytest.mark.parametrize("kind", ["collections", "typing"])
@pytest.mark.parametrize("at", [1, 17, 18])
def test_a_key_comparison_that_empties_both_dicts_leaves_no_freed_node_walked(pool, kind, at):
    # `at`: the property read that empties them: a key comparison reads two, the dicts'
    # comparison makes 8 first, so 17 and 18 fall in the C walk of the keys' order (each one a
    # segmentation fault in a plain `python` 3.11.7); 1 in the comparison as dicts
    # emptied while compared as dicts: unequal; while the orders are compared: the two lists
    # copied before still hold every key, and compare equal
    answers = "[False, True]" if at == 1 else "[True, False]"
    assert printed(pool, EMPTYING, f"{kind!r}, {at}") == f"({answers}, 0, 0, True)"


def test_ordered_dicts_compare_as_before(pool):
    code = (
        "import collections, typing\n"
        "def solve(x):\n"
        "    a = collections.OrderedDict(x=1, y=2)\n"
        "    b = typing.OrderedDict(y=2, x=1)\n"
        "    return (a == b, a != b, a == dict(b), a == a.copy(), a != a.copy(), a == 5,\n"
        "            type(a) is type(b), isinstance(a, dict), list(reversed(a)))"
    )
    assert printed(pool, code) == "(False, True, True, True, False, False, True, True, ['y', 'x'])"


# The deque's only item is a 21-item tuple (past the tuple free lists: its block goes back to the
# allocator and the refill takes it) holding an instance whose property read empties the deque
# during `index`'s comparison: 3.11's C `index` then read the freed tuple.
EMPTIED_DEQUE = """
import collections
import dataclasses
import typing

state = {"armed": False}


def getx(self):
    if state["armed"]:
        state["armed"] = False
        state["d"].clear()
        state["junk"] = [bytearray(b"A" * 207) for i in range(4000)]
    return 0


def setx(self, v):
    pass


@dataclasses.dataclass
class D:
    __slots__ = ("x",)
    a: object = property(getx, setx)


def solve(kind):
    make = {"collections": collections.deque, "typing": typing.Deque}[kind]
    found = []
    for _ in range(20):
        d = make([tuple([D()] + [0] * 20)])
        state.update(d=d, armed=True)
        found.append(d.index(tuple([D()] + [0] * 20)))
    return found == [0] * 20, len(d)
"""


@pytest.mark.parametrize("kind", ["collections", "typing"])
def test_an_index_search_that_empties_the_deque_reads_no_freed_item(pool, kind):
    assert printed(pool, EMPTIED_DEQUE, repr(kind)) == "(True, 0)"


def test_deques_search_as_before(pool):
    code = (
        "import collections\n"
        "def solve(x):\n"
        "    d = collections.deque('abcb', maxlen=6)\n"
        "    found = [d.index('b'), d.index('b', 2), d.index('b', -3, 4), d.maxlen]\n"
        "    try:\n"
        "        d.index('b', 0, 1)\n"
        "    except ValueError as exc:\n"
        "        found.append(str(exc))\n"
        "    return found"
    )
    assert printed(pool, code) == "[1, 3, 1, 6, \"'b' is not in deque\"]"


# --- itertools' steps ------------------------------------------------------------------

COUNT = """
import itertools

state = {"armed": False}


class X:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __float__(self):
        return 0.0

    def __add__(self, other):
        if state["armed"]:
            state["armed"] = False
            next(state["it"])
        return X(self.v + 1)


def solve(x):
    it = itertools.count(X(1))
    state.update(it=it, armed=True)
    dangling = next(it)
    state["junk"] = [bytearray(b"A" * 40) for i in range(4000)]
    return dangling.v, next(it).v
"""

ACCUMULATE = """
import itertools

state = {"armed": False}


class X:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        if state["armed"]:
            state["armed"] = False
            next(state["it"])
            return NotImplemented
        return 5


class W:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __radd__(self, other):
        state["junk"] = [bytearray(b"A" * 40) for i in range(4000)]
        return other.v


def items():
    yield X(1)
    yield W(2)
    yield W(3)


def solve(x):
    it = itertools.accumulate(items())
    state["it"] = it
    next(it)
    state["armed"] = True
    try:
        return next(it)
    except ValueError as exc:
        return str(exc)
"""

GROUPBY = """
import dataclasses
import itertools

state = {"armed": False}


def getx(self):
    if state["armed"]:
        state["armed"] = False
        next(state["it"])
        state["junk"] = [bytearray(b"A" * 207) for i in range(4000)]
    return 0


def setx(self, v):
    pass


@dataclasses.dataclass
class D:
    __slots__ = ("x",)
    a: object = property(getx, setx)


def items(first):
    yield first
    yield tuple([D()] + [0] * 20)
    yield tuple([D()] + [0] * 20)
    yield 1


def solve(x):
    first = tuple([D()] + [0] * 20)
    it = itertools.groupby(items(first))
    state["it"] = it
    next(it)
    state["armed"] = True
    try:
        key, group = next(it)
    except StopIteration:
        return "ended"
    return key == 1, list(group)
"""

PROGRAMS = {"count": (COUNT, "(1, 2)"), "accumulate": (ACCUMULATE, "generator already executing")}
PROGRAMS["groupby"] = (GROUPBY, "ended")


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_step_re_entered_from_the_programs_code_frees_nothing_it_uses(pool, name):
    code, answer = PROGRAMS[name]
    assert printed(pool, code) == answer


def test_they_count_accumulate_and_group_as_before(pool):
    code = (
        "import itertools, operator\n"
        "def solve(x):\n"
        "    groups = [(k, list(g)) for k, g in itertools.groupby('aAbbc', key=str.lower)]\n"
        "    g = itertools.groupby('aabb')\n"
        "    (_, first), (_, second) = next(g), next(g)\n"
        "    return (groups, list(first), list(second), list(itertools.accumulate([1, 2, 3])),\n"
        "            list(itertools.accumulate([1, 2, 3], operator.mul, initial=2)),\n"
        "            list(zip('ab', itertools.count(5, 0.5))), repr(itertools.count(3)))"
    )
    assert printed(pool, code) == (
        "([('a', ['a', 'A']), ('b', ['b', 'b']), ('c', ['c'])], [], ['b', 'b'], [1, 3, 6], "
        "[2, 2, 4, 12], [('a', 5), ('b', 5.5)], 'count(3)')"
    )


# --- holders ---------------------------------------------------------------------------

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
    code, arguments, answer = CASES[name]
    assert printed(pool, code, arguments) == answer


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
    assert printed(pool, code) == (
        "({'a': [1]}, [1, 2], ['a', 'b', 'c'], ['a', 'b', 'c'], [1, 4, 7], "
        "['a', 'b', 'a', 'b', 'a'], [('a', 'c'), ('b', '-')], [('a', 'b'), ('b', 'c')], "
        "\"defaultdict(<class 'list'>, {'a': [1]})\")"
    )
