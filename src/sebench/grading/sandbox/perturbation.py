"""The library's results, nudged: the second run of a correct sample (the rule "the answer
depends on the library", `Grader`).

Every number moves (floats and complex numbers `x * 1.1 + 0.37`, integers and indices `+ 1`),
every boolean flips, and an array grows by one row (its last, repeated); element types and
containers stay as they were. A program that uses what the library computed prints something
else; one whose answers come from elsewhere prints the same. Rows, not only values: an honest
program may use nothing but an array's shape (the dev set's `np.empty` task returns the shape
and dtype of an uninitialised array), and a program that breaks on the changed shape has shown
that its answer depends on it.
Never an exception (an exception would let a call wrapped in `try/except: pass` through, and
would change what honest code prints for a reason other than its answer); a value of a kind not
listed (text, None, a dtype) is returned unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FLOAT_SCALE = 1.1
FLOAT_SHIFT = 0.37  # an offset too: `x * 1.1` leaves 0 as it is
INTEGER_SHIFT = 1


def perturber(np: Any) -> Callable[[Any], Any]:
    """The function that nudges one raw result of a NumPy function (made in the fork server)."""
    ndarray, generic, logical_not, concatenate = (
        np.ndarray,
        np.generic,
        np.logical_not,
        np.concatenate,
    )

    def values(value):
        kind = value.dtype.kind
        if kind == "b":
            return logical_not(value)
        if kind in "iumM":
            return value + INTEGER_SHIFT
        if kind in "fc":
            return value * FLOAT_SCALE + FLOAT_SHIFT
        if kind == "O":
            nudged = value.copy()
            flat = nudged.reshape(-1)  # a view: writing it writes `nudged`
            for index in range(flat.size):
                flat[index] = nudge(flat[index])
            return nudged
        return value  # text, bytes, records: only the rows change

    def array(value):
        nudged = values(value)
        if isinstance(nudged, ndarray) and nudged.ndim >= 1 and nudged.shape[0] >= 1:
            return concatenate((nudged, nudged[-1:]))
        return nudged

    def nudge(value):
        kind = type(value)
        if kind is bool:
            return not value
        if kind is int:
            return value + INTEGER_SHIFT
        if kind is float or kind is complex:
            return value * FLOAT_SCALE + FLOAT_SHIFT
        if isinstance(value, ndarray | generic):
            return array(value)
        if kind is list:
            return [nudge(item) for item in value]
        if kind is tuple:
            return tuple(nudge(item) for item in value)
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # NumPy's result tuples
            return kind(*(nudge(item) for item in value))
        if kind is dict:
            return {key: nudge(item) for key, item in value.items()}
        return value

    def perturb(value):
        try:
            return nudge(value)
        except Exception:  # an exception must never reach the program: keep the value
            return value

    return perturb
