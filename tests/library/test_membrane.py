"""The membrane between user code and NumPy (issue 12, class 1), tested as a class.

Claim: whatever a program hands to any of the 278 library functions, in any argument slot or
keyword, no NumPy object (ndarray, NumPy scalar, dtype, ufunc, anything from a `numpy` module)
ever reaches the program: not through a protocol method NumPy calls on its objects
(`__array__`, `__array_function__`, `__array_ufunc__`, `__array_wrap__`, `__array_interface__`,
`__index__`, reflected operators, subclass dunders, sequence and mapping look-alikes, `like=`,
dtype-ish objects), not through a callback in any container, not through results, and not through
exceptions (attributes, args, `__cause__`, `__context__`, traceback frame locals).
"""

from __future__ import annotations

import contextlib
import sys
from types import FrameType, ModuleType, TracebackType
from typing import Any

import numpy as np
import pytest

from sebench.library.catalog import ALL
from sebench.library.library import Library
from tests.library.function_cases import CASES

SEEN: list[Any] = []  # every argument any hostile method received


def _saw(*values: Any) -> None:
    SEEN.extend(values)


class ArrayFunction:
    def __array_function__(self, func, types, args, kwargs):
        _saw(func, types, args, kwargs)
        return 0


class ArrayUfunc:
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _saw(ufunc, method, inputs, kwargs)
        return 0


class ArrayWrap:
    __array_priority__ = 1e9

    def __array_wrap__(self, array, context=None, return_scalar=False):
        _saw(array, context)
        return 0

    def __array_finalize__(self, obj):
        _saw(obj)


class ArrayMethod:
    def __array__(self, dtype=None, copy=None):
        _saw(dtype, copy)
        raise TypeError("no array here")


class ArrayInterface:
    @property
    def __array_interface__(self):
        _saw("interface asked")
        raise AttributeError("no interface")

    @property
    def __array_struct__(self):
        _saw("struct asked")
        raise AttributeError("no struct")


class Reflected:
    __array_ufunc__ = None

    def _record(self, *others):
        _saw(*others)
        return self

    __radd__ = __add__ = __rmul__ = __mul__ = __rsub__ = __sub__ = _record
    __rtruediv__ = __truediv__ = __rpow__ = __pow__ = __rmod__ = __mod__ = _record
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _record  # type: ignore[assignment]
    __hash__ = object.__hash__


class IndexLike:
    def __index__(self):
        _saw("index asked")
        return 1

    def __int__(self):
        return 1

    def __float__(self):
        return 1.0

    def __complex__(self):
        return 1j


class IntSub(int):
    def __radd__(self, other):
        _saw(other)
        return 0

    __add__ = __mul__ = __rmul__ = __eq__ = __lt__ = __radd__  # type: ignore[assignment]
    __hash__ = int.__hash__

    def __array_ufunc__(self, *args, **kwargs):
        _saw(args, kwargs)
        return 0

    def __index__(self):
        _saw("index asked")
        return 1


class FloatSub(float):
    def __radd__(self, other):
        _saw(other)
        return 0.0

    __add__ = __mul__ = __rmul__ = __eq__ = __lt__ = __radd__  # type: ignore[assignment]
    __hash__ = float.__hash__

    def __array_function__(self, *args):
        _saw(args)
        return 0


