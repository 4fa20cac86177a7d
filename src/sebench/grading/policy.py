"""The static policy: code is refused before it runs, each refusal under a named rule.

What it protects against: reaching NumPy (or anything NumPy-backed) behind the library, and the
interpreter tricks that open a way to it or to the grader (private names, dunder attributes,
frames, dynamic attribute and namespace access, dynamic code, import machinery). It works on the
syntax tree only, so it cannot see what a string turns into at run time; that is why every
dynamic path (exec/eval/compile, `__import__`, `importlib`, `getattr` with a computed name,
`sys.modules`) is refused outright instead of inspected.

It is an allow-list at every level where a deny-list kept losing: the modules code may import,
the names it may take from the modules that offer reflective tools (`operator`, `functools`,
`dataclasses`, `string`, `enum`, `abc`, `copy`, `typing`), the classes a class may derive from,
the decorators, and the special methods a class may define. Meta-programming, the way an
attribute gets read by a name computed at run time, has no honest use in a solution and is
refused whole: metaclasses and class keywords, class patterns in `match` on user classes,
`type()` other than asking an object's type, `str.format` on anything but a literal,
`format_map`, star imports, and special methods other than a short honest list (`__getattr__`,
`__get__`, `__set_name__`, `__init_subclass__`, `__class_getitem__`, `__match_args__`, enum
hooks such as `_missing_`, ...). What it does not protect against:
resource abuse, files, processes, network and signals, which the sandbox handles at run time, and
whatever the library itself exposes under public names.
"""

from __future__ import annotations

import _string
import ast
import builtins
import functools
import importlib.util
import pkgutil
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import ClassVar

from sebench.data.translate import as_load
from sebench.grading.statements import statements


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The only modules code may import (besides the library): pure computation, checked one by one
# for public attributes that lead elsewhere (`enum.bltns` is `builtins`, `dataclasses.inspect`,
# `typing.sys`, `json.codecs`, ...); those names are refused on any object by
# CAPABILITY_ATTRIBUTES, and tests/grading/test_policy.py walks every public path from these
# modules to prove it. Everything else, stdlib or not, is refused: an allowlist cannot miss a
# module that hands out `eval` or `sys.modules` (`pydoc.locate`, `rlcompleter.inspect`, ...).
# Submodules of an allowed package are allowed (`collections.abc`, `json.decoder`). Not `array`:
# in Python 3.11 its item assignment converts the value (the program's `__float__`) after the
# bound check and writes where the index was, however far the conversion shrank the array (a
# red team's, OE: forged objects, the mapping read from memory, `correct` knowing no name).
ALLOWED_MODULES = _words(
    "__future__ abc bisect cmath collections copy dataclasses datetime decimal enum "
    "fractions functools heapq itertools json keyword math numbers operator random re "
    "statistics string struct textwrap time typing unicodedata sys"
)
# The submodules of those packages that may be imported, by their full names: any other (a
# red team's `json.tool`, which imports `argparse`, an engine that sets attributes named by
# strings) is a module of its own, not vetted by being its package's.
ALLOWED_SUBMODULES = _words("collections.abc json.decoder json.encoder json.scanner")


def names_module(dotted: str) -> bool:
    """Whether `dotted` (`collections.abc`, `statistics.math`, `json`) is a module object: an
    allowed module, or a module reached from one by attributes."""
    return module_name(dotted) is not None


# bounded: its keys come from the programs' text, and a grader lives for a whole RL run (a red
# team's 4,700 new `math.q0_1` reads a sample grew the grader by 0.5 MB a sample)
@functools.lru_cache(maxsize=4096)
def module_name(dotted: str) -> str | None:
    """The name of the module `dotted` is (`functools` for `re.functools`), None when it is no
    module: see `names_module`. The allowed modules are imported here to look (standard
    modules that solutions import anyway)."""
    top, *rest = dotted.split(".")
    if top not in ALLOWED_MODULES:
        return None
    try:
        value: object = importlib.import_module(top)
    except ImportError:
        return None
    for name in rest:
        if not isinstance(value, ModuleType):
            return None
        # the namespace itself, never `getattr`: a module's `__getattr__` could run code
        found = vars(value).get(name)
        if found is None and f"{value.__name__}.{name}" in _SUBMODULES:
            # a submodule is an attribute of its package once something imported it: in this
            # process or not, which made `m = json.tool` refused in one grader and run in
            # another (a red team's, NY): looked at as imported, whoever grades
            found = importlib.import_module(f"{value.__name__}.{name}")
        value = found
    return value.__name__ if isinstance(value, ModuleType) else None


def _submodules(packages: frozenset[str]) -> frozenset[str]:
    """The full names of the submodules of those of `packages` that are packages."""
    found = set()
    for name in packages:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or ()) if spec else ():
            found.update(f"{name}.{module.name}" for module in pkgutil.iter_modules([location]))
    return frozenset(found)


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
    "call_annotate_function remote_exec monitoring call_tracing "
    # a class's method resolution order: `typing.Type.mro` hands on `type`'s own `mro`
    "mro "
    # the system clock, read in C (`datetime.datetime.now`, `utcnow`): a coin a program can
    # toss once per run to answer its perturbed reruns differently; the `time` module's clock
    # is a virtual one in the sandbox (sandbox/determinism.py), this one cannot be
    "now utcnow "
    # `time` functions taking a clock id, which glibc reads as a pointer for a thread's clock
    # (an arbitrary read of the child's memory) or which tell whether a pid exists
    "pthread_getcpuclockid clock_getres clock_settime clock_settime_ns"
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
    "gettrace getprofile addaudithook "
    # an AttributeError's `obj`: the object a failed lookup was made on, whatever code made it
    # (a red team's module and bound method, from inside the standard library)
    "obj"
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

