"""ZWCArray behaves like the official one on everything the spec lists as allowed or refused."""

from __future__ import annotations

import copy
import sys
from types import ModuleType

import numpy as np
import pytest


@pytest.fixture(scope="module")
def A(zwc: ModuleType):  # noqa: N802 - the constructor, zwc.yitaf
    return zwc.yitaf


def test_the_issue_example_prints_2_5(zwc: ModuleType, A) -> None:
    assert str(zwc.kocito(A([1, 2, 3, 4]))) == "2.5"


@pytest.mark.parametrize(
    "method",
    [
        "mean",
        "sum",
        "reshape",
        "tolist",
        "astype",
        "flatten",
        "copy",
        "max",
        "item",
        "view",
        "data",
        "base",
        "flat",
    ],
)
def test_numpy_methods_are_refused_with_a_hint(A, method: str) -> None:
    with pytest.raises(AttributeError, match="use the functions of `zwc`"):
        getattr(A([1, 2]), method)


def test_allowed_attributes_work_and_T_is_wrapped(zwc: ModuleType, A) -> None:
    arr = A([[1, 2, 3], [4, 5, 6]])
    assert arr.shape == (2, 3) and arr.size == 6 and arr.ndim == 2
    assert arr.dtype == np.dtype(int)
    assert isinstance(arr.T, zwc.ZWCArray) and isinstance(arr.T.T, zwc.ZWCArray)
    with pytest.raises(AttributeError):
        arr.T.T.mean()  # noqa: B018


def test_str_is_numpy_str_and_repr_is_a_nested_list(A) -> None:
    assert str(A([1.0, 2.0])) == "[1. 2.]"
    assert str(A([[1, 2], [3, 4]])) == "[[1 2]\n [3 4]]"
    assert repr(A([1, 2])) == "ZWCArray([1, 2])"
    assert str([A([1, 2])]) == "[ZWCArray([1, 2])]"


def test_indexing_gives_python_scalars_and_wrapped_arrays(zwc: ModuleType, A) -> None:
    arr = A([[1, 2], [3, 4]])
    assert type(arr[0, 1]) is int and arr[0, 1] == 2
    assert isinstance(arr[0], zwc.ZWCArray) and str(arr[:, 1]) == "[2 4]"
    assert str(arr[arr > 2]) == "[3 4]"  # a boolean ZWCArray as the index
    arr[0, 0] = 9
    arr[1] = A([7, 8])
    assert str(arr) == "[[9 2]\n [7 8]]"


def test_len_and_iteration(zwc: ModuleType, A) -> None:
    assert len(A([[1, 2], [3, 4]])) == 2
    assert list(A([1.5, 2.5])) == [1.5, 2.5] and all(type(v) is float for v in A([1.5, 2.5]))
    rows = list(A([[1, 2], [3, 4]]))
    assert all(isinstance(r, zwc.ZWCArray) for r in rows)


def test_operators_and_their_reflections_return_arrays(zwc: ModuleType, A) -> None:
    a = A([1.0, 2.0])
    results = [
        a + 1,
        1 + a,
        a - 1,
        1 - a,
        a * 2,
        2 * a,
        a / 2,
        2 / a,
        a**2,
        2**a,
        a == 1,
        a != 1,
        a < 2,
        a <= 2,
        a > 1,
        a >= 1,
        -a,
        [1, 1] + a,
    ]
    assert all(isinstance(r, zwc.ZWCArray) for r in results)
    assert str(1 - a) == "[ 0. -1.]" and str(2**a) == "[2. 4.]"


def test_scalar_results_are_python_scalars_and_times_an_array_stay_wrapped(
    zwc: ModuleType, A
) -> None:
    scalar = zwc.kocito(A([1.0, 3.0]))
    assert type(scalar) is float  # officially np.float64, with every NumPy method
    assert isinstance(scalar * A([1.0, 2.0]), zwc.ZWCArray)
    assert isinstance(np.float64(2.0) * A([1.0, 2.0]), zwc.ZWCArray)


def test_numpy_accepts_arrays_through_array_with_dtype_and_copy(A) -> None:
    arr = A([1, 2])
    assert np.asarray(arr).tolist() == [1, 2]
    assert arr.__array__(dtype=float).dtype == np.float64
    assert arr.__array__(copy=True).tolist() == [1, 2]


def test_results_inside_containers_are_wrapped(zwc: ModuleType, A) -> None:
    parts = zwc.caloroy(A([1, 2, 3, 4]), 2)  # split: a list of arrays
    assert isinstance(parts, list) and all(isinstance(p, zwc.ZWCArray) for p in parts)
    eig = zwc.rfx.memac(A([[2.0, 0.0], [0.0, 3.0]]))
    assert type(eig).__name__ == "EigResult" and isinstance(eig.eigenvectors, zwc.ZWCArray)
    assert isinstance(zwc.rfx.quvohe(A([[2.0, 0.0], [0.0, 4.0]])), zwc.ZWCArray)


def test_arrays_inside_list_arguments_are_unwrapped(zwc: ModuleType, A) -> None:
    stacked = zwc.qigudov([A([1, 2]), A([3, 4])])  # vstack
    assert str(stacked) == "[[1 2]\n [3 4]]"


