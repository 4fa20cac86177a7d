"""Scores over graded samples: accuracy, unbiased pass@k, per split and per library function.

Every sample counts, whatever its verdict (infra errors included): the denominator is all
samples, as in the paper's fractions, never the ones that happened to run.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb

from sebench.grading.verdicts import OFFICIAL_CATEGORY, OfficialCategory, VerdictKind

BOOTSTRAP_RESAMPLES = 1000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Graded:
    """One graded sample, as metrics see it."""

    task_id: str
    sample: int
    kind: VerdictKind
    split: str | None = None
    functions: tuple[str, ...] = ()  # the task's library functions: "zwc.kocito"
    official: OfficialCategory | None = None  # the row's official category; None: the kind's
    mode: str | None = None  # the prompt mode of the rollout ("closed", "open"), when known

    @property
    def correct(self) -> bool:
        return self.kind is VerdictKind.CORRECT

    @property
    def official_category(self) -> OfficialCategory:
        # a verdict may differ from its kind's default (NumPy code without a library call)
        return OfficialCategory(self.official) if self.official else OFFICIAL_CATEGORY[self.kind]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task with n samples, c of them correct (Chen et al. 2021)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_at_k_table(per_task: dict[str, tuple[int, int]]) -> dict[int, float]:
    """Mean pass@k over tasks, for every k up to the smallest number of samples of any task."""
    if not per_task:
        return {}
    n_min = min(n for n, _ in per_task.values())
    return {
        k: sum(pass_at_k(n, c, k) for n, c in per_task.values()) / len(per_task)
        for k in range(1, n_min + 1)
    }


def bootstrap_interval(
    per_task: Sequence[tuple[int, int]],
    resamples: int = BOOTSTRAP_RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval for accuracy, resampling tasks (samples of one task are not
    independent), with a fixed seed so the same results give the same interval. The tasks are
    sorted first: the interval is a function of the results, not of their order (a resumed run
    appends them in another order than a run in one go)."""
    if not per_task:
        return (0.0, 0.0)
    per_task = sorted(per_task)
    rng = random.Random(seed)
    count = len(per_task)
    estimates = []
    for _ in range(resamples):
        n_total = c_total = 0
        for _ in range(count):
            n, c = per_task[rng.randrange(count)]
            n_total += n
            c_total += c
        estimates.append(c_total / n_total if n_total else 0.0)
    estimates.sort()
    tail = (1.0 - confidence) / 2
    low = estimates[int(tail * (resamples - 1))]
    high = estimates[int(round((1.0 - tail) * (resamples - 1)))]
    return (low, high)


def score(samples: Iterable[Graded], bootstrap: bool = True) -> dict:
    """The score block of a summary: counts, accuracy (+ CI), official fractions, pass@k."""
    samples = list(samples)
    total = len(samples)
    verdicts = Counter(s.kind.value for s in samples)
    official = Counter(s.official_category.value for s in samples)
    per_task: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_sample_index: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for s in samples:
        per_task[s.task_id][0] += 1
        per_task[s.task_id][1] += s.correct
        by_sample_index[s.sample][0] += 1
        by_sample_index[s.sample][1] += s.correct
    correct = verdicts.get(VerdictKind.CORRECT.value, 0)
    block: dict = {
        "samples": total,
        "tasks": len(per_task),
        "correct": correct,
        "accuracy": correct / total if total else 0.0,
    }
    if bootstrap:
        low, high = bootstrap_interval([tuple(v) for v in per_task.values()])
        block["accuracy_ci95"] = [low, high]
    per_index = {i: c / n for i, (n, c) in sorted(by_sample_index.items())}
    # The paper's main table: the mean over rollouts of each rollout's accuracy.
    block["mean_accuracy_over_samples"] = (
        sum(per_index.values()) / len(per_index) if per_index else 0.0
    )
    block["accuracy_per_sample"] = {str(i): a for i, a in per_index.items()}
    block["verdicts"] = {kind.value: verdicts.get(kind.value, 0) for kind in VerdictKind}
    block["official"] = {
        cat.value: (official.get(cat.value, 0) / total if total else 0.0)
        for cat in OfficialCategory
    }
    block["pass_at_k"] = {
        str(k): v for k, v in pass_at_k_table({t: (n, c) for t, (n, c) in per_task.items()}).items()
    }
    return block


def breakdown(samples: Iterable[Graded], key: str) -> dict[str, dict]:
    """`score` (without bootstrap) per split (`key="split"`), per prompt mode (`key="mode"`) or
    per library function (`key="function"`; a multi-function task counts for each of its
    functions)."""
    groups: dict[str, list[Graded]] = defaultdict(list)
    for s in samples:
        if key == "split":
            groups[s.split or "unknown"].append(s)
        elif key == "mode":
            groups[s.mode or "unknown"].append(s)
        elif key == "function":
            for name in s.functions or ("unknown",):
                groups[name].append(s)
        else:
            raise ValueError(f"unknown breakdown key {key!r}")
    return {
        name: {
            k: v
            for k, v in score(group, bootstrap=False).items()
            if k in ("samples", "tasks", "correct", "accuracy", "pass_at_k", "official")
        }
        for name, group in sorted(groups.items())
    }
