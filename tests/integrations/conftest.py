"""Fixtures for the engine integrations: the official library, dev tasks, one warm grader, and
a pool of responses whose verdicts vary (correct, wrong, NumPy, no library, no code, ...)."""

from __future__ import annotations

import pytest

from sebench.data.translate import to_library
from tests.fixtures_library import official_library  # noqa: F401  (a session fixture)
from tests.grading.conftest import dev_tasks, fenced, grader  # noqa: F401  (session fixtures)

SHIFT = "compress_data_chunks"  # dev row 0: left shifts (see tests/grading/test_grader.py)
PROMPT = "<|im_start|>user\nSolve the task.<|im_end|>\n<|im_start|>assistant\n"
END = "<|im_end|>"  # OpenRLHF decodes with skip_special_tokens=False: the EOS stays in the query


@pytest.fixture(scope="session")
def shift_task(dev_tasks):  # noqa: F811
    return next(t for t in dev_tasks if t.entry_point == SHIFT)


@pytest.fixture(scope="session")
def names(official_library):  # noqa: F811
    return official_library.table.numpy_to_library()


@pytest.fixture(scope="session")
def response_pool(dev_tasks, official_library, shift_task, names):  # noqa: F811
    """(task, response) pairs: translated references (mostly correct), the NumPy originals
    (uses_numpy), plain text (no_code), and for the shift task a wrong answer and a plain-Python
    answer (no_library)."""
    pool = []
    for task in [t for t in dev_tasks if t.numpy_reference][:6]:
        translation = to_library(task.numpy_reference, official_library.table)
        if translation.ok:
            pool.append((task, fenced(translation.code)))
        pool.append((task, fenced(task.numpy_reference)))
        pool.append((task, "I do not know this library."))
    header = f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
    pool.append(
        (
            shift_task,
            fenced(
                header
                + f"    return {names['bitwise_left_shift']}(data_chunks, encoding_shifts) + 1\n"
            ),
        )
    )
    pool.append(
        (
            shift_task,
            fenced(header + "    return [c << s for c, s in zip(data_chunks, encoding_shifts)]\n"),
        )
    )
    return pool


def slow_response(names) -> str:
    """Calls the library, then loops until the sandbox's timeout."""
    return fenced(
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    {names['mean']}(data_chunks)\n    while True:\n        pass\n"
    )
