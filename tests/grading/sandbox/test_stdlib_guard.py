"""Standard-library objects that read attributes by a name they hold (stdlib_guard.py): in a
child, the name cannot be rewritten and `update_wrapper` copies only from functions, while the
honest uses keep working. Run without the static policy: these are the run-time layer."""

from __future__ import annotations

import textwrap

import pytest

from sebench.grading.sandbox import ExecStatus, Job


def run(pool, code: str) -> str | None:
    execution = pool.run(Job(textwrap.dedent(code), "solve", ("x=1",)))
    assert execution.status is ExecStatus.OK, execution
    case = execution.cases[0]
    return case.printed if case.error_type is None else f"{case.error_type}: {case.error_message}"


def attempt(call: str) -> str:
    """A `solve` that makes `call` and tells whether it was refused (a `TypeError`) or made."""
    return f"""
def solve(x):
    try:
        made = {call}
    except TypeError as error:
        return "refused: " + str(error)
    return "made: " + str(made)
"""


@pytest.mark.parametrize(
    ("name", "code"),
    [
        (
            "a field renamed after its class is made",
            """
            import dataclasses
            F = dataclasses.field(default=None)
            @dataclasses.dataclass
            class Box:
                slot: int = F
            def solve(x):
                F.name = "__class__"
                return "renamed"
            """,
        ),
        (
            "a cached property pointed at another key",
            """
            import functools
            class Box:
                @functools.cached_property
                def value(self):
                    return 1
            def solve(x):
                Box.value.attrname = "_sys"
                return "retargeted"
            """,
        ),
        (
            "a module's globals copied onto an object",
            """
            import functools, collections
            class Box:
                pass
            def solve(x):
                functools.wraps(collections)(Box())
                return "copied"
            """,
        ),
        (
            "a class's namespace copied onto an object",
            """
            import functools
            def solve(x):
                functools.update_wrapper(lambda: 0, int)
                return "copied"
            """,
        ),
        # Names given as data where the interpreter looks for special ones (a third red team
        # chained the first three into a dataclass that exec'd its field's name)
        (
            "an Enum class of the program's called with a special member name",
            """
            import enum
            class Color(enum.Enum):
                pass
            def solve(x):
                Color("Made", [("__reduce_ex__", print), ("a", 1)], module="m")
                return "made"
            """,
        ),
        (
            "the Enum functional API under another name, an enum hook as a member",
            """
            import enum
            E = enum.IntEnum
            def solve(x):
                E("Made", {"_missing_": 1, "a": 2}, module="m")
                return "made"
            """,
        ),
        (
            "copy setting a special attribute from a reduce state",
            """
            import copy
            class Target:
                pass
            class Box:
                def __reduce_ex__(self, protocol):
                    return (Target, (), (None, {"__dataclass_fields__": {}}))
            def solve(x):
                copy.copy(Box())
                return "set"
            """,
        ),
        (
            "dataclass over a base whose fields are not fields",
            """
            import dataclasses
            class Fake:
                name = "q=exec('1'),*r"
                _field_type = None
            class Base:
                __dataclass_fields__ = {"q": Fake()}
            def solve(x):
                @dataclasses.dataclass
                class Done(Base):
                    pass
                return "processed"
            """,
        ),
        (
            "dataclass over annotations that are not identifiers",
            """
            import dataclasses
            class Base:
                __annotations__ = {"q=exec('1'),*r": int}
            def solve(x):
                dataclasses.dataclass(Base)
                return "processed"
            """,
        ),
        (
            "copy rebuilding onto a module, its globals set from the state",
            """
            import copy, json
            class Box:
                def __reduce_ex__(self, protocol):
                    return (lambda: json, (), {"dumps": print})
            def solve(x):
                copy.copy(Box())
                return "rewritten"
            """,
        ),
        (
            "wraps told which attributes to copy, by position",
            """
            import functools, collections
            class Box:
                pass
            def solve(x):
                functools.wraps(collections.namedtuple, (), ("__globals__",))(Box())
                return "copied"
            """,
        ),
        (
            "a module's globals updated by wraps",
            """
            import functools, json
            def f():
                pass
            f.dumps = print
            def solve(x):
                functools.wraps(f)(json)
                return "rewritten"
            """,
        ),
        (
            "a deep copy's memo substituting an attribute name",
            """
            import copy, operator
            def solve(x):
                getter = copy.deepcopy(operator.attrgetter("real"), {id("real"): "imag"})
                return "renamed" if getter(1j) == 1 else "kept"
            """,
        ),
        (
            "a deep copy's memo substituting the object and the name of a descriptor",
            """
            import copy
            class Box:
                secret = "read"
            def solve(x):
                return copy.deepcopy(str.upper, {id(str): Box, id("upper"): "secret"})
            """,
        ),
        (
            "a generic alias's class dict copied by wraps",
            """
            import functools
            def f():
                pass
            def solve(x):
                functools.wraps(dict[int])(f)
                return "copied"
            """,
        ),
        (
            "a class's annotations rewritten by wraps",
            """
            import functools
            def f():
                pass
            class Box:
                pass
            def solve(x):
                functools.wraps(f)(Box)
                return "rewritten"
            """,
        ),
        (
            "a dataclass field with a special name from data",
            """
            import dataclasses, typing
            T = typing.TypedDict("T", {"__deep" + "copy__": object})
            def solve(x):
                class Box:
                    pass
                Box.__annotations__ = T.__annotations__
                dataclasses.dataclass(Box)
                return "special field"
            """,
        ),
        (
            "an attribute name swapped in a reduce tuple by a hook holding the memo",
            """
            import copy, operator
            class Hook:
                def __init__(self):
                    self.deep = None
            def grab(memo):
                memo[id("real")] = "imag"
                return 0
            def solve(x):
                hook = Hook()
                hook.__dict__["__deepcopy__"] = grab
                getter = copy.deepcopy([hook, operator.attrgetter("real")])[1]
                return "swapped" if getter(1j) == 1 else "kept"
            """,
        ),
        (
            "a bound method copied: its reduce reads the attribute named by the method",
            """
            import copy
            def __getattribute__(cls):
                return None
            class C:
                h = classmethod(__getattribute__)
            def solve(x):
                read = copy.copy(C.h)
                return read("text", "upper")
            """,
        ),
        (
            "a function named by data through wraps",
            """
            import functools, typing
            def solve(x):
                def g():
                    return None
                functools.wraps(typing.TypeVar("_" * 2 + "getattribute" + "_" * 2))(g)
                return g.__name__
            """,
        ),
        (
            "a shared typing alias updated by wraps",
            """
            import functools, typing
            T = typing.TypeVar("T")
            def solve(x):
                functools.wraps(typing.Type[int])(typing.Generic[T])
                return "updated"
            """,
        ),
        (
            "a function updated from an object of another kind",
            """
            import functools
            class Named:
                def __init__(self):
                    self.__name__ = "anything"
            def solve(x):
                def g():
                    return None
                functools.update_wrapper(g, Named())
                return g.__name__
            """,
        ),
        (
            "a cached callable named by data",
            """
            import functools
            class Named:
                def __init__(self):
                    self.__name__ = "_" * 2 + "getattribute" + "_" * 2
                def __call__(self):
                    return 1
            def solve(x):
                return functools.lru_cache()(Named()).__name__
            """,
        ),
        (
            "a memo handed in by the program while a deep copy runs",
            """
            import copy, operator
            class Key:
                def __hash__(self):
                    copy.deepcopy(operator.attrgetter("real"), {id("real"): "imag"}, [])
                    return 1
            def solve(x):
                copy.deepcopy({Key(): 1}, {})
                return "substituted"
            """,
        ),
    ],
)
def test_no_held_name_can_be_retargeted(pool, name, code):
    printed = run(pool, code)
    assert printed is not None, name
    # refused, or (an `attrgetter` is now a plain function, which a copy keeps as it is)
    # not retargeted
    assert printed.startswith(("AttributeError", "TypeError", "ValueError", "kept")), printed


