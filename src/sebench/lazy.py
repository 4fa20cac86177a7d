"""Package attributes imported on first use, so that importing a package stays cheap."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module


def lazy_exports(package: str, origins: dict[str, str]) -> Callable[[str], object]:
    """A module `__getattr__` that imports `name` from `origins[name]` when first asked for."""

    def __getattr__(name: str) -> object:
        if name in origins:
            return getattr(import_module(origins[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
