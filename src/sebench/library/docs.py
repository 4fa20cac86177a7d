"""A library's API docs: rows in the official `api_doc.jsonl` schema, and a Markdown reference.

- The official table with the official api_doc: the official rows, verbatim.
- Any other table with the official api_doc: the official `rewritten_doc` texts consistently
  renamed (every official function, package and submodule name replaced by the new one), then
  cleaned of what still points at NumPy (`np.` prefixes, the `numpystr` formatter key, SciPy
  cross-references), so that lint finds no leak and no official name.
- Without an api_doc: NumPy's own docstrings from the installed NumPy, renamed the same way (a
  fallback: the texts then differ from the official ones and name more unknown references).

The `docstring` column keeps NumPy's own docstring, as in the official schema; only
`rewritten_doc` is shown to models.
"""

from __future__ import annotations

import builtins
import inspect
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sebench.library.official import read_official_rows
from sebench.library.table import NameTable

SOURCE_OFFICIAL = "official"
SOURCE_RENAMED = "official-renamed"
SOURCE_NUMPY = "numpy-docstrings-renamed"

_WORD = re.compile(r"(?<![\w])([A-Za-z_]\w*)")
_NP_PREFIX = re.compile(r"(?<![\w.])(?:np|numpy)\.")
_NP_LINALG = re.compile(r"(?<![\w.])(?:np|numpy)\.linalg\.([A-Za-z_]\w*)")
_IMPORT_AS = re.compile(r"import (\w+) as np\b")
_NP_QUALIFIED = re.compile(r"(?<![\w.])(?:np|numpy)\.([A-Za-z_]\w*)")
_ARRAY_REPR = re.compile(r"(?<![\w.])array\(")
_CODE_NAME = re.compile(r"``(?P<name>\w+)``|`(?P<name2>\w+)`|(?<![\w.])(?P<name3>\w+)\(")


def library_docs(
    table: NameTable, api_doc_path: str | Path | None
) -> tuple[list[dict[str, Any]], str]:
    """(rows in the official schema and order, the docs source)."""
    if api_doc_path is None:
        return _numpy_docs(table), SOURCE_NUMPY
    off_package, off_sub, off_rows = read_official_rows(api_doc_path)
    official_names = {r.entry.numpy_name: r.entry.name for r in off_rows}
    new_names = {e.numpy_name: e.name for e in table.entries}
    if (off_package, off_sub) == (table.package, table.submodule) and official_names == new_names:
        return [dict(r.row) for r in off_rows], SOURCE_OFFICIAL
    words = {official_names[n]: new_names[n] for n in new_names}
    words[off_package] = table.package
    words[off_sub] = table.submodule
    rows = []
    for r in off_rows:
        entry = table.entry(r.entry.numpy_name)
        row = dict(r.row)
        row["curr_name"] = entry.name
        row["func_mapping"] = json.dumps(_mapping(json.loads(r.row["func_mapping"]), table))
        row["rewritten_doc"] = clean_leaks(rename_words(r.row["rewritten_doc"], words), table)
        rows.append(
            {
                k: row[k]
                for k in (
                    "original_name",
                    "curr_name",
                    "docstring",
                    "func_mapping",
                    "rewritten_doc",
                )
            }
        )
    return rows, SOURCE_RENAMED


def rename_words(text: str, words: Mapping[str, str]) -> str:
    """Replace whole words (`zwc`, `rfx`, `kocito`) by their new names, in one pass."""
    return _WORD.sub(lambda m: words.get(m.group(1), m.group(1)), text)


def clean_leaks(text: str, table: NameTable) -> str:
    """Remove what still points at NumPy from a renamed doc (see the module doc)."""
    names = _code_names(table)
    kept = []
    for line in text.split("\n"):
        if re.search(r"scipy|numpystr", line, re.IGNORECASE):
            continue  # SciPy cross-references and NumPy-named formatter keys: drop the line
        line = _IMPORT_AS.sub(r"import \1", line)
        line = _NP_PREFIX.sub(f"{table.package}.", line)
        # NumPy's print form of arrays: the library prints ZWCArray(...)
        line = _ARRAY_REPR.sub("ZWCArray(", line)
        line = _CODE_NAME.sub(lambda m: _rename_code(m, names), line)
        kept.append(line)
    return "\n".join(kept)


def _code_names(table: NameTable) -> dict[str, str]:
    # NumPy names used as code -> library names (top level first); Python builtins keep theirs
    names = {e.numpy_name.removeprefix("linalg."): e.name for e in table.linalg}
    names.update({e.numpy_name: e.name for e in table.top_level})
    for builtin in dir(builtins):
        names.pop(builtin, None)
    return names


