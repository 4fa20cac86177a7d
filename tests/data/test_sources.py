"""Loading the official data from a file, a local folder, a hub-layout folder, and subset files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sebench.data.sources import (
    DATA_ENV,
    filter_tasks,
    find_api_doc,
    infer_split,
    load,
    load_subset,
)
from sebench.errors import InputError, SebenchError


def _official_layout(root: Path, single_test_dev_path: Path, api_doc_path: Path) -> Path:
    (root / "datasets" / "test").mkdir(parents=True)
    (root / "datasets" / "train").mkdir(parents=True)
    shutil.copy(single_test_dev_path, root / "datasets" / "test" / "single_test.jsonl")
    shutil.copy(api_doc_path, root / "datasets" / "train" / "api_doc.jsonl")
    return root


def test_jsonl_file_loads_every_row_into_typed_tasks(single_test_dev_path):
    tasks = load("single_test", single_test_dev_path)
    rows = len(single_test_dev_path.read_text().splitlines())  # 64 in the official dev split
    assert len(tasks) == rows
    first = tasks[0]
    assert first.entry_point == "compress_data_chunks"
    assert first.signature == "def compress_data_chunks(data_chunks, encoding_shifts):"
    assert len(first.expected) == len(first.test_inputs) == 8
    assert first.expected[0] == "[12, 14, 120, 16]"
    assert first.selected_functions == ("bitwise_left_shift",)
    assert "np.left_shift" in first.numpy_reference
    assert "import zwc" not in first.plain_reference  # the harness is cut off
    assert len({t.task_id for t in tasks}) == rows


def test_task_ids_are_stable_across_loads(single_test_dev_path):
    first = [t.task_id for t in load("single_test", single_test_dev_path)]
    again = [t.task_id for t in load("single_test", single_test_dev_path)]
    assert first == again


def test_official_layout_folder_loads_the_split_and_finds_the_api_doc(
    tmp_path, single_test_dev_path, api_doc_path
):
    root = _official_layout(tmp_path / "SE-Bench", single_test_dev_path, api_doc_path)
    tasks = load("single_test", root)
    assert [t.task_id for t in tasks] == [
        t.task_id for t in load("single_test", single_test_dev_path)
    ]
    assert find_api_doc(root) == root / "datasets" / "train" / "api_doc.jsonl"
    # a split file inside the layout finds the api doc above it
    assert find_api_doc(root / "datasets" / "test" / "single_test.jsonl") == find_api_doc(root)


def test_folder_without_the_split_says_which_files_it_looked_for(
    tmp_path, single_test_dev_path, api_doc_path
):
    root = _official_layout(tmp_path / "SE-Bench", single_test_dev_path, api_doc_path)
    with pytest.raises(SebenchError, match="multiple_test.jsonl"):
        load("multiple_test", root)


def test_env_var_names_the_data_folder_when_no_source_is_given(
    tmp_path, monkeypatch, single_test_dev_path, api_doc_path
):
    root = _official_layout(tmp_path / "offline", single_test_dev_path, api_doc_path)
    monkeypatch.setenv(DATA_ENV, str(root))
    assert len(load("single_test")) == len(single_test_dev_path.read_text().splitlines())
    assert find_api_doc() == root / "datasets" / "train" / "api_doc.jsonl"


def test_hub_layout_folder_loads_through_datasets(tmp_path, monkeypatch, single_test_dev_path):
    """The hub code path, run for real by `datasets.load_dataset` on a folder with the hub's
    layout (a dataset repo with one config per split, rows under the split `train`)."""
    pytest.importorskip("datasets")
    # `datasets` reads its cache folder when first imported: set the attribute too, or rows
    # cached by an earlier run for a same-named folder come back (offline mode reuses them)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr("datasets.config.HF_DATASETS_CACHE", tmp_path / "cache")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    repo = tmp_path / "SE-Bench-hub"
    (repo / "single_test").mkdir(parents=True)
    shutil.copy(single_test_dev_path, repo / "single_test" / "single_test.jsonl")
    (repo / "README.md").write_text(
        "---\nconfigs:\n- config_name: single_test\n  data_files:\n  - split: train\n"
        "    path: single_test/*.jsonl\n---\n"
    )
    tasks = load("single_test", repo)
    reference = load("single_test", single_test_dev_path)
    assert [t.task_id for t in tasks] == [t.task_id for t in reference]
    assert tasks[5].expected == reference[5].expected
    assert tasks[5].numpy_reference == reference[5].numpy_reference


def test_unknown_split_and_missing_source_are_user_errors(tmp_path):
    with pytest.raises(SebenchError, match="unknown split"):
        load("dev", tmp_path)
    with pytest.raises(SebenchError, match="no such file or folder"):
        load("single_test", tmp_path / "nowhere.jsonl")


def test_missing_api_doc_tells_the_user_to_pass_it(tmp_path):
    (tmp_path / "single_test.jsonl").write_text("")
    with pytest.raises(SebenchError, match="--api-doc"):
        find_api_doc(tmp_path)


def test_split_is_inferred_from_the_file_name():
    assert infer_split("data/single_test_dev.jsonl") == "single_test"
    assert infer_split("datasets/test/multiple_test.jsonl") == "multiple_test"
    assert infer_split("train.jsonl") == "train"
    assert infer_split("responses.jsonl") is None


def test_identical_rows_get_distinct_stable_ids(tmp_path, single_test_dev_path):
    line = single_test_dev_path.read_text().splitlines()[0]
    path = tmp_path / "dupes.jsonl"
    path.write_text(f"{line}\n{line}\n")
    ids = [t.task_id for t in load("single_test", path)]
    assert ids[1] == f"{ids[0]}-2"


@pytest.mark.parametrize(
    "content",
    [
        json.dumps(["single_test-a", "single_test-b"]),
        json.dumps({"task_ids": ["single_test-a", "single_test-b"], "provenance": {}}),
        '"single_test-a"\n"single_test-b"\n',
        '{"task_id": "single_test-a"}\n{"task_id": "single_test-b"}\n',
    ],
    ids=["json-list", "validate-output", "jsonl-strings", "jsonl-objects"],
)
def test_subset_file_forms_all_give_the_same_ids(tmp_path, content):
    path = tmp_path / "subset.json"
    path.write_text(content)
    assert load_subset(path) == {"single_test-a", "single_test-b"}


def test_malformed_subset_file_names_the_line(tmp_path):
    path = tmp_path / "subset.jsonl"
    path.write_text('"single_test-a"\n{"task_id": 3}\n')
    with pytest.raises(InputError, match=r"subset.jsonl:2:"):
        load_subset(path)


def test_filter_keeps_only_subset_tasks_in_order(single_test_dev_path):
    tasks = load("single_test", single_test_dev_path)
    wanted = {tasks[3].task_id, tasks[1].task_id}
    assert [t.task_id for t in filter_tasks(tasks, wanted)] == [tasks[1].task_id, tasks[3].task_id]
    assert len(filter_tasks(tasks, None)) == len(tasks)


def test_two_local_hub_folders_of_one_name_each_load_their_own_rows(
    tmp_path, monkeypatch, single_test_dev_path
):
    """datasets 5 caches a local dataset repo by folder name and config alone: the second folder
    of the same name must not be answered from the first one's cache."""
    pytest.importorskip("datasets")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    lines = single_test_dev_path.read_text(encoding="utf-8").splitlines(keepends=True)
    for count in (5, 9):
        repo = tmp_path / str(count) / "SE-Bench-hub"
        (repo / "single_test").mkdir(parents=True)
        (repo / "single_test" / "single_test.jsonl").write_text("".join(lines[:count]))
        (repo / "README.md").write_text(
            "---\nconfigs:\n- config_name: single_test\n  data_files:\n  - split: train\n"
            "    path: single_test/*.jsonl\n---\n"
        )
        assert len(load("single_test", repo)) == count
