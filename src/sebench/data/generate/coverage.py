"""Which functions a generated task set covers, and why the others have no task."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Coverage:
    tasks: dict[str, int]  # NumPy name -> single-function tasks generated
    missing: dict[str, str]  # NumPy name -> reason it has no task
    multi: int = 0  # multi-function tasks

    @property
    def covered(self) -> int:
        return sum(1 for count in self.tasks.values() if count)

    def to_dict(self) -> dict[str, Any]:
        return {
            "functions": len(set(self.tasks) | set(self.missing)),
            "covered": self.covered,
            "multi_function_tasks": self.multi,
            "missing": self.missing,
            "tasks_per_function": self.tasks,
        }

    def to_markdown(self) -> str:
        lines = [
            "# Task coverage",
            "",
            f"{self.covered} of {len(set(self.tasks) | set(self.missing))} functions have tasks; "
            f"{sum(self.tasks.values())} single-function and {self.multi} multi-function tasks.",
            "",
        ]
        if self.missing:
            lines += ["## Functions without a task", "", "| function | why |", "|---|---|"]
            lines += [f"| `{name}` | {why} |" for name, why in self.missing.items()]
            lines.append("")
        lines += ["## Tasks per function", "", "| function | tasks |", "|---|---:|"]
        lines += [f"| `{name}` | {count} |" for name, count in sorted(self.tasks.items())]
        return "\n".join(lines) + "\n"


def coverage_paths(out: str | Path) -> tuple[Path, Path]:
    """The JSON and Markdown coverage reports written next to a task file."""
    out = Path(out)
    return out.with_name(out.stem + ".coverage.json"), out.with_name(out.stem + ".coverage.md")


def write_coverage(
    out: str | Path, coverage: Coverage, provenance: dict[str, Any]
) -> tuple[Path, Path]:
    json_path, md_path = coverage_paths(out)
    data = {**coverage.to_dict(), "provenance": provenance}
    json_path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    md_path.write_text(coverage.to_markdown(), encoding="utf-8")
    return json_path, md_path
