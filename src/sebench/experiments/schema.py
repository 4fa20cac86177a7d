"""Reading TOML tables into dataclasses: every key known, every value of its field's type.

Each problem is one `InputError` naming the file and the dotted key (`field 'sft.max_steps':
expected an integer, got 'ten'`). Types come from the dataclass's annotations: int, float (an
integer is accepted), bool, str, Path, `X | None`, `tuple[X, ...]` (a TOML list).
"""

from __future__ import annotations

import dataclasses
import os
import re
import types
import typing
from pathlib import Path
from typing import Any

from sebench.errors import InputError, SebenchError


def read_section(
    cls: type,
    raw: Any,
    section: str,
    path: Path,
    *,
    paths: tuple[str, ...] = (),
    hidden: tuple[str, ...] = (),
):
    """`cls(**raw)` with every key known (`hidden` fields are set elsewhere) and every value of
    its field's type."""
    raw = typed(raw, dict, section, path)
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)} - set(hidden)
    known_keys(raw, fields, section, path)
    values = {}
    for key, value in raw.items():
        where = f"{section}.{key}"
        value = typed(value, hints[key], where, path)
        if key in paths and value is not None:
            value = resolve_path(str(value), path, where)
        values[key] = value
    try:
        return cls(**values)
    except SebenchError as exc:  # the config's own checks (`max_steps must be at least 1`)
        raise InputError(str(exc), path=str(path), field=section) from None


def known_keys(raw: dict[str, Any], known: set[str], section: str, path: Path) -> None:
    for key in raw:
        if key not in known:
            where = f"{section}.{key}" if section else key
            raise InputError(
                f"unknown key; known here: {', '.join(sorted(known))}", path=str(path), field=where
            )


_NAMES = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}


def typed(value: Any, hint: Any, where: str, path: Path) -> Any:
    """`value` checked against the type `hint` (converted: lists to tuples, ints to floats)."""
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return typed(value, option, where, path)
            except InputError as exc:
                errors.append(exc)
        raise errors[0]
    if origin is tuple:
        if not isinstance(value, list):
            raise InputError(f"expected a list, got {value!r}", path=str(path), field=where)
        item = typing.get_args(hint)[0]
        return tuple(typed(v, item, where, path) for v in value)
    if hint is Path:
        hint = str
    if hint is dict:
        if not isinstance(value, dict):
            raise InputError(f"expected a table, got {value!r}", path=str(path), field=where)
        return value
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in _NAMES and (
        not isinstance(value, hint) or (hint is int and isinstance(value, bool))
    ):
        raise InputError(f"expected {_NAMES[hint]}, got {value!r}", path=str(path), field=where)
    return value


def resolve_path(text: str, recipe: Path, where: str) -> Path:
    def variable(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise InputError(
                f"{text}: the environment variable {name} is not set",
                path=str(recipe),
                field=where,
            )
        return os.environ[name]

    expanded = Path(re.sub(r"\$\{(\w+)\}", variable, text)).expanduser()
    return expanded if expanded.is_absolute() else (recipe.parent / expanded).resolve()
