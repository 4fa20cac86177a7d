"""The task generator: held-out phrasing, correct expected values, answers the real grader accepts."""

from __future__ import annotations

import numpy as np
import pytest

from sebench.errors import SebenchError
from sebench.training.taskgen import (
    DEMO_FUNCTIONS,
    FUNCTIONS,
    TEST_FRAMES,
    TEST_NOUNS,
    TRAIN_FRAMES,
    TRAIN_NOUNS,
    TWELVE_FUNCTIONS,
    TaskSetConfig,
    generate_tasks,
)


def test_held_out_phrases_are_distinct_from_training_phrases():
    for spec in FUNCTIONS.values():
        assert len(spec.test_phrases) == 2
        assert not set(spec.test_phrases) & set(spec.train_phrases), spec.numpy_name
    assert set(TWELVE_FUNCTIONS) <= set(FUNCTIONS)


def test_test_split_uses_only_held_out_frames_phrases_and_nouns(task_set):
    for task in task_set.test:
        assert task.extra["frame"] in TEST_FRAMES
        assert task.extra["phrase"] in FUNCTIONS[task.selected_functions[0]].test_phrases
        assert task.extra["noun"] in TEST_NOUNS
    for task in task_set.train:
        assert task.extra["frame"] in TRAIN_FRAMES
        assert task.extra["phrase"] in FUNCTIONS[task.selected_functions[0]].train_phrases
        assert task.extra["noun"] in TRAIN_NOUNS


def test_no_test_sentence_piece_or_phrase_appears_in_training(task_set):
    train_text = " ".join(t.query for t in task_set.train)
    for frame in TEST_FRAMES:
        for piece in frame.replace("{", "|").replace("}", "|").split("|")[::2]:
            if len(piece.strip(" .,?")) > 3:
                assert piece not in train_text, piece
    for spec in FUNCTIONS.values():
        for phrase in spec.test_phrases:
            assert f" {phrase}." not in train_text
            assert f" {phrase}?" not in train_text


def test_counts_per_function(task_set):
    for name in DEMO_FUNCTIONS:
        assert sum(t.selected_functions == (name,) for t in task_set.train) == 20
        assert sum(t.selected_functions == (name,) for t in task_set.test) == 8


def test_expected_values_are_numpy_results_of_the_test_inputs(task_set):
    for task in task_set.train[:30] + task_set.test:
        param = task.extra["param"]
        for text, expected in zip(task.test_inputs, task.expected, strict=True):
            name, _, literal = text.partition("=")
            assert name == param
            values = eval(literal)  # noqa: S307 - our own generated literal list
            assert expected == str(getattr(np, task.selected_functions[0])(np.array(values)))


def test_generation_is_deterministic_in_the_seed(seeded_lib):
    a = generate_tasks(seeded_lib.table, TaskSetConfig(seed=3, train_per_function=5))
    b = generate_tasks(seeded_lib.table, TaskSetConfig(seed=3, train_per_function=5))
    c = generate_tasks(seeded_lib.table, TaskSetConfig(seed=4, train_per_function=5))
    assert [t.task_id for t in a.train] == [t.task_id for t in b.train]
    assert [t.task_id for t in a.train] != [t.task_id for t in c.train]


def test_targets_use_the_librarys_own_names(seeded_lib, task_set):
    names = seeded_lib.table.numpy_to_library()
    for task in task_set.test:
        target = task.extra["target"]
        assert f"{names[task.selected_functions[0]]}({seeded_lib.table.constructor}(" in target
        assert "numpy" not in target


def test_the_real_grader_accepts_every_target_answer(grader, task_set):
    from sebench.training.taskprompts import answer

    tasks = list(task_set.test) + list(task_set.train[:12])
    verdicts = {item[0].task_id: v for item, v in grader.grade_many((t, answer(t)) for t in tasks)}
    wrong = {tid: str(v) for tid, v in verdicts.items() if not v.correct}
    assert not wrong


def test_twelve_functions_for_the_official_library(api_doc_path):
    from sebench.library.official import load_official_table

    table = load_official_table(api_doc_path)
    made = generate_tasks(
        table, TaskSetConfig(functions=TWELVE_FUNCTIONS, train_per_function=2, test_per_function=1)
    )
    assert len(made.test) == 12
    mean_task = next(t for t in made.test if t.selected_functions == ("mean",))
    assert "zwc.kocito(zwc.yitaf(" in mean_task.extra["target"]


def test_unknown_function_fails_with_the_choices(seeded_lib):
    with pytest.raises(SebenchError, match="no templates"):
        generate_tasks(seeded_lib.table, TaskSetConfig(functions=("linalg.inv",)))


def test_generated_tasks_round_trip_through_the_official_row_schema(task_set):
    from sebench.data.rows import official_row, task_from_official_row

    for task in task_set.test[:4] + task_set.train[:4]:
        row = official_row(task)
        assert {"query", "function_name", "test_cases", "right_exe_result"} <= set(row)
        again = task_from_official_row(row, task.split)
        assert again == task
        assert again.extra["target"] == task.extra["target"]
        assert again.extra["docs"] == task.extra["docs"]


def test_generated_task_files_are_ordinary_rows_every_command_takes(tmp_path, seeded_lib):
    """`sebench train tasks` output: data check, prompt show, rollout, eval and validate take it,
    and `train sft` reads it as it reads any data file."""
    import json
    import subprocess
    import sys

    from sebench.data.sources import load_file
    from sebench.training.sft_data import build_examples
    from sebench.training.taskprompts import Arm

    def sebench(*args):
        done = subprocess.run(
            [sys.executable, "-m", "sebench.cli.main", *map(str, args)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    lib = ("--lib", seeded_lib.root)
    sebench("train", "tasks", "--out", tmp_path, *lib, "--train-per-function", 2)
    test_file = tmp_path / "tasks_test.jsonl"
    first = json.loads(test_file.read_text().splitlines()[0])
    assert first["function_name"].startswith("def solve(")
    sebench("data", "check", test_file)
    shown = sebench("prompt", "show", first["task_id"], "--data", test_file, *lib)
    assert first["query"] in shown.stdout
    responses = tmp_path / "responses.jsonl"
    sebench("rollout", "--backend", "oracle", "--data", test_file, *lib, "--out", responses)
    sebench(
        "eval", responses, "--data", test_file, *lib, "--out", tmp_path / "results.jsonl",
        "--summary", tmp_path / "summary.json", "--workers", 2,
    )  # fmt: skip
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["samples"] == len(test_file.read_text().splitlines())
    assert summary["accuracy"] == 1.0 and "unknown" not in summary["per_function"]
    sebench("validate", "--data", test_file, *lib, "--out-subset", tmp_path / "v.json")
    train = load_file(tmp_path / "tasks_train.jsonl", "train")
    assert build_examples(train, Arm.OPEN) and all(t.extra["target"] for t in train)
