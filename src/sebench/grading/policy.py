"""The static policy: code is refused before it runs, each refusal under a named rule.

What it protects against: reaching NumPy (or anything NumPy-backed) behind the library, and the
interpreter tricks that open a way to it or to the grader (private names, dunder attributes,
frames, dynamic attribute and namespace access, dynamic code, import machinery). It works on the
syntax tree only, so it cannot see what a string turns into at run time; that is why every
dynamic path (exec/eval/compile, `__import__`, `importlib`, `getattr` with a computed name,
`sys.modules`) is refused outright instead of inspected. What it does not protect against:
resource abuse, files, processes, network and signals, which the sandbox handles at run time, and
whatever the library itself exposes under public names.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from sebench.grading.statements import statements


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The only modules code may import (besides the library): pure computation, checked one by one
# for public attributes that lead elsewhere (`enum.bltns` is `builtins`, `dataclasses.inspect`,
# `typing.sys`, `json.codecs`, ...); those names are refused on any object by
# CAPABILITY_ATTRIBUTES, and tests/grading/test_policy.py walks every public path from these
# modules to prove it. Everything else, stdlib or not, is refused: an allowlist cannot miss a
# module that hands out `eval` or `sys.modules` (`pydoc.locate`, `rlcompleter.inspect`, ...).
# Submodules of an allowed package are allowed (`collections.abc`, `json.decoder`).
ALLOWED_MODULES = _words(
    "__future__ abc array bisect cmath collections copy dataclasses datetime decimal enum "
    "fractions functools heapq itertools json keyword math numbers operator random re "
    "statistics string struct textwrap time typing unicodedata sys"
)
# `sys` is allowed for its harmless constants and limits only; every other use of the module
# (passing it around, `sys.modules`, `sys.monitoring`, ...) is refused under `sys-use`.
SYS_ATTRIBUTES = _words(
    "maxsize maxunicode float_info int_info float_repr_style byteorder version version_info "
    "hexversion setrecursionlimit getrecursionlimit set_int_max_str_digits "
    "get_int_max_str_digits getsizeof exit stdin stdout stderr"
)
# Attribute names that are a capability on any object they are read from: builtins that run or
# read code, modules outside the allowlist that allowed modules hand out under public names, and
# the helpers that evaluate strings or hand out frames, members or objects by a name in a string
# (`string.Formatter().get_field`, `typing.get_type_hints` and `functools.singledispatch`, which
# eval string annotations, `inspect.getattr_static`, `pydoc.locate`, `enum.global_enum`, which
# writes into any module's globals).
CAPABILITY_ATTRIBUTES = _words(
    # builtins
    # (not `compile`: `re.compile` is everywhere, and the builtin is reachable only through the
    # refused names `builtins`/`bltns`)
    "eval exec open getattr setattr delattr globals locals vars breakpoint "
    # modules that allowed modules hand out (and the obvious ones, whatever holds them)
    "builtins bltns inspect sys os posix nt importlib types codecs contextlib copyreg warnings "
    "pydoc runpy gc ctypes subprocess io pickle marshal threading signal socket "
    # string-driven access and evaluation
    "get_field get_type_hints singledispatch singledispatchmethod getattr_static getmembers "
    "getmembers_static locate global_enum import_module reload currentframe ForwardRef "
    "getargvalues getframeinfo popen evaluate_forward_ref get_annotations "
    "call_annotate_function remote_exec monitoring call_tracing"
)

# Builtins that hand out namespaces, run strings as code or read files.
FORBIDDEN_BUILTINS = {
    "exec": "dynamic-code",
    "eval": "dynamic-code",
    "compile": "dynamic-code",
    "breakpoint": "dynamic-code",
    "vars": "namespace-access",
    "globals": "namespace-access",
    "locals": "namespace-access",
    "dir": "namespace-access",
    "help": "namespace-access",
    "open": "file-access",
}

# Attributes that walk from any object to frames, their globals, or the module table; none
# starts with an underscore, so the underscore rule alone would miss them.
INTROSPECTION_ATTRIBUTES = _words(
    "f_back f_globals f_locals f_builtins f_code tb_frame tb_next gi_frame gi_code cr_frame "
    "cr_code ag_frame ag_code exc_info exception last_traceback last_value settrace setprofile "
    "gettrace getprofile addaudithook"
)
IMPORT_TABLE_ATTRIBUTES = frozenset({"modules", "meta_path", "path_hooks", "path_importer_cache"})

ATTRIBUTE_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
ATTRIBUTE_HELPERS = frozenset({"attrgetter", "methodcaller"})  # operator.*
# Dunder names that exist without the code defining them (module globals and builtins): reading
# one always reaches the interpreter, even inside a class body that assigns it (the assignment
# may come later or be deleted, and the lookup then falls through to the real one).
_RUNTIME_DUNDERS = _words(
    "__import__ __builtins__ __build_class__ __loader__ __spec__ __file__ __cached__ "
    "__package__ __doc__ __debug__ __annotations__ __dict__ __class__ __module__ __qualname__"
)
# `if __name__ == "__main__":` is common in responses and harmless.
ALLOWED_DUNDER_NAMES = frozenset({"__name__"})

# Rules whose refusal means the code tries to reach NumPy (verdict `uses_numpy`).
NUMPY_RULES = frozenset({"numpy-import", "numpy-dynamic"})
# Rules that open a dynamic path to a module; with a string naming NumPy in the code they are
# reported as `numpy-dynamic`.
_DYNAMIC_RULES = frozenset(
    {
        "dynamic-code",
        "dunder-name",
        "forbidden-module",
        "import-table",
        "dynamic-attribute",
        "capability-attribute",
        "sys-use",
    }
)
_NUMPY_WORD = re.compile(r"numpy", re.IGNORECASE)
# str.format fields can read attributes: "{0.__class__}", "{x._data}".
_FORMAT_ATTRIBUTE = re.compile(r"\{[^{}]*\.\s*_")
_STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}
# A string that is exactly a dunder name can only serve as a computed attribute name
# (`functools.update_wrapper(box, f, assigned=("__globals__",))`); `"__main__"` is a module name.
_DUNDER_STRING = re.compile(r"__\w+__")
_ALLOWED_DUNDER_STRINGS = frozenset({"__main__"})


@dataclass(frozen=True)
class Refusal:
    rule: str  # "underscore-attribute", "numpy-import", ...
    line: int | None
    detail: str

    @property
    def numpy(self) -> bool:
        return self.rule in NUMPY_RULES


@dataclass(frozen=True)
class Scan:
    """What one walk over a response finds: the refusals, and what the official library check
    (official.py) decides on, gathered on the same walk so that grading walks the tree once."""

    refusals: list[Refusal]
    imports: list[ast.Import | ast.ImportFrom]  # every import statement
    function_calls: list[ast.Call]  # every call inside a function (def or lambda)


def check_policy(tree: ast.Module, package: str) -> Refusal | None:
    """The first refusal (in line order) for this code, or None when it may run."""
    refusals = find_refusals(tree, package)
    return refusals[0] if refusals else None


def find_refusals(tree: ast.Module, package: str) -> list[Refusal]:
    """Every refusal for this code, in line order; NumPy ones first on the same line."""
    return scan(tree, package).refusals


def scan(tree: ast.Module, package: str) -> Scan:
    """Walk the code once: its refusals (in line order, NumPy ones first on the same line), its
    imports and the calls inside its functions."""
    visitor = _PolicyVisitor(package, _sys_aliases(tree))
    visitor.visit(tree)
    refusals = visitor.refusals
    if any(r.rule in _DYNAMIC_RULES for r in refusals) and _mentions_numpy(tree):
        first = next(r for r in refusals if r.rule in _DYNAMIC_RULES)
        refusals.append(
            Refusal(
                "numpy-dynamic",
                first.line,
                f"a string naming NumPy with {first.rule}: {first.detail}",
            )
        )
    refusals.sort(key=lambda r: (r.line or 0, not r.numpy))
    return Scan(refusals, visitor.imports, visitor.function_calls)


def _sys_aliases(tree: ast.Module) -> frozenset[str]:
    """Every name `import sys [as x]` binds anywhere in the code (scopes ignored: stricter)."""
    return frozenset(
        alias.asname or alias.name
        for node in statements(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "sys"
    )


def _mentions_numpy(tree: ast.Module) -> bool:
    docstrings = _docstring_nodes(tree)
    return any(
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and _NUMPY_WORD.search(node.value)
        for node in ast.walk(tree)
    )


def _docstring_nodes(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


class _PolicyVisitor(ast.NodeVisitor):
    def __init__(self, package: str, sys_aliases: frozenset[str] = frozenset()) -> None:
        self.package = package
        self.sys_aliases = sys_aliases
        self.sys_reads: set[int] = set()  # ids of `sys` Name nodes read as `sys.<allowed>`
        self.refusals: list[Refusal] = []
        self.direct_calls: set[int] = set()  # ids of Name nodes called directly: `getattr(x, "a")`
        # Dunder names a class body defines itself, which that body may read (`__repr__ = __str__`);
        # an empty set in function bodies and at module level.
        self.class_scope: list[set[str]] = [set()]
        # For the official library check: not refusals, facts.
        self.imports: list[ast.Import | ast.ImportFrom] = []
        self.function_calls: list[ast.Call] = []
        self.function_depth = 0
        self.in_string_annotation = False  # code parsed from a string is not the response's

    # `ast.NodeVisitor` builds the method name and looks it up for every node; a table per node
    # class, and a plain loop over the fields, halve the cost of this visitor.
    _dispatch: ClassVar[dict[type, Callable[[_PolicyVisitor, ast.AST], None]]] = {}

    def visit(self, node: ast.AST) -> None:
        kind = type(node)
        method = self._dispatch.get(kind)
        if method is None:
            method = getattr(type(self), f"visit_{kind.__name__}", type(self).generic_visit)
            self._dispatch[kind] = method
        method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        for field in node._fields:  # the public list of a node's fields, despite its name
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def refuse(self, rule: str, node: ast.AST, detail: str) -> None:
        self.refusals.append(Refusal(rule, getattr(node, "lineno", None), detail))

    # -- imports -----------------------------------------------------------------------------
    def check_module(self, name: str, node: ast.AST) -> None:
        parts = name.split(".")
        top = parts[0]
        if top == "numpy":
            self.refuse("numpy-import", node, f"imports {name}")
        elif top == self.package:
            if any(p.startswith("_") for p in parts[1:]):
                self.refuse("private-import", node, f"imports the library's private {name}")
        elif any(p.startswith("_") for p in parts) and top != "__future__":
            self.refuse("private-import", node, f"imports the private module {name}")
        elif top not in _STDLIB:
            self.refuse(
                "non-stdlib-module",
                node,
                f"imports {name}: only allowed standard modules and {self.package} may be imported",
            )
        elif top not in ALLOWED_MODULES or (top == "sys" and name != "sys"):
            self.refuse("forbidden-module", node, f"imports {name}: not an allowed module")

    def visit_Import(self, node: ast.Import) -> None:
        if not self.in_string_annotation:
            self.imports.append(node)
        for alias in node.names:
            self.check_module(alias.name, node)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if not self.in_string_annotation:
            self.imports.append(node)
        if node.level or not node.module:
            self.refuse("relative-import", node, "relative imports are not allowed")
            return
        self.check_module(node.module, node)
        for alias in node.names:
            if alias.name.startswith("_") and node.module != "__future__":
                self.refuse("private-import", node, f"imports {alias.name} from {node.module}")
            elif node.module.split(".")[0] == "sys" and alias.name in IMPORT_TABLE_ATTRIBUTES:
                self.refuse("import-table", node, f"imports sys.{alias.name}")
            elif alias.name in INTROSPECTION_ATTRIBUTES and node.module == "sys":
                self.refuse("frame-introspection", node, f"imports sys.{alias.name}")
            elif alias.name in CAPABILITY_ATTRIBUTES:
                self.refuse("capability-attribute", node, f"imports {alias.name}")
            elif node.module == "sys" and alias.name not in SYS_ATTRIBUTES:
                self.refuse("sys-use", node, f"imports sys.{alias.name}")
        self.generic_visit(node)

    # -- names and attributes ----------------------------------------------------------------
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for child in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(child)
        defined = set()
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.add(statement.name)
            elif isinstance(statement, ast.Assign | ast.AnnAssign):
                targets = (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
                defined.update(t.id for t in targets if isinstance(t, ast.Name))
        self.class_scope.append(defined)
        for statement in node.body:
            self.visit(statement)
        self.class_scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        returns = getattr(node, "returns", None)
        if returns is not None:
            self.check_string_annotations(returns)
        self.class_scope.append(set())
        self.function_depth += 1
        self.generic_visit(node)
        self.function_depth -= 1
        self.class_scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if (
            name.startswith("__")
            and name.endswith("__")
            and name not in ALLOWED_DUNDER_NAMES
            and isinstance(node.ctx, ast.Load)
            and (name not in self.class_scope[-1] or name in _RUNTIME_DUNDERS)
        ):
            self.refuse("dunder-name", node, f"uses {name}")
        elif name in FORBIDDEN_BUILTINS and isinstance(node.ctx, ast.Load):
            self.refuse(FORBIDDEN_BUILTINS[name], node, f"uses {name}")
        elif (
            name in ATTRIBUTE_BUILTINS | ATTRIBUTE_HELPERS
            and isinstance(node.ctx, ast.Load)
            and id(node) not in self.direct_calls
        ):
            self.refuse("dynamic-attribute", node, f"uses {name} other than in a direct call")
        elif (
            name in self.sys_aliases
            and isinstance(node.ctx, ast.Load)
            and id(node) not in self.sys_reads
        ):
            self.refuse("sys-use", node, f"uses the sys module {name} other than sys.<constant>")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("_"):
            self.refuse("underscore-attribute", node, f"accesses .{attr}")
        elif attr in INTROSPECTION_ATTRIBUTES:
            self.refuse("frame-introspection", node, f"accesses .{attr}")
        elif attr in IMPORT_TABLE_ATTRIBUTES:
            self.refuse("import-table", node, f"accesses .{attr}")
        elif attr in ATTRIBUTE_HELPERS and id(node) not in self.direct_calls:
            self.refuse("dynamic-attribute", node, f"uses {attr} other than in a direct call")
        elif attr in CAPABILITY_ATTRIBUTES:
            self.refuse("capability-attribute", node, f"accesses .{attr}")
        value = node.value
        if isinstance(value, ast.Name) and value.id in self.sys_aliases:
            if attr in SYS_ATTRIBUTES:
                self.sys_reads.add(id(value))
            elif not attr.startswith("_") and attr not in CAPABILITY_ATTRIBUTES:
                self.refuse("sys-use", node, f"accesses {value.id}.{attr}")
            else:
                self.sys_reads.add(id(value))  # already refused under its own rule
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if self.function_depth and not self.in_string_annotation:
            self.function_calls.append(node)
        func = node.func
        name = (
            func.id
            if isinstance(func, ast.Name)
            else (func.attr if isinstance(func, ast.Attribute) else None)
        )
        if isinstance(func, ast.Name) and name in ATTRIBUTE_BUILTINS:
            self.direct_calls.add(id(func))
            self.check_attribute_name(node, node.args[1] if len(node.args) > 1 else None, name)
        elif name in ATTRIBUTE_HELPERS:
            self.direct_calls.add(id(func))
            for arg in node.args or [None]:
                self.check_attribute_name(node, arg, name)
        self.generic_visit(node)

    def check_attribute_name(self, node: ast.Call, arg: ast.AST | None, via: str) -> None:
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            self.refuse("dynamic-attribute", node, f"{via} with unpacked arguments")
        elif not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            self.refuse("dynamic-attribute", node, f"{via} with a computed attribute name")
        elif any(part.startswith("_") for part in arg.value.split(".")):
            self.refuse("underscore-attribute", node, f"{via} of {arg.value!r}")
        elif any(
            part in INTROSPECTION_ATTRIBUTES | IMPORT_TABLE_ATTRIBUTES
            for part in arg.value.split(".")
        ):
            self.refuse("frame-introspection", node, f"{via} of {arg.value!r}")
        elif any(part in CAPABILITY_ATTRIBUTES for part in arg.value.split(".")):
            self.refuse("capability-attribute", node, f"{via} of {arg.value!r}")

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str):
            return
        if _FORMAT_ATTRIBUTE.search(node.value):
            self.refuse("format-attribute", node, "a format string reading a private attribute")
        elif _DUNDER_STRING.fullmatch(node.value) and node.value not in _ALLOWED_DUNDER_STRINGS:
            self.refuse("dunder-string", node, f"the attribute name {node.value!r} as a string")

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        for attr in node.kwd_attrs:
            if attr.startswith("_") or attr in INTROSPECTION_ATTRIBUTES | IMPORT_TABLE_ATTRIBUTES:
                self.refuse("underscore-attribute", node, f"matches on attribute {attr}")
            elif attr in CAPABILITY_ATTRIBUTES:
                self.refuse("capability-attribute", node, f"matches on attribute {attr}")
        self.generic_visit(node)

    # -- annotations -------------------------------------------------------------------------
    # A string annotation is code that `typing.get_type_hints` (also inside functools) would
    # eval: it is checked as code, where it stands.
    def visit_arg(self, node: ast.arg) -> None:
        if node.annotation is not None:
            self.check_string_annotations(node.annotation)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.check_string_annotations(node.annotation)
        self.generic_visit(node)

    def check_string_annotations(self, annotation: ast.AST) -> None:
        for node in ast.walk(annotation):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    parsed = ast.parse(node.value.strip(), mode="eval")
                except (SyntaxError, ValueError):
                    continue  # cannot be evaluated either
                for inner in ast.walk(parsed):
                    if hasattr(inner, "lineno"):
                        inner.lineno = node.lineno
                outer, self.in_string_annotation = self.in_string_annotation, True
                self.visit(parsed.body)
                self.in_string_annotation = outer
                self.check_string_annotations(parsed.body)