def test_the_honest_uses_still_work(pool):
    code = """
        import dataclasses, functools
        @dataclasses.dataclass(order=True)
        class Point:
            x: int
            tags: list = dataclasses.field(default_factory=list)
        class Circle:
            def __init__(self, r):
                self.r = r
            @functools.cached_property
            def area(self):
                return 3 * self.r * self.r
        def deco(fn):
            @functools.wraps(fn)
            def inner(*a):
                return fn(*a)
            return inner
        @deco
        def double(v):
            return 2 * v
        @functools.lru_cache
        def square(v):
            return v * v
        def solve(x):
            p = dataclasses.replace(Point(1), x=2)
            return [p, Point(1) < p, Circle(2).area, double.__name__, double(3), square(4)]
    """
    assert run(pool, code) == "[Point(x=2, tags=[]), True, 12, 'double', 6, 16]"


def test_the_honest_uses_of_enum_copy_and_inheritance_still_work(pool):
    code = """
        import copy, dataclasses, enum, functools
        # (the policy refuses the functional API; without `module=` it also reads a frame)
        Color = enum.Enum("Color", "RED GREEN", module="m")
        Size = enum.IntEnum("Size", [("S", 1), ("M", 2)], module="m")
        class Account:
            def __init__(self):
                self._balance = 3
                self.items = [1, 2]
        @dataclasses.dataclass
        class Base:
            x: int = 0
        @dataclasses.dataclass(order=True)
        class Child(Base):
            y: int = 1
        def solve(x):
            a = copy.deepcopy(Account())
            p = copy.copy(functools.partial(max, 1))
            return [Color.GREEN.value, Size.M.name, a._balance, a.items, p(5), Child(2, 3)]
    """
    assert run(pool, code) == "[2, 'M', 3, [1, 2], 5, Child(x=2, y=3)]"


