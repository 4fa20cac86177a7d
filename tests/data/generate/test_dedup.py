"""Near-duplicates: the same program under other names is caught, a real variation is not."""

from __future__ import annotations

from sebench.data.generate.dedup import (
    DUPLICATE_DISTANCE,
    duplicate_of,
    fingerprint,
    normalised_tokens,
    token_distance,
)

BASE = "import numpy as np\n\ndef solve(values):\n    data = np.array(values)\n    return float(np.mean(data))\n"
RENAMED = (
    "import numpy as np\n\n\ndef solve(readings):\n"
    '    """The mean."""\n'
    "    arr = np.array(readings)  # as an array\n"
    "    return float(np.mean(arr))\n"
)


def _distance(a: str, b: str) -> float:
    return token_distance(normalised_tokens(a), normalised_tokens(b))


def test_renamed_variables_docstrings_and_comments_give_distance_zero() -> None:
    assert _distance(BASE, RENAMED) == 0.0


def test_an_added_axis_is_a_different_task() -> None:
    with_axis = BASE.replace("np.mean(data)", "np.mean(data, axis=0)")
    assert _distance(BASE, with_axis) > DUPLICATE_DISTANCE


def test_another_numpy_function_is_never_a_duplicate() -> None:
    median = BASE.replace("mean", "median")
    kept = [fingerprint("a", BASE, ["mean", "array"])]
    assert duplicate_of(fingerprint("b", median, ["median", "array"]), kept) is None
    assert duplicate_of(fingerprint("c", RENAMED, ["array", "mean"]), kept) == ("a", 0.0)


def test_token_distance_is_normalised_by_the_longer_list() -> None:
    assert token_distance(["a", "b", "c", "d"], ["a", "b"]) == 0.5
    assert token_distance([], []) == 0.0
