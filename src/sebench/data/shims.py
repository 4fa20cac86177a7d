"""Small functions the oracle translator emits at the top of translated code.

A translator cannot know statically whether `x` in `x.sum()` is an array, a list or a string, so
every NumPy array method (and attribute the library's array refuses) becomes a call of a shim that
decides at run time: a library array goes through the library's functions, anything else keeps
its own method (`list.copy`, `str.partition`, `complex.real` still work).

Sources are templates: `@name@` is replaced by the library function of NumPy's `name`
(`@ravel@` -> `zwc.bovaq`, `@linalg.matrix_transpose@` -> `zwc.rfx.xeba`), `LibArray` is the
library's array type. Shim names carry no leading underscore: graded code may not touch private
names, so the translated code must not either.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

PLACEHOLDER = re.compile(r"@([a-z_0-9.]+)@")
PREFIX = "lib_"  # shim names: `lib_sum`, `lib_tolist`, ...


@dataclass(frozen=True)
class Shim:
    name: str
    source: str  # template, see the module docstring
    needs: tuple[str, ...] = ()  # other shims it calls
    imports: tuple[str, ...] = ()  # standard modules it uses

    def library_functions(self) -> set[str]:
        return set(PLACEHOLDER.findall(self.source))


def _method(method: str, function: str | None = None) -> Shim:
    """`x.m(*a, **k)` -> `np.function(x, *a, **k)` for library arrays.

    Python scalars go through the library too: iterating or indexing a library array gives Python
    scalars where NumPy gives NumPy scalars, whose methods (`.round(2)`, `.sum()`) they lack.
    """
    return Shim(
        f"{PREFIX}{method}",
        f"""
def {PREFIX}{method}(obj, *args, **kwargs):
    if isinstance(obj, LibArray) or type(obj) in (int, float, complex, bool):
        return @{function or method}@(obj, *args, **kwargs)
    return obj.{method}(*args, **kwargs)
""",
    )


# Array methods whose NumPy function takes the array first and the same other arguments.
SAME_SIGNATURE = (
    "all",
    "any",
    "argmax",
    "argmin",
    "argpartition",
    "argsort",
    "choose",
    "clip",
    "conj",
    "conjugate",
    "copy",
    "cumprod",
    "cumsum",
    "diagonal",
    "dot",
    "max",
    "mean",
    "min",
    "nonzero",
    "prod",
    "ptp",
    "put",
    "ravel",
    "repeat",
    "round",
    "searchsorted",
    "squeeze",
    "std",
    "sum",
    "swapaxes",
    "take",
    "trace",
    "var",
)

SHIMS: dict[str, Shim] = {f"{PREFIX}{m}": _method(m) for m in SAME_SIGNATURE}

SHIMS.update(
    {
        shim.name: shim
        for shim in (
            Shim(
                f"{PREFIX}tolist",
                f"""
def {PREFIX}tolist(obj):
    if isinstance(obj, LibArray):
        if obj.ndim == 0:
            return {PREFIX}tolist(@ravel@(obj)[0])
        return [{PREFIX}tolist(item) for item in obj]
    if type(obj) in (int, float, complex, bool, str, bytes):
        return obj
    return obj.tolist()
""",
            ),
            Shim(
                f"{PREFIX}item",
                f"""
def {PREFIX}item(obj, *args):
    if isinstance(obj, LibArray):
        if not args:
            if obj.size != 1:
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            return {PREFIX}tolist(@ravel@(obj)[0])
        if len(args) == 1 and isinstance(args[0], int):
            return {PREFIX}tolist(@ravel@(obj)[args[0]])
        return {PREFIX}tolist(obj[args[0] if len(args) == 1 else tuple(args)])
    if type(obj) in (int, float, complex, bool) and not args:
        return obj
    return obj.item(*args)
""",
                needs=(f"{PREFIX}tolist",),
            ),
            Shim(
                f"{PREFIX}astype",
                f"""
