"""The report's Markdown twin: the same tables, the figures linked as PNG files beside it.

No response text goes here (the HTML page's failure browser has it): a Markdown renderer is not
ours to trust with hostile model output. Names from the run are escaped for table cells.
"""

from __future__ import annotations

from collections import Counter

from sebench.reports.report import FIGURES_DIR, Report, RunView, figure_name
from sebench.reports.tables import VERDICT_ORDER, Cell, TableRow, compare_tables


def _text(value: object) -> str:
    """A value safe inside a Markdown table cell: no pipes, no HTML, one line."""
    text = str(value).replace("\n", " ").replace("|", "\\|")
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _signed(before: float | None, after: float | None) -> str:
    return "–" if before is None or after is None else f"{100 * (after - before):+.1f}"


def _cell(cell: Cell | None) -> str:
    if cell is None or cell.mean is None:
        measured = ", ".join(cell.waiting) if cell is not None and cell.arms else "–"
    else:
        measured = _percent(cell.mean)
        if cell.spread is not None:
            measured += f" ± {100 * cell.spread:.1f}"
        if len(cell.values) < cell.arms:
            measured += f" ({len(cell.values)}/{cell.arms} seeds)"
    paper = "" if cell is None or cell.expected is None else f"{cell.expected:.1f}"
    return f"{measured} | {paper}"


def paper_table_lines(table: list[TableRow], splits: list[str]) -> list[str]:
    """The paper's table (regime x split, next to the paper's numbers) as Markdown lines."""
    lines = [
        "| Regime | " + " | ".join(f"{s.capitalize()} | paper" for s in splits) + " |",
        "|---|" + "---:|---:|" * len(splits),
    ]
    for row in table:
        name = f"{row.regime} (bound)" if row.bound else row.regime
        lines.append(
            f"| {_text(name)} | " + " | ".join(_cell(row.cells.get(s)) for s in splits) + " |"
        )
    return lines


def _run(index: int, view: RunView) -> list[str]:
    run = view.run
    splits = run.splits()
    lines = [
        f"## {_text(run.name)}",
        "",
        f"Model `{_text(run.model)}`, library {_text(run.library.get('kind', '?'))}"
        + (f" (seed {run.library['seed']})" if run.library.get("seed") is not None else "")
        + f", {len(run.arms)} arms.",
        "",
        "### The paper's table",
        "",
        *paper_table_lines(view.table, splits),
        "",
        "Accuracy (%): the mean over rollouts of each rollout's accuracy, averaged over the "
        "seeds that finished; ± is the standard deviation over seeds; paper: the recipe's number.",
        "",
    ]
    if view.figures.get("verdicts") is not None:
        lines += [f"![Verdict shares]({FIGURES_DIR}/{figure_name(index, 'verdicts')})", ""]
    lines += _verdicts(view.verdicts)
    lines += ["### Which functions were internalized", ""]
    matrix = view.matrix
    if matrix.functions:
        lines.append("| Function | " + " | ".join(_text(r) for r in matrix.regimes) + " |")
        lines.append("|---|" + "---:|" * len(matrix.regimes))
        for function in matrix.functions:
            values = [_percent(matrix.accuracy(function, r)) for r in matrix.regimes]
            lines.append(f"| `{_text(function)}` | " + " | ".join(values) + " |")
    else:
        lines.append("No per-function results.")
    lines.append("")
    for name, title in (
        ("pass_at_k", "pass@k"),
        ("training", "Training curves"),
    ):
        if view.figures.get(name) is not None:
            lines += [
                f"### {title}",
                "",
                f"![{title}]({FIGURES_DIR}/{figure_name(index, name)})",
                "",
            ]
    lines += ["### Arms", "", "| Regime | Split | Seed | Status | Accuracy | Problems |"]
    lines.append("|---|---|---:|---|---:|---|")
    for arm in run.arms:
        seed = "" if arm.seed is None else str(arm.seed)
        lines.append(
            f"| {_text(arm.regime)} | {_text(arm.split)} | {seed} | {_text(arm.status)} | "
            f"{_percent(arm.accuracy)} | {_text('; '.join(arm.problems))} |"
        )
    return [*lines, ""]


def _verdicts(breakdown: dict[str, Counter[str]]) -> list[str]:
    if not breakdown:
        return []
    kinds = [k for k in VERDICT_ORDER if any(c.get(k) for c in breakdown.values())]
    lines = [
        "### Verdicts per regime (% of samples)",
        "",
        "| Regime | samples | " + " | ".join(kinds) + " |",
        "|---|---:|" + "---:|" * len(kinds),
    ]
    for regime, counts in breakdown.items():
        total = sum(counts.values()) or 1
        shares = [f"{100 * counts.get(k, 0) / total:.1f}" for k in kinds]
        lines.append(f"| {_text(regime)} | {sum(counts.values())} | " + " | ".join(shares) + " |")
    return [*lines, ""]


def render_markdown(report: Report) -> str:
    lines = [
        "# SE-Bench report",
        "",
        f"{', '.join(_text(v.run.name) for v in report.runs)}; written {report.created}. "
        "The HTML page next to this file has the same tables, the figures inline and the "
        "failure browser.",
        "",
    ]
    for index, view in enumerate(report.runs):
        lines += _run(index, view)
    for comparison in report.comparisons:
        a, b = _text(comparison.before.run.name), _text(comparison.after.run.name)
        lines += [f"## {a} vs {b}", "", f"| Regime | Split | {a} | {b} | Δ |"]
        lines.append("|---|---|---:|---:|---:|")
        for regime, split, before, after in compare_tables(
            comparison.before.run, comparison.after.run
        ):
            lines.append(
                f"| {_text(regime)} | {_text(split)} | {_percent(before)} | {_percent(after)} | "
                f"{_signed(before, after)} |"
            )
        lines += ["", f"| Function | {a} | {b} | Δ |"]
        lines.append("|---|---:|---:|---:|")
        for change in comparison.functions:
            lines.append(
                f"| `{_text(change.function)}` | {_percent(change.before)} | "
                f"{_percent(change.after)} | {_signed(change.before, change.after)} |"
            )
        lines.append("")
    counts = Counter(row["verdict"] for row in report.failures)
    lines += ["## Failures", ""]
    if len(report.failures) < report.failures_total:
        lines += [
            f"{report.failures_total} in all; the {len(report.failures)} in the page's "
            "browser, by verdict:",
            "",
        ]
    lines += [f"- {_text(k)}: {v}" for k, v in counts.most_common()] or ["None."]
    return "\n".join(lines) + "\n"
