"""The official order of checks, as the strict rules keep it, and resolving library names.

Officially, before anything runs: a response whose function has no call into the library, or
whose only call is the array constructor, is `without_zwc`; after that, a NumPy import is `numpy`;
then the code runs (`exe_error` when it fails) and is compared (`result_error` / `acc`). The strict
rules keep that order for everything they do not run (NumPy code, policy refusals) and for runs
that fail, looking at every function of the code; for runs that finish, library use is decided at
run time from the sandbox's call counts instead, which a dead call (`if False: zwc.f(x)`) cannot
satisfy. The official rules' own reading (the first `def`'s body only) is `official_rules.py`.
"""

from __future__ import annotations

import ast
from typing import Protocol

from sebench.grading.policy import scan


class LibraryNames(Protocol):
    """What the static check needs from a `NameTable`."""

    package: str

    @property
    def constructor(self) -> str: ...

    def library_to_numpy(self) -> dict[str, str]: ...


def calls_library_in_functions(tree: ast.Module, table: LibraryNames) -> bool:
    """Whether a function in the code calls a library function other than the constructor."""
    found = scan(tree, table.package)
    return any_library_call(found.imports, found.function_calls, table)


def any_library_call(
    imports: list[ast.AST], function_calls: list[ast.Call], table: LibraryNames
) -> bool:
    """The same, from what `policy.scan` found: the code's imports and its calls in functions."""
    bindings = library_bindings(imports, table.package)
    if not bindings:
        return False
    # Only a star import needs the name list (to tell library names from the code's own).
    known = table.library_to_numpy() if "*" in bindings else {}
    prefix = table.package + "."
    for call in function_calls:
        target = _resolve(call.func, bindings, known)
        if target and target.startswith(prefix) and target != table.constructor:
            return True
    return False


def library_bindings(imports: list[ast.AST], package: str) -> dict[str, str]:
    """Local name -> qualified library name, for every import of the library in the code."""
    bindings: dict[str, str] = {}
    for node in imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != package:
                    continue
                if alias.asname:
                    bindings[alias.asname] = alias.name
                else:
                    bindings[package] = package
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.split(".")[0] != package:
                continue
            for alias in node.names:
                if alias.name == "*":
                    bindings["*"] = node.module
                else:
                    bindings[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bindings


def _resolve(func: ast.expr, bindings: dict[str, str], known: dict[str, str]) -> str | None:
    attrs = []
    while isinstance(func, ast.Attribute):
        attrs.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    root = bindings.get(func.id)
    if root is None:
        # after `from zwc import *`, any bare name may be a library function
        star = bindings.get("*")
        if star is None:
            return None
        root = f"{star}.{func.id}"
        if root not in known:
            return None
    return ".".join([root, *reversed(attrs)])
