"""The oracle translator: NumPy code -> code for a library built by the engine, and back.

`to_library` rewrites a NumPy solution on its syntax tree:
- every import form of NumPy (`import numpy as np`, `from numpy import mean`,
  `from numpy import linalg as LA`, `from numpy.linalg import inv`) is removed and every use of a
  NumPy function becomes the library's name (`np.mean` -> `zwc.kocito`,
  `np.linalg.inv` -> `zwc.rfx.quvohe`), NumPy's own aliases included (`np.concat`,
  `np.matrix_transpose`);
- array methods and attributes the library's array refuses (`.sum()`, `.tolist()`, `.real`, ...)
  become calls of shims (see `shims.py`) that dispatch at run time;
- constants and types the library lacks become plain Python (`np.pi` -> `math.pi`,
  `np.newaxis` -> `None`) or run-time equivalents (`np.float64` -> the library's dtype
  float64, `np.float64(x)` -> a Python scalar of that dtype, `isinstance(x, np.integer)` -> a
  check of the Python type's kind, `np.ndarray` -> the library's array type).
Anything it cannot translate faithfully (`np.random`, `np.errstate`, ...) yields `code=None` and
the reasons, never broken code.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Protocol

from sebench.data import shims

ARRAY_TYPE = "LibArray"
_CONSTANTS: dict[str, ast.expr] = {
    "pi": ast.parse("math.pi", mode="eval").body,
    "e": ast.parse("math.e", mode="eval").body,
    "inf": ast.parse("math.inf", mode="eval").body,
    "Inf": ast.parse("math.inf", mode="eval").body,
    "infty": ast.parse("math.inf", mode="eval").body,
    "PINF": ast.parse("math.inf", mode="eval").body,
    "NINF": ast.parse("-math.inf", mode="eval").body,
    "nan": ast.parse("math.nan", mode="eval").body,
    "NaN": ast.parse("math.nan", mode="eval").body,
    "NAN": ast.parse("math.nan", mode="eval").body,
    "euler_gamma": ast.Constant(0.5772156649015329),
    "newaxis": ast.Constant(None),
    "True_": ast.Constant(True),
    "False_": ast.Constant(False),
}
# NumPy exceptions that are subclasses of these builtins; `except` clauses still catch them
_EXCEPTIONS = {
    "linalg.LinAlgError": "ValueError",
    "AxisError": "ValueError",
    "exceptions.AxisError": "ValueError",
}
_EQUIVALENTS = {
    "concat": "concatenate",
    "round_": "round",
    "product": "prod",
    "cumproduct": "cumprod",
    "alltrue": "all",
    "sometrue": "any",
    "row_stack": "vstack",
    "trapezoid": "trapz",
    "asfarray": None,
}


class NameTableLike(Protocol):
    """What the translator needs of `sebench.library.table.NameTable`."""

    package: str

    def numpy_to_library(self) -> dict[str, str]: ...

    def library_to_numpy(self) -> dict[str, str]: ...

    @property
    def constructor(self) -> str: ...


@dataclass(frozen=True)
class Translation:
    code: str | None  # None when some construct could not be translated
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.code is not None


def to_library(numpy_code: str, table: NameTableLike) -> Translation:
    """Translate a NumPy solution into code that uses only the library of `table`."""
    try:
        tree = ast.parse(numpy_code)
    except SyntaxError as exc:
        return Translation(None, [f"the NumPy code does not parse (line {exc.lineno}: {exc.msg})"])
    rewriter = _ToLibrary(_numpy_bindings(tree), table)
    tree = rewriter.visit(tree)
    if rewriter.problems:
        return Translation(None, sorted(set(rewriter.problems)))
    _fill_empty_bodies(tree)
    header, missing = _header(rewriter, table)
    if missing:
        return Translation(None, missing)
    # Shim functions go after the code when nothing at module level calls them: the official
    # rules run the first `def` of a program, which must stay the task's function.
    definitions = [node for node in header if isinstance(node, ast.FunctionDef)]
    if definitions and not _names_run_at_import(tree) & {node.name for node in definitions}:
        header = [node for node in header if not isinstance(node, ast.FunctionDef)]
        tree.body.extend(definitions)
    tree.body[_insert_at(tree) : _insert_at(tree)] = header
    ast.fix_missing_locations(tree)
    code = ast.unparse(tree) + "\n"
    ast.parse(code)  # what we emit must parse; a failure here is a translator bug
    return Translation(code, [])


def to_numpy(library_code: str, table: NameTableLike) -> Translation:
    """Translate library code back to NumPy (for reading failed responses); unknown names are
    kept and listed in `problems`."""
    try:
        tree = ast.parse(library_code)
    except SyntaxError as exc:
        return Translation(None, [f"the code does not parse (line {exc.lineno}: {exc.msg})"])
    rewriter = _ToNumpy(table)
    rewriter.collect(tree)
    tree = rewriter.visit(tree)
    _fill_empty_bodies(tree)
    if rewriter.used:
        tree.body[_insert_at(tree) : _insert_at(tree)] = [ast.parse("import numpy as np").body[0]]
    ast.fix_missing_locations(tree)
    return Translation(ast.unparse(tree) + "\n", sorted(set(rewriter.problems)))


# -- NumPy -> library ----------------------------------------------------------------------


def _numpy_bindings(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted NumPy path it is bound to by an import (`np` -> `numpy`)."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_numpy(alias.name):
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[alias.name.split(".")[0]] = "numpy"
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and _is_numpy(node.module)
        ):
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _bound_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names


def as_load(target: ast.expr) -> ast.expr:
    """A copy of an assignment target that reads it instead."""
    import copy

    loaded = copy.deepcopy(target)
    for node in ast.walk(loaded):
        if hasattr(node, "ctx"):
            node.ctx = ast.Load()
    return loaded


def _is_numpy(module: str) -> bool:
    return module == "numpy" or module.startswith("numpy.")


def _numpy_object(path: str) -> Any:
    """The real NumPy object at a dotted path, or None."""
    import importlib

    import numpy

    obj: Any = numpy
    for part in path.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(f"{obj.__name__}.{part}")
            except (ImportError, AttributeError):
                return None
    return obj


def _is_module(path: str) -> bool:
    import types

    return path == "numpy" or isinstance(_numpy_object(path), types.ModuleType)


def _short(path: str) -> str:
    return "np" + path.removeprefix("numpy")


def _dotted(qualified: str) -> ast.expr:
    parts = qualified.split(".")
    node: ast.expr = ast.Name(parts[0], ast.Load())
    for part in parts[1:]:
        node = ast.Attribute(node, part, ast.Load())
    return node


def _call(name: str, *args: ast.expr, keywords: list[ast.keyword] | None = None) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), list(args), keywords or [])


class _ToLibrary(ast.NodeTransformer):
    def __init__(self, bindings: dict[str, str], table: NameTableLike) -> None:
        self.bindings = bindings
        self.mapping = table.numpy_to_library()
        self.problems: list[str] = []
        self.shims: set[str] = set()
        self.modules: set[str] = set()  # standard modules the rewritten code needs
        self.uses_array_type = False
        self.rebound: set[str] = set()  # builtins the code rebinds (`def round(...)`)
        self.rebound_names: set[str] = set()  # every name the code binds

    def visit_Module(self, node: ast.Module) -> ast.AST:
        self.rebound_names = _bound_names(node)
        self.rebound = self.rebound_names & set(shims.BUILTIN_SHIMS)
        self.generic_visit(node)
        return node

    # imports of NumPy disappear; the library import is added once at the top
    def visit_Import(self, node: ast.Import) -> ast.AST | None:
        kept = [alias for alias in node.names if not _is_numpy(alias.name)]
        if len(kept) == len(node.names):
            return node
        return ast.Import(kept) if kept else None

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | None:
        if node.module and node.level == 0 and _is_numpy(node.module):
            if any(alias.name == "*" for alias in node.names):
                self.problems.append(
                    f"`from {node.module} import *` cannot be translated; name the functions"
                )
            return None
        return node

    def path_of(self, node: ast.expr) -> str | None:
        """The dotted NumPy path an expression names (`np.linalg.inv` -> `numpy.linalg.inv`)."""
        if isinstance(node, ast.Name):
            return self.bindings.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.path_of(node.value)
            if base is not None and _is_module(base):
                return f"{base}.{node.attr}"
        return None

    def visit_Name(self, node: ast.Name) -> ast.AST:
        path = self.bindings.get(node.id)
        if path is None:
            return node
        if not isinstance(node.ctx, ast.Load):
            self.problems.append(f"the name `{node.id}` is bound to NumPy and reassigned")
            return node
        return self.expression_for(path)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        path = self.path_of(node)
        if path is not None:
            return self.expression_for(path)
        base = self.path_of(node.value)
        if base is not None:  # an attribute of a NumPy function: `np.add.reduce` as a value
            self.problems.append(
                f"`{_short(base)}.{node.attr}` is used as a value; only calls "
                "of ufunc methods are translated"
            )
            return node
        if isinstance(node.ctx, ast.Load) and node.attr in shims.ATTRIBUTE_SHIMS:
            return self.shim(shims.ATTRIBUTE_SHIMS[node.attr], self.visit(node.value))
        self.generic_visit(node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        special = self.scalar_type_call(node)
        if special is not None:
            return special
        args = [self.visit(arg) for arg in node.args]
        keywords = [self.visit(keyword) for keyword in node.keywords]
        if isinstance(func, ast.Attribute) and self.path_of(func) is None:
            base = self.path_of(func.value)
            if base is not None and func.attr in shims.UFUNC_METHOD_SHIMS:
                library_function = self.expression_for(base)
                return self.shim(
                    shims.UFUNC_METHOD_SHIMS[func.attr], library_function, *args, keywords=keywords
                )
            if base is None and func.attr in shims.METHOD_SHIMS:
                return self.shim(
                    shims.METHOD_SHIMS[func.attr], self.visit(func.value), *args, keywords=keywords
                )
        if (
            isinstance(func, ast.Name)
            and func.id in shims.BUILTIN_SHIMS
            and func.id not in self.rebound
        ):
            return self.shim(shims.BUILTIN_SHIMS[func.id].name, *args, keywords=keywords)
        return ast.Call(self.visit(func), args, keywords)

    def scalar_names(self, node: ast.expr) -> list[str] | None:
        """The dtype names when `node` names a NumPy scalar type (`np.float64`, `np.integer`)."""
        path = self.path_of(node)
        return None if path is None else _scalar_types(path.removeprefix("numpy."))

    def scalar_type_call(self, node: ast.Call) -> ast.AST | None:
        """`np.float64(x)` and `isinstance(x, np.integer)`: the library gives Python scalars, so
        these become a conversion to a Python scalar and a check of the Python type's kind."""
        names = self.scalar_names(node.func)
        if names is not None and not node.keywords and len(names) == 1:
            args = [self.visit(arg) for arg in node.args]
            return self.shim(f"{shims.PREFIX}scalar", ast.Constant(names[0]), *args)
        if not (
            isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and "isinstance" not in self.rebound_names
            and len(node.args) == 2
            and not node.keywords
        ):
            return None
        classes = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        scalar = [self.scalar_names(c) for c in classes]
        if all(names is None for names in scalar):
            return None
        others = [self.visit(c) for c, names in zip(classes, scalar, strict=True) if names is None]
        if isinstance(node.args[0], ast.Constant):  # a literal is never a NumPy scalar
            return ast.Call(node.func, [node.args[0], ast.Tuple(others, ast.Load())], [])
        # any other Python scalar may be one the library returned where NumPy returned a NumPy
        # scalar: it counts as an instance of the types of its kind (`len(x)` does too)
        names = sorted({n for found in scalar if found is not None for n in found})
        return self.shim(
            f"{shims.PREFIX}isinstance",
            self.visit(node.args[0]),
            ast.Tuple(others, ast.Load()),
            ast.Tuple([ast.Constant(n) for n in names], ast.Load()),
        )

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        left, right = self.visit(node.left), self.visit(node.right)
        operator = shims.BINARY_OPERATORS.get(type(node.op))
        if operator is None:
            return ast.BinOp(left, node.op, right)
        return self.shim(operator.name, left, right)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        operand = self.visit(node.operand)
        operator = shims.UNARY_OPERATORS.get(type(node.op))
        if operator is None or isinstance(operand, ast.Constant):  # `-1` stays a literal
            return ast.UnaryOp(node.op, operand)
        return self.shim(operator.name, operand)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        operator = shims.BINARY_OPERATORS.get(type(node.op))
        if operator is None:
            self.generic_visit(node)
            return node
        # `a[i] //= 2` -> `a[i] = lib_floor_divide(a[i], 2)` (the array has no in-place operators)
        target = self.visit(node.target)
        current = as_load(target)
        return ast.Assign([target], self.shim(operator.name, current, self.visit(node.value)))

    def shim(
        self, name: str, *args: ast.expr, keywords: list[ast.keyword] | None = None
    ) -> ast.Call:
        self.shims.add(name)
        self.uses_array_type = True
        return _call(name, *args, keywords=keywords)

    def expression_for(self, path: str) -> ast.expr:
        """What replaces a use of the NumPy object at `path`."""
        if path in ("numpy", "numpy.linalg"):
            self.problems.append(f"the module `{_short(path)}` itself is used as a value")
            return ast.Constant(None)
        key = path.removeprefix("numpy.")
        library_name = self.library_name(key)
        if library_name is not None:
            return _dotted(library_name)
        if key in _CONSTANTS:
            if "math" in ast.unparse(_CONSTANTS[key]):
                self.modules.add("math")
            return _CONSTANTS[key]
        if key in _EXCEPTIONS:
            return ast.Name(_EXCEPTIONS[key], ast.Load())
        if key == "ndarray":
            self.uses_array_type = True
            return ast.Name(ARRAY_TYPE, ast.Load())
        if key == "dtype":
            self.shims.add(f"{shims.PREFIX}dtype")
            return ast.Name(f"{shims.PREFIX}dtype", ast.Load())
        scalar = _scalar_types(key)
        if scalar is not None:
            self.shims.add(f"{shims.PREFIX}scalar_type")
            calls = [_call(f"{shims.PREFIX}scalar_type", ast.Constant(name)) for name in scalar]
            return calls[0] if len(calls) == 1 else ast.Tuple(calls, ast.Load())
        if "." in key and not key.startswith("linalg."):
            self.problems.append(
                f"`{_short(path)}`: the library has no counterpart of numpy.{key.split('.')[0]}"
            )
        elif _numpy_object(path) is None:
            self.problems.append(f"`{_short(path)}` does not exist in NumPy")
        else:
            self.problems.append(f"`{_short(path)}` has no counterpart in the library")
        return ast.Constant(None)

    def library_name(self, key: str) -> str | None:
        """The qualified library name of NumPy's `key` (`mean`, `linalg.inv`), aliases included."""
        if key in self.mapping:
            return self.mapping[key]
        equivalent = _EQUIVALENTS.get(key)
        if equivalent is not None and equivalent in self.mapping:
            return self.mapping[equivalent]
        # the same function under the other namespace (`np.matrix_transpose` is in linalg only)
        other = key.removeprefix("linalg.") if key.startswith("linalg.") else f"linalg.{key}"
        if other in self.mapping and _numpy_object(f"numpy.{key}") is not None:
            return self.mapping[other]
        return None