def test_copies_of_the_standard_librarys_objects_still_work(pool):
    """`copy` rebuilds through classes and `object.__reduce_ex__`'s functions only: every kind
    of object honest code copies still copies."""
    code = """
        import collections, copy, dataclasses, datetime, decimal, fractions, functools
        Pair = collections.namedtuple("Pair", "a b")
        @dataclasses.dataclass
        class Point:
            x: int
        def solve(x):
            made = [
                collections.deque([1, 2]), collections.OrderedDict(a=1),
                collections.Counter("aab"), collections.defaultdict(list, {"k": [1]}),
                Pair(1, 2), Point(3), fractions.Fraction(1, 3), decimal.Decimal("1.5"),
                datetime.date(2020, 1, 2), datetime.timedelta(days=1), range(3), slice(1, 2),
                functools.partial(max, 1), {1, 2}, frozenset({3}),
            ]
            copied = copy.copy(made) + copy.deepcopy(made)
            rest = list(copy.copy(iter([7, 8])))
            return [c == m for c, m in zip(copied, made + made) if not callable(m)], rest
    """
    assert run(pool, code) == "([" + ", ".join(["True"] * 28) + "], [7, 8])"


@pytest.mark.parametrize(
    "call",
    [
        'operator.attrgetter("__class__")(x)',
        'operator.attrgetter("real", "__globals__")(1j)',
        'operator.attrgetter("imag.__class__")(x)',
        'operator.attrgetter("sys.modules")(typing)',
        'operator.attrgetter("sys")(typing)',
        'operator.methodcaller("__reduce_ex__", 2)(x)',
        'operator.methodcaller("format", 1)("{0.__class__}")',
        'type(operator.attrgetter("real"))("__class__")(x)',
        'type(operator.methodcaller("upper"))("__reduce__")(x)',
    ],
)
def test_attrgetter_and_methodcaller_check_their_names_at_run_time(pool, call):
    """What each of one day's red teams did once it had `type`: `type(attrgetter("real"))`,
    the C class, read any attribute by a name built at run time. The names are checked again
    by the policy's rule, and what the two hand out is a plain function, whose `type` is no
    getter."""
    code = f"import operator, typing\n\ndef solve(x):\n    return str(type({call}))\n"
    printed = run(pool, code)
    # refused by the name check, or (`type` of a plain function) no getter to call at all
    assert printed is not None and printed.split(":")[0] in {"AttributeError", "TypeError"}
    assert "by a name held as data" in printed or "function()" in printed, printed


