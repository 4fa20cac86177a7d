"""No NumPy object reaches user code through values (red-team hole 8): scalar results are Python
scalars, a dtype is a wrapper without `.type`, operators refuse operands that would receive the
raw array through a reflected method, and every callable handed to the library sees library
values only."""

from __future__ import annotations

import contextlib
import functools
import math
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from sebench.library.library import Library


@pytest.fixture(scope="module")
def A(zwc: ModuleType):  # noqa: N802 - the constructor, zwc.yitaf
    return zwc.yitaf


def _numpy_free(value: Any) -> bool:
    if isinstance(value, np.ndarray | np.generic | np.dtype):
        return False
    if isinstance(value, list | tuple):
        return all(_numpy_free(v) for v in value)
    if isinstance(value, dict):
        return all(_numpy_free(k) and _numpy_free(v) for k, v in value.items())
    return True


def test_a_scalar_result_plus_a_list_raises_like_python(zwc: ModuleType) -> None:
    zero = zwc.cobodi([0])  # the red team's call; officially np.int64, so `+ list` was a raw array
    assert type(zero) is int
    with pytest.raises(TypeError):
        zero + [1, 2]  # noqa: B018


@pytest.fixture(scope="module")
def fn(zwc: ModuleType, official_library: Library):
    """The library function of a NumPy name."""

    def find(numpy_name: str) -> Any:
        entry = official_library.table.entry(numpy_name)
        return getattr(
            getattr(zwc, official_library.submodule) if entry.in_submodule else zwc, entry.name
        )

    return find


@pytest.mark.parametrize(
    ("numpy_name", "args", "kind"),
    [
        ("mean", ([1.0, 2.0],), float),
        ("sum", ([3, 4],), int),
        ("vdot", ([1 + 2j], [1j]), complex),
        ("all", ([True, False],), bool),
        ("array_equal", ([1], [1]), bool),
        ("linalg.det", ([[2.0, 0.0], [0.0, 3.0]],), float),
    ],
)
def test_scalar_results_have_python_types(fn, numpy_name: str, args: tuple, kind: type) -> None:
    assert type(fn(numpy_name)(*args)) is kind


def test_scalars_inside_containers_and_0d_results_are_python_scalars(
    zwc: ModuleType, fn, A
) -> None:
    eig = fn("linalg.eig")(A([[2.0, 0.0], [0.0, 3.0]]))  # EigResult
    assert _numpy_free(tuple(eig)) and type(eig.eigenvalues[0]) is float
    sign, logdet = fn("linalg.slogdet")(A([[2.0, 0.0], [0.0, 3.0]]))
    assert type(sign) is float and type(logdet) is float
    zero_d = A(5)
    assert isinstance(zero_d, zwc.ZWCArray) and zero_d[()] == 5 and type(zero_d[()]) is int


def test_float32_results_print_all_digits_of_the_python_float(fn, A) -> None:
    value = fn("mean")(A([0.1], dtype="float32"))
    assert type(value) is float and str(value) == str(float(np.float32(0.1)))
    assert math.isclose(value, 0.1, abs_tol=1e-2)  # within the grader's tolerance


def test_datetime_scalars_stay_0d_arrays_that_print_like_numpy(A) -> None:
    days = A(["2024-01-01", "2024-03-01"], dtype="datetime64[D]")
    first = days[0]
    assert not isinstance(first, np.generic) and str(first) == "2024-01-01"
    nanos = A(["2024-01-01T00:00"], dtype="datetime64[ns]")[0]
    assert str(nanos) == str(np.datetime64("2024-01-01T00:00", "ns"))


def test_dtype_is_a_wrapper_without_a_route_to_numpy(zwc: ModuleType, A) -> None:
    d = A([1.0, 2.0]).dtype
    assert type(d).__name__ == "dtype" and not isinstance(d, np.dtype)
    assert str(d) == "float64" and repr(d) == "dtype('float64')" and f"{d}" == "float64"
    assert d == "float64" and d == np.dtype("float64") and d == A([3.0]).dtype
    assert d == float  # noqa: E721 - NumPy's dtype compares equal to a Python type
    assert d != "int64" and d != A([1]).dtype and hash(d) == hash(A([5.0]).dtype)
    assert (d.name, d.kind, d.char, d.itemsize) == ("float64", "f", "d", 8)
    for hatch in ("type", "base", "fields", "newbyteorder", "_zwc_dtype"):
        with pytest.raises(AttributeError):
            getattr(d, hatch)
    assert str([d]) == "[dtype('float64')]"


def test_library_functions_accept_the_dtype_wrapper(zwc: ModuleType, A) -> None:
    ints = A([1, 2]).dtype
    converted = A([1.7, 2.2], dtype=ints)
    assert str(converted.dtype) == "int64" and str(converted) == "[1 2]"
    assert str(A([1.5]).__array__(dtype=ints).dtype) == "int64"


