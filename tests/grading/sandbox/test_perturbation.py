"""The perturber on its own: whatever fails, fails alike in every run.

A run's mode is chosen only after everything that can fail has been done: a program that makes
one step fail (a copy that runs out of memory) must not get the raw result in one run and a
nudged copy in another (a red team's: a view of the argument in the first run only)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sebench.grading.sandbox.perturbation import SHAPED, STACKING, Perturbation, perturber


class CopyFails(np.ndarray):
    """An array whose copy fails, as a copy too large for the memory limit does."""

    def copy(self, order="C"):
        raise MemoryError


def test_a_result_whose_copy_fails_is_handed_on_as_it_is_in_every_run():
    nudge = perturber(np).nudge
    argument = np.arange(6.0).reshape(2, 3)
    view = argument.T.view(CopyFails)  # computed something: another shape
    handed = {mode: nudge(view, (argument,), {}, mode, (), True) for mode in Perturbation}
    assert all(value is view and computed is False for value, computed in handed.values())


def test_a_computed_result_is_a_new_writeable_c_ordered_array_in_every_run():
    nudge = perturber(np).nudge
    argument = np.arange(6.0).reshape(2, 3)
    for result in (argument.T, np.broadcast_to(argument[0], (2, 3))):
        for mode in Perturbation:
            value, computed = nudge(result, (argument,), {}, mode, (), True)
            assert computed and value.flags.writeable and value.flags.c_contiguous, mode
            assert not np.shares_memory(value, argument), mode


def test_a_call_of_a_function_that_takes_out_without_a_buffer_is_an_ordinary_call():
    """`mean` takes `out=`: called without one (nearly every call), it must take the ordinary
    path. It went through the `out=` path once (a second call, variants made per run), which
    moved the addresses of the objects a program made after it (a red team's heap probe)."""
    written = perturber(np).written
    for args, kwargs in ((([1.0, 2.0],), {}), (([1.0, 2.0], None, None, None), {"out": None})):
        assert written(np.mean, args, kwargs, (3, "out", 1)) == ()
    buffer = np.zeros(())
    kind, (plain, buffers, _) = written(np.mean, ([1.0, 2.0],), {"out": buffer}, (3, "out", 1))
    assert kind == "out" and plain == 1.5 and buffers == [buffer]


def _run(function, args, kwargs=None, mode=Perturbation.VALUES, how=None):
    """The result a call of `function` hands on in `mode`, and whether it computed something,
    as the hook sees it (in-place calls through `written`, made before the call; `how` as the
    hook says for the function unless given)."""
    kwargs = kwargs or {}
    if how is None:
        how = "pieces" if function.__name__ in STACKING else ""
        how = "shape" if function.__name__ in SHAPED else how
    p = perturber(np)
    where = {
        np.copyto: (0, "dst", 1),
        np.put: (0, "a", 1),
        np.place: (0, "arr", 1),
        np.putmask: (0, "a", 1),
    }.get(function)
    written = p.written(function, args, kwargs, where, how) if where else ()
    result = function(*args, **kwargs)
    return p.nudge(result, args, kwargs, mode, written, True, False, how)


def test_a_result_handed_back_from_inside_a_container_argument_computes_nothing():
    """A red team laundered a plain answer through `concatenate([a])`, `hstack([a])` and
    `amax([v])`: the array (or the only item) inside a list argument is handed back."""
    a = np.array([3.0, 1.0, 2.0])
    for function, args in (
        (np.concatenate, ([a],)),
        (np.hstack, ([a],)),
        (np.concatenate, ([[3.0, 1.0, 2.0]],)),
        (np.amax, ([7.5],)),
        (np.block, ([a],)),
    ):
        value, computed = _run(function, args)
        assert not computed, function.__name__
        assert np.array_equal(value, function(*args)), function.__name__
    # what a container's items make is computed: joined arrays, the largest of several numbers
    assert _run(np.concatenate, ([a, a],))[1]
    assert _run(np.amax, ([3.0, 1.0, 2.0],))[1]


def test_each_item_of_a_result_that_is_an_argument_handed_back_stays_as_it_is():
    """`atleast_1d(a, a)` hands back `[a, a]` (a red team's `[0]` laundered the answer);
    `histogram(x, bins=edges)` hands back the edges it was given beside counts it computed."""
    a = np.array([3.0, 1.0, 2.0])
    for mode in Perturbation:
        value, computed = _run(np.atleast_1d, (a, a), mode=mode)
        assert not computed and all(np.array_equal(v, a) for v in value), mode
    edges = np.array([0.0, 1.5, 4.0])
    counts, kept = _run(np.histogram, (a,), {"bins": edges})[0]
    assert np.array_equal(kept, edges) and not np.array_equal(counts, [1, 2])
    assert _run(np.histogram, (a,), {"bins": edges})[1]


def test_an_in_place_call_is_nudged_only_where_it_wrote():
    """`put` at one index: that element moves in a perturbed run, the others stay (a `put`
    task's honest answer). Writing every element with another argument (`copyto(buffer,
    answer)`) is nudged too: only the task's own functions are perturbed at all
    (`sebench.grading.evidence`), and copying is what a `copyto` task asks for."""
    buffer = np.zeros(3)
    assert _run(np.put, (buffer, [1], [5.0]))[1]
    assert buffer[1] != 5.0 and buffer[0] == 0.0 and buffer[2] == 0.0
    buffer = np.zeros(3)
    assert _run(np.copyto, (buffer, np.array([4.0, 8.0, 15.0])))[1]
    assert buffer.tolist() != [4.0, 8.0, 15.0]


def test_text_gets_one_more_digit():
    """A `binary_repr` task's answer is text: nudged, it still reads as a number."""
    value, computed = _run(np.binary_repr, (5,))
    assert computed and value == "1011" and int(value, 2) == 11
    assert _run(np.binary_repr, (5,), mode=Perturbation.FLIPPED)[0] == "1010"


def test_a_boolean_is_its_number_whichever_is_given():
    """`sum([True])` and `sum([1])` were judged apart (booleans were not the numbers 0 and 1),
    so a program that called every function on both spellings saw only the task's function,
    perturbed, answer them differently (a red team's, `correct` on seven dev tasks knowing no
    function). A boolean now compares as its number both ways; the price: a comparison whose
    result equals an argument as numbers (`not_equal([1, 0, 1], [0, 0, 0])`) computes nothing
    in that case."""
    for function in (np.sum, np.mean, np.amax):
        assert not _run(function, ([True],))[1] and not _run(function, ([1],))[1]
    assert not _run(np.not_equal, ([1, 0, 1], [0, 0, 0]))[1]
    assert _run(np.not_equal, ([2, 0, 1], [0, 0, 0]))[1]
    assert not _run(np.logical_and, (np.array([True, False]), True))[1]  # truly handed back


def _computed(function, args, pieces=False, kwargs=None):
    """Whether the call computed something; a stacking function judged as one only with
    `pieces`."""
    how = "pieces" if pieces else "shape" if function.__name__ in SHAPED else ""
    return _run(function, args, kwargs, how=how)[1]


def _leaves(value: object, each: Callable[[object], object]) -> object:
    return [_leaves(item, each) for item in value] if isinstance(value, list) else each(value)


def _spelled(values: object) -> tuple:
    """`values` (a number, or lists of them) as numbers, text, bytes, and arrays of each."""
    text = _leaves(values, repr)
    data = _leaves(text, str.encode)
    objects = (np.array(values, dtype=object), np.array(text, dtype=object))
    return (values, text, data, np.array(values), np.array(text), np.array(data), *objects)


def test_whether_a_call_computed_does_not_depend_on_how_its_argument_is_written():
    """A red team told the reruns apart knowing no function: `f([1])` was judged to hand its
    argument back and `f(range(1, 2))` to compute, `f([[1.0]])` to compute and
    `f(array([[1.0]]))` not, `amin([2.0])` not and `amin(array([2.0]))` to compute; only the
    task's function, perturbed, then answered two spellings differently."""
    spellings = {
        "flat": ([1.0, 2.0], (1.0, 2.0), range(1, 3), np.array([1.0, 2.0])),
        "one": ([2.0], (2.0,), range(2, 3), np.array([2.0])),
        "truth": ([True], [1], np.array([True]), (1,)),
        "rows": ([[1.0, 2.0]], [np.array([1.0, 2.0])], np.array([[1.0, 2.0]])),
        "nested rows": (
            [[1.0], [2.0]],
            [np.array([1.0]), np.array([2.0])],
            np.array([[1.0], [2.0]]),
        ),
    }
    functions = (np.trunc, np.rint, np.amin, np.amax, np.sum, np.mean, np.atleast_2d, np.ravel)
    for function in functions:
        for name, forms in spellings.items():
            seen = set()
            for form in forms:
                try:
                    seen.add(_computed(function, (form,)))
                except (TypeError, ValueError):
                    continue
            assert len(seen) == 1, (function.__name__, name, seen)
    # pairs of calls with equal results, decided alike (a red team's, each a blind detector)
    pairs = (
        (np.repeat, (5.0, 1), ([5.0], 1)),
        (np.outer, ([2.0], 1), ([[2.0]], 1)),
        (np.divide, ([4.0], [2.0]), (np.array([4.0], dtype=object), np.array([2.0], dtype=object))),
    )
    for function, first, second in pairs:
        assert _computed(function, first) == _computed(function, second), function.__name__
    assert _computed(np.vstack, (([[1.0, 2.0]],),), True) == _computed(
        np.vstack, (([1.0, 2.0],),), True
    )
    # a number alone is one value too, for a function that does not add dimensions (one that
    # does computed a shape: `atleast_1d(5.0)`)
    for function in (np.trunc, np.rint, np.amin, np.amax, np.sum, np.mean):
        assert not _computed(function, (2.0,)) and not _computed(function, ([[2.0]],))
    # Numbers written as text (one, a list, bytes, an array), which NumPy reads when the call
    # asks for numbers, and an argument rounded by the call's own narrower `dtype=`: still the
    # argument handed back, in every spelling (red team OF: such identities of the task's own
    # function laundered plain answers, `correct` on seven dev tasks)
    read = {"dtype": float, "casting": "unsafe"}
    whole, inexact = [1.0, 2.0], [0.1, 1 / 3]
    rows = [[value] for value in inexact]
    identities = {
        "trunc": (np.trunc, _spelled(whole), read),
        "trunc of one": (np.trunc, _spelled(2.0), read),
        "rint": (np.rint, _spelled(whole), read),
        "divide by 1": (lambda a, **k: np.divide(a, 1.0, **k), _spelled(inexact), read),
        "hypot with 0": (lambda a, **k: np.hypot(a, 0.0, **k), _spelled(inexact), read),
        "prod of rows of one": (
            lambda a, **k: np.prod(a, axis=1, **k),
            _spelled(rows),
            {"dtype": float},
        ),
    }
    for lossy in ("float32", "float16", "complex64"):
        narrow = {"dtype": lossy, "casting": "unsafe"}
        identities |= {
            f"mean of rows of one in {lossy}": (
                lambda a, **k: np.mean(a, axis=1, **k),
                (rows, np.array(rows), np.array(rows, dtype=object)),
                {"dtype": lossy},
            ),
            f"divide by 1 in {lossy}": (
                lambda a, **k: np.divide(a, 1.0, **k),
                _spelled(inexact),
                narrow,
            ),
            f"prod of rows of one in {lossy}": (
                lambda a, **k: np.prod(a, axis=1, **k),
                _spelled(rows),
                {"dtype": lossy},
            ),
        }
    for name, (function, forms, options) in identities.items():
        for form in forms:
            assert not _computed(function, (form,), kwargs=options), (name, form)


def test_a_call_on_text_or_in_a_narrower_dtype_that_computes_still_counts():
    """Text read as its numbers and an argument compared at the result's precision leave real
    work counted: a fraction dropped from text, a mean of two or a sine in float32, a product
    in float16; a cast that drops a fraction (to integers, as `trunc` does) or an imaginary
    part (`real`) is work, and text read as booleans is a test (non-empty), as `a != 0` is."""
    inexact = [0.1, 1 / 3]
    computing = (
        (np.trunc, (["0.5", "2.5"],), {"dtype": float, "casting": "unsafe"}),
        (np.mean, ([inexact],), {"axis": 1, "dtype": "float32"}),
        (np.sin, (inexact,), {"dtype": "float32"}),
        (np.multiply, (inexact, 1.1), {"dtype": "float16"}),
        (np.sqrt, (np.array([2.0, 3.0], dtype=np.float32),), {}),
        (np.add, ([1.5, 2.7], 0), {"dtype": int, "casting": "unsafe"}),
        (np.real, (np.array([1.0 + 2.0j]),), {}),
        (np.not_equal, (["x", ""], False), {"dtype": bool, "casting": "unsafe"}),
    )
    for function, args, options in computing:
        assert _computed(function, args, kwargs=options), (function.__name__, args, options)


def test_an_identity_call_computes_nothing_however_its_argument_is_written():
    """A plain answer written as rows of lists, or as a range, and passed through an identity
    call (`trunc([answer])`, `mean(rows, axis=())`, `swapaxes(a, 0, 0)`) computes nothing."""
    answer = [1.0, 2.0, 3.0]
    assert not _computed(np.trunc, ([answer],))
    assert not _computed(np.trunc, ([np.array(answer)],))
    assert not _computed(np.trunc, (range(1, 4),))
    assert not _computed(lambda rows: np.mean(rows, axis=()), ([[v] for v in answer],))
    assert not _computed(lambda a: np.swapaxes(a, 0, 0), ([answer],))
    assert not _computed(lambda a: np.repeat(a, 1, axis=0), ([answer],))
    # identities that change the shape (a red team's): over a length-1 axis, a broadcast
    assert not _computed(lambda rows: np.sum(rows, axis=1), ([[v] for v in answer],))
    assert not _computed(lambda a: np.divide(a, [[1.0]]), (answer,))
    assert not _computed(lambda a: np.rint(a, where=[[True]]), (answer,))


def test_numbers_inside_an_object_array_move_like_any_other():
    """`divide` of object arrays was left as it was while `divide` of lists was nudged: a
    program that compared the two found the perturbed run knowing no function (a red
    team's). Numbers inside object arrays now move by the same formula; other objects stay."""
    objects = np.array([4.0, 3, True, "text"], dtype=object)
    value, computed = _run(np.copy, (objects,))
    assert value.tolist() == objects.tolist()  # `copy` computes nothing
    value, computed = _run(np.multiply, (objects[:3], 2))  # 8.0, 6, 2
    assert computed and value.dtype == object
    assert value.tolist() == [8.0 * 1.1 + 0.37, 7, 3]
    value, computed = _run(np.logical_not, (objects[:3],))  # False, False, False
    assert computed and value.tolist() == [True, True, True]


def test_what_a_stacking_function_joins_is_its_input_and_a_forced_call_always_computes():
    """`vstack(([1, 2], [3, 4]))`, the simplest honest answer to a `vstack` task, computed its
    result whether the rows are lists or arrays (`STACKING`: its pieces are not handed back as
    a whole); one piece alone still is (`concatenate([a])`). A forced call (a task about a
    conversion alone: `copy`) always computes."""
    rows = ([1.0, 2.0], [3.0, 4.0])
    for function in (np.vstack, np.stack):
        for pieces in (rows, tuple(map(np.array, rows)), np.array(rows)):
            assert _computed(function, (pieces,), pieces=True), function
        assert not _computed(function, (pieces,), pieces=False)
    assert not _computed(np.concatenate, ([np.array([1.0, 2.0])],), pieces=True)
    assert _run(np.copy, ([1.0, 2.0],))[1] is False
    p = perturber(np)
    value, computed = p.nudge(
        np.copy([1.0, 2.0]), ([1.0, 2.0],), {}, Perturbation.VALUES, (), True, True
    )
    assert computed and not np.array_equal(value, [1.0, 2.0])


def test_numpys_own_result_is_overwritten_once_copied_and_an_argument_never():
    """Freed, NumPy's result held the first run's values in every run, beside what a rerun
    hands out: memory NumPy leaves unwritten would show both (a red team's reading). A result
    that owns its memory and is no argument is overwritten once copied; a view of an argument
    is left as it is."""
    nudge = perturber(np).nudge
    argument = np.array([1.0, 2.0, 4.0])
    for mode in Perturbation:
        result = argument * 3
        value, computed = nudge(result, (argument,), {}, mode, (), True)
        assert computed and not result.any(), mode
        if mode is Perturbation.NONE:
            assert value.tolist() == [3.0, 6.0, 12.0]
        reversed_view = argument[::-1]
        nudge(reversed_view, (argument,), {}, mode, (), True)
        assert argument.tolist() == [1.0, 2.0, 4.0], mode


def test_an_array_is_nudged_as_a_number_is():
    """`moved` works in the one array it makes; the values are the formula's, to the bit."""
    nudge = perturber(np).nudge
    argument = np.array([0.5, -1.5, 2.25], dtype=np.float32)
    for mode, flip in ((Perturbation.VALUES, False), (Perturbation.FLIPPED, True)):
        value, _ = nudge(argument * 2, (argument,), {}, mode, (), True)
        expected = argument * 2 * np.float32(1.1) + np.float32(0.37)
        assert value.tobytes() == (-expected if flip else expected).tobytes(), mode
