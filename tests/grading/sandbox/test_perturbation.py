"""The perturber on its own: whatever fails, fails alike in every run.

A run's mode is chosen only after everything that can fail has been done: a program that makes
one step fail (a copy that runs out of memory) must not get the raw result in one run and a
nudged copy in another (a red team's: a view of the argument in the first run only)."""

from __future__ import annotations

import numpy as np

from sebench.grading.sandbox.perturbation import Perturbation, perturber


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
