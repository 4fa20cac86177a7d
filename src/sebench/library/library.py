"""A built library on disk: the package folder, its docs and its name table."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.errors import InputError
from sebench.jsonl import read_jsonl
from sebench.library.table import NameTable

META_FILE = "sebench_library.json"  # outside the package, so sandboxed code can be denied it
DOC_FILE = "api_doc.jsonl"
MARKDOWN_FILE = "API.md"


@dataclass(frozen=True)
class Library:
    root: Path  # the folder to put on sys.path; holds <package>/, api_doc.jsonl, API.md
    table: NameTable

    def __post_init__(self) -> None:
        # absolute, once for every caller: the sandbox runs graded code from another working
        # directory (cwd "/"), where a relative root (`--lib ../L`) finds no package
        object.__setattr__(self, "root", Path(self.root).resolve())

    @property
    def package(self) -> str:
        return self.table.package

    @property
    def submodule(self) -> str:
        return self.table.submodule

    @property
    def package_dir(self) -> Path:
        return self.root / self.package

    @property
    def meta(self) -> dict[str, Any]:
        """What the build recorded: origin (official / seed), seed, docs source, versions."""
        return json.loads((self.root / META_FILE).read_text(encoding="utf-8"))

    @classmethod
    def load(cls, root: str | Path) -> Library:
        root = Path(root)
        meta_path = root / META_FILE
        if not meta_path.exists():
            raise InputError(
                f"not a built library (no {META_FILE}); build one with "
                "`sebench lib build --official PATH/api_doc.jsonl --out DIR` or `--seed N`",
                path=str(root),
            )
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            table = NameTable.from_json(meta["table"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise InputError(f"unreadable library metadata ({exc})", path=str(meta_path)) from None
        return cls(root=root, table=table)

    def docs(self) -> list[dict[str, Any]]:
        """Rows of `api_doc.jsonl` (original_name, curr_name, docstring, func_mapping,
        rewritten_doc), in the official order."""
        return read_jsonl(self.root / DOC_FILE)

    def doc_for(self, name: str) -> dict[str, Any] | None:
        """The doc row for a library name (bare or qualified) or a NumPy name (`linalg.inv`)."""
        numpy_name = self._numpy_name(name)
        if numpy_name is None:
            return None
        bare = numpy_name.removeprefix("linalg.")
        for row in self.docs():
            entry = self.table.entry(numpy_name)
            if row.get("original_name") == bare and row.get("curr_name") == entry.name:
                return row
        return None

    def _numpy_name(self, name: str) -> str | None:
        names = {e.numpy_name for e in self.table.entries}
        if name in names:
            return name
        for entry in self.table.entries:
            if name in (entry.name, self.table.qualified(entry)):
                return entry.numpy_name
        return None