class NumpyScalarSub(np.float64):
    """A subclass of one of NumPy's own scalar types: not NumPy's, whatever it derives from (a
    red team's, with `type` in hand: `array + Sub(1.0)` gave it the raw ufunc and arrays)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _saw(ufunc, method, inputs, kwargs)
        return 0

    def __array_function__(self, *args):
        _saw(args)
        return 0


class StrSub(str):
    def __eq__(self, other):
        _saw(other)
        return False

    __hash__ = str.__hash__


class ListSub(list):
    def __getitem__(self, key):
        _saw(key)
        return super().__getitem__(key)

    def __array__(self, dtype=None, copy=None):
        _saw(dtype)
        raise TypeError("no")


class TupleSub(tuple):
    def __getitem__(self, key):
        _saw(key)
        return super().__getitem__(key)


class DictSub(dict):
    def __getitem__(self, key):
        _saw(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        _saw(key, default)
        return super().get(key, default)


class SequenceLike:
    def __len__(self):
        return 2

    def __getitem__(self, index):
        _saw(index)
        if index >= 2:
            raise IndexError(index)
        return Reflected()


class MappingLike:
    def keys(self):
        return ["all"]

    def __getitem__(self, key):
        _saw(key)
        return lambda value: _saw(value) or "x"

    def __iter__(self):
        return iter(["all"])

    def __len__(self):
        return 1


class DtypeLike:
    @property
    def dtype(self):
        _saw("dtype asked")
        return "float64"


class CallableSpy:
    """Callable, so the library wraps it: it must still see library values only."""

    def __call__(self, *args, **kwargs):
        _saw(*args, kwargs)
        return 0

    def __array_function__(self, *args):
        _saw(args)
        return 0

    def __array__(self, dtype=None, copy=None):
        _saw(dtype)
        raise TypeError("no")


KINDS = {
    "array_function": ArrayFunction,
    "array_ufunc": ArrayUfunc,
    "array_wrap": ArrayWrap,
    "array_method": ArrayMethod,
    "array_interface": ArrayInterface,
    "reflected_operators": Reflected,
    "index_float_int": IndexLike,
    "int_subclass": lambda: IntSub(1),
    "float_subclass": lambda: FloatSub(1.0),
    "str_subclass": lambda: StrSub("float64"),
    "numpy_scalar_subclass": lambda: NumpyScalarSub(1.0),
    "numpy_scalar_subclass_as_a_type": lambda: NumpyScalarSub,
    "list_subclass": lambda: ListSub([1.0, Reflected()]),
    "tuple_subclass": lambda: TupleSub((1, 2)),
    "dict_subclass": lambda: DictSub({"all": CallableSpy()}),
    "sequence_like": SequenceLike,
    "mapping_like": MappingLike,
    "dtype_like": DtypeLike,
    "callable": CallableSpy,
    "inside_a_list": lambda: [1.0, Reflected()],
    "inside_a_tuple": lambda: (ArrayUfunc(), 2.0),
    "inside_a_dict": lambda: {"all": CallableSpy(), "x": ArrayFunction()},
    "callables_in_a_list": lambda: [CallableSpy(), CallableSpy()],
    "a_user_class": lambda: ArrayFunction,
}
EXTRA_KEYWORDS = ("like", "dtype", "axis", "out", "formatter", "where")


def numpy_objects(value: Any, found: list[str], depth: int = 0, seen: set | None = None) -> None:
    """Append a description of every NumPy object reachable from `value` without dunders
    (containers, exception attributes and chains, traceback frames' locals)."""
    seen = set() if seen is None else seen
    if id(value) in seen or depth > 12:
        return
    seen.add(id(value))
    kind = type(value)
    if kind is NumpyScalarSub or value is NumpyScalarSub:
        return  # the program's own object (a traceback's frames hold what was refused)
    module = str(getattr(kind, "__module__", ""))
    if isinstance(value, ModuleType) and value.__name__.split(".")[0] == "numpy":
        found.append("the numpy module")
    elif isinstance(value, np.ndarray | np.generic | np.dtype | np.ufunc):
        found.append(f"a raw {kind.__name__}")
    elif isinstance(value, type) and str(value.__module__).startswith("numpy"):
        found.append(f"the NumPy class {value.__name__}")
    elif module.startswith("numpy"):
        found.append(f"a NumPy {kind.__name__}")
    if isinstance(value, list | tuple | set | frozenset):
        for item in value:
            numpy_objects(item, found, depth + 1, seen)
    elif isinstance(value, dict):
        for key, item in value.items():
            numpy_objects(key, found, depth + 1, seen)
            numpy_objects(item, found, depth + 1, seen)
    elif isinstance(value, BaseException):
        numpy_objects(value.args, found, depth + 1, seen)
        numpy_objects(getattr(value, "__dict__", {}), found, depth + 1, seen)
        for name in ("ufunc", "dtype", "to", "from_", "obj", "dtypes", "casting"):
            if hasattr(value, name):
                numpy_objects(getattr(value, name), found, depth + 1, seen)
        numpy_objects(value.__cause__, found, depth + 1, seen)
        numpy_objects(value.__context__, found, depth + 1, seen)
        numpy_objects(value.__traceback__, found, depth + 1, seen)
    elif isinstance(value, TracebackType):
        numpy_objects(value.tb_frame, found, depth + 1, seen)
        numpy_objects(value.tb_next, found, depth + 1, seen)
    elif isinstance(value, FrameType) and value.f_code is not attempt.__code__:
        numpy_objects(dict(value.f_locals), found, depth + 1, seen)


def attempt(function: Any, args: tuple, kwargs: dict) -> tuple[Any, BaseException | None]:
    """Call `function`; this frame's own locals are the caller's values only."""
    try:
        result = function(*args, **kwargs)
        if callable(result) and not isinstance(result, type):  # vectorize gives a function
            result = result([1.0, 2.0])
        return result, None
    except Exception as error:  # noqa: BLE001 - any failure is checked, not judged
        return None, error


@pytest.fixture(scope="module")
def functions(zwc: ModuleType, official_library: Library) -> dict[str, Any]:
    def find(numpy_name: str) -> Any:
        entry = official_library.table.entry(numpy_name)
        namespace = getattr(zwc, official_library.submodule) if entry.in_submodule else zwc
        return getattr(namespace, entry.name)

    return {name: find(name) for name in ALL}


def _case(numpy_name: str, constructor: Any) -> tuple[tuple, dict]:
    return eval(f"(lambda *a, **k: (a, k))({CASES[numpy_name][0]})", {"A": constructor})  # noqa: S307


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_no_numpy_object_reaches_user_code_through_any_function_slot_or_keyword(
    kind: str, functions: dict[str, Any], zwc: ModuleType
) -> None:
    make = KINDS[kind]
    leaks: list[str] = []
    calls = reached = 0
    for numpy_name, function in functions.items():
        args, kwargs = _case(numpy_name, zwc.yitaf)
        tries = [((*args[:i], make(), *args[i + 1 :]), kwargs) for i in range(len(args) + 1)]
        tries += [(args, {**kwargs, key: make()}) for key in (*kwargs, *EXTRA_KEYWORDS)]
        for call_args, call_kwargs in tries:
            SEEN.clear()
            result, error = attempt(function, call_args, call_kwargs)
            calls += 1
            reached += bool(SEEN)
            found: list[str] = []
            numpy_objects(SEEN, found)
            numpy_objects(result, found)
            numpy_objects(error, found)
            if found:
                where = f"{numpy_name} {len(call_args)} args, keywords {sorted(call_kwargs)}"
                leaks.append(f"{where}: {sorted(set(found))}")
    SEEN.clear()
    assert calls > 278 * 3
    if kind in ("callable", "callables_in_a_list"):
        assert reached, "the library never called the hostile callable: the test tests nothing"
    assert not leaks, f"{len(leaks)} calls leaked, e.g. {leaks[:5]}"


@pytest.mark.parametrize("make", [lambda: NumpyScalarSub(1.0), lambda: NumpyScalarSub])
def test_an_operator_hands_numpy_nothing_of_a_numpy_scalar_subclass(zwc: ModuleType, make) -> None:
    array = zwc.ZWCArray([1.0, 2.0])
    SEEN.clear()
    for operate in (
        lambda x: array + x,
        lambda x: x * array,
        lambda x: array == x,
        lambda x: array.dtype == x,
    ):
        with contextlib.suppress(TypeError):
            operate(make())
    found: list[str] = []
    numpy_objects(SEEN, found)
    SEEN.clear()
    assert not found, found


def test_the_leak_finder_finds_numpy_in_exceptions_frames_and_containers() -> None:
    found: list[str] = []
    numpy_objects([{"k": (np.float64(1.0),)}], found)
    assert found == ["a raw float64"]

    def fails(raw: Any) -> None:
        raise ValueError("x")

    try:
        fails(np.zeros(1))
    except ValueError as error:
        found = []
        numpy_objects(error, found)
        assert "a raw ndarray" in found
    try:
        np.linalg.inv(np.zeros((2, 2)))
    except np.linalg.LinAlgError as error:
        found = []
        numpy_objects(error, found)
        assert "a raw ndarray" in found


def test_a_refusal_is_a_type_error_naming_the_argument_and_what_is_accepted(functions) -> None:
    mean = functions["mean"]
    with pytest.raises(TypeError) as refused:
        mean([1.0, 2.0], axis=IndexLike())
    message = str(refused.value)
    assert type(refused.value).__name__ == "UnsupportedArgumentError"
    assert "argument 'axis'" in message and "IndexLike" in message and "lists" in message
    assert message.startswith("zwc.kocito: ")
    with pytest.raises(TypeError, match="argument 1: a ListSub is not accepted"):
        mean(ListSub([1.0]))


@pytest.mark.parametrize(
    ("numpy_name", "arguments"),
    [
        ("mean", "[[1, 2], [3, 4]], axis=(0, 1), dtype='float32'"),
        ("sum", "[1, 2, 3], dtype=float, initial=0, where=[True, False, True]"),
        ("array", "range(4), dtype=complex"),
        ("array", "[1, 'a', None, b'x'], dtype=object"),
        ("zeros", "(2, 3), dtype=[('a', int), ('b', float)]"),
        ("pad", "[1, 2], pad_width=((1, 1),), mode='constant', constant_values=0"),
        ("array2string", "A([1.5, 2.5]), formatter={'float': lambda v: f'<{v}>'}"),
        ("vectorize", "lambda a: a + 1, otypes=[float]"),
        ("array", "[1, 2], dtype=None, copy=True, ndmin=2"),
        ("take", "A([1, 2, 3]), A([0, 2]), axis=None"),
        ("array", "[1.5, 2.5], dtype=A([1]).dtype"),
    ],
)
def test_honest_arguments_cross(
    functions, zwc: ModuleType, numpy_name: str, arguments: str
) -> None:
    args, kwargs = eval(f"(lambda *a, **k: (a, k))({arguments})", {"A": zwc.yitaf})  # noqa: S307
    functions[numpy_name](*args, **kwargs)


def test_callbacks_in_every_container_see_library_values(functions, zwc: ModuleType) -> None:
    A = zwc.yitaf  # noqa: N806
    seen: list[Any] = []

    def spy(value: Any) -> Any:
        seen.append(value)
        return value

    functions["piecewise"](A([1.0, -1.0]), (A([True, False]),), (spy, lambda v: -v))
    functions["piecewise"](A([1.0, -1.0]), [[True, False]], [spy, 0.0])
    text = functions["array2string"](A([1.5, 2.5]), formatter={"float": lambda v: spy(f"{v}")})
    assert text == "[1.5 2.5]"
    functions["vectorize"](spy)(A([1, 2]))
    assert seen
    found: list[str] = []
    numpy_objects(seen, found)
    assert not found, found
    assert all(type(v) in (zwc.ZWCArray, int, float, str) for v in seen), [type(v) for v in seen]
    with pytest.raises(TypeError, match="a ListSub is not accepted"):
        functions["piecewise"](A([1.0]), [[True]], ListSub([spy]))
    with pytest.raises(TypeError, match="a DictSub is not accepted"):
        functions["array2string"](A([1.5]), formatter=DictSub({"float": spy}))


def test_what_an_object_array_holds_comes_back_as_the_programs_own_values(
    functions, zwc: ModuleType
) -> None:
    """Every kind of value the library accepts, stored in an object array and read back by
    indexing, iteration and its functions: no NumPy object, and a function comes back as the
    program's own, never as the wrapper that calls it for NumPy (whose results are raw: a red
    team unwrapped library arrays through it, and through a slice holding one)."""
    A = zwc.yitaf  # noqa: N806

    def own(value: Any) -> Any:
        return value

    class Own:
        pass

    array = A([1.0, 2.0])
    stored = [
        own,
        Own,
        lambda v: v,
        functions["mean"],
        slice(array),
        slice(1, array, None),
        {"k": array},
        (array, [array, (array,)]),
        int,
        None,
        range(3),
        ...,
        "text",
        2.5,
    ]
    found: list[str] = []
    for item in stored:
        box = A([None, None], dtype=object)
        box[0] = item
        read = (box[0], list(box)[0], functions["take"](box, 0))  # indexed, iterated, taken
        for value in read:
            numpy_objects(value, found)
            if isinstance(value, slice):
                numpy_objects([value.start, value.stop, value.step], found)
                assert type(value.stop) is zwc.ZWCArray  # a slice's parts come back wrapped
            if callable(item):
                assert value is item, (item, value)
    assert not found, found


def test_a_structured_array_with_object_fields_hands_out_no_numpy_object(zwc: ModuleType) -> None:
    """Iterated, indexed, and its records' fields read: `tolist()` of a structured array hands
    out what its object fields hold as it is (a red team's raw array, raw dtype and callback
    wrapper, out through iteration)."""
    array = zwc.yitaf([1.0, 2.0])

    def own(value: Any) -> Any:
        return value

    records = zwc.yitaf([(array, array.dtype, own)], dtype=[("a", "O"), ("b", "O"), ("c", "O")])
    read: list[Any] = list(records) + [records[0]]
    read += [record[name] for record in read for name in ("a", "b", "c")]
    read += [records["a"], records["c"], list(records["c"])]
    found: list[str] = []
    numpy_objects(read, found)
    assert not found, found
    assert list(records["c"])[0] is own


def test_a_callbacks_result_crosses_back_through_the_membrane(functions, zwc: ModuleType) -> None:
    with pytest.raises(TypeError, match="Reflected"):
        functions["vectorize"](lambda v: Reflected())(zwc.yitaf([1, 2]))
    doubled = functions["piecewise"](zwc.yitaf([1.0, 2.0]), [[True, True]], [lambda v: v * 2])
    assert str(doubled) == "[2. 4.]"


@pytest.mark.parametrize(
    ("expression", "name", "bases"),
    [
        ("rfx.quvohe([[0.0, 0.0], [0.0, 0.0]])", "LinAlgError", (ValueError,)),  # linalg.inv
        ("kocito([1.0, 2.0], axis=3)", "AxisError", (ValueError, IndexError)),  # mean
        ("yitaf([1, 2])[7]", "IndexError", (IndexError,)),
        ("yitaf(['a']) + yitaf([1])", "", (TypeError,)),  # a ufunc loop error
        ("yitaf([[1], [1, 2]])", "ValueError", (ValueError,)),
    ],
)
def test_numpy_errors_come_back_as_library_errors_with_a_message_only(
    zwc: ModuleType, expression: str, name: str, bases: tuple
) -> None:
    namespace = {name: getattr(zwc, name) for name in zwc.__all__}
    try:
        eval(expression, namespace)  # noqa: S307
    except Exception as error:  # noqa: BLE001 - what it is, is the test
        caught = error
    else:
        raise AssertionError(f"{expression} did not fail")
    assert isinstance(caught, bases), type(caught).__mro__
    assert not name or type(caught).__name__ == name
    assert caught.__cause__ is None and caught.__context__ is None
    assert not str(type(caught).__module__).startswith("numpy")
    assert not any(hasattr(caught, attr) for attr in ("ufunc", "dtypes", "axis", "ndim"))
    assert str(caught)
    found: list[str] = []
    numpy_objects(caught, found)
    assert not found, found
    frames = []
    tb = caught.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    # the library's frames: none holds NumPy or the raw-array slot, nor leads to the builtins
    library = [f for f in frames if f.f_code.co_filename.endswith("_array.py")]
    assert library, [f.f_code.co_filename for f in frames]
    for frame in library:
        assert "_get" not in frame.f_locals and "target" not in frame.f_locals
        assert frame.f_globals == {"__builtins__": {}} and "__import__" not in frame.f_builtins


def test_a_callbacks_own_exception_comes_back_as_it_is_without_numpy_frames(
    functions, zwc: ModuleType
) -> None:
    class Mine(Exception):
        pass

    def explode(value: Any) -> Any:
        raise Mine("from the callback")

    with pytest.raises(Mine) as caught:
        functions["piecewise"](zwc.yitaf([1.0]), [[True]], [explode])
    error = caught.value
    assert error.__context__ is None and error.__cause__ is None
    found: list[str] = []
    numpy_objects(error, found)
    assert not found, found
    filenames = []
    tb = error.__traceback__
    while tb is not None:
        filenames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert not any("numpy" in name for name in filenames), filenames


def test_library_types_cannot_be_subclassed(zwc: ModuleType) -> None:
    for base in (zwc.ZWCArray, type(zwc.yitaf([1]).dtype)):
        with pytest.raises(TypeError, match="cannot be subclassed") as refused:
            type("Evil", (base,), {"__radd__": lambda self, other: other})
        tb = refused.value.__traceback__
        while tb is not None:  # the refusing frame's globals lead nowhere
            if tb.tb_frame.f_code.co_filename.endswith("_array.py"):
                assert tb.tb_frame.f_globals == {"__builtins__": {}}
            tb = tb.tb_next


def test_array_methods_raise_sanitized_errors_from_frames_without_the_raw_array(
    zwc: ModuleType,
) -> None:
    array = zwc.yitaf([1, 2])
    for action in (lambda: array[5], lambda: len(zwc.yitaf(3)), lambda: array + "x"):
        try:
            action()
        except Exception:  # noqa: BLE001 - what it is, is the test
            error_type, error, tb = sys.exc_info()
        else:
            raise AssertionError("no error")
        assert error is not None and error.__context__ is None
        found: list[str] = []
        numpy_objects(error, found)
        assert not found, found
        library = 0
        while tb is not None:
            if tb.tb_frame.f_code.co_filename.endswith("_array.py"):
                library += 1
                assert "_get" not in tb.tb_frame.f_locals, tb.tb_frame.f_code.co_name
                assert "__import__" not in tb.tb_frame.f_builtins
            tb = tb.tb_next
        assert library == 1, "the traceback should end in the library's outer frame"


@pytest.mark.parametrize("numpy_name", sorted(n for n in ALL if n in CASES))
def test_what_a_library_function_hands_out_is_accepted_back(
    functions, zwc: ModuleType, numpy_name: str
) -> None:
    """Every value a library function returns (arrays, scalars, named results such as
    `slogdet`'s, containers of these) may be passed to a library function again: the membrane
    refuses only what the library never hands out."""
    args, kwargs = _case(numpy_name, zwc.yitaf)
    result, error = attempt(functions[numpy_name], args, kwargs)
    if error is not None or callable(result):
        return  # nothing handed out (or a vectorized function, which is not data)
    _, error = attempt(functions["array"], (result,), {"dtype": object})
    assert type(error).__name__ != "UnsupportedArgumentError", error


def _reads_the_clock(function: Any) -> str:
    try:
        function()
    except Exception as error:  # noqa: BLE001 - which one is what is checked
        return type(error).__name__
    return "read"


def test_the_library_never_reads_the_clock(functions, zwc: ModuleType) -> None:
    """NumPy reads the system clock for "now" and "today" (any case): a coin a program could
    toss once per run, out of the sandbox's virtual clock's reach. Refused on the way in, in any
    container, and on the way out when NumPy made one (the text arrays the program then holds
    never hold one)."""
    A, add = zwc.yitaf, functions["add"]  # noqa: N806
    dates = A(["2020-01-01"], dtype="datetime64[D]")
    reads = {
        "scalar": lambda: A("now", dtype="datetime64[s]"),
        "any case": lambda: A(["NOW"], dtype="datetime64[s]"),
        "bytes": lambda: A([b"today"], dtype="datetime64[D]"),
        "tuple": lambda: A(("2020-01-01", "Today"), dtype="datetime64[D]"),
        "nested": lambda: A([["2020-01-01"], ["now"]], dtype="datetime64[D]"),
        "operator": lambda: dates == "now",
        "stored": lambda: dates.__setitem__(0, "today"),
        "made by NumPy": lambda: add(A(["n"]), A(["ow"])),
        # NumPy drops the NULs that pad fixed-width text; a record's fields are text too
        "padded": lambda: A(["now\0"], dtype="datetime64[s]"),
        "in a record": lambda: A([("now\0",)], dtype=[("t", "U4")]),
        # and reads fixed-width text only up to its first NUL (a red team's "now\0x")
        "text after a NUL": lambda: A(["now\0x"], dtype="datetime64[s]"),
        "bytes after a NUL": lambda: A([b"Today\0\x01"], dtype="datetime64[D]"),
        "after a NUL, made by NumPy": lambda: add(A(["no"]), A(["w\0x"])),
        "after a NUL, in a record": lambda: A([("now\0x",)], dtype=[("t", "U5")]),
        "in a nested record": lambda: A(
            [((1, "to" + "day"),)], dtype=[("r", [("n", "i4"), ("t", "U5")])]
        ),
        # NumPy 2's string dtype is text of another kind ("T"); raw bytes ("V") hold text too
        "string dtype": lambda: A(["n"], dtype="T") + "ow",
        "string dtype made by NumPy": lambda: add(A(["to"], dtype="T"), A(["day"], dtype="T")),
        "raw bytes": lambda: A([b"now"], dtype="V3"),
    }
    assert {name: _reads_the_clock(read) for name, read in reads.items()} == dict.fromkeys(
        reads, "UnsupportedArgumentError"
    )
    assert str(A(["2020-01-01", "nowhere"])) == "['2020-01-01' 'nowhere']"  # other text passes


def test_numpy_dropping_a_callback_runs_no_code_of_the_programs(zwc: ModuleType) -> None:
    """A red team's (OA): a function stored in an object array is held by NumPy through its
    wrapper, and the wrapper was the only strong holder of the function; NumPy drops an
    element's reference before it stores the replacement, so the function's death ran the
    program's code (a generator's `finally` among its defaults) inside that assignment, where
    it took a reference to the dying wrapper, then forged objects in its freed memory and read
    the mapping (`correct` knowing no name). Callbacks live as long as the run now: NumPy
    frees none of them."""
    seen = []

    def armed():
        try:
            yield 1
        finally:
            seen.append("ran")

    started = armed()
    next(started)

    def holder(started=started):
        return 0

    cells = zwc.ZWCArray([None, "x", "y"])
    cells[0] = holder
    del started, holder
    cells[0] = 7
    assert seen == []
    assert cells[0] == 7
