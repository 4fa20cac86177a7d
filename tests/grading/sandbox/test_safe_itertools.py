"""`itertools.count`, `accumulate` and `groupby` re-entered from the program's own code free
nothing a step still uses (`stdlib_guard.safe_itertools`).

CPython 3.11's C versions hold a borrowed pointer across a step that runs the program's code
(`count` and `accumulate` an addition, `groupby` a key comparison, here through a dataclass
field that is a property); a `next()` of the same object from there freed the number or key the
outer step then handed out or compared (red team OK: each a segmentation fault of a plain
`python` 3.11.7, `count` and `accumulate` handing the program a freed object). The programs are
the team's, with the sprays that refill the freed memory.
"""

from __future__ import annotations

import pytest

from sebench.grading.sandbox import ExecStatus, Job

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
    code, printed = PROGRAMS[name]
    execution = pool.run(Job(code, "solve", ("x=1",)))
    assert execution.status is ExecStatus.OK, execution.detail
    assert execution.cases[0].printed == printed, execution.cases[0]


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
    execution = pool.run(Job(code, "solve", ("x=1",)))
    assert execution.cases[0].printed == (
        "([('a', ['a', 'A']), ('b', ['b', 'b']), ('c', ['c'])], [], ['b', 'b'], [1, 3, 6], "
        "[2, 2, 4, 12], [('a', 5), ('b', 5.5)], 'count(3)')"
    )