def test_attrgetter_and_methodcaller_still_serve_honest_names(pool):
    code = """
    import operator

    class P:
        def __init__(self, a, b):
            self.a, self.b = a, b

    def solve(x):
        points = sorted([P(2, "b"), P(1, "a")], key=operator.attrgetter("a"))
        pair = operator.attrgetter("a", "b")(points[0])
        upper = operator.methodcaller("replace", "a", "z")("banana")
        return [p.b for p in points], pair, upper, operator.attrgetter("real")(x)
    """
    assert run(pool, code) == "(['a', 'b'], (1, 'a'), 'bznznz', 1)"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        (
            "a field's name deleted, then set anew",
            """
            import dataclasses
            fld = dataclasses.field(default=None)
            @dataclasses.dataclass
            class H:
                a: int = fld
            def solve(x):
                del fld.name
                fld.name = "__class__"
                return str(dataclasses.asdict(H()))
            """,
        ),
        (
            "a cached property's name deleted, then set anew",
            """
            import functools
            class Box:
                @functools.cached_property
                def value(self):
                    return 1
            def solve(x):
                prop = Box.__dict__["value"]
                del prop.attrname
                prop.attrname = "__deepcopy__"
                return "renamed"
            """,
        ),
        (
            "replace on a class of the program's metaclass with fake fields",
            """
            import dataclasses
            class F:
                init = True
                _field_type = None
                name = "__getattribute__"
            class Meta(type):
                __dataclass_fields__ = {"k": F()}
            def solve(x):
                return str(dataclasses.replace(Meta("C", (), {})))
            """,
        ),
        (
            "asdict on an object whose class claims fake fields",
            """
            import dataclasses
            class F:
                init = True
                _field_type = dataclasses._FIELD
                name = "__class__"
            class C:
                __dataclass_fields__ = {"k": F()}
            def solve(x):
                return str(dataclasses.asdict(C()))
            """,
        ),
        (
            "asdict of a real dataclass holding such an object",
            """
            import dataclasses
            class F:
                init = True
                _field_type = dataclasses._FIELD
                name = "__class__"
            class C:
                __dataclass_fields__ = {"k": F()}
            @dataclasses.dataclass
            class H:
                inner: object
            def solve(x):
                return str(dataclasses.astuple(H(C())))
            """,
        ),
    ],
)
def test_dataclass_readers_take_real_fields_of_real_dataclasses(pool, name, code):
    """`replace`, `asdict` and `astuple` read each field by its name from any object whose class
    has `__dataclass_fields__`, and a field's or a cached property's "set once" name could be
    deleted and set again (a red team's, with `type` from a policy hole)."""
    printed = run(pool, code)
    assert printed is not None and printed.startswith(("AttributeError", "TypeError")), printed


def test_honest_dataclass_readers_still_work(pool):
    code = """
    import abc, dataclasses

    @dataclasses.dataclass
    class P:
        x: int
        y: int = 2

    @dataclasses.dataclass
    class Q(abc.ABC):
        z: int

    def solve(x):
        p = dataclasses.replace(P(1), y=5)
        return dataclasses.asdict(p), dataclasses.astuple(p), dataclasses.asdict(Q(3))
    """
    assert run(pool, code) == "({'x': 1, 'y': 5}, (1, 5), {'z': 3})"


# Below the policy, a module the program holds, however it got it, is read-only to it: each
# kind of write on each kind of module (the standard library's, a submodule, a module held as
# another's attribute, the library's package and submodule).
MODULE_WRITES = {
    "set": "m.{name} = 1",
    "delete": "del m.{name}",
    "setattr": "setattr(m, '{name}', 1)",
    "unpacked": "m.{name}, y = 1, 2",
}
HELD_MODULES = {
    "collections": ("import collections", "collections", "namedtuple"),
    "collections.abc": ("import collections.abc", "collections.abc", "Iterable"),
    "statistics.math": ("import statistics", "statistics.math", "pi"),
    "the library": ("import zwc", "zwc", "kocito"),
    "the library's submodule": ("import zwc", "zwc.rfx", "quvohe"),
    "new name": ("import json", "json", "anything_new"),
}


def write_held(pool, held: tuple[str, str, str], write: str, refused: str) -> str | None:
    """What a program prints that holds `expression` under a name of its own (`held`: its
    imports, the expression, the attribute's name) and writes the attribute in the form `write`:
    "refused: <message>; unchanged" (or "; changed") when `refused` is raised, else
    "written"."""
    imports, expression, name = held
    code = f"""
    {imports}
    def solve(x):
        m = [{expression}][0]
        before = repr(getattr(m, "{name}", None))
        try:
            {MODULE_WRITES[write].format(name=name)}
        except {refused} as refused:
            same = repr(getattr(m, "{name}", None)) == before
            return "refused: " + str(refused) + ("; unchanged" if same else "; changed")
        return "written"
    """
    return run(pool, code)


@pytest.mark.parametrize("write", sorted(MODULE_WRITES))
@pytest.mark.parametrize("module", sorted(HELD_MODULES))
def test_a_module_is_read_only_to_the_program(pool, module, write):
    printed = write_held(pool, HELD_MODULES[module], write, "RuntimeError")
    assert printed.startswith("refused: rebinding a name of the module"), printed
    assert printed.endswith("; unchanged"), printed


