"""JSONL storage: located errors on read, nothing lost on append, resume after a torn write."""

from __future__ import annotations

import json

import pytest

from sebench.errors import InputError
from sebench.jsonl import (
    JsonlAppender,
    iter_jsonl,
    read_completed,
    read_jsonl,
    write_json,
    write_jsonl,
)


def test_invalid_json_line_is_reported_with_file_and_line(tmp_path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n{"a": \n')
    with pytest.raises(InputError, match=r"rows.jsonl:2: invalid JSON"):
        read_jsonl(path)


def test_binary_file_is_reported_as_not_text(tmp_path) -> None:
    path = tmp_path / "blob.jsonl"
    path.write_bytes(b"\xff\xfe\x00\x81garbage\n")
    with pytest.raises(InputError, match=r"blob.jsonl:1: not UTF-8"):
        read_jsonl(path)


def test_non_object_rows_are_refused(tmp_path) -> None:
    path = tmp_path / "list.jsonl"
    path.write_text("[1, 2]\n")
    with pytest.raises(InputError, match="expected a JSON object, got list"):
        read_jsonl(path)


def test_missing_file_and_folder_are_clear_errors(tmp_path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_jsonl(tmp_path / "absent.jsonl")
    with pytest.raises(InputError, match="is a folder"):
        read_jsonl(tmp_path)


def test_blank_lines_are_skipped_and_line_numbers_kept(tmp_path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n')
    assert [n for n, _ in iter_jsonl(path)] == [1, 3]


def test_appender_cuts_a_torn_last_line_before_appending(tmp_path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text('{"id": 1}\n{"id": 2')  # a crash mid-write
    assert read_completed(path, key=lambda row: row["id"]) == {1}
    with JsonlAppender(path) as out:
        out.write({"id": 2})
    assert read_jsonl(path) == [{"id": 1}, {"id": 2}]


def test_rows_with_lone_surrogates_are_written_escaped(tmp_path) -> None:
    path = tmp_path / "out.jsonl"
    with JsonlAppender(path) as out:
        out.write({"text": "\ud800 ok", "name": "é"})
        out.write({"text": "plain é"})
    assert read_jsonl(path) == [{"text": "\ud800 ok", "name": "é"}, {"text": "plain é"}]
    assert "é" in path.read_text(encoding="utf-8").splitlines()[1]


def test_write_jsonl_replaces_the_file_whole(tmp_path) -> None:
    path = tmp_path / "all.jsonl"
    write_jsonl(path, [{"a": 1}])
    write_jsonl(path, [{"a": 2}, {"a": 3}])
    assert read_jsonl(path) == [{"a": 2}, {"a": 3}]
    assert not (tmp_path / "all.jsonl.tmp").exists()


def test_write_json_replaces_the_file_whole_and_keeps_lone_surrogates(tmp_path) -> None:
    path = tmp_path / "deep" / "state.json"
    write_json(path, {"old": True})
    write_json(path, {"text": "caf\u00e9 \ud800", "n": [1, 2]})
    assert json.loads(path.read_text(encoding="utf-8")) == {"text": "caf\u00e9 \ud800", "n": [1, 2]}
    assert "café" not in path.read_text(encoding="utf-8")  # escaped whole: a lone surrogate
    write_json(path, {"text": "café"})
    assert "café" in path.read_text(encoding="utf-8")  # readable UTF-8 otherwise
    assert [p.name for p in path.parent.iterdir()] == ["state.json"]
