"""Which prompt a model gets: the four conditions of the paper's design table, and the memory
baseline."""

from __future__ import annotations

from enum import StrEnum


class PromptMode(StrEnum):
    # The test condition: the task alone; the model must know the library from its weights.
    CLOSED = "closed"
    # The docs of the task's own selected functions come first (the paper's "with docs" arm).
    OPEN = "open"
    # The original task with NumPy: the upper bound (no new library to learn).
    NUMPY = "numpy"
    # Like OPEN, but the docs are the top-k retrieved from the whole API doc for the query,
    # so the model is not handed the right functions.
    OPEN_RETRIEVED = "open-retrieved"
    # The paper's memory baseline: insights about the library distilled from solved training
    # tasks (`sebench memory build`) come first, instead of docs.
    MEMORY = "memory"