def {PREFIX}astype(obj, dtype, *args, **kwargs):
    if isinstance(obj, LibArray):
        return @astype@(obj, dtype, *args, **kwargs)
    if type(obj) in (int, float, complex, bool):
        return {PREFIX}item(@asarray@(obj, dtype=dtype))
    return obj.astype(dtype, *args, **kwargs)
""",
                needs=(f"{PREFIX}item",),
            ),
            Shim(
                f"{PREFIX}reshape",
                f"""
def {PREFIX}reshape(obj, *shape, **kwargs):
    if isinstance(obj, LibArray) or type(obj) in (int, float, complex, bool):
        if len(shape) == 1:
            shape = shape[0]
        return @reshape@(obj, shape, **kwargs)
    return obj.reshape(*shape, **kwargs)
""",
            ),
            Shim(
                f"{PREFIX}transpose",
                f"""
def {PREFIX}transpose(obj, *axes):
    if isinstance(obj, LibArray) or type(obj) in (int, float, complex, bool):
        if len(axes) == 1:
            axes = axes[0]
        return @transpose@(obj, axes or None)
    return obj.transpose(*axes)
""",
            ),
            Shim(
                f"{PREFIX}flatten",
                f"""
def {PREFIX}flatten(obj, *args, **kwargs):
    if isinstance(obj, LibArray) or type(obj) in (int, float, complex, bool):
        return @copy@(@ravel@(obj, *args, **kwargs))
    return obj.flatten(*args, **kwargs)
""",
            ),
            Shim(
                f"{PREFIX}compress",
                f"""
def {PREFIX}compress(obj, condition, *args, **kwargs):
    if isinstance(obj, LibArray) or type(obj) in (int, float, complex, bool):
        return @compress@(condition, obj, *args, **kwargs)
    return obj.compress(condition, *args, **kwargs)
""",
            ),
            Shim(
                f"{PREFIX}fill",
                f"""
def {PREFIX}fill(obj, value):
    if isinstance(obj, LibArray):
        obj[...] = value
        return None
    return obj.fill(value)
""",
            ),
            Shim(
                f"{PREFIX}sort",
                f"""
def {PREFIX}sort(obj, *args, **kwargs):
    if isinstance(obj, LibArray):
        obj[...] = @sort@(obj, *args, **kwargs)
        return None
    return obj.sort(*args, **kwargs)
""",
            ),
            Shim(
                f"{PREFIX}partition",
                f"""
def {PREFIX}partition(obj, *args, **kwargs):
    if isinstance(obj, LibArray):
        obj[...] = @partition@(obj, *args, **kwargs)
        return None
    return obj.partition(*args, **kwargs)
""",
            ),
            # attributes the library's array refuses
            Shim(
                f"{PREFIX}real",
                f"""
def {PREFIX}real(obj):
    if isinstance(obj, LibArray):
        return @real@(obj)
    return obj.real
""",
            ),
            Shim(
                f"{PREFIX}imag",
                f"""
def {PREFIX}imag(obj):
    if isinstance(obj, LibArray):
        return @imag@(obj)
    return obj.imag
""",
            ),
            Shim(
                f"{PREFIX}flat",
                f"""
def {PREFIX}flat(obj):
    if isinstance(obj, LibArray):
        return @ravel@(obj)
    return obj.flat
""",
            ),
            Shim(
                f"{PREFIX}mT",
                f"""
def {PREFIX}mT(obj):
    if isinstance(obj, LibArray):
        return @linalg.matrix_transpose@(obj)
    return obj.mT
""",
            ),
            Shim(
                f"{PREFIX}itemsize",
                f"""
def {PREFIX}itemsize(obj):
    if isinstance(obj, LibArray) or type(obj) in (int, float, complex, bool):
        return @asarray@(obj).dtype.itemsize
    return obj.itemsize
""",
            ),
            Shim(
                f"{PREFIX}nbytes",
                f"""
def {PREFIX}nbytes(obj):
    if isinstance(obj, LibArray) or type(obj) in (int, float, complex, bool):
        return @asarray@(obj).size * @asarray@(obj).dtype.itemsize
    return obj.nbytes
