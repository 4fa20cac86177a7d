"""The regimes of the paper's table: how each one's model is made and how it is tested.

One row per regime. A regime is tested on the closed-book prompt unless it is a reference row
(with docs, NumPy form); its model is the base model, or the output of a training kind
(`TrainKind`) that starts from the base model or from another regime's trained model (`init`).
Adding a regime is one row here plus, for a new training kind,
one step function in `sebench.experiments.steps` (its `TRAINERS` table).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class TrainKind(StrEnum):
    SFT = "sft"  # sebench.training.sft
    GRPO = "grpo"  # sebench.training.grpo
    SELF_PLAY = "self-play"  # sebench.training.selfplay (Closed-SFT on its own answers)
    # insights the base model distils from its solved training tasks (sebench.training.insights)
    MEMORY = "memory"


@dataclass(frozen=True)
class Regime:
    name: str  # the run-folder contract's regime name
    test_mode: str  # the prompt mode at test time (`sebench.prompts.modes.PromptMode` values)
    train: TrainKind | None = None  # None: the base model is tested as it is
    arm: str | None = None  # which prompt training sees: "open" (with docs) or "closed"
    init: str | None = None  # the regime whose trained model this one starts from
    unavailable: str | None = None  # why it cannot run in this version (None: it can)


NOT_IN_THIS_VERSION = "not available in this version"

REGIMES: dict[str, Regime] = {
    regime.name: regime
    for regime in (
        Regime("with-docs", "open"),
        Regime("numpy-form", "numpy"),
        Regime("no-docs", "closed"),
        Regime("open-sft", "closed", TrainKind.SFT, "open"),
        Regime("closed-sft", "closed", TrainKind.SFT, "closed"),
        Regime("open-rl", "closed", TrainKind.GRPO, "open"),
        Regime("closed-rl", "closed", TrainKind.GRPO, "closed"),
        Regime("sft-rl", "closed", TrainKind.GRPO, "closed", init="closed-sft"),
        Regime("self-play", "closed", TrainKind.SELF_PLAY, "closed"),
        Regime("memory", "memory", TrainKind.MEMORY),  # the base model, shown its insights
    )
}


def lineage(name: str) -> list[Regime]:
    """The regimes whose training this one needs, in training order, itself last
    (sft-rl: closed-sft, then sft-rl)."""
    chain = [REGIMES[name]]
    while chain[0].init is not None:
        chain.insert(0, REGIMES[chain[0].init])
    return chain
