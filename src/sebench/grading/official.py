"""The official order of checks, and its static "does the function call the library" rule.

Officially, before anything runs: a response whose function has no call into the library, or
whose only call is the array constructor, is `without_zwc`; after that, a NumPy import is `numpy`;
then the code runs (`exe_error` when it fails) and is compared (`result_error` / `acc`). We keep
that order for everything we do not run (NumPy code, policy refusals) and for runs that fail, so
honest responses land in the same official category under both graders. For runs that finish,
library use is decided at run time from the sandbox's call counts instead, which a dead call
(`if False: zwc.f(x)`) cannot satisfy.
"""

from __future__ import annotations

import ast
from typing import Protocol


class LibraryNames(Protocol):
    """What the static check needs from a `NameTable`."""

    package: str

    @property
    def constructor(self) -> str: ...

    def library_to_numpy(self) -> dict[str, str]: ...


def calls_library_in_functions(tree: ast.Module, table: LibraryNames) -> bool:
    """Whether a function in the code calls a library function other than the constructor."""
    bindings = _library_bindings(tree, table.package)
    if not bindings:
        return False
    known = table.library_to_numpy()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                target = _resolve(node.func, bindings, known)
                if (
                    target
                    and target.startswith(table.package + ".")
                    and target != table.constructor
                ):
                    return True
    return False


def _library_bindings(tree: ast.Module, package: str) -> dict[str, str]:
    """Local name -> qualified library name, for every import of the library in the code."""
    bindings: dict[str, str] = {}
    for node in ast.walk(tree):
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
