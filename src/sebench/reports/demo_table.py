"""The demos' tables as data: JSON for machines, Markdown for people (docs, READMEs, PRs)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sebench.training.demo import DemoResult
    from sebench.training.rl_demo import RLDemoResult

# Verdict columns shown in the table, in this order; any other kind is summed into "other".
SHOWN_VERDICTS = (
    "correct",
    "wrong_answer",
    "runtime_error",
    "no_library",
    "no_code",
    "syntax_error",
)


def verdict_summary(verdicts: dict[str, int]) -> str:
    """`wrong_answer 3, no_code 1`: the non-correct verdicts, most frequent first."""
    parts = sorted(((n, k) for k, n in verdicts.items() if k != "correct" and n), reverse=True)
    return ", ".join(f"{kind} {count}" for count, kind in parts) or "-"


def machine_line(result: DemoResult | RLDemoResult) -> str:
    """Where the timings come from: precision, CPU flags, threads, load and versions."""
    record = result.record
    if "machine_at_start" not in record:
        return ""
    start, end = record["machine_at_start"], record.get("machine_at_end", {})
    versions = record.get("versions", {})
    precision = result.precision
    load = "/".join(f"{x:g}" for x in start.get("load_average", []))
    load_end = "/".join(f"{x:g}" for x in end.get("load_average", []))
    return (
        f"Machine: {start.get('cpu') or 'unknown CPU'}, PyTorch capability "
        f"{start.get('capability')}, flags {' '.join(start.get('flags', [])) or '-'}, "
        f"PyTorch threads {start.get('torch_threads')} of {start.get('physical_cores')} "
        "physical cores; "
        f"load average {load} at start, {load_end} at end; training in "
        f"{precision.get('name')} ({precision.get('reason')}); "
        + ", ".join(
            f"{name} {versions[name]}"
            for name in ("torch", "transformers", "trl")
            if name in versions
        )
        + "."
    )


def _footer(result: DemoResult | RLDemoResult) -> list[str]:
    """The lines both demo tables end with: the machine, then each check ticked or not."""
    machine = machine_line(result)
    lines = [machine] if machine else []
    if result.checks:
        lines.append("")
        lines += [
            f"- [{'x' if passed else ' '}] {check}" for check, passed in result.checks.items()
        ]
    return lines


def demo_markdown(result: DemoResult) -> str:
    lines = [
        "| | accuracy | correct | verdicts (not correct) |",
        "|---|---:|---:|---|",
    ]
    for e in result.evaluations:
        lines.append(
            f"| {e.label} | **{e.accuracy:.1%}** | {e.correct}/{e.total} | {verdict_summary(e.verdicts)} |"
        )
    config = result.config
    trainings = ", ".join(f"{t.arm}-SFT {t.seconds:.0f} s" for t in result.trainings)
    functions = ", ".join(
        f"{name} = `{qual}`" for name, qual in result.library["functions"].items()
    )
    lines += [
        "",
        f"Held-out tasks: {config.test_per_function} per function, sentence structures and "
        f"context nouns never seen in training. Functions: {functions}.",
        f"Training: {config.sft.max_steps} steps x batch {config.sft.batch_size} per arm "
        f"({trainings}); seed {config.seed}; model `{Path(result.model).name}`.",
        f"Total wall time: {result.wall_seconds:.0f} s"
        + (f" (resumed: kept {', '.join(result.resumed)})." if result.resumed else "."),
    ]
    return "\n".join(lines + _footer(result)) + "\n"


def _write_text(path: Path, text: str) -> Path:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def _write_report(
    out_dir: str | Path,
    stem: str,
    data: dict[str, Any],
    markdown: str,
    chart: Callable[[Any, Path], Path | None] | None,
    result: Any,
) -> dict[str, Path]:
    """STEM.json, STEM.md and, when `chart` is given and draws one, STEM.png in `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = {
        "json": _write_text(out / f"{stem}.json", json.dumps(data, indent=2) + "\n"),
        "markdown": _write_text(out / f"{stem}.md", markdown),
    }
    if chart is not None:
        path = chart(result, out / f"{stem}.png")
        if path is not None:
            written["chart"] = path
    return written


def write_demo_report(
    result: DemoResult, out_dir: str | Path, *, chart: bool = True
) -> dict[str, Path]:
    """`demo.json`, `demo.md` and (if matplotlib is installed) `demo.png` in `out_dir`."""
    from sebench.reports.figures import demo_chart

    title = "# The Open-Book Paradox, on this machine\n\n"
    return _write_report(
        out_dir,
        "demo",
        result.to_dict(),
        title + demo_markdown(result),
        demo_chart if chart else None,
        result,
    )


# -- the RL demo (`sebench demo --rl`) ----------------------------------------------------------
def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _series(values: list[float | None]) -> str:
    return " ".join("-" if v is None else f"{v:.2f}" for v in values)


def _seconds(steps: list[dict]) -> str:
    """Each step's seconds, with its generation's share where it was logged: `58 (41 gen)`."""
    parts = []
    for step in steps:
        generation = step.get("generation_seconds")
        parts.append(f"{step['seconds']:.0f}" + (f" ({generation:.0f} gen)" if generation else ""))
    return ", ".join(parts)


def rl_demo_markdown(result: RLDemoResult) -> str:
    """The accuracy table (mean and each seed), the RL diagnostics per step, and the times."""
    from sebench.training.grpo import RLMode
    from sebench.training.rl_demo import ARMS

    seeds = result.config.seeds
    runs = {(r.seed, r.arm): r for r in result.runs}
    lines = [
        "| arm (tested without docs) | mean | "
        + " | ".join(f"seed {s}" for s in seeds)
        + " | verdicts (not correct, all seeds) |",
        "|---|---:|" + "---:|" * len(seeds) + "---|",
    ]
    for arm, label in ARMS:
        cells = []
        verdicts: dict[str, int] = {}
        for seed in seeds:
            run = runs.get((seed, arm))
            if run is None:
                cells.append("-")
                continue
            e = run.evaluation
            cells.append(f"{e.accuracy:.1%} ({e.correct}/{e.total})")
            for kind, count in e.verdicts.items():
                verdicts[kind] = verdicts.get(kind, 0) + count
        lines.append(
            f"| {label} | **{_percent(result.mean(arm))}** | {' | '.join(cells)} | "
            f"{verdict_summary(verdicts)} |"
        )
    lines += [
        "",
        "RL diagnostics, per optimizer step (one seed per row): the mean reward of the step's "
        "completions and the fraction of groups whose rewards were all equal (no learning signal).",
        "",
        "| RL arm | seed | reward mean | zero-spread groups | seconds per step (generation) |",
        "|---|---:|---|---|---|",
    ]
    for arm, label in ARMS:
        for seed in seeds:
            run = runs.get((seed, arm))
            if run is None or not run.steps:
                continue
            lines.append(
                f"| {label} | {seed} | {_series([s['reward_mean'] for s in run.steps])} | "
                f"{_series([s['frac_zero_spread'] for s in run.steps])} | "
                f"{_seconds(list(run.steps))} |"
            )
    config = result.config
    rl = config.rl
    times = ", ".join(
        f"{label} {sum(r.train_seconds for r in result.runs if r.arm == arm):.0f} s"
        for arm, label in ARMS
    )
    evals = sum(r.evaluation.seconds for r in result.runs)
    lines += [
        "",
        f"Held-out tasks: {config.test_per_function} per function per seed, as in `sebench demo`. "
        f"Closed-SFT: {config.sft.max_steps} steps x batch {config.sft.batch_size}, lr "
        f"{config.sft.learning_rate:g}. RL (GRPO, grader reward): {rl.max_steps} steps x "
        f"{rl.prompts_per_step} prompts x {rl.generations_per_prompt} generations, at most "
        f"{rl.max_completion_length} new tokens, temperature {rl.temperature:g}, lr "
        f"{rl.learning_rate:g}; updates per batch: Closed-RL {rl.updates_for(RLMode.CLOSED)}, "
        f"Open-RL {rl.updates_for(RLMode.OPEN)}. Seeds {', '.join(map(str, seeds))}; model "
        f"`{Path(result.model).name}`.",
        f"Training time over all seeds: {times}; evaluations {evals:.0f} s. Total wall time: "
        f"{result.wall_seconds:.0f} s"
        + (f" (resumed: kept {', '.join(result.resumed)})." if result.resumed else "."),
    ]
    return "\n".join(lines + _footer(result)) + "\n"


def write_rl_demo_report(
    result: RLDemoResult, out_dir: str | Path, *, chart: bool = True
) -> dict[str, Path]:
    """`rl_demo.json`, `rl_demo.md` and (if matplotlib is installed) `rl_demo.png` in `out_dir`."""
    from sebench.reports.figures import rl_demo_chart

    title = "# The RL Gap, on this machine\n\n"
    return _write_report(
        out_dir,
        "rl_demo",
        result.to_dict(),
        title + rl_demo_markdown(result),
        rl_demo_chart if chart else None,
        result,
    )
