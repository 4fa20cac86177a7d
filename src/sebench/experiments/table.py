"""The run's table: accuracy per regime and split, mean and spread over seeds, next to the
paper's numbers the recipe gives. Written as JSON and Markdown into RUN_DIR/report/; the full
HTML report is `sebench report RUN_DIR`."""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path

from sebench.experiments.manifest import MANIFEST
from sebench.experiments.records import write_json_atomic

SPLITS = ("single", "multiple")


@dataclass(frozen=True)
class Cell:
    mean: float | None  # percent correct, mean over the seeds that are done
    spread: float | None  # sample standard deviation over seeds (None with fewer than 2)
    seeds: int
    expected: float | None  # the paper's number, from the recipe


def build_table(run_dir: Path) -> dict[str, dict[str, Cell]]:
    manifest = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    scores: dict[tuple[str, str], list[float]] = {}
    regimes: list[str] = []
    for arm in manifest["arms"]:
        if arm["regime"] not in regimes:
            regimes.append(arm["regime"])
        if arm["status"] != "done":
            continue
        summary = json.loads((run_dir / arm["summary"]).read_text(encoding="utf-8"))
        scores.setdefault((arm["regime"], arm["split"]), []).append(100 * summary["accuracy"])
    table: dict[str, dict[str, Cell]] = {}
    for regime in regimes:
        expected = manifest["expected"].get(regime, {})
        row = {}
        for split in SPLITS:
            values = scores.get((regime, split), [])
            row[split] = Cell(
                mean=statistics.fmean(values) if values else None,
                spread=statistics.stdev(values) if len(values) > 1 else None,
                seeds=len(values),
                expected=expected.get(split),
            )
        table[regime] = row
    return table


def write_table(run_dir: Path, out: Path) -> list[Path]:
    table = build_table(run_dir)
    json_path, md_path = out / "table.json", out / "table.md"
    write_json_atomic(
        json_path,
        {regime: {s: asdict(c) for s, c in row.items()} for regime, row in table.items()},
    )
    lines = [
        "| regime | Single | paper | Multiple | paper |",
        "|---|---:|---:|---:|---:|",
    ]
    for regime, row in table.items():
        cells = []
        for split in SPLITS:
            cell = row[split]
            cells += [_score(cell), "-" if cell.expected is None else f"{cell.expected:.1f}"]
        lines.append(f"| {regime} | " + " | ".join(cells) + " |")
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [json_path, md_path]


def _score(cell: Cell) -> str:
    if cell.mean is None:
        return "-"
    spread = f" ± {cell.spread:.1f}" if cell.spread is not None else ""
    return f"{cell.mean:.1f}{spread} (n={cell.seeds})"