""",
            ),
            # attributes NumPy scalars have and the Python scalars the library returns lack
            Shim(
                f"{PREFIX}ndim",
                f"""
def {PREFIX}ndim(obj):
    return 0 if type(obj) in (int, float, complex, bool) else obj.ndim
""",
            ),
            Shim(
                f"{PREFIX}shape",
                f"""
def {PREFIX}shape(obj):
    return () if type(obj) in (int, float, complex, bool) else obj.shape
""",
            ),
            Shim(
                f"{PREFIX}size",
                f"""
def {PREFIX}size(obj):
    return 1 if type(obj) in (int, float, complex, bool) else obj.size
""",
            ),
            Shim(
                f"{PREFIX}dtype_of",
                f"""
def {PREFIX}dtype_of(obj):
    if type(obj) in (int, float, complex, bool):
        return @asarray@(obj).dtype
    return obj.dtype
""",
            ),
            # NumPy scalar types: the library's arrays hand out neither NumPy scalars nor scalar
            # classes (a dtype has no `.type`), so a scalar type used as a value is the library's
            # dtype of that name (`dtype=np.int64`, `x.dtype == np.int64`), a call converts to a
            # Python scalar of that dtype, and `isinstance` checks the Python type's dtype kind
            Shim(
                f"{PREFIX}scalar_type",
                f"""
def {PREFIX}scalar_type(name):
    return @zeros@(0, dtype=name).dtype
""",
            ),
            Shim(
                f"{PREFIX}scalar",
                f"""
def {PREFIX}scalar(name, *args):
    return @asarray@(args[0] if args else 0, dtype=name)[()]
""",
            ),
            Shim(
                f"{PREFIX}isinstance",
                f"""
def {PREFIX}isinstance(obj, types, names):
    if isinstance(obj, types):
        return True
    # a display, not a variable: the grader's policy lets `type(obj)` reach no code of the program
    kind = {{bool: "b", int: "iu", float: "f", complex: "c", str: "U", bytes: "S"}}.get(type(obj))
    return kind is not None and any(@zeros@(0, dtype=n).dtype.kind in kind for n in names)
""",
            ),
            Shim(
                f"{PREFIX}dtype",
                f"""
def {PREFIX}dtype(spec, *args, **kwargs):
    return @zeros@(0, dtype=spec).dtype
""",
            ),
            # ufunc methods (`np.lcm.reduce(x)`): the library's functions are plain functions
            Shim(
                f"{PREFIX}ufunc_reduce",
                f"""
def {PREFIX}ufunc_reduce(func, array, axis=0, **kwargs):
    items = @asarray@(array)
    if axis is None:
        items = @ravel@(items)
    elif axis != 0:
        items = @moveaxis@(items, axis, 0)
    items = list(items)
    if "initial" in kwargs:
        items.insert(0, kwargs.pop("initial"))
    if kwargs:
        raise TypeError("reduce: unsupported arguments " + ", ".join(kwargs))
    return functools.reduce(func, items)
""",
                imports=("functools",),
            ),
            Shim(
                f"{PREFIX}ufunc_accumulate",
                f"""
def {PREFIX}ufunc_accumulate(func, array, axis=0):
    items = @asarray@(array)
    if axis != 0:
        items = @moveaxis@(items, axis, 0)
    results = []
    for item in items:
        results.append(item if not results else func(results[-1], item))
    stacked = @stack@(results)
    return stacked if axis == 0 else @moveaxis@(stacked, 0, axis)
""",
            ),
            Shim(
                f"{PREFIX}ufunc_outer",
                f"""
def {PREFIX}ufunc_outer(func, first, second):
    first = @asarray@(first)
    second = @asarray@(second)
    return func(@reshape@(first, first.shape + (1,) * second.ndim), second)
""",
            ),
        )
    }
)


def _binary(name: str, function: str, operator: str, guard: str = "") -> Shim:
    """`left <op> right` -> `np.function(left, right)` when either side is a library array."""
    return Shim(
        f"{PREFIX}{name}",
        f"""
