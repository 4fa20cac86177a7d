"""Importing built libraries in this process (they all default to the name `zwc`)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

import pytest

from sebench.library.library import Library


@contextmanager
def imported(library: Library) -> Iterator[ModuleType]:
    """Import `library`'s package; afterwards, restore whatever that name meant before."""
    name = library.package

    def ours(key: str) -> bool:
        return key == name or key.startswith(name + ".")

    saved = {k: v for k, v in sys.modules.items() if ours(k)}
    for key in saved:
        del sys.modules[key]
    sys.path.insert(0, str(library.root))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(library.root))
        for key in [k for k in sys.modules if ours(k)]:
            del sys.modules[key]
        sys.modules.update(saved)


@pytest.fixture(scope="module")
def zwc(official_library: Library) -> Iterator[ModuleType]:
    """The official library's package, imported."""
    with imported(official_library) as module:
        yield module


@pytest.fixture(scope="module")
def zwc_runtime(zwc: ModuleType) -> ModuleType:
    """The trusted grader hooks of the imported official package."""
    return importlib.import_module(f"{zwc.__name__}._runtime")
