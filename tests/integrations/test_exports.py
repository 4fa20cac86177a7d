"""`sebench export verl|openrlhf`: the parquet rows verl documents and the JSONL OpenRLHF reads,
open and closed aligned row by row, read back the way the engines read them."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sebench.cli.main import app
from sebench.integrations.labels import TaskLabels
from sebench.integrations.verl import compute_score
from sebench.integrations.verl_data import RECORD_FILE, export_verl
from sebench.prompts.modes import PromptMode
from sebench.prompts.render import render_prompt

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")


def struct_of_strings(kind, names: set[str]) -> bool:
    return pa.types.is_struct(kind) and {
        kind.field(i).name: kind.field(i).type for i in range(kind.num_fields)
    } == dict.fromkeys(names, pa.string())


@pytest.fixture(scope="module")
def exported(dev_tasks, official_library, tmp_path_factory):
    tasks = dev_tasks[:6]
    out = tmp_path_factory.mktemp("verl")
    export_verl(tasks, official_library, out)
    return tasks, out


def test_rows_have_verls_documented_columns_and_types(exported):
    tasks, out = exported
    for variant in ("open", "closed"):
        table = pq.read_table(out / f"{variant}.parquet")
        schema = table.schema
        assert table.num_rows == len(tasks)
        assert schema.field("data_source").type == pa.string()
        # verl's documented row (docs/preparation/prepare_data.rst): chat messages, and the
        # ground truth under reward_model
        prompt = schema.field("prompt").type
        assert pa.types.is_list(prompt)
        assert struct_of_strings(prompt.value_type, {"role", "content"})
        assert schema.field("ability").type == pa.string()
        assert struct_of_strings(schema.field("reward_model").type, {"ground_truth", "style"})
        assert pa.types.is_struct(schema.field("extra_info").type)
        rows = table.to_pylist()
        assert {row["reward_model"]["style"] for row in rows} == {"rule"}
        assert {row["data_source"] for row in rows} == {f"sebench/{variant}"}


def test_open_and_closed_are_the_same_task_row_by_row(exported, official_library):
    tasks, out = exported
    open_rows = pq.read_table(out / "open.parquet").to_pylist()
    closed_rows = pq.read_table(out / "closed.parquet").to_pylist()
    labels = TaskLabels()
    for index, (task, open_row, closed_row) in enumerate(
        zip(tasks, open_rows, closed_rows, strict=True)
    ):
        for row in (open_row, closed_row):
            assert row["extra_info"]["index"] == index
            assert row["extra_info"]["task_id"] == task.task_id
            assert labels.resolve(row["reward_model"]["ground_truth"]) == task
        assert open_row["prompt"] == render_prompt(task, official_library, PromptMode.OPEN)
        assert closed_row["prompt"] == render_prompt(task, official_library, PromptMode.CLOSED)
        assert open_row["prompt"] != closed_row["prompt"]


def test_verls_dataset_loader_reads_it_and_compute_score_grades_its_ground_truth(
    exported, official_library
):
    datasets = pytest.importorskip("datasets")
    tasks, out = exported
    # verl's RLHFDataset: datasets.load_dataset("parquet", data_files=...)["train"]
    rows = datasets.load_dataset("parquet", data_files=str(out / "closed.parquet"))["train"]
    assert rows[0]["prompt"][0]["role"] == "user"
    result = compute_score(
        rows[0]["data_source"],
        "no code at all",
        rows[0]["reward_model"]["ground_truth"],
        rows[0]["extra_info"],
        lib=str(official_library.root),
        workers=1,
    )
    assert result["score"] == 0.0 and result["verdict/no_code"] == 1.0
    from sebench.integrations.process_grader import close_shared_grader

    close_shared_grader()


def test_the_cli_writes_both_files_and_a_record(single_test_dev_path, official_library, tmp_path):
    out = tmp_path / "verl"
    result = CliRunner().invoke(
        app,
        [
            "export", "verl", "--data", str(single_test_dev_path),
            "--lib", str(official_library.root), "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    record = json.loads((out / RECORD_FILE).read_text())
    assert record["files"] == {"open": "open.parquet", "closed": "closed.parquet"}
    rows = pq.read_table(out / "open.parquet").num_rows
    assert rows == record["rows"] == pq.read_table(out / "closed.parquet").num_rows > 0


def test_openrlhf_export_rows_carry_messages_and_a_label_the_service_resolves(
    single_test_dev_path, official_library, tmp_path
):
    from sebench.jsonl import read_jsonl

    out = tmp_path / "openrlhf"
    result = CliRunner().invoke(
        app,
        [
            "export", "openrlhf", "--data", str(single_test_dev_path),
            "--lib", str(official_library.root), "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    open_rows, closed_rows = read_jsonl(out / "open.jsonl"), read_jsonl(out / "closed.jsonl")
    assert len(open_rows) == len(closed_rows) > 0
    labels = TaskLabels()
    for index, (open_row, closed_row) in enumerate(zip(open_rows, closed_rows, strict=True)):
        assert open_row["index"] == closed_row["index"] == index
        assert open_row["label"] == closed_row["label"]
        assert labels.resolve(open_row["label"]).task_id == open_row["task_id"]
        assert (
            open_row["prompt"][0]["role"] == "user" and open_row["prompt"] != closed_row["prompt"]
        )
