"""The one family of user-facing errors.

Every error a user can fix is a `SebenchError` whose message says where, what and how to fix it
(`responses.jsonl:17: field 'response' is missing`). The CLI catches them once, prints the message
and exits with code 2; everything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class SebenchError(Exception):
    """A problem the user can fix: bad input, a missing file, a missing optional dependency."""


class InputError(SebenchError):
    """A malformed input file or row; the message names the file, line and field."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        what = f"field '{field}': " if field is not None else ""
        super().__init__(f"{where}{what}{message}")
        self.path, self.line, self.field = path, line, field


class MissingDependencyError(SebenchError):
    """An optional extra is not installed; the message gives the exact install command."""

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"this needs the optional dependency '{package}': pip install 'sebench[{extra}]'"
        )
        self.package, self.extra = package, extra


def require(module: str, extra: str):
    """Import an optional heavy dependency lazily, failing with the install command."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError(module.split(".")[0], extra) from exc
