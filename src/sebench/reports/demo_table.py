"""The demo's table as data: JSON for machines, Markdown for people (docs, READMEs, PRs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sebench.training.demo import DemoResult

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


def machine_line(result: DemoResult) -> str:
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
    if machine_line(result):
        lines.append(machine_line(result))
    if result.checks:
        lines.append("")
        for check, passed in result.checks.items():
            lines.append(f"- [{'x' if passed else ' '}] {check}")
    return "\n".join(lines) + "\n"


def _write_text(path: Path, text: str) -> Path:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def write_demo_report(
    result: DemoResult, out_dir: str | Path, *, chart: bool = True
) -> dict[str, Path]:
    """`demo.json`, `demo.md` and (if matplotlib is installed) `demo.png` in `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = {
        "json": _write_text(out / "demo.json", json.dumps(result.to_dict(), indent=2) + "\n"),
        "markdown": _write_text(
            out / "demo.md", "# The Open-Book Paradox, on this machine\n\n" + demo_markdown(result)
        ),
    }
    if chart:
        from sebench.reports.figures import demo_chart

        path = demo_chart(result, out / "demo.png")
        if path is not None:
            written["chart"] = path
    return written