def test_what_the_standard_library_writes_on_its_modules_still_works(pool):
    code = """
    import warnings, zwc

    def solve(x):
        import textwrap, keyword, unicodedata
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.warn("w")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            zwc.kocito([])
        return len(caught), textwrap.dedent("  a"), keyword.iskeyword("if")
    """
    assert run(pool, code) == "(1, 'a', True)"


# Below the policy, a class that exists before the program (the standard library's, NumPy's,
# the library's) is as unchangeable as a builtin type, however the program holds it: under a
# name of its own, in a container, or through a typing alias, which writes each attribute set
# on it to its class (a red team's `typing.Counter[int].most_common = f`).
HELD_CLASSES = {
    "a stdlib class": ("import collections", "collections.Counter", "most_common"),
    "an abstract base": ("import collections.abc", "collections.abc.Mapping", "get"),
    "through a typing alias": ("import typing", "typing.Counter[int]", "most_common"),
    "a json class": ("import json", "json.JSONDecoder", "decode"),
    "the library's array": ("import zwc", "type(zwc.yitaf([1]))", "shape"),
    "a new name": ("import fractions", "fractions.Fraction", "anything_new"),
}


@pytest.mark.parametrize("write", sorted(MODULE_WRITES))
@pytest.mark.parametrize("held", sorted(HELD_CLASSES))
def test_a_class_that_exists_before_the_program_is_read_only_to_it(pool, held, write):
    printed = write_held(pool, HELD_CLASSES[held], write, "(TypeError, AttributeError)")
    assert printed.endswith("; unchanged"), printed
    if held == "through a typing alias" and write == "delete":
        # typing's alias passes on writes, not deletes: the alias itself has no such attribute
        assert printed.endswith("has no attribute 'most_common'; unchanged"), printed
    else:
        assert printed.startswith("refused: cannot"), printed
        assert "immutable type" in printed, printed


def test_the_programs_own_classes_and_subclasses_stay_writable(pool):
    code = """
    import collections, dataclasses, enum

    @dataclasses.dataclass(frozen=True, order=True)
    class P:
        x: int

    class C(collections.Counter):
        pass

    class E(enum.Enum):
        A = 1

    def solve(x):
        C.extra = 1
        P.count = 2
        return C("aab").most_common(1), C.extra, P.count, P(1) < P(2), E(1)
    """
    assert run(pool, code) == "([('a', 2)], 1, 2, True, <E.A: 1>)"


# The Enum functional API called through a name the policy cannot resolve (a red team's `alias =
# E; alias("M", {...})`): a function given as a value would become a method named by data, and
# `type=` any class a base; both are refused where the class is made.
@pytest.mark.parametrize(
    "call",
    [
        'alias("M", {"A": 1, "".join(["fo", "rmat"]): lambda self, spec: "mine"})',
        'alias("M", [("A", 1), ("isidentifier", lambda self: True)])',
        'alias("S", {"A": "a b"}, type=str)',
        'alias("B", {"A": 1}, type=BaseException)',
    ],
)
def test_the_enum_functional_api_makes_no_method_and_no_base(pool, call):
    code = f"""
    import enum
    class E(enum.Enum):
        pass
    alias = [E][0]
    def solve(x):
        try:
            made = {call}
        except (TypeError, ValueError) as refused:
            return "refused: " + str(refused)
        return "made " + repr(list(made))
    """
    assert run(pool, code).startswith("refused: "), call


def test_the_enum_functional_api_still_makes_honest_enums(pool):
    code = """
    import enum
    def solve(x):
        color = enum.Enum("Color", "RED GREEN")
        pair = enum.Enum("Pair", [("A", 1), ("B", (2, 3))])
        level = enum.IntEnum("Level", {"LOW": 1, "HIGH": 2})
        return [m.name for m in color], pair.B.value, level.HIGH + 1
    """
    assert run(pool, code) == "(['RED', 'GREEN'], (2, 3), 3)"


def test_update_wrapper_reads_each_name_list_once(pool):
    """An iterable of the program's that answers the check with `__dict__` and the copy with
    `__globals__` (a red team's): only the list that was checked is copied by."""
    code = """
    import functools, typing
    class Flip:
        def __init__(self):
            self.n = 0
        def __iter__(self):
            self.n += 1
            return iter(["__dict__"] if self.n == 1 else ["_" * 2 + "globals" + "_" * 2])
    def sink():
        return 0
    def solve(x):
        try:
            functools.update_wrapper(sink, typing.cast, (), Flip())
        except (TypeError, AttributeError) as refused:
            return "refused: " + str(refused)
        return "sys" in globals()
    """
    assert run(pool, code) == "False"