def _scalar_types(key: str) -> list[str] | None:
    """Dtype names of a NumPy scalar type (`float64` -> [float64]; `floating` -> all floats)."""
    import numpy

    obj = getattr(numpy, key, None) if "." not in key else None
    if not isinstance(obj, type) or not issubclass(obj, numpy.generic):
        return None
    try:
        return [numpy.dtype(obj).name]
    except TypeError:  # abstract: every concrete scalar type below it
        concrete = {
            t for t in numpy.sctypeDict.values() if isinstance(t, type) and issubclass(t, obj)
        }
        names = set()
        for scalar in concrete:
            try:
                names.add(numpy.dtype(scalar).name)
            except TypeError:
                continue
        return sorted(names)


def _header(rewriter: _ToLibrary, table: NameTableLike) -> tuple[list[ast.stmt], list[str]]:
    """Imports, the array type and the shims the rewritten code needs."""
    mapping = table.numpy_to_library()
    names = shims.closure(rewriter.shims)
    missing = sorted(
        {
            f"the library lacks numpy.{fn}, needed to translate `{shim}`"
            for shim in names
            for fn in shims.SHIMS[shim].library_functions()
            if fn not in mapping
        }
    )
    if missing:
        return [], missing
    modules = set(rewriter.modules)
    for name in names:
        modules.update(shims.SHIMS[name].imports)
    lines = [f"import {table.package}"] + [f"import {module}" for module in sorted(modules)]
    if rewriter.uses_array_type or names:
        lines.append(f"{ARRAY_TYPE} = {table.package}.ZWCArray")
    for name in names:
        source = shims.SHIMS[name].source
        lines.append(
            shims.PLACEHOLDER.sub(lambda m: mapping[m.group(1)], source).replace(
                "LibArray", ARRAY_TYPE
            )
        )
    return ast.parse("\n".join(lines)).body, []