def {PREFIX}{name}(left, right):
    if (isinstance(left, LibArray) or isinstance(right, LibArray)){guard}:
        return @{function}@(left, right)
    return left {operator} right
""",
    )


def _unary(name: str, function: str, operator: str) -> Shim:
    return Shim(
        f"{PREFIX}{name}",
        f"""
def {PREFIX}{name}(operand):
    if isinstance(operand, LibArray):
        return @{function}@(operand)
    return {operator}operand
""",
    )


def _convert(builtin: str) -> Shim:
    """`float(x)` and co.: the library's array has no `__float__`. `x[()]` is the Python scalar of
    a 0-d array and the array itself otherwise, so only 0-d arrays convert, as in NumPy 2."""
    return Shim(
        f"{PREFIX}py_{builtin}",
        f"""
def {PREFIX}py_{builtin}(*args, **kwargs):
    if args and isinstance(args[0], LibArray):
        return {builtin}(args[0][()], *args[1:], **kwargs)
    return {builtin}(*args, **kwargs)
""",
    )


# Operators the library's array does not implement (it has + - * / ** and comparisons only).
BINARY_OPERATORS: dict[type, Shim] = {
    ast.FloorDiv: _binary("floor_divide", "floor_divide", "//"),
    # `"%d" % arr` is string formatting, never NumPy's remainder
    ast.Mod: _binary("remainder", "remainder", "%", " and not isinstance(left, (str, bytes))"),
    ast.MatMult: _binary("matmul", "matmul", "@"),
    ast.BitAnd: _binary("bitwise_and", "bitwise_and", "&"),
    ast.BitOr: _binary("bitwise_or", "bitwise_or", "|"),
    ast.BitXor: _binary("bitwise_xor", "bitwise_xor", "^"),
    ast.LShift: _binary("left_shift", "left_shift", "<<"),
    ast.RShift: _binary("right_shift", "right_shift", ">>"),
}
UNARY_OPERATORS: dict[type, Shim] = {
    ast.USub: _unary("negative", "negative", "-"),
    ast.UAdd: _unary("positive", "positive", "+"),
    ast.Invert: _unary("invert", "invert", "~"),
}
BUILTIN_SHIMS: dict[str, Shim] = {name: _convert(name) for name in ("float", "int", "complex")}
BUILTIN_SHIMS["abs"] = Shim(
    f"{PREFIX}py_abs",
    f"""
def {PREFIX}py_abs(value):
    if isinstance(value, LibArray):
        return @absolute@(value)
    return abs(value)
""",
)
for _shim in (*BINARY_OPERATORS.values(), *UNARY_OPERATORS.values(), *BUILTIN_SHIMS.values()):
    SHIMS[_shim.name] = _shim


# `x.method(...)` -> shim, for every NumPy array method the translator rewrites
METHOD_SHIMS: dict[str, str] = {
    method: f"{PREFIX}{method}"
    for method in SAME_SIGNATURE
    + (
        "astype",
        "tolist",
        "item",
        "reshape",
        "transpose",
        "flatten",
        "compress",
        "fill",
        "sort",
        "partition",
    )
}
# `x.attribute` -> shim(x)
ATTRIBUTE_SHIMS: dict[str, str] = {
    attr: f"{PREFIX}{attr}"
    for attr in ("real", "imag", "flat", "mT", "itemsize", "nbytes", "ndim", "shape", "size")
}
ATTRIBUTE_SHIMS["dtype"] = f"{PREFIX}dtype_of"
UFUNC_METHOD_SHIMS: dict[str, str] = {
    method: f"{PREFIX}ufunc_{method}" for method in ("reduce", "accumulate", "outer")
}


def closure(names: set[str]) -> list[str]:
    """The shims named and every shim they need, in a stable order (dependencies first)."""
    ordered: list[str] = []

    def add(name: str) -> None:
        if name in ordered:
            return
        for dependency in SHIMS[name].needs:
            add(dependency)
        ordered.append(name)

    for name in sorted(names):
        add(name)
    return ordered