def test_copy_sets_no_state_through_a_dict_that_is_not_the_rebuilt_objects_own(pool):
    """A generic alias hands on its `__dict__` from the object it wraps: a subclass whose
    reduce is object's was rebuilt by `copy` as an alias of a module, and the state went into
    that module's globals, past the seal, which sees only attribute writes (a red team's,
    with `ABCMeta` and `GenericAlias` from re-exports the policy now refuses)."""
    code = """
    import copy, json, numbers, re

    U = "_" * 2

    def missing(self):
        raise AttributeError("no reduce of its own")

    Writer = numbers.ABCMeta(
        "Writer",
        (re.functools.GenericAlias,),
        {U + "reduce" + U: property(missing), U + "getnewargs" + U: lambda self: (json, ())},
    )

    class Source:
        pass

    def solve(x):
        holder = Source()
        holder.planted = 42
        try:
            copy.copy(Writer(holder, ()))
        except TypeError as refused:
            return "refused: " + str(refused) + "; " + str(hasattr(json, "planted"))
        return "planted: " + str(getattr(json, "planted", None))
    """
    assert run(pool, code) == (
        "refused: copy sets no state through another object's attributes; False"
    )


# An object's instance `__dict__` holding a special name is a hook `copy` calls (`getattr(x,
# "__deepcopy__")` looks there). Three ways a red team put one there, none through a name the
# policy could read: a cached property's attribute name set once by hand, a reduce state given
# as pairs (which `__dict__.update` takes), and a state whose key a hook swapped through the
# deep copy's memo after it was checked.
INSTANCE_HOOKS = {
    "a cached property's name set by hand": """
    import copy, functools

    class Box:
        pass

    def hook(box):
        return lambda memo: "hooked"

    def solve(x):
        prop = functools.cached_property(hook)
        prop.attrname = "_" * 2 + "deepcopy" + "_" * 2
        Box.grab = prop
        box = Box()
        box.grab
        return copy.deepcopy(box)
    """,
    "a dataclass field's name set by hand": """
    import dataclasses

    def solve(x):
        field = dataclasses.field()
        field.name = "_" * 2 + "deepcopy" + "_" * 2
        return field.name
    """,
    "a state given as pairs": """
    import copy, functools

    class Box:
        pass

    def reducer(box):
        name = "_" * 2 + "deepcopy" + "_" * 2
        return lambda protocol: (Box, (), [(name, lambda memo: "hooked")])

    def solve(x):
        Box.grab = functools.cached_property(reducer)  # named `grab` by the class: allowed
        box = Box()
        box.__dict__  # (the policy refuses this; the sandbox alone is tested here)
        box.__dict__["_" * 2 + "reduce_ex" + "_" * 2] = reducer(box)
        return copy.deepcopy(copy.copy(box))
    """,
    "a state key swapped through the memo": """
    import copy

    class Box:
        pass

    PLAIN = "plain"

    def swap(memo):
        memo[id(PLAIN)] = "_" * 2 + "deepcopy" + "_" * 2
        return "swapped"

    class Trigger:
        pass

    TRIGGER = Trigger()
    TRIGGER.__dict__["_" * 2 + "deepcopy" + "_" * 2] = swap

    def reduce(protocol):  # the trigger's hook runs before the key is copied
        return (Box, (), {"trigger": TRIGGER, PLAIN: lambda memo: "hooked"})

    def solve(x):
        box = Box()
        box.__dict__["_" * 2 + "reduce_ex" + "_" * 2] = reduce
        rebuilt = copy.deepcopy(box)
        return copy.deepcopy(rebuilt)
    """,
}


@pytest.mark.parametrize("name", sorted(INSTANCE_HOOKS))
def test_no_special_name_reaches_an_instance_dict_through_the_standard_library(pool, name):
    printed = run(pool, INSTANCE_HOOKS[name])
    assert printed.startswith(("ValueError", "TypeError", "AttributeError")), printed
    assert "hooked" not in printed


