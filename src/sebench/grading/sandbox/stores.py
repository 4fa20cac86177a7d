"""A list's slice is assigned only a sequence that already exists: no program code runs inside
the interpreter's slice assignment.

Why: CPython 3.11's extended-slice assignment (`lst[a:b:c] = value`, Objects/listobject.c)
computes where the slice lies from the list's length, then iterates `value`, then writes there
and drops the references it replaced, unchecked. An iterator that shrinks the list meanwhile (a
generator, a class's `__iter__`) makes it write past the item buffer and release a reference it
does not own (gh-120384, fixed in 3.12 and 3.13 only). A red team (OE, fifteenth session) freed
an object a list still held that way, refilled its memory with forged objects, read the
mapping out of the library's closures and was `correct` knowing no library name.

Whether a store is a slice store of a list is known only at run time (`lst[s] = g` with `s` a
slice made anywhere), so every subscript store of the program goes through `guard`: `rewrite`
writes `__sebench_store__(x)[k] = v` for `x[k] = v` (and for every other store target: `for`,
`with`, unpacking, augmented assignment, comprehensions), and the child binds that name in the
program's globals. The program can neither read nor bind it (the policy's `dunder-name` and
`dunder-definition` rules). For a list, the guard runs the program's iterator to the end first,
outside the list's code; for anything else it hands the object back, so nothing else changes.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import UserList

GUARD = "__sebench_store__"
# Where the tokenizer ends a line (not `str.splitlines`, which also splits at \f, \v, \x1c, ...)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


class _ListStore:
    """Stands for a list (or `UserList`, whose `__setitem__` stores into its list) in one store."""

    __slots__ = ("_target",)

    def __init__(self, target: list | UserList) -> None:
        self._target = target

    def __getitem__(self, key: object) -> object:  # `x[k] += v` reads before it stores
        return self._target[key]  # type: ignore[index]

    def __setitem__(self, key: object, value: object) -> None:
        kind = type(value)
        # What the list's own code would iterate (PySequence_Fast: `__iter__`, or the sequence
        # protocol), made a list here; a value it cannot iterate goes on, to raise its own error.
        if (
            type(key) is slice
            and kind is not list
            and kind is not tuple
            and (hasattr(kind, "__iter__") or hasattr(kind, "__getitem__"))
        ):
            value = list(value)  # type: ignore[call-overload]
        self._target[key] = value  # type: ignore[index]


def guard(target: object) -> object:
    """What a store of the program writes into: a stand-in for a list, anything else itself."""
    return _ListStore(target) if isinstance(target, list | UserList) else target


# a rerun of the same code (the perturbed runs of `Grader.confirm_dependence`) parses once
@functools.lru_cache(maxsize=64)
def guarded(code: str) -> str:
    """`code` as the child runs it (`rewrite`); code that does not parse is handed back: the
    child's compile reports it."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return code
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
    ]
    return rewrite(code, found)


def rewrite(code: str, stores: list[ast.Subscript]) -> str:
    """`code` with the object of each of its subscript stores (`stores`, its parsed nodes)
    wrapped in a call of GUARD; the rest of the text, line numbers included, unchanged."""
    marks: list[tuple[int, int, int, str]] = []  # (line, byte column, closes first, text)
    # each store once, however often a walk met it (`x[k] += v` is also walked as a read)
    for line, column, end_line, end_column in {
        (s.value.lineno, s.value.col_offset, s.value.end_lineno, s.value.end_col_offset)
        for s in stores
    }:
        marks.append((line, column, 1, f"{GUARD}("))
        marks.append((end_line or line, end_column or 0, 0, ")"))
    if not marks:
        return code
    lines = [line.encode("utf-8", "surrogatepass") for line in _LINE.findall(code)]
    # from the end backwards, so that each insertion leaves the earlier offsets as they were
    for line, column, _, text in sorted(marks, reverse=True):
        raw = lines[line - 1]
        lines[line - 1] = raw[:column] + text.encode() + raw[column:]
    return b"".join(lines).decode("utf-8", "surrogatepass")
