"""A list's slice store never runs the program's code inside the list's own code (stores.py).

CPython 3.11's extended-slice assignment iterates the value after it has computed the slice, and
an iterator that shrinks the list then writes past its items (gh-120384; red team OE). Every
form of store below crashed the child (or corrupted its heap silently) before the guard.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from sebench.grading.policy import scan
from sebench.grading.sandbox import ExecStatus, Job
from sebench.grading.sandbox.stores import GUARD, guard, guarded, rewrite

# An iterable that empties the list it is assigned into while the assignment iterates it; as
# Python 3.13 answers (the size it found, then the size the emptied list has): 3.11's list code
# wrote ten items into a freed buffer instead.
SHRINKING = """
class Shrinking:
    def __init__(self, lst):
        self.lst = lst
    def __iter__(self):
        yield from self.lst
        self.lst.clear()

def shrinking(lst):
    yield from list(lst)
    lst.clear()
"""
REFUSED = "attempt to assign sequence of size 10 to extended slice of size 0"

STORES = {
    "assignment": "lst[::-1] = Shrinking(lst)",
    "generator": "lst[::-1] = shrinking(lst)",
    "slice object": "where = slice(None, None, -1)\nlst[where] = Shrinking(lst)",
    "unpacking": "lst[::-1], other = Shrinking(lst), 0",
    "chained": "lst[::-1] = keep = Shrinking(lst)",
    "for target": "for lst[::-1] in [Shrinking(lst)]:\n    pass",
    "comprehension target": "[0 for lst[::-1] in [Shrinking(lst)]]",
    "annotated": "lst[::-1]: list = Shrinking(lst)",
    "user list": (
        "from collections import UserList\nlst = UserList(lst)\nlst[::-1] = Shrinking(lst)"
    ),
}


def program(store: str) -> str:
    body = textwrap.indent(store, " " * 8)
    return SHRINKING + (
        "def solve(x):\n"
        "    lst = list(range(10))\n"
        "    try:\n"
        f"{body}\n"
        "    except ValueError as exc:\n"
        "        return str(exc)\n"
        '    return "stored"\n'
    )


@pytest.mark.parametrize("form", STORES)
def test_a_list_slice_store_runs_the_programs_iterator_before_the_lists_code(pool, form):
    execution = pool.run(Job(program(STORES[form]), "solve", ("x=1",)))
    assert execution.status is ExecStatus.OK, execution.detail
    assert execution.cases[0].printed == REFUSED


def test_augmented_slice_store_still_reads_then_stores(pool):
    code = "def solve(x):\n    lst = [1, 2, 3, 4]\n    lst[::2] += []\n    lst[1:3] *= 1\n    return lst"
    execution = pool.run(Job(code, "solve", ("x=1",)))
    assert execution.cases[0].printed == "[1, 2, 3, 4]"


def run_here(code: str) -> dict:
    namespace: dict = {GUARD: guard}
    exec(compile(guarded(code), "<test>", "exec"), namespace)
    return namespace


def test_stores_mean_what_they_meant():
    # the guard changes nothing a store does, lists and others alike, errors included
    code = textwrap.dedent(
        """
        lst = list(range(8))
        lst[::2] = (x * 10 for x in range(4))
        lst[1:3] = "ab"
        lst[-1:] = {"k": 1}
        table = {}
        table[1, 2] = iter([1])
        lst[0], (table["x"], lst[7]) = 5, [6, 7]
        text = bytearray(b"abcd")
        text[::2] = (c for c in b"XY")
        errors = []
        for bad in (5, None):
            try:
                lst[::2] = bad
            except TypeError as exc:
                errors.append(str(exc))
        try:
            lst[::2] = [1]
        except ValueError as exc:
            errors.append(str(exc))
        """
    )
    guarded_run, plain_run = run_here(code), {}
    exec(code, plain_run)
    for name in ("lst", "text", "errors"):
        assert guarded_run[name] == plain_run[name], name
    assert guarded_run["table"].keys() == plain_run["table"].keys()
    assert isinstance(guarded_run["table"][1, 2], type(iter([1])))  # not made a list
    assert guarded_run["errors"][0] == "must assign iterable to extended slice"


def test_the_rewrite_wraps_every_stores_object_and_moves_no_line():
    code = textwrap.dedent(
        """\
        x = "é"; a[0] = 1
        a[1:2], b[::2] = (1,), c
        for q[0] in y: pass
        with m as w[1]: pass
        z[0] += 1
        k = [1 for u[0] in v]
        (a
        )[0] = 5
        del a[0]
        print(a[0], b[1:2])
        """
    )
    rewritten = guarded(code)
    stores = [
        n
        for n in ast.walk(ast.parse(rewritten))
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
    ]
    assert len(stores) == 8
    assert all(isinstance(s.value, ast.Call) and s.value.func.id == GUARD for s in stores)
    assert rewritten.count(GUARD) == 8  # `del` and reads untouched
    assert len(rewritten.splitlines()) == len(code.splitlines())
    assert guarded("print(a[0])\n") == "print(a[0])\n"
    assert guarded("def broken(:\n") == "def broken(:\n"


# Stores in every place a walk could skip: the grader rewrites from the policy's own walk
# (`Scan.stores`), the pool from a parse of its own; a store the walk missed would run unguarded.
PLACES = [
    "a[0] = 1",
    "def f(x=[0 for a[0] in y]):\n    b[0] = 1",
    "@deco([0 for a[0] in y])\ndef f():\n    pass",
    "class C(Base[[0 for a[0] in y][0]]):\n    b[0] = 1\n    def m(self):\n        c[1:2] = d",
    "async def f():\n    async for a[0] in y:\n        b[0] = 1\n    async with m as c[0]:\n        pass",
    "try:\n    a[0] = 1\nexcept E as e:\n    b[0] = 1\nelse:\n    c[0] = 1\nfinally:\n    d[0] = 1",
    "while a:\n    a[0] = 1\nelse:\n    b[0] = 1",
    "match x:\n    case [1, *rest] if (g := [0 for a[0] in y]):\n        b[0] = 1",
    "x: int = 1\ny[0]: int = 2\nz[0]: int",
    "a[[0 for b[0] in y][0]] += 1",
    "f = lambda: [0 for a[0] in y]",
    "x = {k: v for a[0], (k, v) in y}\ns = {0 for b[0] in y}\ng = (0 for c[0] in y)",
    "def f(x: 'list[int]') -> 'dict':\n    a[0] = x",
    "with m as (a[0], b[1:2]):\n    pass",
    "for a[0], *b[1:] in y:\n    pass",
]


@pytest.mark.parametrize("place", PLACES)
def test_the_policys_walk_finds_every_store_a_parse_finds(place):
    found = scan(ast.parse(place), "zwc").stores
    assert rewrite(place, found) == guarded(place)
    assert GUARD in guarded(place)
