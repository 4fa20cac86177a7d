"""Charts. The demo's bar chart: accuracy of each model on held-out tasks, docs or no docs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sebench.training.demo import DemoResult

# One colour per model; the docs-at-test bar is hatched so that it reads as "with help".
COLOURS = {"base": "#9aa5b1", "open-SFT": "#e07a5f", "closed-SFT": "#3d85c6"}


def demo_chart(result: DemoResult, path: str | Path) -> Path | None:
    """A bar chart PNG of the demo table; None when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: never open a window or need a display
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    evaluations = result.evaluations
    labels = [e.label.replace(", ", "\n") for e in evaluations]
    values = [100 * e.accuracy for e in evaluations]
    colours = [COLOURS.get(e.model, "#777777") for e in evaluations]

    fig, ax = plt.subplots(figsize=(7.2, 4.2), dpi=150)
    bars = ax.bar(labels, values, color=colours, width=0.62, edgecolor="white", linewidth=1.2)
    for bar, e in zip(bars, evaluations, strict=True):
        if e.docs_at_test:
            bar.set_hatch("//")
            bar.set_edgecolor("white")
        ax.annotate(
            f"{100 * e.accuracy:.0f}%",
            (bar.get_x() + bar.get_width() / 2, bar.get_height()),
            xytext=(0, 4),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=11,
            fontweight="bold",
            color="#333333",
        )
    ax.set_ylim(0, 112)
    ax.set_yticks(range(0, 101, 25))
    ax.set_ylabel("held-out tasks solved (%)", color="#444444")
    ax.set_title(
        "The Open-Book Paradox: same answers, different prompts",
        fontsize=12,
        color="#222222",
        pad=12,
    )
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_color("#bbbbbb")
    ax.tick_params(axis="both", colors="#555555", length=0)
    ax.yaxis.grid(True, color="#eeeeee")
    ax.set_axisbelow(True)
    footer = (
        f"{Path(result.model).name}, {result.config.sft.max_steps} SFT steps per arm, "
        f"{evaluations[0].total if evaluations else 0} held-out prompts, greedy; "
        f"total {result.wall_seconds:.0f} s on this machine"
    )
    fig.text(0.5, 0.01, footer, ha="center", fontsize=8, color="#777777")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path)
    plt.close(fig)
    return path