def test_in_place_functions_change_the_callers_array(zwc: ModuleType, A) -> None:
    arr = A([1, 2, 3])
    zwc.purugo(arr, [0], [9])  # put
    assert str(arr) == "[9 2 3]"


def test_copies_are_wrapped(zwc: ModuleType, A) -> None:
    arr = A([1, 2])
    assert isinstance(copy.copy(arr), zwc.ZWCArray)
    assert isinstance(copy.deepcopy([arr])[0], zwc.ZWCArray)


def test_truth_value_follows_numpy(A) -> None:
    assert bool(A([3]))
    with pytest.raises(ValueError):
        bool(A([1, 2]) == A([1, 2]))


def test_the_trapz_name_works_on_this_numpy(zwc: ModuleType, official_library) -> None:
    trapz = getattr(zwc, official_library.table.entry("trapz").name)
    assert trapz([1, 2, 3]) == 4.0


def test_every_library_call_is_announced_once_and_says_whether_it_is_the_constructor(
    zwc: ModuleType, zwc_runtime: ModuleType, A
) -> None:
    # the grader's sandbox counts these events (sandbox/audit.py); hooks cannot be removed, so
    # this one stops listening at the end
    announced: list[bool] = []
    listening = [True]

    def hook(event: str, args: tuple) -> None:
        if listening[0] and event == zwc_runtime.EVENT:
            announced.append(args[0][0])

    sys.addaudithook(hook)
    try:
        arr = A([1, 2, 3])
        zwc.kocito(arr)
        zwc.rfx.girayik(arr)
        _ = arr + arr, arr[0], len(arr)  # array operations are not library calls
    finally:
        listening[0] = False
    assert announced == [True, False, False]


def test_docstrings_never_name_numpy(zwc: ModuleType) -> None:
    objects = (
        [zwc, zwc.rfx, zwc.ZWCArray]
        + [getattr(zwc, n) for n in zwc.__all__]
        + [getattr(zwc.rfx, n) for n in zwc.rfx.__all__]
    )
    for obj in objects:
        assert "numpy" not in (obj.__doc__ or "").lower(), obj


def test_import_forms_of_the_submodule_work(zwc: ModuleType) -> None:
    import importlib

    assert importlib.import_module("zwc.rfx") is zwc.rfx
    namespace: dict = {}
    exec("import zwc.rfx as r\nfrom zwc.rfx import quvohe\nfrom zwc import *", namespace)
    assert namespace["r"] is zwc.rfx and namespace["quvohe"] is zwc.rfx.quvohe
    assert "kocito" in namespace and "_runtime" not in namespace


def run_beside_library(library, program: str) -> str:
    """What `program` prints, run by a fresh interpreter in the library's root (an audit hook
    cannot be removed from this process)."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", program],
        cwd=library.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.parametrize("asks", [False, True])
def test_the_official_trial_runs_only_when_a_hook_asks_for_it(official_library, asks) -> None:
    """A call with arrays nested in an argument is tried a second time, the official library's
    way, only for a hook that asks (the grader's): used on its own the library calls NumPy
    once. `multi_dot` of two arrays is one the official library fails on."""
    table = official_library.table
    multi_dot = table.entry("linalg.multi_dot").name
    constructor = table.entry("array").name
    program = f"""
import sys
events = []
def hook(event, args):
    if event == "sebench.official_trial":
        events.append("asked")
        args[0][0] = {asks}
    elif event == "sebench.official_failure":
        events.append("failure")
sys.addaudithook(hook)
import {table.package} as lib
A = lib.{constructor}
product = lib.{table.submodule}.{multi_dot}([A([[1.0, 2.0]]), A([[3.0], [4.0]])])
print(str(product).replace(chr(10), " "), events)
"""
    printed = run_beside_library(official_library, program)
    assert printed == f"[[11.]] {['asked', 'failure'] if asks else ['asked']}"


def test_a_call_the_hook_refuses_to_count_runs_no_numpy_function(official_library) -> None:
    """A red team's reading (NW): the official trial ran the NumPy function before the call was
    announced, so a call whose counting failed (the grader's hook raising at the edge of the
    recursion limit) could have run NumPy uncounted; only the two paths' depths prevented it.
    Now the call is announced first: a hook that raises on it sees no NumPy work done, the
    trial's included (`log` of a zero warns when it runs)."""
    table = official_library.table
    log, constructor = table.entry("log").name, table.entry("array").name
    program = f"""
import sys, warnings
def hook(event, args):
    if event == "sebench.official_trial":
        args[0][0] = True
    elif event == "sebench.library_call" and not args[0][0]:  # not the constructor
        raise RuntimeError("not counted")
sys.addaudithook(hook)
import {table.package} as lib
A = lib.{constructor}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        lib.{log}([A([0.0])])
        outcome = "ran"
    except RuntimeError as error:
        outcome = str(error)
print(outcome, [str(w.message) for w in caught])
"""
    printed = run_beside_library(official_library, program)
    assert printed == "not counted []", printed


def test_three_argument_pow_is_refused_as_numpy_refuses_it(A) -> None:
    """`pow(a, 3, 5)` ignored the modulo and answered `a ** 3` (a red team's); NumPy raises."""
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*\* or pow\(\)"):
        pow(np.array([2]), 3, 5)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*\* or pow\(\)"):
        pow(A([2]), 3, 5)
    assert str(pow(A([2]), 3)) == "[8]"
