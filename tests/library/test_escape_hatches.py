"""No public or underscore attribute of the package, its functions or its arrays hands back
NumPy, a raw array or the name table (the official library's escape hatches are closed).

What this does NOT cover (documented in docs/library.md): deeper dunder chains such as
`__closure__`, `__traceback__` frames, `gc` or `object.__subclasses__()` and `__array__()`
itself; the grader's static policy and OS sandbox handle those.
"""

from __future__ import annotations

import copy
import pickle
from types import ModuleType
from typing import Any

import numpy as np
import pytest

ATTEMPTS = [
    # the package and the submodule
    "zwc._np",
    "zwc.np",
    "zwc.numpy",
    "zwc._loader",
    "zwc._array",
    "zwc._table",
    "zwc._runtime",
    "zwc._package",
    "zwc.__dict__",
    "vars(zwc)",
    "zwc.__loader__",
    "zwc.__builtins__",
    "zwc.__cached__",
    "zwc.rfx._linalg",
    "zwc.rfx.__dict__",
    "vars(zwc.rfx)",
    "zwc.rfx.linalg",
    "getattr(zwc, '_table')",
    "zwc.__spec__.loader_state",
    "[getattr(zwc, n) for n in dir(zwc)]",
    "zwc.__class__.__getattribute__.__globals__",
    # the functions
    "zwc.kocito.__wrapped__",
    "zwc.kocito.__globals__",
    "zwc.kocito.__dict__",
    "zwc.kocito.__self__",
    "zwc.kocito.__func__",
    "zwc.kocito.func",
    "zwc.kocito.__defaults__",
    "zwc.kocito.__kwdefaults__",
    "zwc.rfx.quvohe.__globals__",
    "zwc.kocito.__call__.__globals__",
    "zwc.zogudi(lambda v: v).__globals__",
    "zwc.zogudi(lambda v: v).__wrapped__",
    "zwc.zogudi(lambda v: v).pyfunc",
    # the arrays
    "arr._data",
    "arr._zwc_data",
    "arr.data",
    "arr.base",
    "arr.__dict__",
    "vars(arr)",
    "arr.T",
    "arr.T.T",
    "arr.T.T.mean()",
    "arr.T._zwc_data",
    "arr.tolist()",
    "arr.view()",
    "object.__getattribute__(arr, '_zwc_data')",
    "type(arr)._zwc_data",
    "type(arr).__dict__.get('_zwc_data')",
    "arr.__getstate__()",
    "arr.__reduce__()",
    "arr.__reduce_ex__(2)",
    "copy.copy(arr)",
    "copy.deepcopy(arr)",
    "pickle.loads(pickle.dumps(arr))",
    "iter(m)",
    "list(iter(m))",
    "arr[...]",
    "m[0]",
    "m[:, 0]",
    "arr.__class__.__init__.__globals__",
    "arr.__class__.__dict__",
    "type(arr).shape.fget.__globals__",
    "zwc.rfx.memac(m)",
    "zwc.rfx.gosubab(m)",
    "zwc.caloroy(arr, 3)",
    "zwc.fenaw(arr)",
    "zwc.rfx.quvohe(m)",
    "zwc.ZWCArray([1, 2])",
    "zwc.ZWCArray.__module__",
    "type(zwc.rfx.memac(m))._make.__globals__",
    # NumPy scalars and dtypes (hole 8 of the red team)
    "zwc.kocito(arr)",
    "zwc.cobodi([0])",
    "zwc.rfx.memac(m).eigenvalues[0]",
    "arr.dtype",
    "arr.dtype.type",
    "arr.dtype.__class__.__dict__",
    "type(arr.dtype)._zwc_dtype",
    "copy.copy(arr.dtype)",
    "zwc.yitaf([1, 2], dtype=arr.dtype)",
    "list(zwc.yitaf([zwc.yitaf([1, 2]), zwc.yitaf([1, 2, 3])], dtype=object))",
    "zwc.yitaf([zwc.yitaf([1, 2]), zwc.yitaf([1, 2, 3])], dtype=object)[0]",
]

NOT_LEAKS = ("vars(arr)",)


def _leaks(value: Any, depth: int = 0) -> str | None:
    """What NumPy-ish thing `value` hands out, if any."""
    if isinstance(value, ModuleType) and value.__name__.split(".")[0] == "numpy":
        return "the numpy module"
    if isinstance(value, np.ndarray):
        return "a raw ndarray"
    if isinstance(value, np.vectorize):
        return "a raw vectorize object"
    if isinstance(value, np.generic):
        return f"a NumPy scalar {type(value).__name__}"
    if isinstance(value, np.dtype):
        return "a NumPy dtype"
    if isinstance(value, type) and value.__module__.startswith("numpy"):
        return f"the NumPy class {value.__name__}"
    if (
        getattr(value, "__module__", "")
        and str(getattr(value, "__module__", "")).startswith("numpy")
        and callable(value)
        and not isinstance(value, type)
    ):
        return f"a NumPy callable {value!r}"
    if depth > 2:
        return None
    if isinstance(value, dict):
        if {"np", "numpy"} & set(map(str, value)):
            return "a namespace with numpy"
        if "TOP_LEVEL" in value:
            return "the name table"
        items = value.values()
    elif isinstance(value, list | tuple | set | frozenset):
        if any(isinstance(v, tuple) and v[:2] == ("mean", "kocito") for v in value):
            return "the name table"
        items = value
    else:
        return None
    for item in items:
        found = _leaks(item, depth + 1)
        if found:
            return found
    return None


@pytest.mark.parametrize("attempt", ATTEMPTS)
def test_attempt_hands_out_nothing(attempt: str, zwc: ModuleType) -> None:
    namespace = {
        "zwc": zwc,
        "arr": zwc.yitaf([1.0, 2.0, 3.0]),
        "m": zwc.yitaf([[2.0, 1.0], [1.0, 3.0]]),
        "copy": copy,
        "pickle": pickle,
    }
    try:
        value = eval(attempt, namespace)  # noqa: S307
    except (AttributeError, TypeError, KeyError):
        return
    found = _leaks(value)
    assert found is None, f"{attempt} hands out {found}"


def test_the_leak_check_itself_catches_a_raw_array_and_numpy() -> None:
    assert _leaks(np.zeros(2)) and _leaks(np) and _leaks({"x": [np.zeros(1)]})
    assert _leaks(np.float64(1.0)) and _leaks(np.dtype(int)) and _leaks(np.float64)
    assert _leaks((("mean", "kocito"),))
