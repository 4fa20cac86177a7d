"""The library's functions carry nothing of the name table in their identity.

A red team of 2026-12-02 sorted the functions by `id()` (or `hash()`, or the address in
`repr()`): made in catalog order, NumPy's alphabetical one, consecutive functions had
consecutive addresses, and a few probes of well-known functions fixed the order of the runs of
addresses: the whole table, 0 of 278 names wrong, with 13 calls, `correct` on 55 of the 64 dev
tasks knowing no name. A second red team sorted the names themselves, written as literals:
Python had interned them from the name table's file, in catalog order. The loader then made
both in an order drawn from a secret, one per pool; a red team of 2026-12-03 found the pool's
secret fixed for a whole RL run (`sebench serve-reward`, TRL's reward): "the function at rank
211 by address" was the task's function in every job, reward 1.0 every time, knowing no name.
Now the loader makes them in the library names' own sorted order: the layout is a function of
the names alone, the same whichever NumPy function each name calls."""

from __future__ import annotations

import ast
import dataclasses

from sebench.grading.sandbox import Job, SandboxConfig, SandboxPool
from sebench.library.build import build_library
from sebench.library.catalog import CONSTRUCTOR
from sebench.library.names import generate_table
from sebench.library.table import NameTable, make_entry

# every function, as the program lists them (by library name: `__all__` is sorted so), in the
# order of their addresses
IN_ADDRESS_ORDER = """
import {package}

NAMES = {names!r}
BARE = {bare!r}  # each name's last part, as literals: the interned names
FUNCTIONS = ({functions})

def solve(x):
    by_function = [name for _, name in sorted(zip(map(id, FUNCTIONS), NAMES))]
    by_text = [name for _, name in sorted(zip(map(id, BARE), NAMES))]
    # where fresh objects of many sizes land: in the holes the library's import left
    fresh = [(i, i) for i in range(2000)] + [object() for _ in range(300)]
    fresh += [[i] for i in range(300)] + [{{i: i}} for i in range(300)]
    fresh += [str(i) * n for n in range(1, 40) for i in range(10)]
    fresh += [i + 0.5 for i in range(300)] + [complex(i, 1) for i in range(100)]
    fresh += [2**40 + i for i in range(100)] + [{{i}} for i in range(100)]
    fresh += [bytes(n) for n in range(1, 600, 7)] + [tuple(range(n)) for n in range(1, 12)]
    return [by_function, by_text, [id(item) for item in fresh]]
"""


def _address_order(pool: SandboxPool, library) -> list[list[str]]:
    table = library.table
    names = sorted(table.qualified(e) for e in table.entries)
    bare = tuple(name.rsplit(".", 1)[1] for name in names)
    code = IN_ADDRESS_ORDER.format(
        package=table.package, names=names, bare=bare, functions=", ".join(names)
    )
    execution = pool.run(Job(code, "solve", ("x=0",)))
    assert execution.cases and execution.cases[0].printed, execution
    return ast.literal_eval(execution.cases[0].printed)


def _neighbours(order: list[str], library) -> int:
    """How many functions next to each other by address are next to each other in the catalog."""
    table = library.table
    place = {table.qualified(e): i for i, e in enumerate(table.entries)}
    return sum(abs(place[a] - place[b]) == 1 for a, b in zip(order, order[1:], strict=False))


def _remapped(table: NameTable) -> NameTable:
    """The same names, each calling another NumPy function (the constructor aside): within the
    top level and within the submodule, the names in reverse."""
    entries = list(table.entries)
    for group in (
        [i for i, e in enumerate(entries) if not e.in_submodule and e.numpy_name != CONSTRUCTOR],
        [i for i, e in enumerate(entries) if e.in_submodule],
    ):
        names = [entries[i].name for i in group]
        for i, name in zip(group, reversed(names), strict=True):
            entries[i] = make_entry(entries[i].numpy_name, name)
    return dataclasses.replace(table, entries=tuple(entries))


def test_the_functions_addresses_say_nothing_of_the_name_table(official_library):
    config = SandboxConfig(workers=2)
    with SandboxPool(official_library, config) as pool:
        orders = [_address_order(pool, official_library) for _ in range(4)]
    # in catalog order 274 of 277 neighbours were neighbours; at random about 2; the names'
    # text, interned in the file's order, told it too (a second red team's)
    assert all(_neighbours(order, official_library) < 15 for order in orders[0][:2])
    assert all(order[:2] == orders[0][:2] for order in orders)


def test_the_layout_is_the_same_whichever_function_each_name_calls(tmp_path, api_doc_path):
    """Two libraries with the same names, each name calling another NumPy function in the
    second: the functions (and the names' literals) sorted by address come out alike, in two
    pools each. A rank by address is then a name, whatever the grader's lifetime."""
    table = generate_table(5)
    other = _remapped(table)
    assert other.numpy_to_library()["mean"] != table.numpy_to_library()["mean"]
    orders, fixed = [], True
    for index, each in enumerate((table, other, table, other)):
        library = build_library(
            each, tmp_path / f"lib{index}", api_doc_path=api_doc_path, origin="seed", seed=5
        )
        with SandboxPool(library, SandboxConfig(workers=1)) as pool:
            orders.append(_address_order(pool, library))
            fixed = fixed and pool.layers["fixed_layout"]
    assert orders[1][:2] == orders[0][:2]
    assert [order[:2] for order in orders[2:]] == [order[:2] for order in orders[:2]]
    if fixed:  # elsewhere addresses differ from server to server anyway
        # The first 2-tuples a program made sat where a sort keyed in NumPy's order had freed
        # its keys (a red team's: 2,036 of these 3,290 objects moved with the mapping). One or
        # two move from one server to another of the same library (servers differ in pid and
        # uid): not the mapping, which moved thousands.
        moved = sum(a != b for a, b in zip(orders[0][2], orders[1][2], strict=True))
        assert moved <= 5, f"{moved} fresh objects moved with the mapping"