# Methods of the standard library that build `self.__class__(...)` from what `self` holds: called
# through their class on a class (`C.data.lower()` is the class `D`), each was `type(D)`, i.e.
# `type` itself (red teams NM and NN; NN's `UserString.capitalize` went on to read the whole
# library mapping out of the child's memory).
SELF_CLASS_CALLS = [
    "collections.UserString.capitalize(C)",
    "collections.UserString.lower(C)",
    "collections.UserString.upper(C)",
    "collections.UserString.strip(C)",
    "collections.UserString.zfill(C, 3)",
    "collections.UserString.replace(C, 'a', 'b')",
    "collections.ChainMap.new_child(M, D)",
    "collections.ChainMap.copy(M)",
    "collections.ChainMap.parents.fget(M)",
    "collections.Counter.copy(int)",
    "collections.UserList.copy(int)",
    "collections.UserDict.copy(C)",
]


SELF_CLASS_GADGET = """
import collections

class D:
    def __getattr__(self, name):
        return lambda *args, **kwargs: D

class C:
    data = D()

class M:
    maps = []
"""


@pytest.mark.parametrize("call", SELF_CLASS_CALLS)
def test_a_method_called_through_its_class_on_a_class_hands_out_no_type(pool, call):
    printed = run(pool, SELF_CLASS_GADGET + attempt(call))
    assert printed is not None and printed.startswith("refused:"), printed
    assert "takes a" in printed, printed


STATISTICS_GADGET = """
import abc, enum, fractions, statistics

class A(abc.ABC):
    pass

class Z(enum.IntEnum):  # an int subclass: the other item's type is the common type
    ONE = 1

    def as_integer_ratio(self):  # not finite: the object itself is the total
        raise ValueError("inf")

    def is_finite(self):
        return False

    def __radd__(self, other):
        return self

    def __add__(self, other):
        return self

    def __truediv__(self, other):  # the mean: what `T(...)` is given
        return A

class C:  # a class among the data: its type is a metaclass
    @staticmethod
    def as_integer_ratio():
        raise ValueError("inf")

    @staticmethod
    def is_finite():
        return False
"""


@pytest.mark.parametrize(
    "call",
    [
        "statistics.mean([Z.ONE, C])",
        "statistics._convert(A, type)",
        "statistics._convert(A, abc.ABCMeta)",
        "statistics._convert(Z, enum.EnumType)",
    ],
)
def test_statistics_converts_to_no_metaclass(pool, call):
    """A red team's (NQ): `mean` returns `T(total / n)` with `T` the data's common type; with a
    class among the data `T` is a metaclass and the result `type(value)`, here `abc.ABCMeta`,
    which makes classes with any special method named at run time."""
    printed = run(pool, STATISTICS_GADGET + attempt(call))
    assert printed is not None and printed.startswith("refused:"), printed
    assert "metaclass" in printed, printed
    kept = run(
        pool,
        STATISTICS_GADGET
        + """
def solve(x):
    return [
        statistics.mean([1, 2]),
        statistics.variance([1.0, 2.0, 4.0]),
        statistics.harmonic_mean([1, 2, 4]),
        statistics.mean([fractions.Fraction(1, 2), fractions.Fraction(1, 3)]),
    ]
""",
    )
    assert kept == "[1.5, 2.3333333333333335, 1.7142857142857142, Fraction(5, 12)]", kept


@pytest.fixture(scope="module")
def library_pool(official_library):
    """The official library (NumPy's functions behind it), the policy not in the way."""
    from sebench.grading.sandbox import SandboxConfig, SandboxPool

    config = SandboxConfig(workers=1, timeout_s=3, memory_mb=512, max_output_bytes=64 << 10)
    with SandboxPool(official_library, config) as warm:
        yield warm


