"""A run folder as a report reads it: the manifest, and each arm's summary, results and log.

The input contract (docs/reports.md) is what `sebench experiment run` writes: `manifest.json`
naming, per arm, the results and summary `sebench eval` wrote and the training folder, all
relative to the run folder. An arm whose files are missing or unreadable is kept, marked with the
reason, so that a report of a half-finished run shows what is missing instead of failing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.jsonl import iter_jsonl

MANIFEST = "manifest.json"
SCHEMA = 1
# The paper's rows in its order: the reference rows (bounds) first, then the regimes.
BOUNDS = ("with-docs", "numpy-form", "no-docs")
REGIMES = (
    *BOUNDS,
    "open-sft",
    "closed-sft",
    "open-rl",
    "closed-rl",
    "sft-rl",
    "self-play",
    "memory",
)
SPLITS = ("single", "multiple")
SFT_RECORD = "sebench_sft.json"  # `train sft` keeps its losses there, not in a JSONL log


@dataclass(frozen=True)
class TrainingLog:
    """Per-step curves of one training folder; a curve is empty when the log has no such field."""

    kind: str  # "grpo" (a step log JSONL) or "sft" (the losses of sebench_sft.json)
    steps: list[int]
    loss: list[float | None]
    reward: list[float | None] = field(default_factory=list)
    zero_spread: list[float | None] = field(default_factory=list)


@dataclass(frozen=True)
class Arm:
    """One (regime, seed, split) of a run, with what its files hold."""

    regime: str
    seed: int | None
    split: str
    status: str  # the manifest's: done, failed, pending
    summary: dict[str, Any] | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    responses: dict[int, dict[str, Any]] = field(default_factory=dict)  # by source line
    training: TrainingLog | None = None
    problems: list[str] = field(default_factory=list)  # why something is missing

    @property
    def label(self) -> str:
        seed = f" seed {self.seed}" if self.seed is not None else ""
        return f"{self.regime} / {self.split}{seed}"

    @property
    def usable(self) -> bool:
        """Done, with a summary to score it by."""
        return self.status == "done" and self.summary is not None

    @property
    def accuracy(self) -> float | None:
        """The paper's number: the mean over rollouts of each rollout's accuracy."""
        if not self.usable:
            return None
        assert self.summary is not None
        value = self.summary.get("mean_accuracy_over_samples", self.summary.get("accuracy"))
        return float(value) if isinstance(value, int | float) else None


@dataclass(frozen=True)
class Run:
    root: Path
    name: str
    model: str
    library: dict[str, Any]
    expected: dict[str, dict[str, float | None]]
    arms: list[Arm]

    def regimes(self) -> list[str]:
        """The regimes of this run, in the paper's order, unknown ones after."""
        named = {arm.regime for arm in self.arms} | set(self.expected)
        return [r for r in REGIMES if r in named] + sorted(named - set(REGIMES))

    def splits(self) -> list[str]:
        named = {arm.split for arm in self.arms}
        return [s for s in SPLITS if s in named or any(s in e for e in self.expected.values())] + [
            s for s in sorted(named) if s not in SPLITS
        ]


