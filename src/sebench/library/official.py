"""The official name table, read from the `func_mapping` column of the official `api_doc.jsonl`.

Each row names one function (`original_name` is the bare NumPy name, `curr_name` the bare library
name); whether it lives in the linalg submodule is only visible in the row's own `func_mapping`
entry (`"np.linalg.inv": "zwc.rfx.quvohe"`), which also gives the package and submodule names.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.errors import InputError
from sebench.jsonl import iter_jsonl
from sebench.library.catalog import ALL
from sebench.library.table import Entry, NameTable

FIELDS = ("original_name", "curr_name", "docstring", "func_mapping", "rewritten_doc")


@dataclass(frozen=True)
class OfficialRow:
    entry: Entry
    row: dict[str, Any]  # the row as read (all five official fields)


def read_official_rows(api_doc_path: str | Path) -> tuple[str, str, list[OfficialRow]]:
    """(package, submodule, rows in file order), with each row's table entry resolved."""
    path = str(api_doc_path)
    package = submodule = None
    rows: list[OfficialRow] = []
    for line, row in iter_jsonl(api_doc_path):
        for field in ("original_name", "curr_name", "func_mapping"):
            if not isinstance(row.get(field), str):
                raise InputError("missing or not a string", path=path, line=line, field=field)
        try:
            mapping = json.loads(row["func_mapping"])
        except json.JSONDecodeError:
            raise InputError(
                "not a JSON object", path=path, line=line, field="func_mapping"
            ) from None
        original, curr = row["original_name"], row["curr_name"]
        own = [
            (k, v)
            for k, v in mapping.items()
            if v.split(".")[-1] == curr and k.split(".")[-1] == original
        ]
        if len(own) != 1:
            raise InputError(
                f"no unique entry for {original} -> {curr}",
                path=path,
                line=line,
                field="func_mapping",
            )
        numpy_key, qualified = own[0]
        parts = qualified.split(".")
        in_sub = numpy_key.startswith("np.linalg.")
        if len(parts) != (3 if in_sub else 2):
            raise InputError(
                f"unexpected library name {qualified!r}", path=path, line=line, field="func_mapping"
            )
        package = package or parts[0]
        if in_sub:
            submodule = submodule or parts[1]
        numpy_name = f"linalg.{original}" if in_sub else original
        rows.append(OfficialRow(Entry(numpy_name, curr, in_sub), row))
    if package is None or submodule is None:
        raise InputError("no rows with a package and a linalg submodule", path=path)
    names = [r.entry.numpy_name for r in rows]
    if sorted(names) != sorted(ALL):
        missing = sorted(set(ALL) - set(names))[:5]
        raise InputError(f"expected the 278 official functions; missing e.g. {missing}", path=path)
    return package, submodule, rows


def load_official_table(api_doc_path: str | Path) -> NameTable:
    """The official table (`mean` -> `zwc.kocito`, `linalg.inv` -> `zwc.rfx.quvohe`)."""
    package, submodule, rows = read_official_rows(api_doc_path)
    return NameTable(package=package, submodule=submodule, entries=tuple(r.entry for r in rows))