# Names that modules with reflective tools may hand out; any other name of these modules
# (`operator.attrgetter` under another name, `string.Formatter`, `functools.update_wrapper`,
# `dataclasses.make_dataclass`, `enum.EnumMeta`, `abc.ABCMeta`, `typing.get_type_hints`, ...)
# is refused under `reflective-name`, imported or read. `attrgetter`/`methodcaller` stay, for
# direct calls with a literal name only (`dynamic-attribute`), and never under another name.
REFLECTIVE_MODULE_NAMES: dict[str, frozenset[str]] = {
    # not `setitem`: a store that does not go through the child's store guard (stores.py)
    "operator": _words(
        "abs add and_ attrgetter concat contains countOf delitem eq floordiv ge getitem gt iadd "
        "iand iconcat ifloordiv ilshift imatmul imod imul index indexOf inv invert ior ipow "
        "irshift is_ is_not isub itemgetter itruediv ixor le length_hint lshift lt matmul "
        "methodcaller mod mul ne neg not_ or_ pos pow rshift sub truediv truth xor"
    ),
    "functools": _words(
        "cache cached_property cmp_to_key lru_cache partial reduce total_ordering wraps"
    ),
    # not `fields`: its `Field` objects' `name` is what `replace` and `asdict` read from an
    # object by name, and a program can rewrite it (a red team's computed getattr)
    "dataclasses": _words(
        "dataclass field asdict astuple replace is_dataclass FrozenInstanceError "
        "InitVar KW_ONLY MISSING"
    ),
    "string": _words(
        "Template ascii_letters ascii_lowercase ascii_uppercase capwords digits hexdigits "
        "octdigits printable punctuation whitespace"
    ),
    "enum": _words("Enum IntEnum StrEnum Flag IntFlag auto unique"),
    "abc": _words("ABC abstractmethod"),
    "copy": _words("copy deepcopy Error error"),
    # not `get_origin` and `get_args`: they hand out what a generic alias was made from,
    # `type` itself from `typing.Type[int]` (a red team's way to a class that reads any attribute)
    "typing": _words(
        "Any AbstractSet Annotated AnyStr Callable ClassVar Collection Container Counter "
        "DefaultDict Deque Dict Final FrozenSet Generator Generic Hashable ItemsView Iterable "
        "Iterator KeysView List Literal LiteralString Mapping MutableMapping MutableSequence "
        "MutableSet NamedTuple Never NoReturn NotRequired Optional OrderedDict ParamSpec Protocol "
        "Required Reversible Self Sequence Set Sized SupportsAbs SupportsFloat SupportsIndex "
        "SupportsInt SupportsRound Text Tuple Type TypeAlias TypeGuard TypeVar TypedDict "
        "TYPE_CHECKING Union ValuesView cast final overload assert_never"
    ),
}
# The reflective tools of those modules, and the modules themselves, refused as an attribute of
# any object too: modules hand each other out (`re.functools.update_wrapper`,
# `typing.functools`, `re.enum.EnumMeta`), and a module passed into a function is a parameter.
# (Names that are also methods of builtin types, `copy`, `replace`, `string`, `abc`, stay.)
REFLECTIVE_ATTRIBUTES = _words(
    "functools dataclasses typing enum operator "
    "update_wrapper WRAPPER_ASSIGNMENTS WRAPPER_UPDATES partialmethod recursive_repr "
    "make_dataclass Formatter EnumMeta EnumType DynamicClassAttribute global_enum_repr "
    "global_flag_repr global_str member nonmember ABCMeta update_abstractmethods "
    "NamedTupleMeta NewType no_type_check no_type_check_decorator dataclass_transform "
    "runtime_checkable get_overloads clear_overloads EXCLUDED_ATTRIBUTES dispatch_table"
)
# What a class may derive from, besides the code's own classes: `object`, the common exceptions,
# and the typing, enum and abc bases. Not the builtin types (a `str` subclass with its own
# `isidentifier` walked through `dataclasses.make_dataclass` into exec'd source), not `type`.
ALLOWED_BASES = _words(
    "builtins.object builtins.Exception builtins.ValueError builtins.TypeError "
    "builtins.KeyError builtins.IndexError builtins.LookupError builtins.ArithmeticError "
    "builtins.RuntimeError builtins.ZeroDivisionError builtins.NotImplementedError "
    "builtins.OverflowError builtins.AssertionError "
    "typing.NamedTuple typing.TypedDict typing.Generic typing.Protocol "
    "enum.Enum enum.IntEnum enum.StrEnum enum.Flag enum.IntFlag abc.ABC"
)
# The allowed bases that may be subscripted as a base (`Generic[T]`), besides the code's own
# generic classes
_SUBSCRIPTED_BASES = frozenset({"typing.Generic", "typing.Protocol"})
# The decorators code may use, besides its own functions and `@x.setter`/`getter`/`deleter`.
ALLOWED_DECORATORS = _words(
    "builtins.staticmethod builtins.classmethod builtins.property dataclasses.dataclass "
    "functools.total_ordering functools.lru_cache functools.cache functools.cached_property "
    "functools.wraps abc.abstractmethod enum.unique typing.final typing.overload"
)
# The listed decorators that hand back the class or function they decorate: a definition that
# carries any other is whatever that decorator returned (`@keep class Base` can bind
# `typing.Type`, a base that makes `type` a base class), not a class or function of the code's.
KEEPING_DECORATORS = _words(
    "dataclasses.dataclass functools.total_ordering functools.wraps abc.abstractmethod "
    "enum.unique typing.final"
)
# The special methods (and class attributes) a class may define: construction, printing,
# hashing, the container and number protocols. Not equality (`__eq__`, `__ne__`:
# `_EQUALITY_HOOKS`). Not ordering (`__lt__`, `__le__`, `__gt__`, `__ge__`): the interpreter
# compares items it does not hold (Python 3.11's list comparison asks the last pair with
# borrowed references, and an `__lt__` that empties a list and answers NotImplemented has the
# reflected comparison read a freed object: gh-120298, a red team's, OE); what orders objects
# of the program's is `dataclass(order=True)`, `NamedTuple`, or a key function. Not attribute
# hooks (`__getattr__`, `__getattribute__`, `__setattr__`), descriptors (`__get__`, `__set__`,
# `__set_name__`), class creation hooks (`__new__`, `__init_subclass__`, `__class_getitem__`, `__prepare__`,
# `__mro_entries__`), pickling and copying hooks, `__format__`, `__match_args__`, `__del__`,
# `__call__`, context managers (`__exit__` gets a traceback), nor NumPy's protocols.
ALLOWED_DUNDER_DEFINITIONS = _words(
    "__init__ __post_init__ __repr__ __str__ "
    "__hash__ __len__ __iter__ __next__ __reversed__ __getitem__ __setitem__ __delitem__ "
    "__contains__ __bool__ __int__ __float__ __abs__ __neg__ __pos__ __invert__ __round__ "
    "__add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__ "
    "__truediv__ __rtruediv__ __itruediv__ __floordiv__ __rfloordiv__ __ifloordiv__ "
    "__mod__ __rmod__ __imod__ __pow__ __rpow__ __ipow__ __divmod__ __rdivmod__ "
    "__and__ __rand__ __iand__ __or__ __ror__ __ior__ __xor__ __rxor__ __ixor__ "
    "__lshift__ __rlshift__ __rshift__ __rrshift__ __slots__ __all__"
)
# Equality is called with whatever the object is compared with: a hash table compares a key it
# is asked for with every stored key of the same hash, and the interpreter asks the program's
# `__eq__` when the stored key's own answers NotImplemented (a red team's: `typing.List[type]`
# evaluated in a signature stored `type` in typing's cache, and a key with its hash handed it to
# the program's `__eq__`: `correct` on 54 of the 64 dev tasks). Hashes of the interpreter's
# objects follow their addresses, which a program can compute, so any table of any module may
# be searched so. A class of the program's compares by identity, or as its `dataclass` or
# `NamedTuple` base compares, never by code of its own.
_EQUALITY_HOOKS = frozenset({"__eq__", "__ne__"})
_ORDERING_HOOKS = frozenset({"__lt__", "__le__", "__gt__", "__ge__"})
# Class patterns in `match` may name only these: a user class's `__match_args__` (or a
# metaclass's `__instancecheck__`) would read attributes by names computed at run time.
MATCHABLE_TYPES = _words(
    "builtins.int builtins.float builtins.complex builtins.bool builtins.str builtins.bytes "
    "builtins.list builtins.tuple builtins.dict builtins.set builtins.frozenset"
)
# Calls whose argument may be `type(x)` (asking what an object is; see visit_Call).
_TYPE_CONSUMERS = _words(
    "builtins.print builtins.str builtins.repr builtins.isinstance builtins.issubclass"
)
# Enum classes whose call with a name and members makes a class (the functional API), whose
# members may have any name (`Enum("E", [(name, f)])` defines `__array_ufunc__` or any other).
_ENUM_CLASSES = _words("enum.Enum enum.IntEnum enum.StrEnum enum.Flag enum.IntFlag")
# Keywords that name attributes to copy (`functools.wraps(f, assigned=(name,))`).
_WRAPPER_KEYWORDS = frozenset({"assigned", "updated"})
# Copies attributes named by its arguments from one object to another: allowed only as an honest
# call has it (`@functools.wraps(f)`); attribute names given positionally, through `partial` or
# any other way, would be a getattr by a computed name. (`update_wrapper` is refused outright,
# under reflective-name.)
_WRAPS = "functools.wraps"
# Builtins that checks refuse by what they are: never bound by the code (`check_shadowing`).
_CHECKED_BUILTINS = frozenset({"type"}) | ATTRIBUTE_BUILTINS


_BUILTIN_NAMES = frozenset(dir(builtins))


# Binding kinds that give a name no value: `del x`, `x: int`
_VALUELESS = frozenset({"deleted", "declared"})


def _bound_module(kind: str) -> str | None:
    """The module a binding binds its name to (`module:M`, or `from:M.sub` naming a module),
    else None."""
    if kind.startswith("module:"):
        return kind.removeprefix("module:")
    dotted = kind.removeprefix("from:")
    return dotted if dotted != kind and names_module(dotted) else None


def _is_checked(kind: str) -> bool:
    """A binding (`module:M`, `from:M.n`) to a module with reflective tools or to one of its
    names: what checks refuse by name."""
    module = kind.split(":", 1)[1].split(".")[0] if kind.startswith(("module:", "from:")) else ""
    return module in REFLECTIVE_MODULE_NAMES


_FORMAT_METHODS = frozenset({"format", "format_map"})
# How `type(x)` may be compared with a plain operand (besides `is`): equality and membership.
_ASKING_COMPARISONS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)
_DISPLAYS = (ast.Tuple, ast.List, ast.Set, ast.Dict)
# What an annotation may be made of: names, attributes, subscripts, constants (strings are
# parsed and checked the same way), tuples and lists of these (`Callable[[int], str]`), `X | Y`
# and `*Ts`.
_TYPE_EXPRESSION = (
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Constant,
    ast.Tuple,
    ast.List,
    ast.BinOp,
    ast.BitOr,
    ast.Starred,
    ast.Load,
)
_PROPERTY_METHODS = frozenset({"setter", "getter", "deleter"})
# The builtin types an annotation that holds `type` may name (`describes_only`): not every
# builtin, some are instances whose attributes the code can set (`copyright`, `exit`).
_DESCRIBING_BUILTINS = frozenset(
    f"builtins.{name}"
    for name in _words("type object int float complex bool str bytes list dict tuple set frozenset")
)

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
        "reflective-name",
        "format-call",
        "dynamic-class",
        "metaclass",
        "class-base",
        "dunder-definition",
        "match-class",
        "decorator",
        "star-import",
        "wrapper-attributes",
        "dataclass-call",
        "annotation-code",
        "shadowed-name",
    }
)
_NUMPY_WORD = re.compile(r"numpy", re.IGNORECASE)
# str.format fields read attributes: "{0.__class__}", "{x._data}", "{0.f_back}"; the names
# after each dot of a field (or of a field nested in a format spec).
_FORMAT_FIELD_ATTRIBUTE = re.compile(r"\.\s*([^.\[\]{}:!]*)")
_FORMAT_FIELD = re.compile(r"\{([^{}]*)")
# An enum hook (`_missing_`, `_generate_next_value_`, `_ignore_`) or a dunder: a definition
# the interpreter calls by its name.
_SPECIAL_NAME = re.compile(r"_\w*_")
_STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}
_SUBMODULES = _submodules(ALLOWED_MODULES - {"__future__", "sys"})
# A string that is exactly a dunder name can only serve as a computed attribute name
# (`functools.update_wrapper(box, f, assigned=("__globals__",))`); `"__main__"` is a module name.
_DUNDER_STRING = re.compile(r"__\w+__")
_ALLOWED_DUNDER_STRINGS = frozenset({"__main__"})


