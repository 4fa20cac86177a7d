"""The official name table read from api_doc.jsonl, and the table's round trip."""

from __future__ import annotations

import json

import pytest

from sebench.errors import InputError
from sebench.library.official import load_official_table
from sebench.library.table import NameTable


def test_official_table_maps_as_the_contract_says(api_doc_path) -> None:
    table = load_official_table(api_doc_path)
    forward = table.numpy_to_library()
    assert (table.package, table.submodule) == ("zwc", "rfx")
    assert forward["mean"] == "zwc.kocito" and forward["linalg.inv"] == "zwc.rfx.quvohe"
    assert forward["cross"] == "zwc.zunakik" and forward["linalg.cross"] == "zwc.rfx.cecim"
    assert table.library_to_numpy()["zwc.rfx.quvohe"] == "linalg.inv"
    assert table.constructor == "zwc.yitaf"
    assert len(table.top_level) == 247 and len(table.linalg) == 31


def test_table_survives_json(api_doc_path) -> None:
    table = load_official_table(api_doc_path)
    assert NameTable.from_json(json.loads(json.dumps(table.to_json()))) == table


def test_a_broken_api_doc_names_file_line_and_field(tmp_path, api_doc_path) -> None:
    lines = api_doc_path.read_text().splitlines()
    row = json.loads(lines[2])
    row["func_mapping"] = "{not json"
    lines[2] = json.dumps(row)
    bad = tmp_path / "api_doc.jsonl"
    bad.write_text("\n".join(lines))
    with pytest.raises(InputError, match=r"api_doc.jsonl:3: field 'func_mapping'"):
        load_official_table(bad)
