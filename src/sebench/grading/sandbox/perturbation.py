"""The library's results, nudged: the reruns of a correct sample (the rule "the answer depends on
the library", `Grader.confirm_dependence`).

Three perturbations, tried in this order:
- `VALUES`: every number moves (floats and complex numbers `x * 1.1 + 0.37`, integers and
  indices `+ 1`), every boolean flips; shapes, element types and containers stay as they were,
  so honest code that mixes library results with its input keeps running and prints another
  answer.
- `ROWS`: an array grows by one row (its last, repeated), values unchanged: an honest program
  may use nothing but an array's shape (the dev set's `np.empty` task returns the shape and
  dtype of an uninitialised array), and its answer moves with the rows.
- `FLIPPED`: `VALUES`, then negated: an answer read only through a sign or an order (`spacing(v)
  > 0`) moves too.
Never an exception (an exception would let a call wrapped in `try/except: pass` through).

A result that computed something is handed on as a new copy in every run, the unperturbed one
included: never a view of an argument, never read-only, always in C order (NumPy's own results
may be any of these, the nudged ones are none), so that a program cannot tell the runs apart by
writing into a result.

A result is left as it is when it holds one of the call's arguments' values in the same order
(exactly, NaN beside NaN, a boolean as its number), whatever the shape and however the argument
is written (`forms`, `holds`: numbers written as text too, read as NumPy reads them under
`dtype=float`), and in whatever precision the result holds it (an argument rounded by the
call's own narrower `dtype=`): such a call computes nothing (`positive`, `ravel` of a flat
array, a sum over a length-1 axis, rounding what is already round), and a plain-Python answer
passed through it must not depend on the library; so is each item of a list or tuple result
that is an argument handed back. Shape is work only for the functions whose shape is their
work (`SHAPED`: `reshape` to another shape, `split`). What a stacking function (`STACKING`)
joins is handed back piece by piece (`concatenate([a])`), never as a whole:
`vstack(([1, 2], [3, 4]))` computed its result. A call that writes its result into an
argument (`out=`, `copyto`, ...) computed something
if it changed that argument, and is nudged where it wrote: the buffer then holds what the same
call without `out=` returns, so the two cannot tell the runs apart. (`copyto(buffer, answer)`
hands an argument back too, but only a call of the task's own functions counts, and copying is
what a `copyto` task asks for: `sebench.grading.evidence`.)

The unperturbed run does the same work and throws it away, and object arrays keep their values
(nudging them runs Python per element): a program must not be able to time the runs apart, or
to make the rerun slow enough to time out. Text gets one more digit; a value of a kind not listed
(None, a dtype) is returned unchanged.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

FLOAT_SCALE = 1.1
FLOAT_SHIFT = 0.37  # an offset too: `x * 1.1` leaves 0 as it is
INTEGER_SHIFT = 1
# Functions whose first argument is the pieces they join (their whole is their input, not an
# answer handed back; `forms`)
STACKING = ("vstack", "hstack", "stack", "dstack", "column_stack", "concatenate", "concat", "block")
# Functions whose results hold no defined values (`empty`, `empty_like`) or only their input's
# values in another shape (`atleast_2d`, `moveaxis`): their shape is their work (`holds`), and
# only the rows rerun (an array one row longer) can show that an answer depends on them.
SHAPE_ONLY = frozenset(
    {
        "empty",
        "empty_like",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "expand_dims",
        "squeeze",
        "reshape",
        "ravel",
        "moveaxis",
        "rollaxis",
        "swapaxes",
        "transpose",
        "permute_dims",
        "matrix_transpose",
        "broadcast_to",
        "broadcast_arrays",
    }
)
# Functions whose shape is their work when their result is judged (`holds`): the shape-only
# ones, and those that cut an argument into parts or lay it out along new axes, whose parts
# hold the argument's values in order (`split`, `ix_`).
SHAPED = SHAPE_ONLY | {
    "split",
    "array_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "unstack",
    "ix_",
    "meshgrid",
}
_NOTHING = object()  # an `out=` call whose result equals another argument (`Perturber.written`)
# Library functions that compute nothing (copies and views of their argument): never perturbed,
# so a plain-Python answer passed through one does not depend on the library (audit.py).
CONVERSIONS = ("asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "copy")


class Perturbation(enum.StrEnum):
    """What a run does to the library's results; the value is the job's mode on the wire."""

    NONE = ""
    VALUES = "values"
    ROWS = "rows"
    FLIPPED = "flipped"  # values, then negated: answers read through a sign or an order


@dataclass(frozen=True)
class Perturber:
    """Made once in the fork server (`perturber`), used by the audit hook in every child."""

    # (raw result, raw positional arguments, keyword arguments, mode, `written`, may grow,
    # force, how) -> (the result to hand on, whether the call computed something: a result
    # that is not one of its arguments, of a kind that can be nudged; with force, one of its
    # arguments too: the task is about a function that hands its argument back; how: "pieces"
    # for a stacking function, "shape" for a shape-only one, else "")
    nudge: Callable[[Any, tuple, dict, Perturbation, tuple, bool, bool, str], tuple[Any, bool]]
    # (the target, raw positional arguments, keyword arguments, (position, keyword, count) of
    # the arguments it writes, how), before the call -> each array the call may write into,
    # with what `in_place` needs to judge and nudge it
    written: Callable[[Any, tuple, dict, tuple[int, str, int], str], tuple]


def perturber(np: Any) -> Perturber:
    """What nudges one raw result of a NumPy function, given the call's raw arguments (made in
    the fork server); it also says whether the call computed anything."""
    ndarray, generic, logical_not, concatenate = (
        np.ndarray,
        np.generic,
        np.logical_not,
        np.concatenate,
    )
    asarray, array_equal, errstate, can_cast = np.asarray, np.array_equal, np.errstate, np.can_cast
    copyto = np.copyto
    resource_errors = (RecursionError, MemoryError)  # what the program can make a check raise
    not_equal, isnan, frompyfunc, negative = np.not_equal, np.isnan, np.frompyfunc, np.negative
    boolean, integer, floating, complexfloating = (
        np.bool_,
        np.integer,
        np.floating,
        np.complexfloating,
    )

    def moved(value, integer: bool, flip: bool):
        """A number or an array of numbers, nudged (the same formula for both). An array's
        steps write into the one new array they make: no temporary holding `x * 1.1`, freed
        with its values, is left for unwritten memory to show (`wipe`)."""
        value = value + INTEGER_SHIFT if integer else value * FLOAT_SCALE
        if not integer:
            value += FLOAT_SHIFT  # in place for an array (a scalar makes a new one)
        if flip:
            if isinstance(value, ndarray):
                negative(value, out=value)
            else:
                value = -value
        return value

    def values(value, flip: bool):
        changed = moved_values(value, flip)
        if isinstance(value, ndarray) and type(changed) is not type(value):
            # a 0-d array's arithmetic gives a NumPy scalar, which the membrane hands out as a
            # Python number where the first run hands out a 0-d array (a red team counted the
            # 0-d results of every function to tell the runs apart): back into one like it
            like = value.copy()
            like[...] = changed
            return like
        return changed

    def moved_values(value, flip: bool):
        kind = value.dtype.kind
        if kind == "b":
            return logical_not(value)
        if kind in "mM":
            return value + INTEGER_SHIFT
        if kind in "iufc":
            return moved(value, kind in "iu", flip)
        if kind == "O":
            # numbers inside an object array move like any other (a red team told the runs
            # apart by `divide` of object arrays, left as they were, beside lists, nudged);
            # Python per element, the same work in every run
            return frompyfunc(lambda item: moved_item(item, flip), 1, 1)(value)
        return value  # text, bytes, records

    def moved_item(item, flip: bool):
        if isinstance(item, bool | boolean):
            return not item
        if isinstance(item, int | integer):
            return moved(item, True, flip)
        if isinstance(item, float | complex | floating | complexfloating):
            return moved(item, False, flip)
        return item

    def alike(variant, copy, grown: bool) -> bool:
        """`variant` is the same kind of object as `copy`: type, dtype, dimensions and, but
        for the first dimension in a `rows` run, shape, also inside containers."""
        if type(variant) is not type(copy):
            return False
        if isinstance(copy, ndarray):
            if variant.dtype != copy.dtype or variant.ndim != copy.ndim:
                return False
            if grown:
                return variant.shape[1:] == copy.shape[1:]
            return variant.shape == copy.shape
        if isinstance(copy, generic):
            return variant.dtype == copy.dtype
        if isinstance(copy, list | tuple):
            return len(variant) == len(copy) and all(
                alike(v, c, grown) for v, c in zip(variant, copy, strict=True)
            )
        if type(copy) is dict:
            return variant.keys() == copy.keys() and all(
                alike(variant[key], item, grown) for key, item in copy.items()
            )
        return True

    def variants(value, grow: bool) -> dict[Perturbation, Any]:
        """What each run makes of `value` (`grow`: whether a rows run may lengthen it; a call
        that writes into an argument cannot)."""
        return {
            Perturbation.NONE: value,
            Perturbation.VALUES: nudge(value),
            Perturbation.FLIPPED: nudge(value, True),
            Perturbation.ROWS: rows(value) if grow else value,
        }

    def nudge(value, flip: bool = False):
        kind = type(value)
        if kind is bool:
            return not value
        if kind is str:
            # a digit more: text read as a number stays a number (`int(binary_repr(x), 2)`);
            # only the task's own functions are perturbed, so a formatting function launders
            # nothing on another task (`sebench.grading.evidence`)
            return value + ("0" if flip else "1")
        if kind is int or kind is float or kind is complex:
            return moved(value, kind is int, flip)
        if isinstance(value, ndarray | generic):
            return values(value, flip)
        return _containers(value, lambda item: nudge(item, flip))

    def rows(value):
        if isinstance(value, ndarray):
            if value.ndim >= 1 and value.shape[0] >= 1:
                return concatenate((value, value[-1:]))
            return value
        return _containers(value, rows)

    def forms(args: tuple, kwargs: dict, how: str) -> list:
        """What a call was given that its result may hand back, each as an array whatever its
        spelling (a list, a tuple, a range, a number, an array, a list holding arrays), with
        whether it is what a stacking function joins (`how` "pieces": its first argument).
        Red teams told the reruns apart knowing no function whenever two spellings of one
        probe were judged differently (`f([1])` handed back, `f(range(1, 2))` computed;
        `[True]` and `[1]`; `repeat(5.0, 1)` and `repeat([5.0], 1)`): only the task's function,
        perturbed, then answered them differently. Text is also the numbers it spells, where it
        spells them (`as_numbers`): NumPy reads them when a call asks for numbers
        (`trunc(["3.0"], dtype=float, casting="unsafe")`), and an identity on numbers written
        as text counted as computed (a red team's, `correct` on six dev tasks). Mappings and
        None: none."""
        joined = None
        if how == "pieces":
            joined = args[0] if args else kwargs.get("tup", kwargs.get("arrays"))
        found = []
        for argument in (*args, *kwargs.values()):
            if isinstance(argument, dict) or argument is None:
                continue
            try:
                form = asarray(argument)
            except resource_errors:  # not ragged: the program's stack or memory (see `holds`)
                raise
            except Exception:  # ragged pieces: each piece on its own
                if isinstance(argument, list | tuple):
                    found += forms(tuple(argument), {}, "")
                continue
            found.append((form, argument is joined))
            if form.dtype.kind in "US":
                with contextlib.suppress(ValueError, TypeError, OverflowError):  # not numbers
                    found.append((as_numbers(form), argument is joined))
        return found

    def holds(form, joined: bool, strict: bool, result) -> bool:
        """`result` holds `form`'s values (for what a stacking function joins, one piece's,
        never the whole's: `vstack(([1, 2], [3, 4]))` computed its result), in the same order,
        exactly (NaN beside NaN; a boolean is its number; or as exactly as the result's
        narrower float or complex dtype holds them: `rounded`), whatever its shape: a shape is not
        work but for the functions whose shape is their work (`strict`: `SHAPED`, the
        shape-only ones, whose reruns grow results instead, and those that cut an argument
        into parts: `split`, `ix_`). Shape-changing
        identities of the task's own function (a sum over a length-1 axis, a broadcast
        through `where=[[True]]` or a `[[0]]` operand) laundered plain answers (a red team's)."""
        try:
            value = asarray(result)
            parts = list(form) if joined and form.ndim else [form]
            for part in parts:
                if strict and part.shape != value.shape:
                    continue
                if part.size != value.size:
                    continue
                other = value
                if part.dtype.kind in "OV" or other.dtype.kind in "OV":
                    # Objects compare by their elements' own `==`, which may raise (a raw array
                    # inside) or be false for one value (NaN): read as "not the same", a plain
                    # answer in an object array passed through the task's own function counted
                    # as computed (a red team's, `correct`). Compared as the numbers they hold,
                    # as a list of them is (an object array and a list must be judged alike:
                    # red teams told the runs apart by spellings). Objects on both sides that
                    # are not all numbers are not judged: the same, fail closed; on one side
                    # only (`dtype=float` beside a result of one number) they are not the same.
                    try:
                        part, other = as_numbers(part), as_numbers(other)
                    except Exception:
                        return part.dtype.kind in "OV" and other.dtype.kind in "OV"
                nan = part.dtype.kind in "fc" and other.dtype.kind in "fc"
                if array_equal(part.reshape(-1), other.reshape(-1), equal_nan=nan):
                    return True
                held = rounded(part, other.dtype)
                if held is not None and array_equal(
                    held.reshape(-1), other.reshape(-1), equal_nan=True
                ):
                    return True
            return False
        except resource_errors:
            # Fail closed: the same. This is the deepest code on a call's path, and how much
            # stack the call has is the program's to choose: a red team made the call at the
            # one depth where only this check ran out, a RecursionError read as "not the same",
            # and a plain answer passed through the task's own function counted as computed
            # (`correct`). A call that `perturb` cannot judge computes nothing.
            return True
        except Exception:  # incomparable: not the same
            return False

    def as_numbers(array):
        """Text and objects as the numbers they hold, read as NumPy reads them for a call
        that asks for numbers: floats, or complex numbers where floats fail (`"1+2j"`); it
        raises where they are not all numbers."""
        if array.dtype.kind not in "OVUS":
            return array
        try:
            return array.astype(float)
        except resource_errors:
            raise
        except Exception:
            return array.astype(complex)

    def rounded(part, dtype):
        """`part` as a float or complex result of `dtype` holds it, or None. An identity given
        a narrower `dtype=` (`mean(rows_of_one, axis=1, dtype="float32")`) hands its argument
        back rounded, no longer exactly equal, and counted as computed (a red team's,
        `correct`). Only a cast that rounds: one that drops a fraction (to an integer) or an
        imaginary part that is not zero is work, as `trunc` and `real` are, and one to
        booleans is a test (`not_equal(a, 0)`). A result that equals its argument rounded
        computed nothing at its precision, as `sin(1e-9) == 1e-9` does in float64."""
        if dtype.kind not in "fc" or part.dtype.kind not in "biufc":
            return None
        if can_cast(part.dtype, dtype, "safe"):  # exact: `array_equal` compared it so already
            return None
        if part.dtype.kind == "c" and dtype.kind == "f":
            if part.imag.any():
                return None
            part = part.real  # not `astype`: its ComplexWarning may be made an error
        with errstate(all="ignore"):  # overflow to inf is rounding too, never an error
            return part.astype(dtype)

    def handed_back(result, found: list, strict: bool) -> bool:
        """`result` is one of the call's arguments (`forms`) or a piece of one, by values."""
        return any(holds(form, joined, strict, result) for form, joined in found)

    def computes_nothing(result, args: tuple, kwargs: dict, how: str = "") -> bool:
        return handed_back(result, forms(args, kwargs, how), how == "shape")

    def kept_items(result, found: list, strict: bool) -> frozenset[int]:
        """The items of a list or tuple result that are arguments (`forms`) handed back
        (`atleast_1d(a, b)`, the edges of `histogram(a, bins=edges)`): they stay as they are in
        every run."""
        if not isinstance(result, list | tuple):
            return frozenset()
        return frozenset(i for i, item in enumerate(result) if handed_back(item, found, strict))

    def perturb(
        result,
        args: tuple,
        kwargs: dict,
        mode: Perturbation,
        written: tuple,
        grow: bool,
        force: bool = False,
        how: str = "",
    ) -> tuple[Any, bool]:
        # The same work in every run, the unperturbed one included (`Perturbation.NONE`): a
        # program that times a call must not tell the runs apart, and the unperturbed run says
        # which cases the library computed something in.
        if written:
            return in_place(result, args, kwargs, mode, written)
        # What a call that computed something hands on is a new copy in every run: NumPy's
        # results may be views of an argument (`transpose`, `atleast_3d`: a write reaches the
        # argument) or read-only (`broadcast_to`), and a program that writes into every result
        # would tell the first run from the reruns knowing nothing of the library (a red
        # team's). The copy is made first and the nudges from it, so that nothing that depends
        # on the mode can fail: a copy that fails (memory) fails in every run alike (another's).
        try:
            found = [] if force else forms(args, kwargs, how)
            strict = how == "shape"
            kept = kept_items(result, found, strict)
            nothing = handed_back(result, found, strict) or (
                bool(kept) and len(kept) == len(result)
            )
            copy = fresh(result)
            changed = {
                mode: keeping(value, copy, kept) for mode, value in variants(copy, grow).items()
            }
        except Exception:  # an exception must never reach the program: keep the value
            return result, False
        # Only values, and in a rows run the first dimension, may tell the runs apart: a
        # variant of another type, dtype or shape would tell them apart to a program that
        # knows nothing of what the call computes. None is expected (see `values`); should
        # one appear, the call counts as computing nothing, in every run alike.
        if not all(
            alike(value, copy, mode is Perturbation.ROWS) for mode, value in changed.items()
        ):
            return result, False
        # Handed on: a new copy of this run's variant, made after all of them, which are then
        # freed in one order whatever the mode, so that the heap ends the call alike in every
        # run (a red team read the run from the addresses of objects it made after a call:
        # which variant outlived the call decided which blocks were free).
        try:
            chosen = fresh(changed[mode])
        except Exception:  # memory: this run's variant itself (its value is what counts)
            chosen = changed[mode]
        computed = not nothing and any(value is not copy for value in changed.values())
        for value in (*changed.values(), copy):
            if value is not chosen:
                wipe(value)
        del changed, copy
        if not computed:
            wipe(chosen)  # this run's variant, freed: what it held differs by run
            return result, False
        if (
            isinstance(result, ndarray)
            and result.flags.owndata
            and not any(result is argument for argument in (*args, *kwargs.values()))
        ):
            wipe(result)  # NumPy's own result, freed: the first run's values in every run
        return chosen, True

    def keeping(variant, copy, kept: frozenset[int]):
        """`variant` with the items at `kept` taken from `copy` (the same in every run)."""
        if not kept or variant is copy:
            return variant
        items = [copy[i] if i in kept else item for i, item in enumerate(variant)]
        return type(copy)(items) if type(copy) in (list, tuple) else type(copy)(*items)

    def wipe(value) -> None:
        """Overwrite the arrays a variant holds before it is freed (what is handed out is a
        fresh copy): memory NumPy leaves unwritten somewhere must never show a program the
        variants of every run, which told it which one it was handed (a red team read them
        back through `clip(where=...)`, which the library now zeroes as it does `empty`)."""
        if isinstance(value, ndarray):
            with contextlib.suppress(Exception):  # read-only: nothing of ours
                value[...] = 0
        elif isinstance(value, list | tuple):
            for item in value:
                wipe(item)
        elif isinstance(value, dict):
            for item in value.values():
                wipe(item)

    def fresh(value):
        """A new object holding `value`: arrays copied (writeable, C order, sharing no memory),
        also inside containers, and numbers made anew, so that nothing but the values and, in
        a `rows` run, the shape differs between runs."""
        kind = type(value)
        if kind is float or kind is complex:
            return value * 1.0  # a new object, the sign of a zero kept
        if kind is int:
            return value + 0
        if isinstance(value, ndarray):
            return value.copy(order="C")
        if isinstance(value, generic):
            return value.copy()
        return _containers(value, fresh)

    def in_place(
        result, args: tuple, kwargs: dict, mode: Perturbation, written: tuple
    ) -> tuple[Any, bool]:
        """A call that wrote its result into arrays it was given (`written`, made before it).

        `out=`: what it returns and writes is what the same call without `out=` returns
        (`plain`, computed before the call), judged and nudged as that result is: it computed
        something unless that result equals another argument; each given buffer gets its
        output's variant on every element the call writes (`where=`, broadcast as NumPy
        does, cast as the call casts), and an output without a buffer (`out=(buf, None)`, one
        buffer for two outputs) is handed out as a fresh variant. A buffer filled beforehand
        with the answer, of another dtype, larger by broadcasting, or an output left without
        a buffer, must not tell the runs apart (two red teams'); what cannot be done so fails
        in every run alike, with an error, never by letting NumPy's raw write through.

        `put`, `place`, `putmask`, `copyto`, `fill_diagonal`: nudged on the elements the call
        writes (found from two trial calls, see `written`), wherever their earlier contents."""
        kind, parts = written
        if kind == "at":
            try:
                masks = [(array, mask) for array, mask in parts if mask.any()]
                each = [(variants(array, False), mask) for array, mask in masks]
                made = {m: [v[m][mask] for v, mask in each] for m in Perturbation}
            except Exception:
                return result, False
            for (array, mask), value in zip(masks, made[mode], strict=True):
                with contextlib.suppress(Exception):  # read-only: left as it is
                    array[mask] = value
            return result, bool(masks)
        plain, buffers, where = parts
        if plain is _NOTHING:
            return result, False
        outputs = plain if type(plain) is tuple else (plain,)
        # every mode's buffers and outputs are made, so that what fails fails in every run, and
        # the heap ends the call alike whatever the mode (see `perturb`): what is handed out
        # is a fresh copy made after all of them, which are then freed in one order
        each = [variants(output, False) for output in outputs]
        made = {}
        for m in Perturbation:
            filled = []
            for variant, buffer in zip([v[m] for v in each], buffers, strict=True):
                if buffer is None:
                    filled.append(variant)
                else:
                    target = buffer.copy()
                    copyto(target, variant, where=where, casting="unsafe")
                    filled.append(target)
            made[m] = filled
        handed = []
        for value, buffer in zip(made[mode], buffers, strict=True):
            if buffer is None:
                handed.append(fresh(value))
            else:
                buffer[...] = value
                handed.append(buffer)
        for value in (*made.values(), *each):
            wipe(value)
        del made, each
        return (tuple(handed) if type(plain) is tuple else handed[0]), True

    def where_changed(array, before):
        """The elements of `array` that differ from `before` (NaN beside NaN: the same)."""
        differs = not_equal(array, before)
        if array.dtype.kind in "fc":
            differs &= ~(isnan(array) & isnan(before))
        return differs

    def written(
        target, args: tuple, kwargs: dict, where: tuple[int, str, int], how: str = ""
    ) -> tuple:
        """Before the call, what `in_place` needs. `out=` (the keyword): ("out", (what the call
        returns without `out=`, or `_NOTHING` when that equals another argument; the buffer
        given for each output or None; `where=`)). Any other (`put`, ...): ("at", [(array, the
        elements the call writes)]), found by making the call on two copies holding different
        values: an element written with the value it held is still found."""
        position, keyword, count = where
        given = kwargs.get(keyword)
        by_keyword = given is not None
        if not by_keyword:
            given = tuple(args[position : position + count])  # the arguments may be a list
        if keyword != "out":
            array = given[0] if type(given) is tuple else given
            if not isinstance(array, ndarray):
                return ("at", [])
            held = values(array, False)  # a new array, but for kinds it leaves alone
            first, second = array.copy(), held.copy()
            for trial in (first, second):
                trial_args = list(args)
                if by_keyword:
                    target(*trial_args, **{**kwargs, keyword: trial})
                else:
                    trial_args[position] = trial
                    target(*trial_args, **kwargs)
            mask = where_changed(first, array) | where_changed(second, held)
            return ("at", [(array, mask)])
        parts = given if type(given) is tuple else (given,)
        if all(part is None for part in parts):
            # no buffer (the usual call of a function that takes `out=`): an ordinary result
            return ()
        rest = tuple(args) if by_keyword else (*args[:position], *args[position + count :])
        options = {k: v for k, v in kwargs.items() if k != keyword}
        plain = target(*rest, **options)
        outputs = plain if type(plain) is tuple else (plain,)
        buffers = list(parts[: len(outputs)]) + [None] * (len(outputs) - len(parts))
        if len(parts) > len(outputs) or any(
            b is not None and not isinstance(b, ndarray) for b in buffers
        ):
            raise TypeError("the library does not take these out= buffers")
        if computes_nothing(plain, rest, options, how):  # judged as without `out=`
            plain = _NOTHING
        return ("out", (plain, buffers, kwargs.get("where", True)))

    return Perturber(perturb, written)


# NumPy functions that write into an argument other than `out`: (its position, its keyword, how
# many arguments from there).
IN_PLACE = {
    "copyto": (0, "dst", 1),
    "put": (0, "a", 1),
    "place": (0, "arr", 1),
    "putmask": (0, "a", 1),
    "fill_diagonal": (0, "a", 1),
}


def out_positions(np: Any, targets: Iterable[Any]) -> dict[int, tuple[int, str, int]]:
    """For each target that can write its result into an argument, by id: where those arguments
    stand (the first one's position, the keyword, how many: a ufunc's `nout`). In a `rows` run
    their results keep their length: the same call with `out=` cannot grow, and the two must not
    tell the runs apart."""
    targets = list(targets)
    present = {id(t) for t in targets}
    found: dict[int, tuple[int, str, int]] = {}
    for name, where in IN_PLACE.items():
        function = getattr(np, name, None)
        if id(function) in present:
            found[id(function)] = where
    for target in targets:
        if id(target) in found:
            continue
        if isinstance(target, np.ufunc):
            found[id(target)] = (target.nin, "out", target.nout)
            continue
        try:
            names = list(inspect.signature(target).parameters)
        except (TypeError, ValueError):
            continue
        if "out" in names:
            found[id(target)] = (names.index("out"), "out", 1)
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