def _format_attributes(text: str, depth: int = 0) -> list[str]:
    """The attribute names `str.format` reads in `text` (nested fields in format specs too), as
    Python's own parser finds them; as many as it read before an error, if the text is not a
    valid format string."""
    found: list[str] = []
    try:
        for _, field, spec, _ in _string.formatter_parser(text):
            if field is not None:
                _, rest = _string.formatter_field_name_split(field)
                found += [str(name) for is_attribute, name in rest if is_attribute]
            if spec and depth < 2:  # Python nests fields in a spec two levels deep at most
                found += _format_attributes(spec, depth + 1)
    except ValueError:
        pass
    return found


# The lists of attribute names no code may read, in the order `attribute_refusal` tries them.
_REFUSED_ATTRIBUTES = (
    (INTROSPECTION_ATTRIBUTES, "frame-introspection", "an attribute that leads to frames"),
    (IMPORT_TABLE_ATTRIBUTES, "import-table", "the import system's tables"),
    (ATTRIBUTE_HELPERS, "dynamic-attribute", "a tool that reads attributes by name"),
    (CAPABILITY_ATTRIBUTES, "capability-attribute", "a capability"),
    (REFLECTIVE_ATTRIBUTES, "reflective-name", "a reflective tool"),
    (_FORMAT_METHODS, "format-call", "formatting reads attributes named in the string"),
)


def attribute_refusal(name: str) -> tuple[str, str] | None:
    """The rule that refuses reading the attribute `name` of any object, and why; None when
    it may be read. One rule wherever a name to read is written: `x.name`, a class pattern's
    `case str(name=...)`, the literal name given to `getattr`/`hasattr`/`attrgetter`, a field
    of a format string, a member of a `typing.Protocol` (which `isinstance` reads from any
    object). Each place had its own list once, and a red team read `str.format` through a
    class pattern that checked fewer names than `x.format` did. `visit_Attribute` alone
    allows two of these in one context each (a direct call of `attrgetter`, and `.format` on
    a string literal)."""
    if name.startswith("_"):
        return "underscore-attribute", "a private or special attribute"
    for names, rule, why in _REFUSED_ATTRIBUTES:
        if name in names:
            return rule, why
    return None


def _slot_items(value: ast.expr | None) -> list[ast.expr | None]:
    """What a `__slots__` value lists: a display's items, else the value itself."""
    return value.elts if isinstance(value, ast.Tuple | ast.List) else [value]


def _slot_names(node: ast.ClassDef) -> Iterator[tuple[ast.stmt, str]]:
    """The names a class body's `__slots__` lists as text (members too: a protocol's
    `isinstance` reads them, a red team's `__slots__ = ("now", "obj")`), each with its
    statement."""
    for statement in node.body:
        targets = (
            statement.targets
            if isinstance(statement, ast.Assign)
            else [statement.target]
            if isinstance(statement, ast.AnnAssign | ast.AugAssign)
            else []
        )
        if not any(isinstance(t, ast.Name) and t.id == "__slots__" for t in targets):
            continue
        for item in _slot_items(getattr(statement, "value", None)):
            if isinstance(item, ast.Constant) and type(item.value) is str:
                yield statement, item.value


