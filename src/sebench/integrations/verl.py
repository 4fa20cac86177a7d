"""sebench's grader as verl's `custom_reward_function`.

verl's documented signature (docs/preparation/reward_function.rst, "Customized"): a function of
`data_source, solution_str, ground_truth, extra_info=None` returning the score; its reward
managers also take a dict with a "score" key and log every other key per sample
(workers/reward_manager/naive.py), and `custom_reward_function.reward_kwargs` are merged into
each call's keyword arguments (trainer/ppo/reward.py, `get_custom_reward_fn`). verl 0.9's reward
loop calls the per-sample function from executor threads (experimental/reward_loop/
reward_manager/naive.py), so the calls of one process grade concurrently on its warm grader;
the batch reward manager of older verl (`reward_model.reward_manager=batch`) calls one function
with lists instead (`data_sources, solution_strs, ground_truths, extra_infos`):
`compute_score_batch`, which grades the whole batch concurrently.

    reward.custom_reward_function.path=pkg://sebench.integrations.verl   (or this file's path)
    reward.custom_reward_function.name=compute_score                     (or compute_score_batch)
    +reward.custom_reward_function.reward_kwargs.api_doc=/data/api_doc.jsonl   (or .lib=DIR)

`ground_truth` is the task's label (`sebench export verl` writes the whole task row, so no task
file is needed; a task id works too with `reward_kwargs.data=TASKS`). `solution_str` is the
response alone (verl decodes the response tokens apart from the prompt). The result is
`{"score": 1.0 | 0.0, "verdict/<kind>": 0|1 ..., "unscored": 0|1}`, the same numbers the reward
service sends OpenRLHF (`scores.py`). The grader is the process's warm one (`process_grader`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from sebench.integrations.labels import TaskLabels
from sebench.integrations.process_grader import GraderSettings, shared_grader
from sebench.integrations.scores import engine_reward, sample_logs
from sebench.training.rewards import ScoredBatch, score_batch

GROUND_TRUTH = "reward_model.ground_truth"


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """verl's per-sample reward: the grader's verdict on `solution_str` for the task named by
    `ground_truth`. `kwargs`: verl's `reward_kwargs` (lib, api_doc, workers, timeout, data);
    anything else verl passes is ignored."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], None, **kwargs)[0]


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[dict | None] | None = None,
    **kwargs: Any,
) -> list[dict[str, float]]:
    """verl's batch reward (`reward_manager.name=batch`): one dict per sample, in order, the
    batch graded concurrently in the warm pool."""
    grader = shared_grader(_settings(kwargs))
    labels = _labels(_data_sources(kwargs.get("data")))
    tasks = [
        labels.resolve(truth, where=f"{GROUND_TRUTH}[{index}]")
        for index, truth in enumerate(ground_truths)
    ]
    scored = score_batch(grader, tasks, [str(text) for text in solution_strs])
    return [_result(scored, index) for index in range(len(tasks))]


def _result(scored: ScoredBatch, index: int) -> dict[str, float]:
    reward = scored.rewards[index]
    return {"score": engine_reward(reward), **sample_logs(scored.verdicts[index], reward)}


def _settings(kwargs: dict[str, Any]) -> GraderSettings:
    defaults = GraderSettings()
    return GraderSettings(
        lib=_optional_str(kwargs.get("lib")),
        api_doc=_optional_str(kwargs.get("api_doc")),
        workers=int(kwargs.get("workers", defaults.workers)),
        timeout=float(kwargs.get("timeout", defaults.timeout)),
    )


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _data_sources(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


@lru_cache(maxsize=4)
def _labels(data: tuple[str, ...]) -> TaskLabels:
    """Task ids resolve against these files, loaded once per process."""
    hint = "set custom_reward_function.reward_kwargs.data=TASKS, or export the whole task rows"
    if not data:
        return TaskLabels(load_hint=hint)
    from sebench.grading.responses import load_tasks

    return TaskLabels(load_tasks(data), load_hint=hint)