def test_no_class_of_the_program_is_asked_what_numpy_checks_against_an_abc(
    library_pool, official_library
):
    """NumPy checks its raw objects against ABCs (`isinstance(raw, numbers.Number)` inside
    `logspace`, `linspace`, `geomspace`, `piecewise`), and an ABC asks its subclasses' hooks,
    their metaclasses and its registered classes: a program's was handed the raw ndarray class
    (red teams NM, NN, NQ, each once it had `type` or a metaclass; then raw arrays and any
    memory). Every gadget at once, with `type` in hand (no policy here): none hears of a NumPy
    class. Honest ABCs still work."""
    names = official_library.table.numpy_to_library()
    calls = [
        f"lambda a: {names['logspace']}(a, a)",
        f"lambda a: {names['linspace']}(a, a)",
        f"lambda a: {names['geomspace']}(a, a)",
        f"lambda a: {names['piecewise']}(a, [a > 2], [1, 2])",
    ]
    printed = run(
        library_pool,
        f"""
        import abc, collections.abc, numbers
        import zwc

        seen = []

        def hook(cls, sub):
            seen.append(sub)
            return NotImplemented

        H1 = type("H1", (numbers.Number,), {{"__subclasshook__": classmethod(hook)}})
        H2 = type("H2", (collections.abc.Sequence,), {{"__subclasshook__": classmethod(hook)}})

        class M(abc.ABCMeta):
            def __subclasscheck__(cls, sub):
                seen.append(sub)
                return False

            def __instancecheck__(cls, instance):
                seen.append(instance)
                return False

        H3 = M("H3", (numbers.Number,), {{}})

        class K(type):
            def __subclasscheck__(cls, sub):
                seen.append(sub)
                return False

            def __eq__(cls, other):
                seen.append(other)
                return False

            def __hash__(cls):
                return 1

        R = K("R", (), {{}})
        numbers.Number.register(R)
        collections.abc.Sequence.register(R)

        class Shape(abc.ABC):
            @abc.abstractmethod
            def area(self): ...

        class Square(Shape):
            def area(self):
                return 4

        def solve(x):
            a = zwc.ZWCArray([[1.0, 2.0], [3.0, 4.0]])
            for call in [{", ".join(calls)}]:
                try:
                    call(a)
                except Exception:
                    pass
            numpy_seen = sorted({{
                type(s).__module__ + "." + type(s).__name__
                for s in seen
                if "numpy" in (type(s).__module__ + str(getattr(s, "__module__", "")))
            }})
            return [numpy_seen, Square().area(), isinstance(Square(), Shape), isinstance(3, Shape)]
        """,
    )
    assert printed == "[[], 4, True, False]", printed


def test_every_method_of_the_allowed_modules_classes_takes_its_own_instances_only(pool):
    """The rule behind the calls above, for every class a program can reach from the allowed
    modules (their names, and those classes' bases): in a child, no method written in Python
    (a function whose first parameter is the instance, or a special method) and no property
    accessor is left as Python makes it, where `self` may be anything."""
    from sebench.grading.policy import ALLOWED_MODULES

    modules = sorted(ALLOWED_MODULES) + ["collections.abc", "json.decoder"]
    missed = run(
        pool,
        f"""
        import {", ".join(modules)}

        SELF = ("self", "cls", "mcls", "metacls")
        # the child's seeded `random` (determinism.py): each calls the C base's own method,
        # which checks `self` itself
        DETERMINISM = "sebench.grading.sandbox.determinism"

        def unchecked(function):
            code, name = function.__code__, function.__name__
            special = name.startswith("__") and name.endswith("__")
            return code.co_argcount > 0 and (special or code.co_varnames[0] in SELF)

        def solve(x):
            missed, seen = [], set()
            for module in [{", ".join(modules)}]:
                for value in list(vars(module).values()):
                    if not isinstance(value, type):
                        continue
                    for cls in value.__mro__:
                        if cls in seen:
                            continue
                        seen.add(cls)
                        for attribute, member in vars(cls).items():
                            parts = [member]
                            if isinstance(member, property):
                                parts = [member.fget, member.fset, member.fdel]
                            for part in parts:
                                if (
                                    type(part).__name__ == "function"
                                    and part.__name__ != "__new__"  # takes a class
                                    and part.__module__ != DETERMINISM
                                    and unchecked(part)
                                ):
                                    missed.append(cls.__qualname__ + "." + attribute)
            return (len(seen), sorted(set(missed)))
        """,
    )
    assert missed is not None and missed.endswith(", [])"), missed
    assert int(missed.strip("(").split(",")[0]) > 100, missed  # the walk reached the classes


@pytest.mark.parametrize(
    "holder",
    ["collections.Counter", "collections.UserList", "typing.Counter", "statistics.Counter"],
)
def test_a_copy_method_called_on_a_class_hands_out_no_type(pool, holder):
    """A red team's: `Counter.copy` is `self.__class__(self)`, so `collections.Counter.copy(int)`
    was `type` itself, from a call the policy allows (then a metaclass and special methods
    named at run time). A copy of an instance still works."""
    module = holder.split(".")[0]
    refused = run(pool, f"import {module}\n" + attempt(f"{holder}.copy(int)"))
    assert refused is not None and refused.startswith("refused:"), refused
    assert "takes a" in refused, refused
    kept = run(
        pool,
        f"""
        import {module}
        def solve(x):
            original = {holder}([3, 1, 3])
            return original.copy() == original
        """,
    )
    assert kept == "True", kept
