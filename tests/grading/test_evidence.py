"""Which functions are a task's evidence of library work (`sebench.grading.evidence`)."""

from __future__ import annotations

from sebench.grading.evidence import UNKNOWN, evidence_names, unknown_functions


def test_a_tasks_functions_are_named_within_the_package(seeded_library):
    table = seeded_library.table
    names = table.numpy_to_library()
    assert evidence_names(["mean"], table) == (names["mean"].removeprefix("zwc."),)
    inv = evidence_names(["linalg.inv"], table)
    assert inv == (names["linalg.inv"].removeprefix("zwc."),) and inv[0].startswith("rfx.")


def test_documented_aliases_and_a_bare_linalg_name_count_alike(seeded_library):
    table = seeded_library.table
    names = {k: v.removeprefix("zwc.") for k, v in table.numpy_to_library().items()}
    assert set(evidence_names(["max"], table)) == {names["max"], names["amax"]}
    assert set(evidence_names(["amax"], table)) == {names["max"], names["amax"]}
    assert set(evidence_names(["cross"], table)) == {names["cross"], names["linalg.cross"]}
    assert set(evidence_names(["around"], table)) == {names["around"], names["round"]}


def test_a_task_that_names_no_function_counts_every_function(seeded_library):
    assert evidence_names([], seeded_library.table) == ()


def test_a_task_that_names_only_functions_the_library_lacks_counts_none(seeded_library):
    """Falling back to every function there let a canary on any function pass a plain answer
    on a task whose `selected_functions` were misspelled (a red team's `Trunc`)."""
    table = seeded_library.table
    names = table.numpy_to_library()
    assert evidence_names(["Trunc"], table) == (UNKNOWN,)
    assert evidence_names(["no_such_function", "Mean"], table) == (UNKNOWN,)
    assert unknown_functions(["Trunc", "mean", "linalg.Inv"], names) == ("Trunc", "linalg.Inv")
    # one it has is the evidence; the others are reported
    assert evidence_names(["Trunc", "mean"], table) == evidence_names(["mean"], table)
    assert unknown_functions(["mean", "max", "cross", "linalg.inv"], names) == ()


def test_the_rows_rerun_is_only_for_functions_whose_results_are_only_a_shape(seeded_library):
    from sebench.grading.evidence import needs_rows

    table = seeded_library.table
    assert needs_rows(["empty"], evidence_names(["empty"], table))
    assert needs_rows(["empty_like"], evidence_names(["empty_like"], table))
    assert needs_rows(["atleast_2d"], evidence_names(["atleast_2d"], table))
    assert not needs_rows(["ones_like"], evidence_names(["ones_like"], table))
    assert not needs_rows(["vstack"], evidence_names(["vstack"], table))
    assert needs_rows([], ())  # a task that names no function keeps every rerun


def test_a_task_about_a_conversion_alone_counts_that_conversion(seeded_library):
    """The constructor and the conversions hand their argument back: they are a task's
    evidence only when it names nothing else (then the audit hook nudges them anyway)."""
    table = seeded_library.table
    names = {k: v.removeprefix("zwc.") for k, v in table.numpy_to_library().items()}
    assert evidence_names(["asarray"], table) == (names["asarray"],)
    assert evidence_names(["array"], table) == (names["array"],)
    assert evidence_names(["asarray", "mean"], table) == evidence_names(["mean"], table)