def _class_members(node: ast.ClassDef) -> Iterator[tuple[ast.stmt, str]]:
    """The names a class body binds in its own scope, each with its statement of the body: not
    only `def`, `class` and `x = ...` at its top, but any target of an assignment, `for`,
    `with`, `except`, import, walrus or `match` capture, however deep in the body's `if`s and
    loops (a red team's `now, utcnow = 1, 2` in a protocol passed a check that saw only the
    first forms). Nested functions' bodies, lambdas' and comprehensions' have scopes of their
    own; what a definition evaluates where it stands (decorators, defaults) is looked into."""
    for statement in node.body:
        stack: list[ast.AST] = [statement]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
                continue
            children = list(ast.iter_child_nodes(current))
            if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                yield statement, current.name
                # by identity, once: `child not in body` compared each child with every
                # statement, quadratic in a method's length (a red team's 64 KB method of
                # `0;0;0;...` cost the grader 17.5 s)
                body = {id(child) for child in current.body}
                children = [child for child in children if id(child) not in body]
            elif isinstance(current, ast.Lambda):
                children = [current.args]
            elif isinstance(current, ast.Name) and isinstance(current.ctx, ast.Store):
                yield statement, current.id
            elif isinstance(current, ast.alias):
                yield statement, (current.asname or current.name).split(".")[0]
            elif isinstance(current, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
                if current.name:
                    yield statement, current.name
            elif isinstance(current, ast.MatchMapping) and current.rest:
                yield statement, current.rest
            stack.extend(children)


@dataclass(frozen=True)
class Refusal:
    rule: str  # "underscore-attribute", "numpy-import", ...
    line: int | None
    detail: str

    @property
    def numpy(self) -> bool:
        return self.rule in NUMPY_RULES


# The fields that hold identifiers Python may mangle (in a class body, `__x` is compiled as
# `_Class__x`), single names and lists of names; dotted import names are checked per part.
_NAME_FIELDS = ("id", "attr", "name", "asname", "arg", "rest", "module")
_NAME_LIST_FIELDS = ("names", "kwd_attrs")


def _is_private(name: str) -> bool:
    return any(p.startswith("__") and not p.endswith("__") for p in name.split("."))


def _private_names(tree: ast.AST) -> tuple[list[Refusal], int, int]:
    """Every identifier of the private form `__x`, wherever it is written, how deep the tree
    nests (a lone module: 1) and how many nodes it has (as `ast.walk` counts them), in one walk
    without recursion. Inside a class body Python reads `__x` as `_Class__x`, so every check
    that asks what a name is would ask about another name than the one that runs: a red team
    bound `_Holder__B` to `typing.Type` and a class `__B` beside it, and `class Meta(__B)` in
    `class Holder` was a metaclass the policy read as a class of the code's (then a computed
    attribute read, and `correct` knowing no function). Refused whole, as no solution needs
    name mangling: with no `__x` anywhere, what Python reads is what is written."""
    refusals = []
    depth, nodes, level = 0, 0, [tree]
    while level:  # `ast.walk`'s order, a level at a time, each node class's fields looked up once
        depth += 1
        nodes += len(level)
        below: list[ast.AST] = []
        for node in level:
            names, children = _layout(type(node))
            for field, many in names:
                value = getattr(node, field, None)
                for name in value if many and isinstance(value, list) else (value,):
                    if isinstance(name, str) and "__" in name and _is_private(name):
                        refusals.append(
                            Refusal(
                                "private-name",
                                getattr(node, "lineno", None),
                                f"`{name}`: a private name, which Python renames inside a class",
                            )
                        )
            for field in children:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    below.extend(item for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST):
                    below.append(value)
        level = below
    return refusals, depth, nodes


@functools.cache
def _layout(kind: type) -> tuple[tuple[tuple[str, bool], ...], tuple[str, ...]]:
    """A node class's identifier fields (each with whether it holds a list of names), and all
    its fields (where child nodes may be)."""
    fields = getattr(kind, "_fields", ())
    names = tuple(
        (field, field in _NAME_LIST_FIELDS)
        for field in fields
        if field in _NAME_FIELDS or field in _NAME_LIST_FIELDS
    )
    return names, tuple(fields)


@dataclass(frozen=True)
class Scan:
    """What one walk over a response finds: the refusals, and what the official library check
    (official.py) decides on, gathered on the same walk so that grading walks the tree once."""

    refusals: list[Refusal]
    imports: list[ast.Import | ast.ImportFrom]  # every import statement
    function_calls: list[ast.Call]  # every call inside a function (def or lambda)
    stores: list[ast.Subscript]  # every subscript store (`x[k] = v`, ...): sandbox/stores.py


def check_policy(tree: ast.Module, package: str) -> Refusal | None:
    """The first refusal (in line order) for this code, or None when it may run."""
    refusals = find_refusals(tree, package)
    return refusals[0] if refusals else None


def find_refusals(tree: ast.Module, package: str) -> list[Refusal]:
    """Every refusal for this code, in line order; NumPy ones first on the same line."""
    return scan(tree, package).refusals


# The deepest nesting of the syntax tree the checks walk (expressions, statements, and each
# part of them: `v + v + ... + v` with 300 terms is 300 deep). The walk recurses, and a
# RecursionError was the only bound: at ~490 levels, fewer the deeper the caller's own stack,
# so one program was `correct` through `sebench serve-reward` and `policy` through `sebench
# eval` (a red team's, NR). A fixed bound, measured without recursion, and far above honest
# code (the dev references and the demo's programs: under 20).
MAX_NESTING = 200


class TooDeep(RecursionError):
    """The code nests deeper than `MAX_NESTING`: refused as `too-deep`, as a RecursionError of
    the walk itself was."""


# The most syntax nodes (as `ast.walk` counts them) the checks look at: the code's and those of
# the string annotations they parse. The static stage runs in the grader's process, on its one
# thread for static checks, with no time limit, so its cost must be bounded whatever the text:
# each check is linear in the nodes (a red team's, OG: one asked the whole annotation again for
# each `type` in it, 5 min 18 s for a 63 KB `tuple[type, type, ...]`), and this caps their sum
# (the red teams' padding generators: at most 0.15 s a scan at the cap). The character cap
# (`extract.MAX_CODE_CHARS`, 64 KiB) alone lets padding pack 130,000 nodes (`+x`: 2 characters,
# 4 nodes); honest code is far below this cap: the dev references and the models' responses
# have at most 240 nodes (3 KB), and 64 KiB of the standard library's code, at 5.6 characters
# a node or more, under 12,000.
MAX_NODES = 20_000


class TooManyNodes(Exception):
    """The code has more syntax nodes than `MAX_NODES`: refused under `rule` before any check
    runs."""

    rule: ClassVar[str] = "too-many-nodes"


def scan(tree: ast.Module, package: str) -> Scan:
    """Walk the code once: its refusals (in line order, NumPy ones first on the same line), its
    imports and the calls inside its functions. Raises `TooDeep` for code nested deeper than
    `MAX_NESTING`, `TooManyNodes` for code with more nodes than `MAX_NODES`."""
    private, depth, nodes = _private_names(tree)  # without recursion, so first
    if depth > MAX_NESTING:
        raise TooDeep(f"code nested more than {MAX_NESTING} levels deep")
    if nodes > MAX_NODES:
        raise TooManyNodes(f"the code has {nodes} syntax nodes, over the limit of {MAX_NODES}")
    visitor = _PolicyVisitor(
        package,
        _sys_aliases(tree),
        postponed_annotations=_postpones_annotations(tree),
        nesting_left=MAX_NESTING - depth,
        nodes_left=MAX_NODES - nodes,
    )
    visitor.visit(tree)
    visitor.run_deferred()
    refusals = visitor.refusals + private
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
    return Scan(refusals, visitor.imports, visitor.function_calls, visitor.stores)


def _type_call_shape(node: ast.AST) -> bool:
    """`type(...)` by its look (whether `type` is the builtin is decided after the walk)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"


def _sys_aliases(tree: ast.Module) -> frozenset[str]:
    """Every name `import sys [as x]` binds anywhere in the code (scopes ignored: stricter)."""
    return frozenset(
        alias.asname or alias.name
        for node in statements(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "sys"
    )


def _postpones_annotations(tree: ast.Module) -> bool:
    """`from __future__ import annotations` (only at the top of a module does it take effect)."""
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body
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
    def __init__(
        self,
        package: str,
        sys_aliases: frozenset[str] = frozenset(),
        *,
        postponed_annotations: bool = False,
        nesting_left: int = MAX_NESTING,
        nodes_left: int = MAX_NODES,
    ) -> None:
        self.package = package
        self.sys_aliases = sys_aliases
        # How much deeper than the code's own tree the walk may go: a string annotation is one
        # node of that tree, parsed and walked here (`check_string_annotations`); its depth is
        # counted against the same bound (a 600-term `"int|int|..."` ran into the walk's
        # RecursionError, whose depth is the process's limit: `correct` in a trainer that had
        # raised it, `policy` in `sebench eval`; a red team's, NW)
        self.nesting_left = nesting_left
        self.nodes_left = nodes_left  # the same for `MAX_NODES`
        # What binds each name anywhere in the code (scopes ignored: stricter): `class`, `def`,
        # `module:M` (`import M`), `from:M.n` (`from M import n`) or `other`. Gathered on the
        # walk (a walk of its own cost more than the rest of the scan), so the checks that
        # depend on what a name is (`resolve`) run after it, from `deferred`, in walk order.
        self.bindings: dict[str, set[str]] = {}
        self.binding_nodes: dict[str, ast.AST] = {}  # where each name is first bound
        self.deferred: list[Callable[[], None]] = []
        self.decorators: set[int] = set()  # ids of decorator expressions (the callable part)
        # the decorators (the callable part) of each decorated class or function, by its name
        self.decorated: dict[str, list[ast.expr]] = {}
        self.class_bases: dict[str, list[ast.expr]] = {}  # the bases of each class, by its name
        # `kept_as_defined` per name, once the walk is done: each use of a name walked its whole
        # chain of decorators again (a red team's 36 KB of uses of a name at the end of a chain
        # of 200 decorated decorators cost the grader 93 s)
        self.kept: dict[str, bool] = {}
        self.walked = False
        # Once the walk is done, each answer below depends on the node or name alone, and is
        # worked out once: asked per use, each walked a structure the uses share, quadratic in
        # the text (red teams': 4,900 calls on a 100-class lattice, 54 s; OG: each `type` of a
        # 12,500-name annotation asked of the whole annotation, 5 min 18 s; 2,081 `@p.setter`
        # each looking at all of p's decorators, 15 s). Keyed by the nodes themselves, which
        # keeps them alive: an id is unique only while its object lives.
        self.resolved: dict[ast.AST, str | None] = {}  # `resolve` of each attribute
        self.describing: dict[ast.AST, bool] = {}  # `describes_only` of each annotation
        self.properties: dict[str, bool] = {}  # `is_property` per name
        self.enum_class_names: frozenset[str] | None = None  # `is_enum_class`: every one
        self.module_reads: set[int] = set()  # ids of Name nodes read as `name.attribute`
        self.name_loads: list[ast.Name] = []  # every Name read outside text annotations
        # ids of Name nodes in annotations Python never evaluates (`check_unbound_names`): a local
        # variable's, and every one under `from __future__ import annotations`
        self.unevaluated: set[int] = set()
        self.scope_kinds: list[type[ast.AST]] = [ast.Module]  # the scopes the walk is in
        self.postponed_annotations = postponed_annotations
        self.bare_loads: list[ast.Name] = []  # every other Name read
        self.calls_with_arguments: list[ast.Call] = []  # calls with two arguments or keywords
        self.name_attributes: list[ast.Attribute] = []  # `name.attribute`, in walk order
        self.attribute_loads: list[ast.Attribute] = []  # every `x.attribute` read
        self.attribute_holders: set[int] = set()  # ids of those read as `x.attribute.other`
        self.asked_types: set[int] = set()  # ids of `type(x)` calls whose result is only looked at
        # ids of Name nodes that only describe: in a string annotation (which nothing allowed
        # evaluates), or `type` given to `isinstance` and the like (`mark_type_consumer`)
        self.annotation_names: set[int] = set()
        # a Name in a parameter's or a return's annotation: that annotation (`check_type_name`)
        self.signature_annotations: dict[int, ast.AST] = {}
        self.sys_reads: set[int] = set()  # ids of `sys` Name nodes read as `sys.<allowed>`
        self.refusals: list[Refusal] = []
        self.wrapper_calls: set[int] = set()  # ids of `wraps` called on one function
        self.decorator_calls: set[int] = set()  # ids of decorators written as calls
        self.direct_calls: set[int] = set()  # ids of Name nodes called directly: `getattr(x, "a")`
        # Dunder names a class body defines itself, which that body may read (`__repr__ = __str__`);
        # an empty set in function bodies and at module level.
        self.class_scope: list[set[str]] = [set()]
        # For the official library check: not refusals, facts.
        self.imports: list[ast.Import | ast.ImportFrom] = []
        self.function_calls: list[ast.Call] = []
        self.stores: list[ast.Subscript] = []
        self.function_depth = 0
        # how many `except` handlers enclose the code being walked, per scope (a def, lambda or
        # class body starts a scope of its own: its code does not run inside the handler)
        self.handlers: list[int] = [0]
        self.in_string_annotation = False  # code parsed from a string is not the response's
        self.plain_slots: set[int] = set()  # ids of `__slots__` targets given literal plain names

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

    def bind(self, name: str, kind: str, node: ast.AST) -> None:
        # Every form that binds a name passes here (assignments, definitions, imports, `as`
        # in `except`, `with` and `match`, parameters), so none can define a special name.
        self.check_definition_name(name, node)
        if not self.in_string_annotation:  # annotations in strings bind nothing at run time
            self.bindings.setdefault(name, set()).add(kind)
            self.binding_nodes.setdefault(name, node)

    def check_shadowing(self) -> None:
        """Some checks refuse what a name is (the builtin `type`, `functools.wraps`, an Enum
        class, a reflective module): a name bound anywhere else too would resolve to nothing
        and pass them, while at run time, in another scope or after a `del`, it is still that
        (a red team's `def describe(value, type=None)`, then `type(attrgetter)` at the top).
        So those names are bound by their import alone, and the builtins not at all. The same
        holds for every module and every class of the code's: what `x.name` is, whether
        `x.name = ...` writes on an import, whether `X(...)` makes an Enum class, is read from
        what `x` is bound to (a red team bound `collections` as a parameter elsewhere, and
        `collections.abc` passed as a value, `collections.Counter.most_common = f` as a write
        on the code's own object, and an Enum class's functional call as a plain call)."""
        for name, kinds in self.bindings.items():
            if name in _CHECKED_BUILTINS or (
                len(kinds) > 1 and any(map(self.checked_binding, kinds))
            ):
                self.refuse(
                    "shadowed-name",
                    self.binding_nodes[name],
                    f"binds {name}, which the policy checks by what it is, to something else",
                )

    def check_unbound_names(self) -> None:
        """Every name the code reads is one it binds or a builtin. Any other name raises
        NameError in honest code, and `resolve` would read it as a builtin: a name that some
        way of writing into the code's globals put there (a red team copied typing's module
        globals in through `update_wrapper`, then used `sys`) would pass every check that
        asks what it is."""
        for node in self.name_loads:
            name = node.id
            if (
                not self.bindings.get(name, set()) - _VALUELESS
                and name not in _BUILTIN_NAMES
                and id(node) not in self.unevaluated
                and not (name.startswith("__") and name.endswith("__"))  # `dunder-name`'s
            ):
                self.refuse("unbound-name", node, f"reads {name}, which nothing binds")

    def checked_binding(self, kind: str) -> bool:
        """A binding whose name the checks read by what it is bound to: a reflective module or
        one of its names, any module, a class statement."""
        return _is_checked(kind) or kind == "class" or _bound_module(kind) is not None

    def defer(self, check: Callable[[], None]) -> None:
        self.deferred.append(check)

    def run_deferred(self) -> None:
        self.walked = True  # the bindings and decorators are all known: `kept_as_defined` caches
        for check in self.deferred:
            check()
        self.deferred.clear()
        # A module with reflective tools is used only as `module.name` (its names are checked
        # there): passed into a function, put in a container or given to `getattr`, its names
        # would be read where the policy cannot tell what holds them.
        modules = {name: module for name in self.bindings if (module := self.module_of(name))}
        for node in self.name_attributes if modules else ():
            if node.value.id in modules:
                self.check_reflective_name(modules[node.value.id], node.attr, node)
        # `dataclass` under another name (`from dataclasses import dataclass as d`)
        dataclass_aliases = {
            name for name, kinds in self.bindings.items() if "from:dataclasses.dataclass" in kinds
        }
        # Every other module too (the library's own aside): a module held as a value has
        # attributes the code can rebind however it spells them (a red team's `m =
        # collections; m.type = ...` made `namedtuple` run text of its own), and the
        # `import-write` rule sees only `module.name = ...`.
        other_modules = {
            name: module
            for name in self.bindings
            if name not in modules and (module := self.module_bound(name))
        }
        for node in self.bare_loads if modules or other_modules or dataclass_aliases else ():
            if node.id in modules:
                self.refuse(
                    "reflective-name", node, f"uses the module {node.id} other than as m.name"
                )
            elif node.id in other_modules:
                self.refuse("module-value", node, f"uses the module {node.id} other than as m.name")
            elif node.id in dataclass_aliases and id(node) not in self.decorators:
                self.refuse("dataclass-call", node, "dataclass used other than as a decorator")
        for node in self.attribute_loads:
            dotted = self.resolve(node)
            if dotted is None or ":" in dotted:
                continue
            named = module_name(dotted)
            if named is not None and named not in ALLOWED_MODULES | ALLOWED_SUBMODULES:
                # a module outside the allowlist, reached by attributes as by an import
                # (`json.tool`, a submodule of an allowed package that is not vetted with it)
                self.refuse("forbidden-module", node, f"reaches {named}: not an allowed module")
            elif named is not None and id(node) not in self.attribute_holders:
                # `m.sub.name` is a name read from the module, not the module
                self.refuse("module-value", node, f"uses the module {dotted} other than as m.name")
        for call in self.calls_with_arguments:
            self.check_enum_call(call)
        self.check_unbound_names()
        self.check_shadowing()  # last: a more telling rule reports first where one applies

    def resolve(self, node: ast.AST, *, own: bool = True) -> str | None:
        """What an expression names, when the code's bindings say for sure: `builtins.int`
        (never bound), `typing.NamedTuple`, `class:Point` (only ever bound by class statements,
        decorated by none but `KEEPING_DECORATORS`), `def:helper`; None for anything else.
        `own=False`: None for the code's classes and functions too, without asking about their
        decorators. An attribute chain is followed without recursion, each link once."""
        chain: list[ast.Attribute] = []
        while isinstance(node, ast.Attribute) and node not in self.resolved:
            chain.append(node)
            node = node.value
        if isinstance(node, ast.Attribute):
            named = self.resolved[node]
        elif isinstance(node, ast.Name):
            named = self.resolve_name(node.id, own=own)
        else:
            named = None
        # what an attribute names is the same with or without `own`: `C.x` names nothing
        for link in reversed(chain):
            named = None if named is None or ":" in named else f"{named}.{link.attr}"
            if self.walked:
                self.resolved[link] = named
        return named

    def resolve_name(self, name: str, *, own: bool = True) -> str | None:
        """What a name resolves to (`resolve`)."""
        kinds = self.bindings.get(name)
        if not kinds:
            return f"builtins.{name}"
        # Bindings are the whole program's, not a scope's: a name of a builtin bound in one
        # scope (or under `if 0:`) is still the builtin in the others (a red team's dead
        # `from enum import unique as min`, then `@min` read as `unique`, and `from typing
        # import Protocol as str`, then `class S(str)` read as a protocol).
        if len(kinds) != 1 or name in _BUILTIN_NAMES:
            return None
        (kind,) = kinds
        if kind in ("class", "def"):
            return f"{kind}:{name}" if own and self.kept_as_defined(name) else None
        if kind.startswith(("module:", "from:")):
            return kind.split(":", 1)[1]
        return None

    def kept_as_defined(self, name: str) -> bool:
        """Whether every decorator of the definitions of `name` hands back what it decorates.
        A decorator of the code's own is never one of KEEPING_DECORATORS, whatever its own
        decorators, so those are not asked about (`own=False`): asking recursed once per link
        of a chain of decorated decorators (`@d1 def d2`, `@d2 def d3`, ...), as deep as the
        process's recursion limit let it, and that limit is not the program's (the OG red
        team's; see `is_enum_class`)."""
        if name in self.kept:
            return self.kept[name]
        kept = all(
            self.resolve(target, own=False) in KEEPING_DECORATORS
            for target in self.decorated.get(name, ())
        )
        if self.walked:
            self.kept[name] = kept
        return kept

    def is_property(self, node: ast.AST) -> bool:
        """`node` names a property of the code's: functions only ever decorated with `property`
        or with its own `.setter`, `.getter`, `.deleter`. Once per name: asked for each
        `@p.setter`, it looked at every decorator of every `p` (the OG red team's 2,081
        redefinitions: 15 s)."""
        if not isinstance(node, ast.Name) or self.bindings.get(node.id) != {"def"}:
            return False
        name = node.id
        found = self.properties.get(name)
        if found is None:
            found = all(
                self.resolve(target) == "builtins.property"
                or (
                    isinstance(target, ast.Attribute)
                    and target.attr in _PROPERTY_METHODS
                    and isinstance(target.value, ast.Name)
                    and target.value.id == name
                )
                for target in self.decorated.get(name, ())
            )
            if self.walked:
                self.properties[name] = found
        return found

    def module_of(self, name: str) -> str | None:
        """The module with reflective tools a name is bound to by an import (`import M [as
        name]`, `from P import M`), else None; one such binding is enough (`import string as
        m; m = m`)."""
        for kind in self.bindings.get(name, ()):
            module = _bound_module(kind)
            named = module_name(module) if module is not None else None
            if named in REFLECTIVE_MODULE_NAMES:
                return named
        return None

    def module_bound(self, name: str) -> str | None:
        """The module (not the library's own) a name is bound to by an import, else None; one
        such binding is enough, as in `module_of`."""
        for kind in self.bindings.get(name, ()):
            module = _bound_module(kind)
            if module is not None and module.split(".")[0] != self.package:
                return module
        return None

    def check_reflective_name(self, module: str, name: str, node: ast.AST) -> None:
        allowed = REFLECTIVE_MODULE_NAMES.get(module)
        if allowed is not None and not name.startswith("_") and name not in allowed:
            self.refuse(
                "reflective-name",
                node,
                f"uses {module}.{name}: not among the names solutions use from {module}",
            )

    def check_definition_name(self, name: str, node: ast.AST) -> None:
        if name in _EQUALITY_HOOKS:
            self.refuse(
                "dunder-definition",
                node,
                f"defines {name}, which the interpreter calls with objects the code does not "
                "hold (the keys of any hash table it searches)",
            )
        elif name in _ORDERING_HOOKS:
            self.refuse(
                "dunder-definition",
                node,
                f"defines {name}, which the interpreter calls on items it does not hold; order "
                "with dataclass(order=True), a NamedTuple or a key function",
            )
        elif _SPECIAL_NAME.fullmatch(name) and name not in ALLOWED_DUNDER_DEFINITIONS:
            self.refuse(
                "dunder-definition", node, f"defines {name}, which the interpreter calls by name"
            )
        elif name == "__slots__" and id(node) not in self.plain_slots:
            # slot names are attribute names: built at run time, they define any special
            # member (`("_" * 2 + "array_ufunc" + "_" * 2,)`, a red team's)
            self.refuse(
                "dunder-definition", node, "__slots__ is given other than as literal plain names"
            )

    def note_plain_slots(self, targets: list[ast.expr], value: ast.expr | None) -> None:
        """`__slots__ = "a"`, `("a", "b")` or `["a"]`: literal names, none of them special."""
        items = _slot_items(value)
        if all(
            isinstance(item, ast.Constant)
            and type(item.value) is str
            and item.value.isidentifier()
            and not _SPECIAL_NAME.fullmatch(item.value)
            for item in items
        ):
            self.plain_slots.update(
                id(t) for t in targets if isinstance(t, ast.Name) and t.id == "__slots__"
            )

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
        elif (
            top not in ALLOWED_MODULES
            or (top == "sys" and name != "sys")
            or (name != top and name not in ALLOWED_SUBMODULES)
        ):
            self.refuse("forbidden-module", node, f"imports {name}: not an allowed module")

    def visit_Import(self, node: ast.Import) -> None:
        if not self.in_string_annotation:
            self.imports.append(node)
        for alias in node.names:
            self.check_module(alias.name, node)
            if alias.asname:
                self.bind(alias.asname, f"module:{alias.name}", node)
            else:
                top = alias.name.split(".")[0]
                self.bind(top, f"module:{top}", node)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if not self.in_string_annotation:
            self.imports.append(node)
        for alias in node.names:
            self.bind(alias.asname or alias.name, f"from:{node.module}.{alias.name}", node)
        if node.level or not node.module:
            self.refuse("relative-import", node, "relative imports are not allowed")
            return
        self.check_module(node.module, node)
        for alias in node.names:
            if alias.name == "*":
                self.refuse("star-import", node, f"from {node.module} import *")
            elif alias.name in ATTRIBUTE_HELPERS and alias.asname not in (None, alias.name):
                self.refuse("dynamic-attribute", node, f"imports {alias.name} under another name")
            elif alias.name.startswith("_") and node.module != "__future__":
                self.refuse("private-import", node, f"imports {alias.name} from {node.module}")
            elif alias.name not in ATTRIBUTE_HELPERS and (
                (refusal := attribute_refusal(alias.name)) is not None
            ):
                # `from M import n` reads `M.n`: the names no code may read as an attribute of
                # anything are refused here too, whichever module hands them out (a red team's
                # `from numbers import ABCMeta`, `from re import functools`: both re-exports
                # of what the reflective modules' own lists refuse)
                self.refuse(refusal[0], node, f"imports {alias.name}: {refusal[1]}")
            elif node.module == "sys" and alias.name not in SYS_ATTRIBUTES:
                self.refuse("sys-use", node, f"imports sys.{alias.name}")
            elif (
                f"{node.module}.{alias.name}" in _SUBMODULES
                and f"{node.module}.{alias.name}" not in ALLOWED_SUBMODULES
            ):
                self.refuse(
                    "forbidden-module", node, f"imports {node.module}.{alias.name}: not allowed"
                )
            else:
                self.check_reflective_name(node.module, alias.name, node)
        self.generic_visit(node)

    # -- names and attributes ----------------------------------------------------------------
    def mark_decorators(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        targets = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
        self.decorators.update(map(id, targets))
        self.decorator_calls.update(id(d) for d in node.decorator_list if isinstance(d, ast.Call))
        if targets:
            # a call decorates with what it returns: only a factory's call stands for the
            # factory (`decorator_target`), any other call for nothing the policy knows
            self.decorated.setdefault(node.name, []).extend(
                self.decorator_target(d) for d in node.decorator_list
            )
        self.defer(lambda: self.check_decorators(node))

    def decorator_target(self, decorator: ast.expr) -> ast.expr:
        """What a decorator is read as: itself when bare; the factory it calls when it is a
        factory's call in the factory's shape (`dataclass(frozen=True)`: keywords only;
        `lru_cache(128)` / `lru_cache(maxsize=None)`: constants; `wraps(f)`: one argument);
        else the call itself, which resolves to nothing. `typing.final(make)` hands back `make`,
        and the class becomes `make(C)`: read as `final`, it passed as the code's own class (a
        red team's, `correct` with `type` through that object's `__contains__`)."""
        if not isinstance(decorator, ast.Call):
            return decorator
        arguments, keywords = decorator.args, decorator.keywords
        if any(isinstance(a, ast.Starred) for a in arguments) or any(
            k.arg is None for k in keywords
        ):
            return decorator
        shape = {
            "dataclass": not arguments,
            "lru_cache": len(arguments) <= 1
            and all(
                isinstance(v, ast.Constant) for v in [*arguments, *(k.value for k in keywords)]
            ),
            "wraps": len(arguments) == 1 and not keywords,
        }
        func = decorator.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        return func if shape.get(name, False) else decorator

    def check_dataclass_use(self, node: ast.Name | ast.Attribute) -> None:
        """`dataclasses.dataclass` pastes field names into source it execs: as a decorator they
        are the class body's own identifiers; called on a class made elsewhere
        (`dataclass(typing.TypedDict("T", {name: int}))`) they can be any string."""
        if id(node) not in self.decorators and self.resolve(node) == "dataclasses.dataclass":
            self.refuse("dataclass-call", node, "dataclass used other than as a decorator")

    def check_decorators(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            # a call in no factory's shape is itself the target, which resolves to nothing
            target = self.decorator_target(decorator)
            named = self.resolve(target)
            if named in ALLOWED_DECORATORS or (named or "").startswith("def:"):
                continue
            if (
                isinstance(target, ast.Attribute)
                and target.attr in _PROPERTY_METHODS
                and self.is_property(target.value)
            ):
                continue
            self.refuse("decorator", decorator, f"decorates {node.name} with an unlisted decorator")

    def check_bases(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            subscripted = isinstance(base, ast.Subscript)
            named = self.resolve(base.value if subscripted else base)
            if not self.allowed_base(named, subscripted):
                self.refuse(
                    "class-base", base, f"class {node.name} derives from {ast.unparse(base)[:60]}"
                )
            elif named == "typing.Protocol":
                self.check_protocol_members(node)

    def allowed_base(self, named: str | None, subscripted: bool) -> bool:
        """`named` may be a base: an allowed one or a class of the code's. Subscripted
        (`Base[T]`), only a generic one: an Enum class's subscript is a member, an instance,
        whose class then makes the new class (a red team's `class C(Color["A"])`: a metaclass
        call no keyword shows)."""
        own = (named or "").startswith("class:")
        if not subscripted:
            return own or named in ALLOWED_BASES
        return named in _SUBSCRIPTED_BASES or (own and not self.is_enum_class(named))

    def check_protocol_members(self, node: ast.ClassDef) -> None:
        """A protocol's members are names that `isinstance(x, P)` reads from any object `x`
        (in the sandbox too: `typing` then finds no frame and checks protocols that are not
        `runtime_checkable` as if they were; a red team read `modules` that way)."""
        for statement, name in (*_class_members(node), *_slot_names(node)):
            refusal = attribute_refusal(name)
            if refusal is not None and name not in ALLOWED_DUNDER_DEFINITIONS:
                self.refuse(
                    refusal[0], statement, f"protocol {node.name} reads .{name}: {refusal[1]}"
                )

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bind(node.name, "class", node)
        self.class_bases.setdefault(node.name, []).extend(
            base.value if isinstance(base, ast.Subscript) else base for base in node.bases
        )
        self.mark_decorators(node)
        for keyword in node.keywords:
            self.refuse(
                "metaclass", node, f"class {node.name} passes {keyword.arg or '**'} to its creation"
            )
        self.defer(lambda: self.check_bases(node))
        for child in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(child)
        self.class_scope.append({name for _, name in _class_members(node)})
        self.handlers.append(0)
        self.scope_kinds.append(ast.ClassDef)
        for statement in node.body:
            self.visit(statement)
        self.scope_kinds.pop()
        self.handlers.pop()
        self.class_scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        if not isinstance(node, ast.Lambda):
            self.bind(node.name, "def", node)
            self.mark_decorators(node)
        returns = getattr(node, "returns", None)
        if returns is not None:
            self.check_string_annotations(returns, signature=True)
        self.class_scope.append(set())
        self.function_depth += 1
        self.handlers.append(0)
        self.scope_kinds.append(ast.FunctionDef)
        self.generic_visit(node)
        self.scope_kinds.pop()
        self.handlers.pop()
        self.function_depth -= 1
        self.class_scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if not isinstance(node.ctx, ast.Load):
            # `del x` gives x no value: it binds, for the checks that refuse a second binding
            # of a checked name, but not for `check_unbound_names` (`_VALUELESS`)
            self.bind(name, "deleted" if isinstance(node.ctx, ast.Del) else "other", node)
        else:
            if name == "type":
                self.defer(lambda: self.check_type_name(node))
            elif name == "dataclass":
                self.defer(lambda: self.check_dataclass_use(node))
            elif name == "wraps":
                self.defer(lambda: self.check_wrapper_use(node))
            if id(node) not in self.module_reads:
                self.bare_loads.append(node)
            if not self.in_string_annotation:
                self.name_loads.append(node)
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

    def check_attribute_write(self, node: ast.Attribute) -> None:
        """`typing.Protocol = typing.Type[int]` made the name the policy reads as an allowed
        base a metaclass (a red team's: `correct` on 54 of the 64 dev tasks). What `resolve`
        says of `module.name` holds only while nothing rebinds it: the code writes and deletes
        attributes of its own objects, never of what it imports (nor of a builtin)."""
        holder = self.resolve(node.value)
        if holder is not None and ":" not in holder:
            self.refuse(
                "import-write",
                node,
                f"{'deletes' if isinstance(node.ctx, ast.Del) else 'rebinds'} "
                f"{ast.unparse(node)[:60]}, an attribute of what it imports",
            )

    def check_type_name(self, node: ast.Name) -> None:
        # Python evaluates annotations, and what evaluating one hands on reached the code each
        # way it was tried (red teams of 2026-12-03: `d[type]` with a defaultdict or the code's
        # `__getitem__`, `grab | type`, an attribute written through a typing alias,
        # `dataclasses` storing a class body's annotation in the `Field` the code holds). So
        # `type` passes in a parameter's or a return's annotation made of typing's names and
        # builtin types alone, and in text (which nothing allowed evaluates).
        root = self.signature_annotations.get(id(node))
        if (
            id(node) not in self.direct_calls
            and id(node) not in self.annotation_names
            and (root is None or not self.describes_only(root))
            and self.resolve(node) == "builtins.type"
        ):
            self.refuse("dynamic-class", node, "uses type other than to ask an object's type")

    def describes_only(self, annotation: ast.AST) -> bool:
        """Whether evaluating an annotation calls nothing but typing's and the builtin types'
        own constructors: each name one of typing's allowed names (one level: `typing.Counter`,
        not an attribute written on it) or a builtin type, no operand the code's object. Once
        per annotation, without recursion: each `type` in it asks (`check_type_name`)."""
        if annotation in self.describing:
            return self.describing[annotation]
        describes, todo = True, [annotation]
        while todo and describes:
            node = todo.pop()
            if isinstance(node, ast.Name | ast.Attribute):
                named = self.resolve(node) or ""
                module, _, name = named.partition(".")
                describes = named in _DESCRIBING_BUILTINS or (
                    module == "typing" and name in REFLECTIVE_MODULE_NAMES["typing"]
                )
            elif isinstance(node, ast.Subscript):
                todo += (node.value, node.slice)
            elif isinstance(node, ast.Tuple | ast.List):
                todo += node.elts
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
                todo += (node.left, node.right)
            else:
                describes = isinstance(node, ast.Constant)
        if self.walked:
            self.describing[annotation] = describes
        return describes

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Store) and not self.in_string_annotation:
            self.stores.append(node)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            self.defer(lambda: self.check_attribute_write(node))
        attr = node.attr
        refusal = attribute_refusal(attr)
        if refusal is None:
            pass
        elif refusal[0] == "dynamic-attribute" and id(node) in self.direct_calls:
            pass  # `operator.attrgetter("name")(x)`: its names are checked at the call
        elif (
            refusal[0] == "format-call"
            and attr == "format"
            and isinstance(node.value, ast.Constant)
        ):
            pass  # `"{}".format(x)`: the literal's fields are checked as a constant
        else:
            self.refuse(refusal[0], node, f"accesses .{attr}: {refusal[1]}")
        value = node.value
        if isinstance(node.ctx, ast.Load):
            self.attribute_loads.append(node)
        if isinstance(value, ast.Attribute):
            self.attribute_holders.add(id(value))
        if isinstance(value, ast.Name):
            self.module_reads.add(id(value))
            self.name_attributes.append(node)
        if attr == "dataclass":
            self.defer(lambda: self.check_dataclass_use(node))
        elif attr == "wraps":
            self.defer(lambda: self.check_wrapper_use(node))
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
        for keyword in node.keywords:
            if keyword.arg in _WRAPPER_KEYWORDS:
                self.refuse("wrapper-attributes", node, f"{keyword.arg}= names attributes to copy")
        if name == "wraps":
            self.defer(lambda: self.mark_wrapper_call(node))
        self.check_type_call(node)
        if isinstance(func, ast.Name) and name in ATTRIBUTE_BUILTINS:
            self.direct_calls.add(id(func))
            self.check_attribute_name(node, node.args[1] if len(node.args) > 1 else None, name)
        elif name in ATTRIBUTE_HELPERS:
            self.direct_calls.add(id(func))
            for arg in node.args or [None]:
                self.check_attribute_name(node, arg, name)
        self.generic_visit(node)

    def mark_wrapper_call(self, node: ast.Call) -> None:
        # as a decorator only: `wraps(f)` held as a value can be called later with keywords
        # no check sees (a red team's `wraps(f)(sink, **{"updated": ...})`)
        one_function = len(node.args) == 1 and not isinstance(node.args[0], ast.Starred)
        decorating = id(node) in self.decorator_calls
        if one_function and not node.keywords and decorating and self.resolve(node.func) == _WRAPS:
            self.wrapper_calls.add(id(node.func))

    def check_wrapper_use(self, node: ast.Name | ast.Attribute) -> None:
        if self.resolve(node) == _WRAPS and id(node) not in self.wrapper_calls:
            self.refuse("wrapper-attributes", node, f"{_WRAPS} used other than as @wraps(function)")

    def check_type_call(self, node: ast.Call) -> None:
        """`type(x)` may only ask what an object is: compared (`type(x) in (int, float)`), looked
        up in a display (`{int: "i"}.get(type(x))`), called once more with a number or None
        (`type(x)(0)`) or printed: never handed to the program's own code, nor called with
        anything else: for a class `x`, `type(x)` is `type` itself, and `type(x)(y)` would hand
        out any class (a red team's `type(int)(int)`). Not with text: `type(x)` of an
        `attrgetter` is its class, and `type(getter)("g.__class__")` read an attribute by a
        name no check saw (another red team's, on to `__globals__` and `sys.modules`). `type`
        with three arguments makes a class, and `type(type(x))` is `type` itself."""
        func = node.func
        if (
            _type_call_shape(func)
            and len(node.args) <= 1
            and not node.keywords
            and all(
                isinstance(arg, ast.Constant) and not isinstance(arg.value, str | bytes)
                for arg in node.args
            )
        ):
            self.asked_types.add(id(func))
        if isinstance(func, ast.Name) and f"builtins.{func.id}" in _TYPE_CONSUMERS:
            self.defer(lambda: self.mark_type_consumer(node))
        elif isinstance(func, ast.Attribute) and func.attr == "get":
            # the key only: `.get` returns its default (`{}.get(0, type(int))` was `type`)
            self.defer(lambda: self.mark_lookup(func.value, node.args[:1]))
        if _type_call_shape(node):
            self.direct_calls.add(id(func))
            self.defer(lambda: self.check_asked_type(node))
        # a starred argument may unpack to several (`Enum(*parts)`, a red team's)
        if (
            len(node.args) > 1
            or node.keywords
            or any(isinstance(a, ast.Starred) for a in node.args)
        ):
            self.calls_with_arguments.append(node)

    def check_enum_call(self, node: ast.Call) -> None:
        if self.is_enum_class(self.resolve(node.func)):
            self.refuse(
                "dynamic-class", node, "an Enum class called with members makes a class at run time"
            )

    def is_enum_class(self, named: str | None) -> bool:
        """`named` is an Enum class, or a class of the code's deriving from one (the functional
        API works on any: `Color("Made", [(name, value)])` names its members by data)."""
        if named in _ENUM_CLASSES:
            return True
        if named is None or not named.startswith("class:"):
            return False
        found = self.enum_class_names
        if found is None:
            found = self.find_enum_classes()
            if self.walked:
                self.enum_class_names = found
        return named.removeprefix("class:") in found

    def find_enum_classes(self) -> frozenset[str]:
        """The code's classes that derive from an Enum class, through any chain of the code's
        classes: each base resolved once, and the chains followed back from the Enum classes
        without recursion. Recursing along a chain (a red team's 500 `class K{i}(K{i-1})`, OG)
        ran into the process's recursion limit, which is not the program's: the verdict was
        `policy` (`too-deep`) under `sebench eval`'s 1,000 and `correct` under the 2,000 that
        `torch.compile` sets in a trainer."""
        derived: dict[str, list[str]] = {}  # a class of the code's -> the classes deriving from it
        todo: list[str] = []
        for name, bases in self.class_bases.items():
            for base in bases:
                named = self.resolve(base)
                if named in _ENUM_CLASSES:
                    todo.append(name)
                elif named is not None and named.startswith("class:"):
                    derived.setdefault(named.removeprefix("class:"), []).append(name)
        found: set[str] = set()
        while todo:
            name = todo.pop()
            if name not in found:
                found.add(name)
                todo += derived.get(name, ())
        return frozenset(found)

    def mark_type_consumer(self, node: ast.Call) -> None:
        """`print(type(x))`, `isinstance(x, type)`: the type, or the class itself, looked at."""
        if self.resolve(node.func) in _TYPE_CONSUMERS:
            self.asked_types.update(id(arg) for arg in node.args if _type_call_shape(arg))
            self.annotation_names.update(
                id(arg) for arg in node.args if isinstance(arg, ast.Name) and arg.id == "type"
            )

    def mark_lookup(self, container: ast.AST, keys: list[ast.expr]) -> None:
        """`{int: "i"}.get(type(x))`: `.get` on a dict display of builtins. Not in any other
        container: a user object's `__getitem__`/`get`, or a key's `__eq__` (a dict compares
        keys with equal hashes), would receive the type, `type` itself when x is a class, and
        make classes with it. Not `[type(x)]` either: a missing key comes back in the
        `KeyError` (a red team's), and so does an Enum class's, and the code's class's own
        `get` is the code's; nor a builtin instance's (`copyright.get` can be set)."""
        if isinstance(container, ast.Dict) and self.plain_operand(container):
            self.asked_types.update(id(key) for key in keys if _type_call_shape(key))

    def plain_operand(self, node: ast.AST) -> bool:
        """Whether comparing `type(x)` with this, or looking it up in it, runs no code of the
        program's: a constant, a builtin, a class of the code, `type(y)`, or a display of these
        (a dict display by its keys)."""
        if isinstance(node, ast.Constant) or _type_call_shape(node):
            return True
        if isinstance(node, ast.Name):
            return (self.resolve(node) or "").startswith(("builtins.", "class:"))
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return all(self.plain_operand(item) for item in node.elts)
        if isinstance(node, ast.Dict):
            return all(key is not None and self.plain_operand(key) for key in node.keys)
        return False

    def mark_compare(self, node: ast.Compare) -> None:
        """`type(x) in (int, float)`, `type(x) == type(y)`, `type(x) is t`: `is` runs no code,
        and anything else only when the other side is plain (see `plain_operand`)."""
        operands = [node.left, *node.comparators]
        for index, operand in enumerate(operands):
            if not _type_call_shape(operand):
                continue
            sides = []
            if index > 0:
                sides.append((node.ops[index - 1], operands[index - 1]))
            if index < len(node.ops):
                sides.append((node.ops[index], operands[index + 1]))
            # never ordered: `<` hands the type to the other side's reflected `__gt__`; and
            # looked up only in a display: `in` asks the container, whatever it is
            if all(
                isinstance(op, ast.Is | ast.IsNot)
                or (
                    isinstance(op, _ASKING_COMPARISONS)
                    and self.plain_operand(other)
                    and (isinstance(op, ast.Eq | ast.NotEq) or isinstance(other, _DISPLAYS))
                )
                for op, other in sides
            ):
                self.asked_types.add(id(operand))

    def check_asked_type(self, node: ast.Call) -> None:
        if not self.is_type_call(node):
            return  # `type` is bound to something of the code's own
        if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
            self.refuse("dynamic-class", node, "type() with other than one argument makes a class")
        elif self.is_type_call(node.args[0]) or id(node) not in self.asked_types:
            self.refuse("dynamic-class", node, "type(x) used other than to look at x's type")

    def is_type_call(self, node: ast.AST) -> bool:
        return _type_call_shape(node) and self.resolve(node.func) == "builtins.type"

    def visit_Compare(self, node: ast.Compare) -> None:
        if any(map(_type_call_shape, (node.left, *node.comparators))):
            self.defer(lambda: self.mark_compare(node))
        self.generic_visit(node)

    def check_attribute_name(self, node: ast.Call, arg: ast.AST | None, via: str) -> None:
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            self.refuse("dynamic-attribute", node, f"{via} with unpacked arguments")
        elif not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            self.refuse("dynamic-attribute", node, f"{via} with a computed attribute name")
        else:
            # a dotted path too: `attrgetter` reads "a.b" part by part
            for part in arg.value.split("."):
                refusal = attribute_refusal(part)
                if refusal is not None:
                    self.refuse(refusal[0], node, f"{via} of {arg.value!r}: {refusal[1]}")
                    break

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str):
            return
        if "{" in node.value and self.format_reads_capability(node.value):
            self.refuse(
                "format-attribute",
                node,
                "a format string reading a private or capability attribute",
            )
        elif node.value not in _ALLOWED_DUNDER_STRINGS and any(
            map(_DUNDER_STRING.fullmatch, node.value.split("."))
        ):
            # a dotted path too: `attrgetter` reads "a.__class__" part by part
            self.refuse("dunder-string", node, f"the attribute name {node.value!r} as a string")

    @staticmethod
    def format_reads_capability(text: str) -> bool:
        """Whether `str.format` on `text` would read a refused attribute. Fields are read with
        Python's own parser (a `}` inside `[...]` does not end a field: a red team hid
        `.__globals__` behind one from the regex), and with the regex too, for text that parser
        refuses as a whole but `format` would have read up to the error."""
        names = [
            attr.strip()
            for field_text in _FORMAT_FIELD.findall(text)
            for attr in _FORMAT_FIELD_ATTRIBUTE.findall(field_text)
        ]
        names += _format_attributes(text)
        return any(attribute_refusal(name) is not None for name in names)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        for attr in node.kwd_attrs:  # `case str(format=f)` reads `subject.format`
            refusal = attribute_refusal(attr)
            if refusal is not None:
                self.refuse(refusal[0], node, f"matches on attribute {attr}: {refusal[1]}")
        self.defer(lambda: self.check_match_class(node))
        self.generic_visit(node)

    def check_match_class(self, node: ast.MatchClass) -> None:
        if self.resolve(node.cls) not in MATCHABLE_TYPES:
            self.refuse(
                "match-class",
                node,
                f"matches on the class {ast.unparse(node.cls)[:60]}: only builtin types may be",
            )

    def visit_MatchAs(self, node: ast.MatchAs | ast.MatchStar) -> None:
        if node.name:
            self.bind(node.name, "other", node)
        self.generic_visit(node)

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.bind(node.rest, "other", node)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bind(node.name, "other", node)
        self.handlers[-1] += 1
        self.generic_visit(node)
        self.handlers[-1] -= 1

    def visit_Raise(self, node: ast.Raise) -> None:
        # A bare `raise` re-raises the exception being handled, whoever handles it: run from a
        # finalizer while the library handled one of NumPy's (a collection closing the
        # program's generator), it handed NumPy's raw exception to the program (a red team's).
        # Inside the program's own `except` it re-raises the program's own.
        if node.exc is None and not self.handlers[-1]:
            self.refuse("bare-raise", node, "a bare raise outside an except block")
        self.generic_visit(node)

    # -- annotations -------------------------------------------------------------------------
    # A string annotation is code that `typing.get_type_hints` (also inside functools) would
    # eval: it is checked as code, where it stands.
    def visit_arg(self, node: ast.arg) -> None:
        self.bind(node.arg, "other", node)
        if node.annotation is not None:
            self.check_string_annotations(node.annotation, signature=True)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.check_string_annotations(node.annotation)
        if self.postponed_annotations or self.scope_kinds[-1] is ast.FunctionDef:
            self.note_unevaluated(node.annotation)
        self.note_plain_slots([node.target], node.value)
        if node.value is None and isinstance(node.target, ast.Name):
            # `x: int` declares x and gives it no value: a binding for the checks that refuse
            # a second one, none for `check_unbound_names` (a red team's `types: int`)
            self.bind(node.target.id, "declared", node.target)
            self.visit(node.annotation)
            return
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.note_plain_slots(node.targets, node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        # `x += y` reads x, then binds it: its target (a Store in the tree) is walked as the
        # read it also is, under every rule for reads. A red team's `exec += Grab()` handed the
        # real builtin `exec` to `Grab.__radd__`; the store alone was checked (`correct`,
        # knowing no function, on a seeded library too).
        self.generic_visit(node)
        self.visit(as_load(node.target))

    def note_unevaluated(self, annotation: ast.AST) -> None:
        self.unevaluated.update(id(n) for n in ast.walk(annotation) if isinstance(n, ast.Name))

    def check_string_annotations(self, annotation: ast.AST, *, signature: bool = False) -> None:
        # Python evaluates an annotation (a module's, a parameter's, a return's): it must be a
        # type expression and nothing that runs (`x: holder.append(type) = 0` handed out
        # `type`); where its `type` may pass at all is `check_type_name`'s.
        runs = next((n for n in ast.walk(annotation) if not isinstance(n, _TYPE_EXPRESSION)), None)
        if runs is not None:
            self.refuse(
                "annotation-code",
                annotation,
                f"an annotation runs code ({type(runs).__name__}): only type expressions",
            )
            return
        if signature and self.postponed_annotations:
            self.note_unevaluated(annotation)
        if signature and not self.in_string_annotation:
            # a parameter's or a return's: its value goes only to the function's
            # `__annotations__`, which nothing allowed reads (`dtype: Optional[type] = None`, a
            # model's honest answer); a module's or a class body's goes further (`dataclasses`
            # puts it in the `Field` the code holds): no exemption there
            for node in ast.walk(annotation):
                if isinstance(node, ast.Name):
                    self.signature_annotations[id(node)] = annotation
        for node in ast.walk(annotation):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    parsed = ast.parse(node.value.strip(), mode="eval")
                except (SyntaxError, ValueError):
                    continue  # cannot be evaluated either
                except MemoryError:  # the parser's own stack, a fixed bound, on purpose
                    self.refuse("annotation-code", node, "an annotation too deep to read")
                    continue
                except RecursionError as exc:
                    # building the tree ran into the process's recursion limit: deeper than
                    # `MAX_NESTING` whatever the limit, so the verdict a higher limit gives
                    raise TooDeep(f"a string annotation nested past {MAX_NESTING} levels") from exc
                _, depth, nodes = _private_names(parsed)  # without recursion; its names are text
                if depth > self.nesting_left:
                    raise TooDeep(
                        f"code and its string annotations nested more than {MAX_NESTING} "
                        "levels deep"
                    )
                self.nodes_left -= nodes  # for good: each parse is walked
                if self.nodes_left < 0:
                    raise TooManyNodes(
                        f"the code and its string annotations have over {MAX_NODES} syntax nodes"
                    )
                for inner in ast.walk(parsed):
                    if hasattr(inner, "lineno"):
                        inner.lineno = node.lineno
                    if isinstance(inner, ast.Name):  # text: evaluated by nothing allowed
                        self.annotation_names.add(id(inner))
                outer, self.in_string_annotation = self.in_string_annotation, True
                self.nesting_left -= depth  # a string inside it is parsed deeper still
                self.visit(parsed.body)
                self.in_string_annotation = outer
                self.check_string_annotations(parsed.body)
                self.nesting_left += depth
