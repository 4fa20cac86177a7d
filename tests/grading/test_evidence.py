"""Which functions are a task's evidence of library work (`sebench.grading.evidence`)."""

from __future__ import annotations

from sebench.grading.evidence import evidence_names


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


def test_a_task_that_names_no_function_of_the_library_counts_every_function(seeded_library):
    assert evidence_names([], seeded_library.table) == ()
    assert evidence_names(["no_such_function"], seeded_library.table) == ()
