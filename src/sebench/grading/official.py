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

from sebench.grading.statements import BLOCK_FIELDS


class LibraryNames(Protocol):
    """What the static check needs from a `NameTable`."""

    package: str

    @property
    def constructor(self) -> str: ...

    def library_to_numpy(self) -> dict[str, str]: ...


def calls_library_in_functions(tree: ast.Module, table: LibraryNames) -> bool:
    """Whether a function in the code calls a library function other than the constructor."""
    imports, calls = _imports_and_function_calls(tree)
    bindings = _library_bindings(imports, table.package)
    if not bindings:
        return False
    # Only a star import needs the name list (to tell library names from the code's own).
    known = table.library_to_numpy() if "*" in bindings else {}
    prefix = table.package + "."
    for call in calls:
        target = _resolve(call.func, bindings, known)
        if target and target.startswith(prefix) and target != table.constructor:
            return True
    return False


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_IMPORTS = (ast.Import, ast.ImportFrom)


def _imports_and_function_calls(tree: ast.Module) -> tuple[list[ast.AST], list[ast.Call]]:
    """Every import statement, and every call inside a function (def or lambda).

    Statements outside functions are followed block by block; only their expressions are
    walked (for lambdas), and each outermost function once, whole: about half the work of
    walking every node with its function context."""
    imports: list[ast.AST] = []
    calls: list[ast.Call] = []

    def take_function(function: ast.AST) -> None:
        for inner in ast.walk(function):
            if isinstance(inner, ast.Call):
                calls.append(inner)
            elif isinstance(inner, _IMPORTS):
                imports.append(inner)

    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, _DEFS):
            take_function(node)
            continue
        if isinstance(node, _IMPORTS):
            imports.append(node)
            continue
        for name, value in ast.iter_fields(node):
            if name in BLOCK_FIELDS and isinstance(value, list):
                todo.extend(value)  # statements, `except` handlers, `match` cases
                continue
            for part in value if isinstance(value, list) else (value,):
                if isinstance(part, ast.AST):
                    for inner in ast.walk(part):
                        if isinstance(inner, ast.Lambda):
                            take_function(inner)
    return imports, calls


def _library_bindings(imports: list[ast.AST], package: str) -> dict[str, str]:
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
