from math import comb

import pytest

from sebench.grading.metrics import Graded, bootstrap_interval, breakdown, pass_at_k, score
from sebench.grading.verdicts import OfficialCategory, VerdictKind

C, W = VerdictKind.CORRECT, VerdictKind.WRONG_ANSWER


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(5, 1, 1) == pytest.approx(0.2)
    assert pass_at_k(10, 3, 4) == pytest.approx(1 - comb(7, 4) / comb(10, 4))
    assert pass_at_k(4, 2, 3) == 1.0  # n - c < k: some correct sample is always drawn


def test_score_counts_every_sample_including_infra_errors():
    samples = [
        Graded("a", 0, C),
        Graded("a", 1, W),
        Graded("b", 0, VerdictKind.INFRA_ERROR),
        Graded("b", 1, C),
    ]
    result = score(samples)
    assert result["samples"] == 4 and result["tasks"] == 2
    assert result["accuracy"] == 0.5
    assert result["verdicts"]["infra_error"] == 1
    assert result["official"]["exe_error"] == 0.25
    assert sum(result["official"].values()) == pytest.approx(1.0)
    assert result["pass_at_k"] == {"1": 0.5, "2": 1.0}
    assert result["mean_accuracy_over_samples"] == 0.5


def test_pass_at_k_goes_up_to_the_smallest_sample_count():
    samples = [Graded("a", i, C) for i in range(3)] + [Graded("b", i, W) for i in range(5)]
    assert set(score(samples)["pass_at_k"]) == {"1", "2", "3"}


def test_mean_accuracy_over_samples_averages_each_rollout():
    samples = [Graded("a", 0, C), Graded("b", 0, C), Graded("a", 1, W), Graded("b", 1, C)]
    result = score(samples)
    assert result["accuracy_per_sample"] == {"0": 1.0, "1": 0.5}
    assert result["mean_accuracy_over_samples"] == 0.75


def test_bootstrap_interval_contains_the_estimate_and_is_reproducible():
    per_task = [(1, 1)] * 30 + [(1, 0)] * 70
    low, high = bootstrap_interval(per_task)
    assert low < 0.3 < high and high - low < 0.25
    assert bootstrap_interval(per_task) == (low, high)
    assert bootstrap_interval([(4, 4)] * 10) == (1.0, 1.0)


def test_breakdown_by_split_and_by_function():
    samples = [
        Graded("a", 0, C, "single_test", ("zwc.kocito",)),
        Graded("b", 0, W, "multiple_test", ("zwc.kocito", "zwc.rfx.quvohe")),
    ]
    by_split = breakdown(samples, "split")
    assert by_split["single_test"]["accuracy"] == 1.0
    assert by_split["multiple_test"]["accuracy"] == 0.0
    by_function = breakdown(samples, "function")
    assert by_function["zwc.kocito"]["samples"] == 2
    assert by_function["zwc.rfx.quvohe"]["accuracy"] == 0.0


def test_score_uses_each_rows_official_category_not_the_kinds_default():
    numpy_without_call = Graded(
        "a", 0, VerdictKind.USES_NUMPY, official=OfficialCategory.WITHOUT_ZWC
    )
    result = score([numpy_without_call, Graded("a", 1, VerdictKind.USES_NUMPY)], bootstrap=False)
    assert result["verdicts"]["uses_numpy"] == 2
    assert result["official"]["without_zwc"] == 0.5 and result["official"]["numpy"] == 0.5


def test_breakdown_by_mode():
    samples = [Graded("a", 0, C, mode="closed"), Graded("a", 0, W, mode="open")]
    groups = breakdown(samples, "mode")
    assert groups["closed"]["accuracy"] == 1.0 and groups["open"]["accuracy"] == 0.0


def test_bootstrap_interval_does_not_depend_on_row_order():
    # a resumed run appends results in another order than a run in one go: same interval
    import random

    samples = [
        Graded(f"t{t}", s, C if s < (t * 37) % 6 else W) for t in range(200) for s in range(5)
    ]
    shuffled = list(samples)
    random.Random(1).shuffle(shuffled)
    assert score(shuffled)["accuracy_ci95"] == score(samples)["accuracy_ci95"]
    per_task = [(5, (t * 37) % 6) for t in range(200)]
    assert bootstrap_interval(per_task[::-1]) == bootstrap_interval(per_task)
