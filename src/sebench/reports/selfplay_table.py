"""The self-play table: accuracy per round as JSON, Markdown and (with matplotlib) a PNG."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from sebench.reports.demo_table import verdict_summary

if TYPE_CHECKING:
    from sebench.training.selfplay import SelfPlayResult
    from sebench.training.selfplay_folder import RoundRow

LINE = "#3d85c6"  # the closed-SFT colour of the demo chart
UNTRAINED = "#9aa5b1"  # the base-model colour: a round that did not train


def _count(kept: int | None, of: int | None) -> str:
    return "-" if kept is None else f"{kept}/{of}" if of is not None else str(kept)


def _accuracy(row: RoundRow) -> str:
    return "-" if row.accuracy is None else f"{row.accuracy:.1%}"


def selfplay_markdown(result: SelfPlayResult) -> str:
    method = "Closed-SFT" if result.config.method.value == "sft" else "Closed-RL (GRPO)"
    lines = [
        "| round | closed-book accuracy | tasks kept | answers kept | training | verdicts (not correct) |",
        "|---:|---:|---:|---:|---|---|",
    ]
    for row in result.rows:
        lines.append(
            f"| {row.round} | **{_accuracy(row)}** | {_count(row.tasks_kept, row.tasks_requested)} "
            f"| {_count(row.answers_kept, row.answers_sampled)} | {row.note or '-'} "
            f"| {verdict_summary(row.verdicts)} |"
        )
    test_count = result.rows[0].samples if result.rows else 0
    lines += [
        "",
        f"Self-play with {method} from `{result.base_model}`; closed-book on `{result.test}` "
        f"({test_count} samples per round); library `{result.library['package']}`.",
        "Tasks kept: of the requests, through the model-written pipeline with the model as its "
        "own solver. Answers kept: open-book samples the grader passed.",
    ]
    if result.resumed:
        lines.append(f"Resumed: {', '.join(result.resumed)}.")
    return "\n".join(lines) + "\n"


def selfplay_chart(result: SelfPlayResult, path: str | Path) -> Path | None:
    """Accuracy per round as a line; rounds that did not train are grey. None without
    matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: never open a window or need a display
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rows = [row for row in result.rows if row.accuracy is not None]
    if not rows:
        return None
    path = Path(path)
    rounds = [row.round for row in rows]
    values = [100 * (row.accuracy or 0.0) for row in rows]
    fig, ax = plt.subplots(figsize=(6.4, 3.8), dpi=150)
    ax.plot(rounds, values, color=LINE, linewidth=2, zorder=1)
    colours = [LINE if row.trained else UNTRAINED for row in rows]
    ax.scatter(rounds, values, color=colours, s=46, zorder=2)
    for x, y in zip(rounds, values, strict=True):
        ax.annotate(f"{y:.0f}%", (x, y), xytext=(0, 7), textcoords="offset points", ha="center")
    method = "Closed-SFT" if result.config.method.value == "sft" else "Closed-RL"
    ax.set_title(f"Self-play ({method}): closed-book accuracy per round", fontsize=11, pad=10)
    ax.set_xlabel("round (0: base model; grey: not trained)", color="#444444")
    ax.set_ylabel("test tasks solved (%)", color="#444444")
    ax.set_xticks(rounds)
    ax.set_ylim(0, 108)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.yaxis.grid(True, color="#eeeeee")
    ax.set_axisbelow(True)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def write_selfplay_report(result: SelfPlayResult, *, chart: bool = True) -> dict[str, Path]:
    """`selfplay.json`, `selfplay.md` and (if matplotlib is installed) `selfplay.png` in the
    run's folder."""
    out = result.out
    written = {"json": out / "selfplay.json", "markdown": out / "selfplay.md"}
    written["json"].write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8")
    written["markdown"].write_text(
        "# Self-play, accuracy per round\n\n" + selfplay_markdown(result), encoding="utf-8"
    )
    if chart:
        png = selfplay_chart(result, out / "selfplay.png")
        if png is not None:
            written["chart"] = png
    return written
