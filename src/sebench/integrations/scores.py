"""What an RL engine receives for a graded batch: a float per sample and numeric per-sample logs.

The rewards themselves come from `sebench.training.rewards` (`score_batch`, `reward_of`): 1.0
for `correct`, 0.0 for every other verdict, None when the grader failed twice. TRL has a value
for "no reward" (None becomes NaN and is left out of the update); OpenRLHF's and verl's reward
tensors do not: a JSON null or a None would stop the trainer. So an unscored sample is sent as
0.0 and flagged, per sample, in `unscored` (1.0), which both engines log; the service also
counts it (`/health`). A run where `unscored` is not ~0 has a broken sandbox, not a weak policy.

The per-sample logs are one 0/1 column per verdict kind (their mean in the engine's log is the
fraction of that verdict, so `no_library`, `policy` and `uses_numpy`, the kinds reward hacking
produces, show in the training curves) plus `unscored`. Every batch carries every key: verl
appends each key's values per sample and OpenRLHF concatenates them across batches.
"""

from __future__ import annotations

from collections.abc import Sequence

from sebench.grading.verdicts import Verdict, VerdictKind
from sebench.training.rewards import ScoredBatch

UNSCORED = "unscored"
LOG_KEYS = (*(f"verdict/{kind.value}" for kind in VerdictKind), UNSCORED)


def engine_reward(reward: float | None) -> float:
    """The float an engine gets: `reward_of`'s value, 0.0 for an unscored sample (flagged)."""
    return 0.0 if reward is None else float(reward)


def sample_logs(verdict: Verdict, reward: float | None) -> dict[str, float]:
    """One sample's numeric logs: a 0/1 per verdict kind, and `unscored`."""
    logs = {f"verdict/{kind.value}": float(verdict.kind is kind) for kind in VerdictKind}
    logs[UNSCORED] = float(reward is None)
    return logs


def batch_logs(scored: ScoredBatch) -> dict[str, list[float]]:
    """The batch's logs, column by column, one value per sample in input order."""
    rows = [sample_logs(v, r) for v, r in zip(scored.verdicts, scored.rewards, strict=True)]
    return {key: [row[key] for row in rows] for key in LOG_KEYS}


def engine_rewards(scored: ScoredBatch) -> list[float]:
    return [engine_reward(r) for r in scored.rewards]


def verdict_names(verdicts: Sequence[Verdict]) -> list[str]:
    return [v.kind.value for v in verdicts]
