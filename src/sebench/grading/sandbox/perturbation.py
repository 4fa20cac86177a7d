"""The library's results, nudged: the reruns of a correct sample (the rule "the answer depends on
the library", `Grader.confirm_dependence`).

Two perturbations, tried in this order:
- `VALUES`: every number moves (floats and complex numbers `x * 1.1 + 0.37`, integers and
  indices `+ 1`), every boolean flips; shapes, element types and containers stay as they were,
  so honest code that mixes library results with its input keeps running and prints another
  answer.
- `ROWS`: an array grows by one row (its last, repeated), values unchanged: an honest program
  may use nothing but an array's shape (the dev set's `np.empty` task returns the shape and
  dtype of an uninitialised array), and its answer moves with the rows.
Never an exception (an exception would let a call wrapped in `try/except: pass` through).

A result is left as it is when it is one of the call's arguments, or equals one (same shape,
values within the comparator's tolerance): such a call computes nothing that the grader can
see (`positive`, `ravel` of a flat array, `reshape` to its own shape, an `out=` buffer, rounding
below the tolerance), and a plain-Python answer passed through it must not depend on the
library. That also keeps the perturbed world consistent where it would betray itself: an
`out=` buffer and the returned array stay the same object with the same values.

The unperturbed run does the same work and throws it away, and object arrays keep their values
(nudging them runs Python per element): a program must not be able to time the runs apart, or
to make the rerun slow enough to time out. A value of a kind not listed (text, None, a dtype) is
returned unchanged.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sebench.grading.compare import DEFAULT_TOLERANCE

FLOAT_SCALE = 1.1
FLOAT_SHIFT = 0.37  # an offset too: `x * 1.1` leaves 0 as it is
INTEGER_SHIFT = 1
# Results within this of an argument count as that argument (the official comparator's
# absolute tolerance: a change below it cannot change a verdict).
SAME_WITHIN = DEFAULT_TOLERANCE


class Perturbation(enum.StrEnum):
    """What a run does to the library's results; the value is the job's mode on the wire."""

    NONE = ""
    VALUES = "values"
    ROWS = "rows"


@dataclass(frozen=True)
class Perturber:
    """Made once in the fork server (`perturber`), used by the audit hook in every child."""

    # (raw result, raw positional arguments, keyword arguments, mode, `written`, may grow) ->
    # (the result to hand on, whether the call computed something: a result that is not one of
    # its arguments, of a kind that can be nudged)
    nudge: Callable[[Any, tuple, dict, Perturbation, tuple, bool], tuple[Any, bool]]
    # (raw positional arguments, keyword arguments, where `out` may stand) -> each array the
    # call may write its result into, with a copy of what it holds before the call
    written: Callable[[tuple, dict, int], tuple]


def perturber(np: Any) -> Perturber:
    """What nudges one raw result of a NumPy function, given the call's raw arguments (made in
    the fork server); it also says whether the call computed anything."""
    ndarray, generic, logical_not, concatenate = (
        np.ndarray,
        np.generic,
        np.logical_not,
        np.concatenate,
    )
    asarray, shape_of, abs_, array_equal = np.asarray, np.shape, np.abs, np.array_equal

    def values(value):
        kind = value.dtype.kind
        if kind == "b":
            return logical_not(value)
        if kind in "iumM":
            return value + INTEGER_SHIFT
        if kind in "fc":
            return value * FLOAT_SCALE + FLOAT_SHIFT
        return value  # objects, text, bytes, records

    def nudge(value):
        kind = type(value)
        if kind is bool:
            return not value
        if kind is int:
            return value + INTEGER_SHIFT
        if kind is float or kind is complex:
            return value * FLOAT_SCALE + FLOAT_SHIFT
        if isinstance(value, ndarray | generic):
            return values(value)
        return _containers(value, nudge)

    def rows(value):
        if isinstance(value, ndarray):
            if value.ndim >= 1 and value.shape[0] >= 1:
                return concatenate((value, value[-1:]))
            return value
        return _containers(value, rows)

    def holds_array(value) -> bool:
        if isinstance(value, ndarray):
            return True
        return isinstance(value, list | tuple) and any(holds_array(item) for item in value)

    def same(result, shape: tuple, argument) -> bool:
        """`result` (of shape `shape`) is `argument`, or the same within the tolerance."""
        if result is argument:
            return True
        # Arrays, numbers, and plain nested lists (an answer computed in Python) only: a list of
        # arrays is the input of a stacking function, which computes its result.
        if isinstance(argument, str | bytes | dict) or argument is None:
            return False
        if isinstance(argument, list | tuple):
            if not shape or len(argument) != shape[0] or holds_array(argument):
                return False
        elif not isinstance(argument, ndarray) and shape:
            return False  # a number is no array
        try:
            given = asarray(argument)
            if given.shape != shape:
                return False
            kinds = given.dtype.kind + asarray(result).dtype.kind
            if all(kind in "iufc" for kind in kinds):
                # what the comparator would call equal (NaN beside NaN included)
                return not bool((abs_(result - given) > SAME_WITHIN).any())
            return bool(array_equal(result, given))
        except Exception:  # ragged, incomparable: not the same
            return False

    def computes_nothing(result, args: tuple, kwargs: dict) -> bool:
        try:
            shape = shape_of(result)
        except Exception:  # a ragged result: nothing it could equal
            return False
        return any(same(result, shape, a) for a in args) or any(
            same(result, shape, a) for a in kwargs.values()
        )

    def perturb(
        result, args: tuple, kwargs: dict, mode: Perturbation, written: tuple, grow: bool
    ) -> tuple[Any, bool]:
        # The same work in every run, the unperturbed one included (`Perturbation.NONE`): a
        # program that times a call must not tell the runs apart, and the unperturbed run says
        # which cases the library computed something in.
        if written:
            return in_place(result, mode, written)
        try:
            nothing = computes_nothing(result, args, kwargs)
            nudged = nudge(result)
            grown = rows(result) if grow else result
        except Exception:  # an exception must never reach the program: keep the value
            return result, False
        computed = not nothing and (nudged is not result or grown is not result)
        if not computed or mode is Perturbation.NONE:
            return result, computed
        return (nudged if mode is Perturbation.VALUES else grown), True

    def in_place(result, mode: Perturbation, written: tuple) -> tuple[Any, bool]:
        """A call that wrote its result into arrays it was given (`out=`): it computed
        something if it changed them, and they are nudged where they are, so that the buffer
        holds what the same call without `out=` returns (rows: left as they are)."""
        try:
            changed = [a for a, before in written if not same(a, a.shape, before)]
            nudged = [values(a) for a in changed]
        except Exception:
            return result, False
        if mode is Perturbation.VALUES:
            for array, value in zip(changed, nudged, strict=True):
                with contextlib.suppress(Exception):  # read-only: left as it is
                    array[...] = value
        return result, bool(changed)

    def written(args: tuple, kwargs: dict, position: int) -> tuple:
        given = kwargs.get("out")
        if given is None and 0 <= position < len(args):
            given = args[position]
        arrays = given if isinstance(given, tuple) else (given,)
        return tuple((a, a.copy()) for a in arrays if isinstance(a, ndarray))

    return Perturber(perturb, written)


def out_positions(np: Any, targets: Iterable[Any]) -> dict[int, int]:
    """For each target that can write its result into an argument, by id: the position its
    `out` may be given at (-1: by keyword only). In a `rows` run their results keep their
    length: the same call with `out=` cannot grow, and the two must not tell the runs apart."""
    found: dict[int, int] = {}
    for target in targets:
        if isinstance(target, np.ufunc):
            found[id(target)] = target.nin
            continue
        try:
            names = list(inspect.signature(target).parameters)
        except (TypeError, ValueError):
            continue
        if "out" in names:
            found[id(target)] = names.index("out")
    return found


def _containers(value: Any, each: Callable[[Any], Any]) -> Any:
    """`each` applied inside the containers NumPy functions return; other values unchanged."""
    kind = type(value)
    if kind is list:
        return [each(item) for item in value]
    if kind is tuple:
        return tuple(each(item) for item in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # NumPy's result tuples
        return kind(*(each(item) for item in value))
    if kind is dict:
        return {key: each(item) for key, item in value.items()}
    return value
