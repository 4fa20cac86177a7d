"""The library's functions carry nothing of the name table in their identity.

A red team of 2026-12-02 sorted the functions by `id()` (or `hash()`, or the address in
`repr()`): made in catalog order, NumPy's alphabetical one, consecutive functions had
consecutive addresses, and a few probes of well-known functions fixed the order of the runs of
addresses: the whole table, 0 of 278 names wrong, with 13 calls, `correct` on 55 of the 64 dev
tasks knowing no name. The loader now makes them in an order drawn from a secret, one per pool
(the same on every server: a run and its reruns must see one layout). A second red team then
sorted the names themselves, written as literals: Python had interned them from the name
table's file, in catalog order (`correct` on 40 dev tasks, with one call naming one function
by NumPy's error message); the loader now interns each in the secret order."""

from __future__ import annotations

import ast
from importlib import resources

from sebench.grading.sandbox import Job, SandboxConfig, SandboxPool
from sebench.grading.sandbox.server import ORDER_VARIABLE

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
    return [by_function, by_text]
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


def test_the_functions_addresses_say_nothing_of_the_name_table(official_library):
    config = SandboxConfig(workers=2)
    with SandboxPool(official_library, config) as pool:
        orders = [_address_order(pool, official_library) for _ in range(4)]
        fixed = pool.layers["fixed_layout"]
    with SandboxPool(official_library, config) as other:
        another = _address_order(other, official_library)
    # in catalog order 274 of 277 neighbours were neighbours; at random about 2; the names'
    # text, interned in the file's order, told it too (a second red team's)
    assert all(_neighbours(order, official_library) < 15 for order in orders[0])
    if fixed:  # one layout on every server of a pool, a new one for a new pool
        assert all(order == orders[0] for order in orders)
        assert another != orders[0]


def test_the_sandbox_and_the_loader_name_one_variable():
    # the loader is a file of the built package, importable only from there
    source = resources.files("sebench.library.runtime").joinpath("_loader.py").read_text()
    found = [
        node.value.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "ORDER_VARIABLE"
    ]
    assert found == [ORDER_VARIABLE]
