"""The RL reward: sebench's grader, the same verdicts `sebench eval` gives.

1.0 for `correct`, 0.0 for every other verdict, except `infra_error` (the grader itself failed):
that sample is graded once more, and if it fails again its reward is None, which TRL turns into
NaN, leaves out of the group's baseline and gives a zero advantage (`GRPOTrainer`, "unscorable
completions"). So a broken sandbox never passes for a wrong answer; the count of such samples is
kept apart (`RewardStats.unscored`).

Every verdict is counted, so a run that learns to game the grader shows it in the per-step log:
`no_library`, `policy` and `uses_numpy` are the kinds that reveal reward hacking.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sebench.data.schema import Task
from sebench.errors import SebenchError
from sebench.grading.grader import Grader
from sebench.grading.verdicts import Verdict, VerdictKind

# The verdict kinds that a policy gaming the grader would produce more of.
HACKING_SIGNALS = (VerdictKind.NO_LIBRARY, VerdictKind.POLICY, VerdictKind.USES_NUMPY)
SAMPLE_CHARS = 600  # how much of a completion the per-step log keeps


@dataclass(frozen=True)
class GradedSample:
    task_id: str
    verdict: VerdictKind
    reward: float | None
    completion: str


@dataclass
class RewardStats:
    """What the reward saw since it was last drained: one entry of the per-step log."""

    verdicts: Counter = field(default_factory=Counter)  # VerdictKind value -> count
    retried: int = 0  # infra errors graded a second time
    unscored: int = 0  # infra errors twice: reward None, left out of the update
    seconds: float = 0.0  # spent grading
    samples: list[GradedSample] = field(default_factory=list)

    @property
    def graded(self) -> int:
        return sum(self.verdicts.values())


def reward_of(verdict: Verdict) -> float | None:
    """The reward of one verdict; None when the grader failed (never a silent 0)."""
    if verdict.kind is VerdictKind.INFRA_ERROR:
        return None
    return 1.0 if verdict.kind is VerdictKind.CORRECT else 0.0


def completion_text(completion: Any) -> str:
    """TRL passes a conversational completion as `[{"role": "assistant", "content": ...}]`,
    where the content is text or, in the multimodal message format, a list of parts
    (`{"type": "text", "text": ...}`); only text parts are the answer."""
    if isinstance(completion, str):
        return completion
    return "".join(_content_text(message.get("content")) for message in completion)


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(
            str(part.get("text") or "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return str(content or "")


@dataclass(frozen=True)
class ScoredBatch:
    """One batch through the grader: verdicts and rewards in input order."""

    verdicts: list[Verdict]
    rewards: list[float | None]
    retried: int  # infra errors graded a second time


def score_batch(grader: Grader, tasks: Sequence[Task], texts: Sequence[str]) -> ScoredBatch:
    """Grade `texts` against `tasks` concurrently in the grader's warm pool; an `infra_error` is
    graded once more, and its reward is None if it fails again (`reward_of`). The one path from
    responses to rewards: TRL's reward here, the reward service and verl's `compute_score`."""
    verdicts = _grade_in_order(grader, tasks, texts)
    retried = [i for i, v in enumerate(verdicts) if v.kind is VerdictKind.INFRA_ERROR]
    if retried:
        again = _grade_in_order(grader, [tasks[i] for i in retried], [texts[i] for i in retried])
        for index, verdict in zip(retried, again, strict=True):
            verdicts[index] = verdict
    return ScoredBatch(verdicts, [reward_of(v) for v in verdicts], len(retried))


def _grade_in_order(grader: Grader, tasks: Sequence[Task], texts: Sequence[str]) -> list[Verdict]:
    """Verdicts in input order (`grade_many` yields them as they finish)."""
    found: dict[int, Verdict] = {}
    items = [
        (task, text, index) for index, (task, text) in enumerate(zip(tasks, texts, strict=True))
    ]
    for item, verdict in grader.grade_many(items):
        found[item[2]] = verdict
    return [found[i] for i in range(len(texts))]


class SebenchReward:
    """A TRL reward function: `reward(prompts, completions, task_id=[...], **kwargs)`.

    The dataset's `task_id` column names each completion's task; the batch is graded
    concurrently in the grader's warm sandbox pool (`Grader.grade_many`). The grader is started
    by its owner and outlives this object.
    """

    __name__ = "grader"  # TRL's name for the reward in its logs: `rewards/grader/mean`

    def __init__(self, grader: Grader, tasks: Mapping[str, Task], samples_kept: int = 2) -> None:
        self.grader = grader
        self.tasks = dict(tasks)
        self.samples_kept = samples_kept
        self._stats = RewardStats()
        self._lock = threading.Lock()

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        task_id: Sequence[str] | None = None,
        **_: Any,
    ) -> list[float | None]:
        if task_id is None:
            raise SebenchError("the reward needs a `task_id` column in the training dataset")
        started = time.perf_counter()
        texts = [completion_text(c) for c in completions]
        tasks = [self._task(name) for name in task_id]
        scored = score_batch(self.grader, tasks, texts)
        verdicts, rewards = scored.verdicts, scored.rewards
        with self._lock:
            stats = self._stats
            stats.verdicts.update(v.kind.value for v in verdicts)
            stats.retried += scored.retried
            stats.unscored += sum(r is None for r in rewards)
            stats.seconds += time.perf_counter() - started
            for index in range(min(self.samples_kept, len(texts))):
                stats.samples.append(
                    GradedSample(
                        task_id=tasks[index].task_id,
                        verdict=verdicts[index].kind,
                        reward=rewards[index],
                        completion=texts[index][:SAMPLE_CHARS],
                    )
                )
        return rewards

    def drain(self) -> RewardStats:
        """The stats since the last call, and a fresh count from here on."""
        with self._lock:
            stats, self._stats = self._stats, RewardStats()
        return stats

    def _task(self, name: str) -> Task:
        try:
            return self.tasks[name]
        except KeyError:
            raise SebenchError(f"reward: unknown task_id {name!r}") from None
