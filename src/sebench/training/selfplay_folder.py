"""The folder of a self-play run: the settings it was made with, each round's record of its
stages, and the table's rows read back from those records.

`selfplay_config.json` holds the run's settings; a run with other settings is refused (or, forced,
takes the folder over: finished rounds kept, unfinished ones removed). `round-<r>/round.json`
holds the stages of round r as they finish (written whole, through a temporary file), so a killed
run knows where to continue.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError
from sebench.jsonl import write_json
from sebench.provenance import provenance

CONFIG_FILE = "selfplay_config.json"
ROUND_FILE = "round.json"
STAGES = ("tasks", "solutions", "train", "eval")  # in order; a round is done after the last


@dataclass(frozen=True)
class RoundRow:
    """One row of the self-play table: the model after round `round`, tested closed-book."""

    round: int
    model: str  # the checkpoint evaluated
    trained: bool
    note: str  # what the round did, or why it did not train
    tasks_requested: int | None
    tasks_kept: int | None
    answers_sampled: int | None
    answers_kept: int | None
    accuracy: float | None
    samples: int
    verdicts: dict[str, int]


def round_dir(out: str | Path, index: int) -> Path:
    return Path(out) / f"round-{index}"


# -- the settings a folder was made with ----------------------------------------------------------


def claim_folder(out: Path, settings: dict[str, Any], force: bool) -> None:
    """Refuse a folder made with other settings; `force` takes it over for the unfinished rounds."""
    path = out / CONFIG_FILE
    if path.is_file():
        saved = json.loads(path.read_text())
        if saved != settings:
            changed = sorted(_differences(saved, settings))
            if not force:
                raise SebenchError(
                    f"{out} holds a self-play run made with other settings (changed: "
                    f"{', '.join(changed)}); use another --out, or --force to keep its finished "
                    "rounds and run the rest with the new settings"
                )
            for folder in sorted(out.glob("round-*")):
                if not RoundState.open(folder, 0, out, {}).done:
                    # its partial files were made with the old settings
                    shutil.rmtree(folder)
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n")


def _differences(old: Any, new: Any, where: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        return [
            found
            for key in sorted(set(old) | set(new))
            for found in _differences(old.get(key), new.get(key), f"{where}.{key}".lstrip("."))
        ]
    return [] if old == new else [where or "settings"]


# -- one round's record -------------------------------------------------------------------------


@dataclass
class RoundState:
    path: Path
    index: int
    model_in: Path
    settings: dict[str, Any]
    stages: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def open(cls, folder: Path, index: int, model_in: Path, settings: dict[str, Any]) -> RoundState:
        state = cls(folder, index, model_in, settings)
        record = folder / ROUND_FILE
        if record.is_file():
            saved = json.loads(record.read_text())
            state.stages = saved.get("stages", {})
            state.model_in = Path(saved.get("model_in", model_in))
        return state

    @property
    def done(self) -> bool:
        return STAGES[-1] in self.stages

    @property
    def last(self) -> str:
        return next(reversed(self.stages), "")

    def finish(self, stage: str, facts: dict[str, Any]) -> None:
        self.stages[stage] = facts
        self.path.mkdir(parents=True, exist_ok=True)
        record = {
            "round": self.index,
            "model_in": str(self.model_in),
            "stages": self.stages,
            "settings": self.settings,
            "provenance": provenance(),
        }
        write_json(self.path / ROUND_FILE, record)


def row_of(state: RoundState) -> RoundRow:
    stages = state.stages
    tasks = stages.get("tasks", {})
    solutions = stages.get("solutions", {})
    train = stages.get("train", {})
    evaluation = stages.get("eval", {})
    note = train.get("note", "")
    if "carried_from" in evaluation:
        note += f"; the model of round {evaluation['carried_from']}"
    return RoundRow(
        round=state.index,
        model=evaluation.get("model", str(state.model_in)),
        trained=bool(train.get("trained")),
        note=note,
        tasks_requested=tasks.get("requested"),
        tasks_kept=tasks.get("kept"),
        answers_sampled=solutions.get("sampled"),
        answers_kept=solutions.get("kept"),
        accuracy=evaluation.get("accuracy"),
        samples=evaluation.get("samples", 0),
        verdicts=evaluation.get("verdicts", {}),
    )