def load_run(run_dir: str | Path) -> Run:
    """Read a run folder; a missing or malformed manifest is a user error, a missing arm file is
    noted on the arm."""
    root = Path(run_dir)
    path = root / MANIFEST
    if not path.is_file():
        raise SebenchError(
            f"{path}: no such file (a run folder written by `sebench experiment run` has one)"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SebenchError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA:
        raise SebenchError(f'{path}: expected a manifest with "schema": {SCHEMA}')
    arms = manifest.get("arms")
    if not isinstance(arms, list):
        raise SebenchError(f"{path}: field 'arms' must be a list")
    return Run(
        root=root,
        name=str(manifest.get("name") or root.name),
        model=str(manifest.get("model") or "?"),
        library=manifest.get("library") if isinstance(manifest.get("library"), dict) else {},
        expected=_expected(manifest.get("expected")),
        arms=[_load_arm(root, entry, index) for index, entry in enumerate(arms)],
    )


def _expected(value: Any) -> dict[str, dict[str, float | None]]:
    if not isinstance(value, dict):
        return {}
    return {
        str(regime): {
            str(split): (float(v) if isinstance(v, int | float) else None)
            for split, v in cells.items()
        }
        for regime, cells in value.items()
        if isinstance(cells, dict)
    }


def _load_arm(root: Path, entry: Any, index: int) -> Arm:
    if not isinstance(entry, dict):
        return Arm(f"arm {index}", None, "?", "failed", problems=["not an object in the manifest"])
    seed = entry.get("seed")
    arm = Arm(
        regime=str(entry.get("regime") or f"arm {index}"),
        seed=seed if isinstance(seed, int) else None,
        split=str(entry.get("split") or "?"),
        status=str(entry.get("status") or "pending"),
    )
    if arm.status != "done":
        return arm
    problems: list[str] = []
    summary = _read_json(root, entry.get("summary"), "summary", problems)
    results = _latest(_read_rows(root, entry.get("results"), "results", problems))
    responses = _responses(root, summary, problems) if results else {}
    training = None
    if entry.get("train_dir"):
        training = read_training_log(root / str(entry["train_dir"]))
        if training is None:
            problems.append(f"train_dir {entry['train_dir']}: no training log")
    return Arm(
        arm.regime,
        arm.seed,
        arm.split,
        arm.status,
        summary=summary,
        results=results,
        responses=responses,
        training=training,
        problems=problems,
    )


def _read_json(root: Path, name: Any, what: str, problems: list[str]) -> dict[str, Any] | None:
    if not name:
        problems.append(f"no {what} in the manifest")
        return None
    path = root / str(name)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        problems.append(f"{what} {name}: no such file")
        return None
    except (OSError, ValueError) as exc:
        problems.append(f"{what} {name}: unreadable ({exc})")
        return None
    return data if isinstance(data, dict) else None


def _latest(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A results file's rows, a sample graded again (its response, task or settings changed,
    `sebench eval` on the same file) by its last row only."""
    latest: dict[Any, dict[str, Any]] = {}
    for row in rows:
        if "error" in row:
            latest[("!bad-row", row.get("source_line"))] = row
        else:
            latest[(row.get("task_id"), row.get("mode"), row.get("sample"))] = row
    return list(latest.values())


def _read_rows(root: Path, name: Any, what: str, problems: list[str]) -> list[dict[str, Any]]:
    if not name:
        problems.append(f"no {what} in the manifest")
        return []
    try:
        return [row for _, row in iter_jsonl(root / str(name))]
    except SebenchError as exc:
        problems.append(f"{what}: {exc}")
        return []


def _responses(
    root: Path, summary: dict[str, Any] | None, problems: list[str]
) -> dict[int, dict[str, Any]]:
    """The graded responses file, by line, found through the summary's provenance (results rows
    keep only the verdict and the response's line number, not the response itself)."""
    named = ((summary or {}).get("provenance") or {}).get("responses")
    if not named:
        return {}
    for path in (root / named, Path(named)):
        if path.is_file():
            try:
                return dict(iter_jsonl(path))
            except SebenchError as exc:
                problems.append(f"responses: {exc}")
                return {}
    problems.append(f"responses {named}: no such file (the failure browser shows no text)")
    return {}


def read_training_log(folder: Path) -> TrainingLog | None:
    """The step curves of a `train grpo` folder (its `*_log.jsonl`) or a `train sft` folder (the
    losses in sebench_sft.json); None when there is neither."""
    for path in sorted(folder.glob("*log*.jsonl")):
        try:
            rows = [row for _, row in iter_jsonl(path) if isinstance(row.get("step"), int)]
        except SebenchError:
            continue
        if rows:
            return TrainingLog(
                kind="grpo" if any("reward_mean" in r for r in rows) else "log",
                steps=[r["step"] for r in rows],
                loss=[_number(r.get("loss")) for r in rows],
                reward=[_number(r.get("reward_mean")) for r in rows],
                zero_spread=[_number(r.get("frac_zero_spread")) for r in rows],
            )
    record = folder / SFT_RECORD
    if record.is_file():
        try:
            losses = json.loads(record.read_text(encoding="utf-8")).get("losses") or []
        except (OSError, ValueError, AttributeError):
            return None
        if losses:
            return TrainingLog(
                kind="sft",
                steps=list(range(1, len(losses) + 1)),
                loss=[_number(x) for x in losses],
            )
    return None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
