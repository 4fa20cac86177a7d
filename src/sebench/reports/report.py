"""`sebench report` as a library function: read run folders, compute, write HTML and Markdown.

The HTML page is self-contained (CSS, JS and figures inline, nothing fetched); the Markdown twin
shows the same tables and links the figures, written next to it as PNG files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sebench.reports import plots
from sebench.reports.runs import Run, load_run
from sebench.reports.tables import (
    Change,
    FunctionMatrix,
    TableRow,
    compare_functions,
    failures,
    function_matrix,
    paper_table,
    pass_at_k_curves,
    verdict_breakdown,
)

HTML_FILE = "report.html"
MARKDOWN_FILE = "report.md"
FIGURES_DIR = "figures"


@dataclass(frozen=True)
class RunView:
    """One run and everything the report shows about it."""

    run: Run
    table: list[TableRow]
    verdicts: dict[str, Counter[str]]
    matrix: FunctionMatrix
    figures: dict[str, bytes | None]  # "verdicts", "pass_at_k", "training" -> PNG


@dataclass(frozen=True)
class Comparison:
    before: RunView
    after: RunView
    functions: list[Change]


@dataclass(frozen=True)
class Report:
    runs: list[RunView]
    comparisons: list[Comparison]  # every later run against the first
    failures: list[dict[str, Any]]  # the failure browser's rows
    failures_total: int  # failures in all: more than the rows when capped
    created: str
    figures_available: bool  # matplotlib installed


@dataclass(frozen=True)
class ReportFiles:
    html: Path
    markdown: Path
    figures: list[Path]


def build_report(run_dirs: Sequence[str | Path]) -> Report:
    runs = [load_run(d) for d in run_dirs]
    views = [_view(run) for run in runs]
    rows, total = failures(runs)
    return Report(
        runs=views,
        comparisons=[
            Comparison(views[0], view, compare_functions(views[0].run, view.run))
            for view in views[1:]
        ],
        failures=rows,
        failures_total=total,
        created=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        figures_available=plots.available(),
    )


def _view(run: Run) -> RunView:
    verdicts = verdict_breakdown(run)
    return RunView(
        run=run,
        table=paper_table(run),
        verdicts=verdicts,
        matrix=function_matrix(run),
        figures={
            "verdicts": plots.verdict_chart(verdicts),
            "pass_at_k": plots.pass_at_k_chart(pass_at_k_curves(run)),
            "training": plots.training_chart(run.arms),
        },
    )


def write_report(run_dirs: Sequence[str | Path], out_dir: str | Path) -> ReportFiles:
    """Write report.html, report.md and figures/*.png into `out_dir`."""
    from sebench.reports.html import render_html
    from sebench.reports.markdown import render_markdown

    report = build_report(run_dirs)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures = []
    for index, view in enumerate(report.runs):
        for name, png in view.figures.items():
            if png is not None:
                path = out / FIGURES_DIR / figure_name(index, name)
                path.parent.mkdir(exist_ok=True)
                path.write_bytes(png)
                figures.append(path)
    html = out / HTML_FILE
    html.write_text(render_html(report), encoding="utf-8")
    markdown = out / MARKDOWN_FILE
    markdown.write_text(render_markdown(report), encoding="utf-8")
    return ReportFiles(html, markdown, figures)


def figure_name(run_index: int, figure: str) -> str:
    return f"run{run_index + 1}-{figure}.png"
