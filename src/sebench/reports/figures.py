"""Charts. The demo's bar chart: accuracy of each model on held-out tasks, docs or no docs; the RL\ndemo's: accuracy of each arm over seeds, and the RL learning signal per step."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sebench.reports.plots import pyplot

if TYPE_CHECKING:
    from sebench.training.demo import DemoResult
    from sebench.training.rl_demo import RLDemoResult

# One colour per model; the docs-at-test bar is hatched so that it reads as "with help".
COLOURS = {"base": "#9aa5b1", "open-SFT": "#e07a5f", "closed-SFT": "#3d85c6"}


def demo_chart(result: DemoResult, path: str | Path) -> Path | None:
    """A bar chart PNG of the demo table; None when matplotlib is not installed."""
    plt = pyplot()
    if plt is None:
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
    return _save(plt, fig, footer, path)


def _save(plt: Any, fig: Any, footer: str, path: Path) -> Path:
    """Both charts end alike: a grey footer line saying what was run, then the PNG."""
    fig.text(0.5, 0.01, footer, ha="center", fontsize=8, color="#777777")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path)
    plt.close(fig)
    return path


RL_COLOURS = {
    "sft": "#3d85c6",
    "sft_rl": "#2a9d8f",
    "closed_rl": "#9aa5b1",
    "open_rl": "#e07a5f",
}


def rl_demo_chart(result: RLDemoResult, path: str | Path) -> Path | None:
    """Left: each arm's mean accuracy (bar) and each seed's (dots). Right: per RL step, the
    fraction of zero-spread groups and the mean reward, averaged over seeds. None without
    matplotlib."""
    plt = pyplot()
    if plt is None:
        return None
    import matplotlib.ticker

    from sebench.training.rl_demo import ARMS

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(10.5, 4.4), dpi=150, gridspec_kw={"width_ratios": [1.25, 1]}
    )
    arms = [(arm, label) for arm, label in ARMS if result.accuracies(arm)]
    for x, (arm, _) in enumerate(arms):
        values = [100 * v for v in result.accuracies(arm)]
        mean = sum(values) / len(values)
        left.bar(x, mean, color=RL_COLOURS[arm], width=0.62, edgecolor="white")
        left.scatter([x] * len(values), values, color="#222222", s=14, zorder=3)
        left.annotate(
            f"{mean:.0f}%",
            (x, mean),
            xytext=(0, 4),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=11,
            fontweight="bold",
            color="#333333",
        )
    left.set_xticks(range(len(arms)), [label.replace(" ", "\n", 1) for _, label in arms])
    left.set_ylim(0, 112)
    left.set_yticks(range(0, 101, 25))
    left.set_ylabel("held-out tasks solved, no docs (%)", color="#444444")
    left.set_title("The RL Gap: mean over seeds (dots: seeds)", fontsize=11, color="#222222")

    for arm, label in arms:
        runs = [r for r in result.runs if r.arm == arm and r.steps]
        if not runs:
            continue
        steps = sorted({s["step"] for r in runs for s in r.steps})
        for key, style in (("frac_zero_spread", "-"), ("reward_mean", ":")):
            ys = []
            for step in steps:
                found = [
                    s[key]
                    for r in runs
                    for s in r.steps
                    if s["step"] == step and s[key] is not None
                ]
                ys.append(sum(found) / len(found) if found else float("nan"))
            right.plot(
                steps,
                ys,
                style,
                marker="o",
                color=RL_COLOURS[arm],
                label=f"{label}: {'zero-spread groups' if key == 'frac_zero_spread' else 'reward'}",
            )
    right.set_ylim(-0.05, 1.05)
    right.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    right.set_xlabel("RL step", color="#444444")
    right.set_title("RL signal per step (mean over seeds)", fontsize=11, color="#222222")
    right.legend(fontsize=7, frameon=False)
    for ax in (left, right):
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.yaxis.grid(True, color="#eeeeee")
        ax.set_axisbelow(True)
        ax.tick_params(axis="both", colors="#555555", length=0)
    config = result.config
    footer = (
        f"{Path(result.model).name}; closed-SFT {config.sft.max_steps} steps; RL "
        f"{config.rl.max_steps} steps x {config.rl.prompts_per_step} prompts x "
        f"{config.rl.generations_per_prompt}; seeds {', '.join(map(str, config.seeds))}; "
        f"total {result.wall_seconds:.0f} s on this machine"
    )
    return _save(plt, fig, footer, path)
