"""The name table: which library name stands for which NumPy function.

A library is fully described by its package name, its linalg submodule name and 278 entries
(`mean` -> `kocito`, `linalg.inv` -> `rfx.quvohe`). Everything else (the built package, the docs,
the translation of reference solutions) is derived from this table.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from sebench.library.catalog import CONSTRUCTOR

_LINALG = "linalg."


@dataclass(frozen=True)
class Entry:
    numpy_name: str  # "mean", "linalg.inv"
    name: str  # "kocito": the bare library name
    in_submodule: bool  # True for the numpy.linalg functions (`zwc.rfx.X`)


@dataclass(frozen=True)
class NameTable:
    package: str  # "zwc"
    submodule: str  # "rfx"
    entries: tuple[Entry, ...]

    def qualified(self, entry: Entry) -> str:
        """`zwc.kocito` or `zwc.rfx.quvohe`."""
        if entry.in_submodule:
            return f"{self.package}.{self.submodule}.{entry.name}"
        return f"{self.package}.{entry.name}"

    def numpy_to_library(self) -> dict[str, str]:
        """NumPy name (`mean`, `linalg.inv`) -> qualified library name."""
        return dict(self._pairs)

    def library_to_numpy(self) -> dict[str, str]:
        """Qualified library name -> NumPy name (`zwc.rfx.quvohe` -> `linalg.inv`)."""
        return {name: numpy_name for numpy_name, name in self._pairs}

    @functools.cached_property
    def _pairs(self) -> tuple[tuple[str, str], ...]:
        # (NumPy name, qualified name) of every entry, made once: the grader asks for every
        # sample, and formatting 278 names was a tenth of its static stage
        return tuple((e.numpy_name, self.qualified(e)) for e in self.entries)

    def entry(self, numpy_name: str) -> Entry:
        for e in self.entries:
            if e.numpy_name == numpy_name:
                return e
        raise KeyError(numpy_name)

    @property
    def top_level(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if not e.in_submodule)

    @property
    def linalg(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.in_submodule)

    @property
    def constructor(self) -> str:
        """Qualified name of numpy.array's function (`zwc.yitaf` officially)."""
        return self.qualified(self.entry(CONSTRUCTOR))

    def to_json(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "submodule": self.submodule,
            "entries": [[e.numpy_name, e.name] for e in self.entries],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NameTable:
        entries = tuple(
            Entry(numpy_name=n, name=name, in_submodule=n.startswith(_LINALG))
            for n, name in data["entries"]
        )
        return cls(package=data["package"], submodule=data["submodule"], entries=entries)

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)


def make_entry(numpy_name: str, name: str) -> Entry:
    return Entry(numpy_name=numpy_name, name=name, in_submodule=numpy_name.startswith(_LINALG))