def _mapping(official: Mapping[str, str], table: NameTable) -> dict[str, str]:
    # the official rows list the row's own function and related ones: same keys, new names
    to_library = table.numpy_to_library()
    out = {}
    for key, _ in official.items():
        name = key.removeprefix("np.")
        if name in to_library:
            out[key] = to_library[name]
    return out


def _numpy_docs(table: NameTable) -> list[dict[str, Any]]:
    import numpy

    top = {e.numpy_name: e.name for e in table.top_level}
    linalg = {e.numpy_name.removeprefix("linalg."): e.name for e in table.linalg}
    qualified_top = {n: f"{table.package}.{name}" for n, name in top.items()}
    qualified_sub = {n: f"{table.package}.{table.submodule}.{name}" for n, name in linalg.items()}
    to_library = table.numpy_to_library()
    rows = []
    for entry in table.entries:
        bare = entry.numpy_name.removeprefix("linalg.")
        namespace = numpy.linalg if entry.in_submodule else numpy
        target = _resolve(namespace, bare)
        docstring = (target.__doc__ or "") if target is not None else ""
        text = _with_signature(bare, target, inspect.cleandoc(docstring))
        own = linalg if entry.in_submodule else top
        text = _NP_LINALG.sub(lambda m: qualified_sub.get(m.group(1), m.group(0)), text)
        text = _NP_QUALIFIED.sub(lambda m: qualified_top.get(m.group(1), m.group(0)), text)
        text = re.sub(
            r"(?<![\w.])(?:np|numpy)\.linalg\b", f"{table.package}.{table.submodule}", text
        )
        # NumPy names used as code (``mean``, `mean`, mean(...)); prose keeps its words
        text = _CODE_NAME.sub(lambda m, own=own: _rename_code(m, own), text)
        text = re.sub(r"\bndarray\b", "ZWCArray", text)
        text = re.sub(r"\bNumPy\b|\bnumpy\b", table.package, text)
        text = clean_leaks(text, table)
        rows.append(
            {
                "original_name": bare,
                "curr_name": entry.name,
                "docstring": docstring,
                "func_mapping": json.dumps(
                    {f"np.{entry.numpy_name}": to_library[entry.numpy_name]}
                ),
                "rewritten_doc": "\n" + text.strip("\n"),
            }
        )
    return rows


def _with_signature(name: str, target: Any, doc: str) -> str:
    # ufunc docs start with their signature, Python functions' docs do not: add it, as officially
    if doc.startswith(f"{name}("):
        return doc
    try:
        signature = str(inspect.signature(target))
    except (TypeError, ValueError):
        return doc
    return f"{name}{signature}\n\n{doc}"


def _rename_code(match: re.Match[str], names: Mapping[str, str]) -> str:
    word = match.group("name") or match.group("name2") or match.group("name3")
    if word not in names:
        return match.group(0)
    return match.group(0).replace(word, names[word], 1)


def _resolve(namespace: Any, name: str) -> Any:
    for candidate in {"trapz": ("trapezoid", "trapz")}.get(name, (name,)):
        target = getattr(namespace, candidate, None)
        if target is not None:
            return target
    return None


def render_markdown(table: NameTable, rows: list[dict[str, Any]], source: str) -> str:
    """`API.md`: a table of contents, then each function's doc."""
    by_name = {row["curr_name"]: row for row in rows}
    lines = [f"# `{table.package}` API reference", ""]
    if source == SOURCE_NUMPY:
        lines += [
            "> These docs were generated without the official API doc: they are NumPy-style",
            "> docstrings renamed to this library, not the official rewritten texts.",
            "",
        ]
    lines += [
        f"{len(table.top_level)} functions in `{table.package}`, "
        f"{len(table.linalg)} in `{table.package}.{table.submodule}`; arrays are "
        f"`{table.package}.ZWCArray`.",
        "",
    ]
    for title, entries in (
        (f"`{table.package}`", table.top_level),
        (f"`{table.package}.{table.submodule}`", table.linalg),
    ):
        lines += [f"## {title}", ""]
        for entry in entries:
            row = by_name.get(entry.name)
            doc = (row or {}).get("rewritten_doc", "").strip("\n")
            lines += [f"### `{table.qualified(entry)}`", "", "```text", doc, "```", ""]
    return "\n".join(lines)