class Spy:
    """Asks NumPy to defer (`__array_ufunc__ = None`) and records what its reflected methods get."""

    __array_ufunc__ = None
    __hash__ = None  # type: ignore[assignment]

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def _record(self, other: Any) -> Spy:
        self.seen.append(other)
        return self

    __radd__ = __rsub__ = __rmul__ = __rtruediv__ = __rpow__ = _record
    __add__ = __sub__ = __mul__ = __truediv__ = __pow__ = _record

    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        self.seen.append(other)
        return False

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__  # type: ignore[assignment]


@pytest.mark.parametrize(
    "expression",
    [
        "a + s",
        "a - s",
        "a * s",
        "a / s",
        "a ** s",
        "s + a",
        "s ** a",
        "a == s",
        "a != s",
        "a < s",
        "a <= s",
        "a > s",
        "a >= s",
    ],
)
def test_operators_never_hand_the_raw_array_to_a_reflected_method(
    A, zwc: ModuleType, expression: str
) -> None:
    spy = Spy()
    eval(expression, {"a": A([1, 2]), "s": spy})  # noqa: S307
    assert spy.seen, "the spy was not asked at all"
    assert all(_numpy_free(v) for v in spy.seen), [type(v) for v in spy.seen]


def test_membership_of_a_foreign_object_is_refused_not_compared(A) -> None:
    spy = Spy()
    with pytest.raises(TypeError, match="`in` on a ZWCArray: a Spy is not accepted"):
        spy in A([1, 2])  # noqa: B015
    assert not spy.seen


def test_operators_still_accept_lists_tuples_numbers_and_numpy_scalars(zwc: ModuleType, A) -> None:
    a = A([1.0, 2.0])
    for other in ([1, 1], (1, 1), 1, 1.5, 1j, True, np.float64(1.0), A([1.0, 1.0])):
        assert isinstance(a + other, zwc.ZWCArray) and isinstance(other + a, zwc.ZWCArray)
    assert str(a == None) == "[False False]"  # noqa: E711 - NumPy compares element-wise


class CallableSpy:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    def __call__(self, *args: Any) -> Any:
        self.seen.extend(args)
        return 0


@pytest.mark.parametrize("kind", ["partial", "builtin-method", "callable-object", "class"])
def test_every_kind_of_callback_sees_library_values_only(zwc: ModuleType, fn, A, kind: str) -> None:
    seen: list[Any] = []

    class Recorder:
        def __init__(self, values: Any) -> None:
            seen.append(values)

        def __float__(self) -> float:
            return 0.0

    def spy(values: Any, sink: list[Any]) -> int:
        sink.append(values)
        return 0

    callable_spy = CallableSpy()
    callback = {
        "partial": functools.partial(spy, sink=seen),
        "builtin-method": seen.append,
        "callable-object": callable_spy,
        "class": Recorder,
    }[kind]
    # a callback returning None cannot fill the result; what it saw still counts
    with contextlib.suppress(TypeError):
        fn("piecewise")(A([1, 2]), [[True, True]], [callback])
    seen.extend(callable_spy.seen)
    assert seen and all(isinstance(v, zwc.ZWCArray) for v in seen), [type(v) for v in seen]


def test_vectorized_callbacks_get_python_scalars(fn, A) -> None:
    seen: list[Any] = []
    vectorized = fn("vectorize")(functools.partial(lambda v, sink: sink.append(v) or 0, sink=seen))
    vectorized(A([1.5, 2.5]))
    assert seen and all(type(v) is float for v in seen)
    as_types = fn("vectorize")(type)(A([1.5]))  # `type` is wrapped too: it sees a Python float
    assert as_types[0] is float


def test_object_arrays_holding_arrays_hand_out_library_arrays(zwc: ModuleType, A) -> None:
    ragged = A([A([1, 2]), A([1, 2, 3])], dtype=object)
    assert all(isinstance(v, zwc.ZWCArray) for v in ragged)
    assert isinstance(ragged[1], zwc.ZWCArray)


# Every element type an array can have but objects and records (tested with the membrane):
# long double (`g`, `G`) has no Python type, and its `.item()` and `tolist()` hand out NumPy's
# own scalars (a red team's way to raw arrays: `zwc.yitaf(x, dtype="g")[0].reshape(1)`).
ELEMENT_TYPES = sorted(set(np.typecodes["All"]) - {"O", "V"})


@pytest.mark.parametrize("code", ELEMENT_TYPES)
def test_no_element_type_hands_out_a_numpy_scalar(fn, A, code: str) -> None:
    spec = f"{code}8[D]" if code in "Mm" else code
    array = A([1, 2], dtype=spec)
    seen: list[Any] = []
    read = [array[0], array[-1], list(array), array[()] if array.ndim == 0 else array[:1][0]]
    for name in ("max", "sum", "mean", "median", "take"):
        with contextlib.suppress(Exception):  # not every function takes every type
            read.append(fn(name)(array) if name != "take" else fn(name)(array, 0))
    with contextlib.suppress(Exception):
        fn("vectorize")(lambda value: seen.append(value) or 0)(array)
    assert _numpy_free(read) and _numpy_free(seen), (read, seen)
    assert str(array[0]) == str(np.array([1, 2], dtype=spec)[0])
