"""Every one of the 278 functions, through the library and through NumPy, gives the same result."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from sebench.library.catalog import ALL
from sebench.library.library import Library
from tests.library.function_cases import CASES, IN_PLACE, SHAPE_ONLY, THEN_CALL


def _numpy_function(numpy_name: str) -> Any:
    namespace, name = (
        (np.linalg, numpy_name[7:]) if numpy_name.startswith("linalg.") else (np, numpy_name)
    )
    if name == "trapz" and not hasattr(np, "trapz"):
        name = "trapezoid"
    return getattr(namespace, name)


def _library_function(zwc: ModuleType, library: Library, numpy_name: str) -> Any:
    entry = library.table.entry(numpy_name)
    module = getattr(zwc, library.submodule) if entry.in_submodule else zwc
    return getattr(module, entry.name)


def _call(function: Any, constructor: Any, numpy_name: str, args_text: str) -> Any:
    args = eval(f"(lambda *a, **k: (a, k))({args_text})", {"A": constructor})  # noqa: S307
    result = function(*args[0], **args[1])
    if numpy_name in IN_PLACE:
        return args[0][0]
    if numpy_name in THEN_CALL:
        more = eval(f"(lambda *a: a)({THEN_CALL[numpy_name]})", {"A": constructor})  # noqa: S307
        return result(*more)
    return result


def _library_form(theirs: Any) -> Any:
    """What the library makes of a NumPy result: NumPy scalars become Python scalars (datetime,
    timedelta and void scalars 0-d arrays), dtypes the library's dtype (compared by ==)."""
    if isinstance(theirs, np.datetime64 | np.timedelta64 | np.void):
        return np.asarray(theirs)
    if isinstance(theirs, np.generic):
        return theirs.item()
    return theirs


def _same(ours: Any, theirs: Any, zwc: ModuleType, path: str = "result") -> None:
    """Equal values and matching kinds: arrays wrapped, scalars Python ones, containers kept."""
    theirs = _library_form(theirs)
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, zwc.ZWCArray), f"{path}: {type(ours).__name__} is not wrapped"
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, path
        assert str(ours.dtype) == str(theirs.dtype), path
        np.testing.assert_array_equal(np.asarray(ours), theirs, err_msg=path)
        assert str(ours) == str(theirs), path
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), path
        if hasattr(theirs, "_fields"):
            assert type(ours).__name__ == type(theirs).__name__, path
            assert ours._fields == theirs._fields, path
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _same(a, b, zwc, f"{path}[{i}]")
    elif isinstance(theirs, np.dtype):
        assert type(ours).__name__ == "dtype" and ours == theirs, path
        assert str(ours) == str(theirs) and repr(ours) == repr(theirs), path
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _same(a, b, zwc, f"{path}[{i}]")
    else:
        assert type(ours) is type(theirs), f"{path}: {type(ours)} vs {type(theirs)}"
        if isinstance(theirs, float) and np.isnan(theirs):
            assert np.isnan(ours), path
        else:
            assert ours == theirs, path


def test_the_case_table_covers_all_278_functions() -> None:
    assert sorted(CASES) == sorted(ALL)


@pytest.mark.parametrize("numpy_name", ALL)
def test_library_function_matches_numpy(
    numpy_name: str, zwc: ModuleType, official_library: Library
) -> None:
    ours_fn = _library_function(zwc, official_library, numpy_name)
    theirs_fn = _numpy_function(numpy_name)
    constructor = getattr(zwc, official_library.table.entry("array").name)
    for args_text in CASES[numpy_name]:
        theirs = _call(theirs_fn, np.array, numpy_name, args_text)
        ours = _call(ours_fn, constructor, numpy_name, args_text)
        if numpy_name in SHAPE_ONLY:
            assert (ours.shape, ours.dtype) == (theirs.shape, theirs.dtype)
            continue
        _same(ours, theirs, zwc, f"{numpy_name}({args_text})")


def test_a_fresh_library_calls_the_same_functions(seeded_library: Library) -> None:
    from tests.library.conftest import imported

    with imported(seeded_library) as lib:
        mean = getattr(lib, seeded_library.table.entry("mean").name)
        array = getattr(lib, seeded_library.table.entry("array").name)
        inv = getattr(
            getattr(lib, seeded_library.submodule), seeded_library.table.entry("linalg.inv").name
        )
        assert mean(array([1, 2, 3, 4])) == 2.5
        assert str(inv([[2.0, 0.0], [0.0, 4.0]])) == "[[0.5  0.  ]\n [0.   0.25]]"
