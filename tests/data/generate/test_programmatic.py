"""The programmatic task generator: every function covered, every task verified by the grader."""

from __future__ import annotations

import json

import pytest

from sebench.data.generate.functions import BY_NAME, EXCLUDED
from sebench.data.generate.phrasing import TEST_FRAMES, TEST_NOUNS, TRAIN_FRAMES, TRAIN_NOUNS
from sebench.data.generate.programmatic import (
    FrameSplit,
    GenerateConfig,
    generate,
    write_tasks,
)
from sebench.data.sources import load_file
from sebench.errors import SebenchError
from sebench.grading.validate import ValidateConfig, validate
from sebench.library.catalog import ALL

# A spread of kinds: element-wise, reductions with axes, index arrays, text results, in-place
# functions, tuple results, shapes, linalg on invertible / SPD / symmetric / tall matrices.
SAMPLE = (
    "mean",
    "arctanh",
    "bitwise_left_shift",
    "take",
    "array2string",
    "put",
    "divmod",
    "unravel_index",
    "isnan",
    "sort_complex",
    "polyfit",
    "vectorize",
    "linalg.inv",
    "linalg.cholesky",
    "linalg.eig",
    "linalg.lstsq",
    "linalg.slogdet",
)


@pytest.fixture(scope="module")
def sandbox_config():
    from sebench.grading.sandbox import SandboxConfig

    return SandboxConfig(workers=2)


@pytest.fixture(scope="module")
def sample_tasks():
    return generate(ALL, GenerateConfig(functions=SAMPLE, per_function=1, multi=3, seed=5)).tasks


def _unverified(tasks, library, sandbox_config) -> list[str]:
    report = validate(
        tasks, library, sandbox_config=sandbox_config, config=ValidateConfig(run_plain=False)
    )
    return [f"{v.task_id}: {v.outcome.value} {v.detail}" for v in report.tasks if not v.verified]


def test_every_catalog_function_has_an_input_profile_or_a_reasoned_exclusion() -> None:
    uncovered = sorted(set(ALL) - set(BY_NAME) - set(EXCLUDED))
    assert not uncovered, f"no spec and no exclusion reason for: {uncovered}"
    assert all(reason.strip() for reason in EXCLUDED.values())
    assert not set(BY_NAME) - set(ALL), "a spec for a function the library does not have"


def test_every_function_gets_a_task_whose_reference_ran() -> None:
    generated = generate(ALL, GenerateConfig(per_function=1, seed=0))
    coverage = generated.coverage
    assert coverage.missing == {name: EXCLUDED[name] for name in EXCLUDED}
    assert coverage.covered == len(ALL) - len(EXCLUDED)
    assert all(len(task.test_inputs) >= 5 for task in generated.tasks)
    assert all(len(task.expected) == len(task.test_inputs) for task in generated.tasks)


def test_sample_tasks_verify_with_the_official_library(
    sample_tasks, official_library, sandbox_config
) -> None:
    assert _unverified(sample_tasks, official_library, sandbox_config) == []


def test_sample_tasks_verify_with_a_fresh_library(
    sample_tasks, seeded_library, sandbox_config
) -> None:
    assert _unverified(sample_tasks, seeded_library, sandbox_config) == []


def test_a_wrong_expected_result_is_not_verified(
    sample_tasks, official_library, sandbox_config
) -> None:
    import dataclasses

    task = sample_tasks[0]
    broken = dataclasses.replace(task, expected=("12345",) * len(task.expected))
    assert _unverified([broken], official_library, sandbox_config)


@pytest.mark.slow
def test_every_function_verifies_with_both_libraries(
    official_library, seeded_library, sandbox_config
) -> None:
    tasks = generate(ALL, GenerateConfig(per_function=2, multi=20, seed=11)).tasks
    assert _unverified(tasks, official_library, sandbox_config) == []
    assert _unverified(tasks, seeded_library, sandbox_config) == []


def test_multi_function_tasks_compose_at_least_three_functions(sample_tasks) -> None:
    multi = [t for t in sample_tasks if t.extra["function"] == "multi"]
    assert len(multi) == 3
    assert all(len(set(t.selected_functions)) >= 3 for t in multi)


def test_train_and_test_frames_and_nouns_are_disjoint() -> None:
    assert not set(TRAIN_FRAMES) & set(TEST_FRAMES)
    assert not set(TRAIN_NOUNS) & set(TEST_NOUNS)
    config = GenerateConfig(functions=("mean", "sum", "linalg.det"), per_function=6, multi=4)
    train = generate(ALL, config).tasks
    test = generate(ALL, GenerateConfig(**{**vars(config), "split_frames": FrameSplit.TEST})).tasks
    assert {t.extra["frame"] for t in train} <= set(TRAIN_FRAMES)
    assert {t.extra["noun"] for t in train} <= set(TRAIN_NOUNS)
    assert {t.extra["frame"] for t in test} <= set(TEST_FRAMES)
    assert {t.extra["noun"] for t in test} <= set(TEST_NOUNS)
    assert {t.split for t in train} == {"train"}
    assert {t.split for t in test} == {"single_test", "multiple_test"}


def test_the_same_seed_writes_the_same_tasks_and_another_seed_others() -> None:
    config = GenerateConfig(functions=("clip", "linalg.solve"), per_function=3, multi=2, seed=7)
    first, again = generate(ALL, config).tasks, generate(ALL, config).tasks
    other = generate(ALL, GenerateConfig(**{**vars(config), "seed": 8})).tasks
    assert [t.to_dict() for t in first] == [t.to_dict() for t in again]
    assert {t.task_id for t in first}.isdisjoint({t.task_id for t in other})


def test_written_rows_read_back_as_the_same_tasks_with_a_coverage_report(tmp_path) -> None:
    generated = generate(ALL, GenerateConfig(functions=("median", "tile"), per_function=2))
    out, coverage_json, coverage_md = write_tasks(tmp_path / "train.jsonl", generated)
    loaded = load_file(out, "train")
    assert [t.task_id for t in loaded] == [t.task_id for t in generated.tasks]
    assert [t.expected for t in loaded] == [t.expected for t in generated.tasks]
    assert [t.numpy_reference for t in loaded] == [t.numpy_reference for t in generated.tasks]
    report = json.loads(coverage_json.read_text())
    assert report["tasks_per_function"] == {"median": 2, "tile": 2}
    assert "| `median` | 2 |" in coverage_md.read_text()


def test_unknown_functions_and_too_few_cases_are_user_errors() -> None:
    with pytest.raises(SebenchError, match="no_such_function"):
        generate(ALL, GenerateConfig(functions=("no_such_function",)))
    with pytest.raises(SebenchError, match="at least 5"):
        generate(ALL, GenerateConfig(functions=("mean",), cases=3))


def test_every_phrase_and_body_names_only_parameters_of_its_function() -> None:
    import re

    for spec in BY_NAME.values():
        for text in (*spec.phrases, spec.body):
            used = set(re.findall(r"\{([A-Za-z_]\w*)\}", text)) | set(re.findall(r"@(\w+)", text))
            assert used <= set(spec.slots), (spec.numpy_name, text)
