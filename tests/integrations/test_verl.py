"""verl's `custom_reward_function`: the documented signature, the grader's verdicts, one warm
grader per process, and loading by file path as verl's `load_module` does."""

from __future__ import annotations

import importlib.util
import inspect
from collections import defaultdict

import pytest

import sebench.integrations.verl as verl
from sebench.errors import SebenchError
from sebench.grading.verdicts import VerdictKind
from sebench.integrations.labels import task_label
from sebench.integrations.process_grader import (
    GraderSettings,
    close_shared_grader,
    shared_grader,
)

# What verl's reward managers pass besides the four documented arguments.
VERL_EXTRA_INFO = {"index": 0, "num_turns": None, "rollout_reward_scores": {}}


@pytest.fixture(scope="module")
def reward_kwargs(official_library):
    """verl's `custom_reward_function.reward_kwargs`, merged into every call."""
    yield {"lib": str(official_library.root), "workers": 2}
    close_shared_grader()


def test_compute_score_has_verls_documented_signatures():
    single = inspect.signature(verl.compute_score).parameters
    assert list(single)[:4] == ["data_source", "solution_str", "ground_truth", "extra_info"]
    assert single["extra_info"].default is None
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in single.values())
    batch = inspect.signature(verl.compute_score_batch).parameters  # reward_manager.name=batch
    assert list(batch)[:4] == ["data_sources", "solution_strs", "ground_truths", "extra_infos"]
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in batch.values())


def test_scores_are_the_graders_verdicts_with_the_same_keys_for_every_sample(
    grader, response_pool, reward_kwargs
):
    extra = defaultdict(list)  # what verl's NaiveRewardManager builds from the dicts
    kinds = []
    for task, response in response_pool:
        result = verl.compute_score(
            data_source="sebench/open",
            solution_str=response,
            ground_truth=task_label(task),
            extra_info=dict(VERL_EXTRA_INFO),
            reward_router_address=None,  # an argument newer verl passes: ignored
            **reward_kwargs,
        )
        expected = grader.grade(task, response).kind
        kinds.append(expected)
        assert isinstance(result["score"], float)
        assert result["score"] == (1.0 if expected is VerdictKind.CORRECT else 0.0)
        assert result[f"verdict/{expected.value}"] == 1.0 and result["unscored"] == 0.0
        for key, value in result.items():
            extra[key].append(value)
    assert VerdictKind.CORRECT in kinds and len(set(kinds)) >= 4
    assert {len(values) for values in extra.values()} == {len(response_pool)}


def test_the_batch_function_equals_the_per_sample_one(response_pool, reward_kwargs):
    pairs = response_pool[:8]
    batch = verl.compute_score_batch(
        data_sources=["sebench/closed"] * len(pairs),
        solution_strs=[response for _, response in pairs],
        ground_truths=[task_label(task) for task, _ in pairs],
        extra_infos=[dict(VERL_EXTRA_INFO) for _ in pairs],
        **reward_kwargs,
    )
    single = [
        verl.compute_score("sebench/closed", response, task_label(task), None, **reward_kwargs)
        for task, response in pairs
    ]
    assert batch == single


def test_one_warm_grader_per_process_and_other_settings_are_refused(reward_kwargs):
    settings = GraderSettings(lib=reward_kwargs["lib"], workers=2)
    assert shared_grader(settings) is shared_grader(settings)
    with pytest.raises(SebenchError, match="one process, one grader"):
        shared_grader(GraderSettings(lib=reward_kwargs["lib"], workers=1))


def test_a_task_id_as_ground_truth_resolves_with_the_task_file_only(
    shift_task, single_test_dev_path, reward_kwargs
):
    with pytest.raises(
        SebenchError, match="unknown task id .*none loaded: set .*reward_kwargs.data"
    ):
        verl.compute_score("sebench", "no code", shift_task.task_id, **reward_kwargs)
    result = verl.compute_score(
        "sebench", "no code", shift_task.task_id, data=str(single_test_dev_path), **reward_kwargs
    )
    assert result["score"] == 0.0 and result["verdict/no_code"] == 1.0


def test_loaded_from_its_file_path_as_verl_loads_a_custom_module(shift_task, reward_kwargs):
    spec = importlib.util.spec_from_file_location("custom_module_test", verl.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.compute_score("sebench", "no code", task_label(shift_task), **reward_kwargs)
    assert result["verdict/no_code"] == 1.0


def test_concurrent_calls_as_verls_reward_loop_makes_them_share_the_warm_grader(
    response_pool, reward_kwargs
):
    """verl 0.9 runs each per-sample call in an executor thread: many at once, one process."""
    from concurrent.futures import ThreadPoolExecutor

    def score(pair):
        task, response = pair
        return verl.compute_score("sebench", response, task_label(task), None, **reward_kwargs)

    sequential = [score(pair) for pair in response_pool]
    with ThreadPoolExecutor(8) as threads:
        assert list(threads.map(score, response_pool)) == sequential
