"""The programmatic task generator: tiny one-function problems for any library.

A task is a sentence frame, a phrase for the function's result and a context noun ("Given the
list of prices x, return their average."). Training uses 53 frames, eight phrases per function
and twelve nouns; the test uses two frames, two phrases per function and four nouns, none of them
seen in training, so a model that passes the test has learned the function's name, not a sentence. Parameter names
are random, and every expected result comes from running NumPy on the test inputs (the library's
arrays print exactly as NumPy's do). The answer to every task is the same two-call program:

    import zwc

    def solve(prices):
        return zwc.kocito(zwc.yitaf(prices))
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sebench.data.schema import Task, make_task_id
from sebench.errors import SebenchError

if TYPE_CHECKING:
    from sebench.library.table import NameTable

ENTRY_POINT = "solve"

# Sentence structures. Training frames combine an opening sentence that introduces the list with
# a request for the result, plus a few one-sentence forms: many frames, so that a model learns the
# function's phrase rather than one sentence. The two test frames (a question and a request in the
# first person) appear nowhere in training. `{result}` is one of the function's phrases.
_OPENINGS = (
    "Here {param} is a list of {noun}.",
    "The argument {param} holds {noun}.",
    "You receive {noun} as {param}.",
    "Suppose {param} contains some {noun}.",
    "Consider the {noun} kept in {param}.",
    "The input {param} is a list of {noun}.",
    "We have {noun} in {param}.",
)
_REQUESTS = (
    "Return {result}.",
    "Compute {result}.",
    "Find {result}.",
    "Write a function that returns {result}.",
    "The result should be {result}.",
    "Please return {result}.",
    "What is {result}?",
)
_ONE_SENTENCE = (
    "Given the list of {noun} {param}, return {result}.",
    "Take the {noun} in {param} and compute {result}.",
    "Write a function that receives {noun} as {param} and returns {result}.",
    "For the {noun} in {param}, find {result}.",
)
TRAIN_FRAMES = tuple(f"{o} {r}" for o in _OPENINGS for r in _REQUESTS) + _ONE_SENTENCE
TEST_FRAMES = (
    "I have some {noun} stored in {param}. Could you give me {result}?",
    "My {noun} are in {param}, and I need {result}.",
)
TRAIN_NOUNS = (
    "prices",
    "temperatures",
    "scores",
    "weights",
    "distances",
    "heights",
    "ages",
    "speeds",
    "salaries",
    "durations",
    "votes",
    "measurements",
)
TEST_NOUNS = ("rainfall amounts", "exam marks", "sensor readings", "daily step counts")

PARAMETER_NAMES = (
    "x",
    "xs",
    "values",
    "data",
    "nums",
    "arr",
    "items",
    "vals",
    "numbers",
    "seq",
    "lst",
    "a",
    "v",
    "series",
    "samples",
    "entries",
    "points",
    "inputs",
    "row",
    "q",
    "z",
    "w",
    "col",
    "obs",
)


@dataclass(frozen=True)
class FunctionSpec:
    """One library function the generator can ask for."""

    numpy_name: str
    summary: str  # the one-line doc shown in open-book prompts (short: the open arm trains on it)
    train_phrases: tuple[str, ...]  # ways to name the result in training prompts
    test_phrases: tuple[str, ...]  # held out: never in a training prompt
    values: str = "any"  # "any" | "positive" | "small": what inputs make sense


# Many training phrases per function: the model should learn the meaning, not five strings.
# The held-out phrases recombine words a pretrained model knows in ways training never shows.
FUNCTIONS: dict[str, FunctionSpec] = {
    spec.numpy_name: spec
    for spec in (
        FunctionSpec(
            "mean",
            "Arithmetic mean of an array.",
            (
                "their average",
                "the mean value",
                "the arithmetic mean",
                "the average value",
                "their mean",
                "the average",
                "the mean",
                "their arithmetic mean",
            ),
            ("the average of all of them", "the mean of the values"),
        ),
        FunctionSpec(
            "sum",
            "Sum of array elements.",
            (
                "their total",
                "the sum",
                "the sum of all elements",
                "the total value",
                "their sum",
                "the total",
                "the sum of the values",
                "the total of all values",
            ),
            ("the grand total", "everything added together"),
        ),
        FunctionSpec(
            "max",
            "Maximum of an array.",
            (
                "the largest one",
                "the maximum",
                "the biggest value",
                "the highest value",
                "their maximum",
                "the largest element",
                "the maximum value",
                "the highest one",
            ),
            ("the biggest of them", "the largest value"),
        ),
        FunctionSpec(
            "min",
            "Minimum of an array.",
            (
                "the smallest one",
                "the minimum",
                "the lowest value",
                "the least value",
                "their minimum",
                "the smallest element",
                "the minimum value",
                "the lowest one",
            ),
            ("the smallest of them", "the lowest number"),
        ),
        FunctionSpec(
            "sqrt",
            "Element-wise square root.",
            (
                "the square root of each",
                "their square roots",
                "the element-wise square root",
                "the square root of every element",
                "each value's square root",
                "the square roots",
                "the square root of each value",
                "their element-wise square roots",
            ),
            ("the square root of every entry", "all of their square roots"),
            "positive",
        ),
        FunctionSpec(
            "abs",
            "Element-wise absolute value.",
            (
                "the absolute value of each",
                "their absolute values",
                "the element-wise absolute value",
                "the magnitude of every element",
                "each value without its sign",
                "the absolute values",
                "the absolute value of each value",
                "their element-wise absolute values",
            ),
            ("the absolute value of every entry", "all of their absolute values"),
        ),
        FunctionSpec(
            "sort",
            "Sorted copy of an array.",
            (
                "them in ascending order",
                "a sorted copy",
                "the values sorted from low to high",
                "the sorted values",
                "them sorted",
                "a sorted version",
                "the values in sorted order",
                "them sorted in ascending order",
            ),
            ("them ordered from smallest to largest", "the values arranged in increasing order"),
        ),
        FunctionSpec(
            "cumsum",
            "Cumulative sum of the elements.",
            (
                "their running total",
                "the cumulative sum",
                "the cumulative sums",
                "the running sums",
                "the prefix sums",
                "the running totals",
                "the cumulative totals",
                "their cumulative sum",
            ),
            ("the cumulative running totals", "each partial sum in order"),
        ),
        FunctionSpec(
            "argmax",
            "Index of the maximum value.",
            (
                "the index of the largest one",
                "the position of the maximum",
                "the index of the biggest value",
                "the index of the highest value",
                "where the maximum is",
                "the index of the maximum",
                "the position of the largest one",
                "the index where the maximum sits",
            ),
            ("the index of the maximum entry", "the position of the top value"),
        ),
        FunctionSpec(
            "median",
            "Median of an array.",
            (
                "their median",
                "the median value",
                "the middle value",
                "the median",
                "the middle of the sorted values",
                "the median of the values",
                "their middle value",
                "the median element",
            ),
            ("the value in the middle", "the median of them"),
        ),
        FunctionSpec(
            "std",
            "Standard deviation of an array.",
            (
                "their standard deviation",
                "the standard deviation",
                "the spread as a standard deviation",
                "the population standard deviation",
                "how much they deviate (standard deviation)",
                "the standard deviation value",
                "their population standard deviation",
                "the std of the values",
            ),
            ("the standard deviation of the values", "their typical spread (standard deviation)"),
        ),
        FunctionSpec(
            "exp",
            "Element-wise exponential.",
            (
                "the exponential of each",
                "e raised to each value",
                "the element-wise exponential",
                "the exponential of every element",
                "their exponentials",
                "the exponentials",
                "the exponential of each value",
                "their element-wise exponentials",
            ),
            ("e to the power of every entry", "all of their exponentials"),
            "small",
        ),
    )
}
CONSTRUCTOR_SUMMARY = "Create an array."

DEMO_FUNCTIONS = ("mean", "sum", "max", "min", "sqrt", "abs")
TWELVE_FUNCTIONS = DEMO_FUNCTIONS + ("sort", "cumsum", "argmax", "median", "std", "exp")


@dataclass(frozen=True)
class TaskSetConfig:
    """What to generate. Defaults are the laptop demo (docs/demo.md)."""

    functions: tuple[str, ...] = DEMO_FUNCTIONS
    train_per_function: int = 64  # rows; the trainer cycles through them
    test_per_function: int = 8  # held-out frames x phrases x nouns, in turn
    cases_per_task: int = 3  # test inputs per task, all must pass
    seed: int = 0


@dataclass(frozen=True)
class TaskSet:
    train: tuple[Task, ...]
    test: tuple[Task, ...]
    config: TaskSetConfig


def function_names(table: NameTable, functions: tuple[str, ...]) -> dict[str, str]:
    """NumPy name -> qualified library name, failing clearly for names the library lacks."""
    mapping = table.numpy_to_library()
    missing = [name for name in functions if name not in mapping]
    if missing:
        raise SebenchError(f"the library has no function for NumPy name(s): {', '.join(missing)}")
    unknown = [name for name in functions if name not in FUNCTIONS]
    if unknown:
        raise SebenchError(
            f"the task generator has no templates for: {', '.join(unknown)}; "
            f"choose from {', '.join(FUNCTIONS)}"
        )
    return {name: mapping[name] for name in functions}


def target_code(package: str, qualified: str, constructor: str, param: str) -> str:
    """The answer program: convert the list, call the one function."""
    return f"import {package}\n\ndef {ENTRY_POINT}({param}):\n    return {qualified}({constructor}({param}))\n"


def one_line_doc(qualified: str, spec_summary: str, argument: str = "a") -> str:
    return f"{qualified}({argument}): {spec_summary}"


def _numbers(rng: random.Random, kind: str) -> list[int | float]:
    count = rng.randint(3, 6)
    if kind == "small":
        return [round(rng.uniform(-2, 2), 1) for _ in range(count)]
    low = 0 if kind == "positive" else -20
    if rng.random() < 0.5:
        return [rng.randint(low, 30) for _ in range(count)]
    return [round(rng.uniform(low, 30), 1) for _ in range(count)]


def _expected(numpy_name: str, values: list[int | float]) -> str:
    import numpy as np

    function: Callable[..., Any] = getattr(np, numpy_name)
    return str(function(np.array(values)))


def _task(
    split: str,
    table: NameTable,
    spec: FunctionSpec,
    qualified: str,
    frame: str,
    phrase: str,
    noun: str,
    rng: random.Random,
    cases: int,
) -> Task:
    param = rng.choice(PARAMETER_NAMES)
    sentence = frame.format(noun=noun, param=param, result=phrase)
    query = f"{sentence} Use the {table.package} library."
    signature = f"def {ENTRY_POINT}({param}):"
    inputs, expected = [], []
    for _ in range(cases):
        values = _numbers(rng, spec.values)
        inputs.append(f"{param}={values}")
        expected.append(_expected(spec.numpy_name, values))
    return Task(
        task_id=make_task_id(split, query, signature, "#".join(expected)),
        split=split,
        query=query,
        signature=signature,
        entry_point=ENTRY_POINT,
        test_inputs=tuple(inputs),
        expected=tuple(expected),
        selected_functions=(spec.numpy_name,),
        numpy_reference=(
            f"import numpy as np\n\ndef {ENTRY_POINT}({param}):\n"
            f"    return np.{spec.numpy_name}(np.array({param}))\n"
        ),
        example_input=inputs[0],
        extra={
            "generator": "sebench.training.taskgen",
            # The open-book prompt's API docs: the task's function, then the array constructor.
            "docs": [
                one_line_doc(qualified, spec.summary),
                one_line_doc(table.constructor, CONSTRUCTOR_SUMMARY, "object"),
            ],
            "target": target_code(table.package, qualified, table.constructor, param),
            "frame": frame,
            "phrase": phrase,
            "noun": noun,
            "param": param,
        },
    )


def generate_tasks(table: NameTable, config: TaskSetConfig | None = None) -> TaskSet:
    """Train and held-out test tasks for `config.functions`, deterministic in `config.seed`.

    Train rows draw frame, phrase and noun at random from the training parts; test rows take the
    held-out combinations in turn.
    """
    config = config or TaskSetConfig()
    names = function_names(table, config.functions)
    rng = random.Random(config.seed)
    train: list[Task] = []
    test: list[Task] = []
    for numpy_name in config.functions:
        spec = FUNCTIONS[numpy_name]
        for _ in range(config.train_per_function):
            train.append(
                _task(
                    "train",
                    table,
                    spec,
                    names[numpy_name],
                    rng.choice(TRAIN_FRAMES),
                    rng.choice(spec.train_phrases),
                    rng.choice(TRAIN_NOUNS),
                    rng,
                    config.cases_per_task,
                )
            )
        # Every (test frame, held-out phrase) pair in turn, so that each function's test tasks
        # cover the held-out phrasings evenly; nouns in a shuffled cycle.
        pairs = [(f, p) for f in TEST_FRAMES for p in spec.test_phrases]
        nouns = list(TEST_NOUNS)
        rng.shuffle(nouns)
        for index in range(config.test_per_function):
            frame, phrase = pairs[index % len(pairs)]
            noun = nouns[index % len(nouns)]
            test.append(
                _task(
                    "single_test",
                    table,
                    spec,
                    names[numpy_name],
                    frame,
                    phrase,
                    noun,
                    rng,
                    config.cases_per_task,
                )
            )
    # Interleave functions in training order; keep the test split grouped for readable reports.
    rng.shuffle(train)
    return TaskSet(train=tuple(train), test=tuple(test), config=config)
