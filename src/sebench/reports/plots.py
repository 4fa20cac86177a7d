"""The report's figures as PNG bytes: verdicts per regime, pass@k, training curves.

matplotlib is the `reports` extra: without it every figure is None and the report says so; the
tables (and the per-function heatmap, an HTML table) do not need it.
"""

from __future__ import annotations

import io
from collections import Counter
from typing import Any

from sebench.reports.runs import Arm
from sebench.reports.tables import VERDICT_ORDER

DPI = 144
# One colour per verdict: green is the only good one, reds run, greys never ran the library.
VERDICT_COLOURS = {
    "correct": "#2e9e5b",
    "wrong_answer": "#e0a030",
    "runtime_error": "#d9534f",
    "timeout": "#b03a8c",
    "memory": "#7e3fa8",
    "uses_numpy": "#3d85c6",
    "no_library": "#8fb3d9",
    "policy": "#5b5b8f",
    "no_code": "#9aa5b1",
    "syntax_error": "#c9ccd1",
    "infra_error": "#222222",
}
LINE_COLOURS = ["#3d85c6", "#e07a5f", "#2e9e5b", "#8e6cc1", "#e0a030", "#d9534f", "#17becf"]


def pyplot() -> Any | None:
    """matplotlib's pyplot, drawing to files only; None when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")  # files only: never open a window or need a display
    import matplotlib.pyplot as plt

    return plt


def available() -> bool:
    return pyplot() is not None


def _style(ax: Any) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.spines["left"].set_color("#bbbbbb")
    ax.spines["bottom"].set_color("#bbbbbb")
    ax.tick_params(colors="#555555")
    ax.grid(True, color="#eeeeee")
    ax.set_axisbelow(True)


def _png(plt: Any, fig: Any) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def verdict_chart(breakdown: dict[str, Counter[str]]) -> bytes | None:
    """One horizontal stacked bar per regime: the share of each verdict."""
    plt = pyplot()
    if plt is None or not breakdown:
        return None
    regimes = list(breakdown)
    fig, ax = plt.subplots(figsize=(7.0, 0.42 * len(regimes) + 0.8))
    left = [0.0] * len(regimes)
    for verdict in VERDICT_ORDER:
        shares = [
            100 * breakdown[r].get(verdict, 0) / max(1, sum(breakdown[r].values())) for r in regimes
        ]
        if not any(shares):
            continue
        ax.barh(
            regimes,
            shares,
            left=left,
            color=VERDICT_COLOURS.get(verdict, "#777777"),
            label=verdict,
            edgecolor="white",
            linewidth=0.8,
        )
        left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.invert_yaxis()  # the paper's order, top down
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of samples (%)", color="#444444")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False, fontsize=9)
    _style(ax)
    ax.grid(False, axis="y")
    return _png(plt, fig)


def pass_at_k_chart(curves: dict[tuple[str, str], dict[int, float]]) -> bytes | None:
    """pass@k against k, one panel per split, one line per regime."""
    plt = pyplot()
    curves = {key: curve for key, curve in curves.items() if curve}
    if plt is None or not curves:
        return None
    splits = sorted({split for _, split in curves})
    fig, axes = plt.subplots(1, len(splits), figsize=(3.6 * len(splits) + 1, 3.0), squeeze=False)
    regimes = list(dict.fromkeys(regime for regime, _ in curves))
    for ax, split in zip(axes[0], splits, strict=True):
        for regime in regimes:
            curve = curves.get((regime, split))
            if not curve:
                continue
            colour = LINE_COLOURS[regimes.index(regime) % len(LINE_COLOURS)]
            ks = list(curve)
            ax.plot(ks, [100 * curve[k] for k in ks], marker="o", ms=4, color=colour, label=regime)
        ax.set_title(split, color="#222222", fontsize=11)
        ax.set_xlabel("k (samples per task)", color="#444444")
        ax.set_xticks(sorted({k for (_, s), c in curves.items() if s == split for k in c}))
        ax.set_ylim(0, 100)
        _style(ax)
    axes[0][0].set_ylabel("pass@k (%)", color="#444444")
    axes[0][-1].legend(frameon=False, fontsize=9, loc="center left", bbox_to_anchor=(1.02, 0.5))
    return _png(plt, fig)


def training_chart(arms: list[Arm]) -> bytes | None:
    """Loss, reward and the share of zero-spread groups against the step, one line per arm."""
    plt = pyplot()
    logged = [a for a in arms if a.training is not None]
    if plt is None or not logged:
        return None
    panels = [
        ("loss", "loss"),
        ("reward", "mean reward"),
        ("zero_spread", "zero-spread groups (share)"),
    ]
    panels = [
        (name, title)
        for name, title in panels
        if any(any(v is not None for v in getattr(a.training, name)) for a in logged)
    ]
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels) + 1.4, 2.8), squeeze=False)
    for ax, (name, title) in zip(axes[0], panels, strict=True):
        for index, arm in enumerate(logged):
            assert arm.training is not None
            points = [
                (s, v)
                for s, v in zip(arm.training.steps, getattr(arm.training, name), strict=False)
                if v is not None
            ]
            if points:
                ax.plot(
                    [p[0] for p in points],
                    [p[1] for p in points],
                    color=LINE_COLOURS[index % len(LINE_COLOURS)],
                    label=arm.label,
                    lw=1.6,
                )
        ax.set_title(title, color="#222222", fontsize=11)
        ax.set_xlabel("step", color="#444444")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        _style(ax)
    axes[0][-1].legend(frameon=False, fontsize=9, loc="center left", bbox_to_anchor=(1.02, 0.5))
    return _png(plt, fig)
