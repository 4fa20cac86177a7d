"""`OrderedDict` equality and `deque.index` never run the program's code inside the C types'
comparisons of borrowed items (`stdlib_guard.safe_containers`).

CPython 3.11 compares two `OrderedDict`s' key orders by following their nodes through raw
pointers while it compares the keys (gh-119004, fixed in 3.12 only); a key's comparison that
empties both dicts (here a dataclass's generated `__eq__` reading a field that is a property)
left the walk on freed nodes, which a red team (OH) refilled to forge objects, read all memory
and the library's name mapping: `correct` 9/9 knowing no name. `deque.index` compares each item
without holding it (gh-115243, also fixed in 3.12 only; red team OJ, the same way to `correct`).
"""

from __future__ import annotations

import pytest

from sebench.grading.sandbox import ExecStatus, Job

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
    execution = pool.run(Job(EMPTYING, "solve", (f"{kind!r}, {at}",)))
    assert execution.status is ExecStatus.OK, execution.detail
    assert execution.cases[0].error_type is None, execution.cases[0]
    # emptied while compared as dicts: unequal; while the orders are compared: the two lists
    # copied before still hold every key, and compare equal
    answers = "[False, True]" if at == 1 else "[True, False]"
    assert execution.cases[0].printed == f"({answers}, 0, 0, True)"


def test_ordered_dicts_compare_as_before(pool):
    code = (
        "import collections, typing\n"
        "def solve(x):\n"
        "    a = collections.OrderedDict(x=1, y=2)\n"
        "    b = typing.OrderedDict(y=2, x=1)\n"
        "    return (a == b, a != b, a == dict(b), a == a.copy(), a != a.copy(), a == 5,\n"
        "            type(a) is type(b), isinstance(a, dict), list(reversed(a)))"
    )
    execution = pool.run(Job(code, "solve", ("x=1",)))
    assert (
        execution.cases[0].printed
        == "(False, True, True, True, False, False, True, True, ['y', 'x'])"
    )


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
    execution = pool.run(Job(EMPTIED_DEQUE, "solve", (repr(kind),)))
    assert execution.status is ExecStatus.OK, execution.detail
    assert execution.cases[0].printed == "(True, 0)", execution.cases[0]


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
    execution = pool.run(Job(code, "solve", ("x=1",)))
    assert execution.cases[0].printed == "[1, 3, 1, 6, \"'b' is not in deque\"]"