def _names_run_at_import(tree: ast.Module) -> set[str]:
    """Names read by what runs when the module is executed: everything but function bodies
    (decorators and defaults run; a class body runs, its methods' bodies do not)."""
    names: set[str] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            arguments = node.args
            pending.extend(arguments.defaults + [d for d in arguments.kw_defaults if d])
            pending.extend(getattr(node, "decorator_list", []))
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
        pending.extend(ast.iter_child_nodes(node))
    return names


def _fill_empty_bodies(tree: ast.AST) -> None:
    """A block left empty by a removed import (`try: import numpy`) gets a `pass`."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module) and getattr(node, "body", None) == []:
            node.body = [ast.Pass()]


def _insert_at(tree: ast.Module) -> int:
    """After the module docstring and `from __future__` imports."""
    index = 0
    body = tree.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        index = 1
    while (
        index < len(body)
        and isinstance(body[index], ast.ImportFrom)
        and body[index].module == "__future__"
    ):
        index += 1
    return index


# -- library -> NumPy ----------------------------------------------------------------------


class _ToNumpy(ast.NodeTransformer):
    def __init__(self, table: NameTableLike) -> None:
        self.package = table.package
        self.reverse = table.library_to_numpy()
        self.submodules = {name.rsplit(".", 1)[0] for name in self.reverse if name.count(".") > 1}
        self.bindings: dict[str, str] = {}
        self.problems: list[str] = []
        self.used = False

    def collect(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if self._ours(alias.name):
                        if alias.asname:
                            self.bindings[alias.asname] = alias.name
                        else:
                            self.bindings[alias.name.split(".")[0]] = self.package
            elif isinstance(node, ast.ImportFrom) and node.module and self._ours(node.module):
                for alias in node.names:
                    self.bindings[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def _ours(self, module: str) -> bool:
        return module == self.package or module.startswith(f"{self.package}.")

    def visit_Import(self, node: ast.Import) -> ast.AST:
        kept = [alias for alias in node.names if not self._ours(alias.name)]
        return node if len(kept) == len(node.names) else (ast.Import(kept) if kept else None)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | None:
        return None if node.module and self._ours(node.module) else node

    def path_of(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self.bindings.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.path_of(node.value)
            if base is not None and (base == self.package or base in self.submodules):
                return f"{base}.{node.attr}"
        return None

    def visit_Name(self, node: ast.Name) -> ast.AST:
        path = self.bindings.get(node.id)
        return node if path is None else self.expression_for(path, node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        path = self.path_of(node)
        if path is not None:
            return self.expression_for(path, node)
        self.generic_visit(node)
        return node

    def expression_for(self, path: str, node: ast.expr) -> ast.expr:
        self.used = True
        if path == self.package:
            return ast.Name("np", ast.Load())
        if path in self.submodules:
            return _dotted("np.linalg")
        if path in self.reverse:
            return _dotted(f"np.{self.reverse[path]}")
        if path == f"{self.package}.ZWCArray":
            return _dotted("np.ndarray")
        self.problems.append(f"`{path}` is not a name of the library")
        return node


__all__ = ["Translation", "to_library", "to_numpy"]
