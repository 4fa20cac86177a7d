"""Writing a library to disk: the importable package, its docs and its metadata.

`out_dir/<package>/` is the package (the runtime files plus the generated `_table.py`),
`out_dir/api_doc.jsonl` and `out_dir/API.md` its docs, `out_dir/sebench_library.json` the name
table and how it was made, and `out_dir/pyproject.toml` makes `pip install out_dir` work.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import keyword
import shutil
import sys
from importlib import resources
from pathlib import Path

from sebench.errors import SebenchError
from sebench.jsonl import write_jsonl
from sebench.library.catalog import ALL, CONSTRUCTOR
from sebench.library.docs import library_docs, render_markdown
from sebench.library.library import DOC_FILE, MARKDOWN_FILE, META_FILE, Library
from sebench.library.table import NameTable

FORMAT = 1


def build_library(
    table: NameTable,
    out_dir: str | Path,
    *,
    api_doc_path: str | Path | None = None,
    origin: str = "custom",
    seed: int | None = None,
    replace: bool = False,
) -> Library:
    """Build `table` into `out_dir`; the docs come from `api_doc_path` when given (official
    texts, renamed for a non-official table), else from NumPy's own docstrings, renamed.

    An existing library in `out_dir` is replaced only with `replace`."""
    check_table(table)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SebenchError(f"{out}: is a file; --out takes a folder (new or empty)")
    if (out / META_FILE).exists():
        if not replace:
            raise SebenchError(
                f"{out}: already holds a built library; choose a new folder for --out, or pass "
                "--force to replace it"
            )
    elif out.exists() and any(out.iterdir()):
        raise SebenchError(
            f"{out}: folder exists and is not a built library; choose an empty "
            "or new folder for --out"
        )
    out.mkdir(parents=True, exist_ok=True)
    package_dir = out / table.package
    if package_dir.exists():
        shutil.rmtree(package_dir)
    package_dir.mkdir()
    runtime = resources.files("sebench.library.runtime")
    from sebench.library.runtime import FILES, INIT

    (package_dir / "__init__.py").write_text(runtime.joinpath(INIT).read_text(), encoding="utf-8")
    for name in FILES:
        (package_dir / name).write_text(runtime.joinpath(name).read_text(), encoding="utf-8")
    (package_dir / "_table.py").write_text(table_module(table), encoding="utf-8")

    rows, docs_source = library_docs(table, api_doc_path)
    write_jsonl(out / DOC_FILE, rows)
    (out / MARKDOWN_FILE).write_text(render_markdown(table, rows, docs_source), encoding="utf-8")
    (out / "pyproject.toml").write_text(pyproject(table), encoding="utf-8")
    meta = {
        "format": FORMAT,
        "origin": origin,
        "seed": seed,
        "docs_source": docs_source,
        "table": table.to_json(),
    }
    (out / META_FILE).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return Library(root=out, table=table)


def check_table(table: NameTable) -> None:
    """A table must name the 278 functions once each, with valid, distinct identifiers."""
    names = sorted(e.numpy_name for e in table.entries)
    if names != sorted(ALL):
        raise SebenchError("the name table must list each of the 278 functions exactly once")
    for ident in (table.package, table.submodule, *(e.name for e in table.entries)):
        if not ident.isidentifier() or keyword.iskeyword(ident) or ident.startswith("_"):
            raise SebenchError(f"{ident!r} is not a usable public Python name")
    check_package_name(table.package)
    bare = [e.name for e in table.entries]
    if len(set(bare)) != len(bare):
        raise SebenchError("library names must be distinct")
    if table.submodule in bare or table.submodule == "ZWCArray" or "ZWCArray" in bare:
        raise SebenchError(f"the submodule name {table.submodule!r} collides with a function name")


def check_package_name(package: str) -> None:
    """The package must not shadow a real module: the library runtime imports NumPy itself, and
    graded code that imports `os` or `numpy` must get the real one (or the grader's refusal)."""
    shadowed = package in sys.stdlib_module_names
    if not shadowed:
        spec = importlib.util.find_spec(package)
        # a library built here and installed (`pip install L`) is found too: that is no clash
        shadowed = spec is not None and not _is_built_library(spec)
    if shadowed:
        raise SebenchError(
            f"package name {package!r} is an importable module here (standard library or "
            "installed); choose another name"
        )


def _is_built_library(spec: importlib.machinery.ModuleSpec) -> bool:
    locations = spec.submodule_search_locations or []
    return any((Path(folder) / "_table.py").is_file() for folder in locations)


def table_module(table: NameTable) -> str:
    """`_table.py`: for the top level and for the submodule, NumPy's functions sorted, the
    library's names sorted, and for each name the place of its NumPy function (one byte).

    Laid out so that importing it leaves the memory the same whichever NumPy function each
    name calls (`_loader.install`); a program reads addresses (`id`, `hash`, `repr`, the order
    of a set), and the servers run with a fixed layout:
    - no constant that looks like a name (Python interns those at import, in the file's order:
      a program's literal `"kocito"` was then that string, and its address told the catalog
      order; a red team's, `correct` on 40 of the 64 dev tasks knowing no name): texts to split;
    - nothing made in an order that depends on the mapping: NumPy's names and the library's
      are each split in their own sorted order, and which goes with which is bytes. Pairs split
      from one line per pair left freed lines whose lengths told the pairs apart, and a sort
      of the pairs by library name freed its keys in an order that did too (red teams' of
      2026-12-03: the first 2-tuples a program made sat at addresses of NumPy's order,
      `correct` on 12 dev tasks with one call)."""

    def part(entries: tuple) -> tuple[str, str, str]:
        numpy_names = sorted(e.numpy_name for e in entries)
        place = {n: i for i, n in enumerate(numpy_names)}
        by_name = sorted(entries, key=lambda e: e.name)
        if len(numpy_names) > 256:
            raise ValueError(f"{len(numpy_names)} functions in one module: at most 256")
        places = bytes(place[e.numpy_name] for e in by_name).hex()
        return " ".join(numpy_names), " ".join(e.name for e in by_name), places

    top_numpy, top_names, top_places = part(table.top_level)
    sub_numpy, sub_names, sub_places = part(table.linalg)
    lines = [
        '"""The name table of this library (generated)."""',
        "",
        f"SUBMODULE = {table.submodule!r}",
        f"CONSTRUCTOR = {CONSTRUCTOR!r}",
        "",
        f"TOP_NUMPY = {top_numpy!r}.split()",
        f"TOP_NAMES = {top_names!r}.split()",
        f"TOP_PLACES = bytes.fromhex({top_places!r})",
        f"SUB_NUMPY = {sub_numpy!r}.split()",
        f"SUB_NAMES = {sub_names!r}.split()",
        f"SUB_PLACES = bytes.fromhex({sub_places!r})",
        "",
    ]
    return "\n".join(lines)


def pyproject(table: NameTable) -> str:
    # a distinct distribution name per package name, so several libraries install side by side
    return (
        "[build-system]\n"
        'requires = ["setuptools>=61"]\n'
        'build-backend = "setuptools.build_meta"\n\n'
        "[project]\n"
        f'name = "{table.package}-library"\n'
        'version = "1.0.0"\n'
        f'description = "The {table.package} numerical library"\n'
        'requires-python = ">=3.9"\n'
        'dependencies = ["numpy>=1.26"]\n\n'
        "[tool.setuptools]\n"
        f'packages = ["{table.package}"]\n'
    )
