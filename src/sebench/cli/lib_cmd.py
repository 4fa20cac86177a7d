"""`sebench lib`: build a library (official or from a seed), lint its docs, show it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from sebench.errors import SebenchError

lib_app = typer.Typer(
    help="Build the official or a fresh library; lint and show its docs.", no_args_is_help=True
)


@lib_app.command("build")
def build(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the library into.")],
    official: Annotated[
        Path | None,
        typer.Option("--official", help="Build the official library from this api_doc.jsonl."),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, help="Build a fresh library with new names from this seed."),
    ] = None,
    api_doc: Annotated[
        Path | None,
        typer.Option(
            "--api-doc",
            help="With --seed: rename the official docs from this api_doc.jsonl "
            "(default: NumPy's docstrings, renamed).",
        ),
    ] = None,
    package: Annotated[str, typer.Option(help="Package name (with --seed).")] = "zwc",
    submodule: Annotated[str, typer.Option(help="Linalg submodule name (with --seed).")] = "rfx",
    force: Annotated[
        bool, typer.Option("--force", help="Replace a library already built in --out.")
    ] = False,
) -> None:
    """Write an importable package DIR/<package>/ plus api_doc.jsonl, API.md and pyproject.toml."""
    from sebench.library.build import build_library
    from sebench.library.names import generate_table
    from sebench.library.official import load_official_table

    if (official is None) == (seed is None):
        raise SebenchError("give exactly one of --official PATH/api_doc.jsonl or --seed N")
    if official is not None:
        if api_doc is not None or (package, submodule) != ("zwc", "rfx"):
            raise SebenchError(
                "--api-doc, --package and --submodule go with --seed, not "
                "--official (the official library has fixed names)"
            )
        library = build_library(
            load_official_table(official),
            out,
            api_doc_path=official,
            origin="official",
            replace=force,
        )
    else:
        table = generate_table(seed, package=package, submodule=submodule)
        library = build_library(
            table, out, api_doc_path=api_doc, origin="seed", seed=seed, replace=force
        )
    console = Console(highlight=False)
    meta = library.meta
    console.print(
        f"built [bold]{library.package}[/] ({len(library.table.top_level)} functions, "
        f"{len(library.table.linalg)} in {library.package}.{library.submodule}) "
        f"in {library.root}; docs: {meta['docs_source']}"
    )
    console.print(
        f'use it: PYTHONPATH={library.root} python -c "import {library.package}"  '
        f"or  pip install {library.root}"
    )


@lib_app.command("lint")
def lint(
    directory: Annotated[Path, typer.Argument(help="A built library folder.")],
    official: Annotated[
        Path | None,
        typer.Option(
            "--official",
            help="The official api_doc.jsonl, to find official names exactly "
            "(default: a hash check).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    show: Annotated[int, typer.Option(min=0, help="Findings to list.")] = 20,
) -> None:
    """Report what the docs leak (NumPy, np., SciPy, official names) and unknown references.

    Exits 1 when anything leaks."""
    from sebench.library.library import Library
    from sebench.library.lint import LintRule, lint_docs

    library = Library.load(directory)
    report = lint_docs(library.table, library.docs(), official_api_doc=official)
    console = Console(highlight=False, soft_wrap=True)
    if as_json:
        console.print_json(json.dumps(report.to_dict()))
    else:
        for finding in report.findings[:show]:
            console.print(
                f"{finding.doc}:{finding.line}: {finding.rule.value}: {finding.text}", markup=False
            )
        table = Table(title=f"lint {directory} ({report.docs_checked} docs)")
        table.add_column("rule")
        table.add_column("findings", justify="right")
        table.add_column("docs", justify="right")
        docs = report.docs_affected()
        for rule, count in report.counts().items():
            table.add_row(rule, str(count), str(docs[rule]))
        console.print(table)
        unknown = report.distinct(LintRule.UNKNOWN_REFERENCE)
        if unknown:
            console.print(
                f"{len(unknown)} distinct unknown references: "
                + ", ".join(unknown[:30])
                + (" ..." if len(unknown) > 30 else ""),
                markup=False,
            )
    if report.leaks:
        raise typer.Exit(1)


@lib_app.command("show")
def show(
    directory: Annotated[Path, typer.Argument(help="A built library folder.")],
    name: Annotated[
        str | None,
        typer.Argument(
            help="A library name (kocito, zwc.rfx.quvohe) or a NumPy name (mean, linalg.inv)."
        ),
    ] = None,
) -> None:
    """Print the name table, or one function's doc."""
    from sebench.library.library import Library

    library = Library.load(directory)
    console = Console(highlight=False, soft_wrap=True)
    if name is not None:
        row = library.doc_for(name)
        if row is None:
            raise SebenchError(
                f"{name}: no such function in {library.package} (try "
                f"`sebench lib show {directory}` for the table)"
            )
        entry = library.table.entry(
            f"linalg.{row['original_name']}"
            if any(e.in_submodule and e.name == row["curr_name"] for e in library.table.entries)
            else row["original_name"]
        )
        console.print(f"[bold]{library.table.qualified(entry)}[/]")
        console.print(row["rewritten_doc"].strip("\n"), markup=False)
        return
    table = Table(
        title=f"{library.package} ({library.meta.get('origin')}, "
        f"docs: {library.meta.get('docs_source')})"
    )
    table.add_column("library name")
    table.add_column("NumPy name")
    for entry in library.table.entries:
        table.add_row(library.table.qualified(entry), entry.numpy_name)
    console.print(table)


def register(app: typer.Typer) -> None:
    """Add `sebench lib ...` to the top-level app."""
    app.add_typer(lib_app, name="lib")
