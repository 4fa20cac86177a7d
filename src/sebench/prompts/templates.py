"""The prompt texts: closed-book, open-book (docs first), memory (insights first) and NumPy-form.

The structure follows the official SE-Bench prompts (see the spec's "Prompts" section): an intro,
the problem, one example test case with the warning that only its data structures are
guaranteed, the signature to complete, and the requirements (use the library strictly, keep the
name and parameters, built-in imports allowed, end with one fenced python block holding all
imports, match the output structure). There is no system prompt. The wording is ours; the
library's package name always comes from the library being tested, never a hard-coded "zwc".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sebench.data.schema import Task


@dataclass(frozen=True)
class DocSnippet:
    """One function's documentation as shown in an open-book prompt."""

    qualified_name: str  # `zwc.kocito`, `zwc.rfx.quvohe`
    numpy_name: str  # `mean`, `linalg.inv` (never shown to the model)
    text: str  # the library's rewritten doc


_INTRO = (
    "You are given a programming problem, one example test case and a function to complete.\n"
    "The example test case only guarantees that its data structures are valid; its output value "
    "may be wrong.\n"
)

_INTRO_WITH_DOCS = (
    "You are given the documentation of some functions of the {package} library, a programming "
    "problem, one example test case and a function to complete.\n"
    "The example test case only guarantees that its data structures are valid; its output value "
    "may be wrong.\n"
)

_TASK = """
### Problem
{query}

### Example test case
Input: {example_input}
Output: {example_output}

### Function to complete
{signature}

### Requirements
{requirements}
"""

_LIBRARY_RULES = (
    "- Solve the problem strictly with the {package} library (`import {package}`){docs_clause}. "
    "Do not reimplement its logic yourself and do not use other third-party libraries.\n"
    "- Only complete the body of the given function; do not change its name, its parameters or "
    "their order.\n"
    "- You may import Python's built-in modules, but the main computation must use {package} "
    "functions.\n"
)

_NUMPY_RULES = (
    "- Solve the problem with the NumPy library (`import numpy as np`). Do not reimplement its "
    "logic yourself and do not use other third-party libraries.\n"
    "- Only complete the body of the given function; do not change its name, its parameters or "
    "their order.\n"
    "- You may import Python's built-in modules, but the main computation must use NumPy "
    "functions.\n"
)

_COMMON_RULES = (
    "- End your answer with a single fenced Python code block (```python ... ```) that contains "
    "all required imports and the complete function.\n"
    "- Your function must return the same data structure as the example output: for example, if "
    "the example output is a list, return a list.\n"
)

_CLOSING_LIBRARY = (
    "\nWrite your final implementation below, making sure it calls {package} functions."
)
_CLOSING_NUMPY = "\nWrite your final implementation below, making sure it calls NumPy functions."


def _task_block(task: Task, requirements: str) -> str:
    example_input = task.example_input if task.example_input is not None else task.test_inputs[0]
    example_output = task.example_output if task.example_output is not None else "(not given)"
    return _TASK.format(
        query=task.query.strip(),
        example_input=example_input,
        example_output=example_output,
        signature=task.signature.strip(),
        requirements=requirements.rstrip("\n"),
    )


def closed_book(task: Task, package: str) -> str:
    """The test prompt: no docs; the model must know the library."""
    rules = _LIBRARY_RULES.format(package=package, docs_clause="") + _COMMON_RULES
    return _INTRO + _task_block(task, rules) + _CLOSING_LIBRARY.format(package=package)


def docs_section(docs: Sequence[DocSnippet], package: str) -> str:
    parts = [f"### {package} functions\n"]
    for doc in docs:
        parts.append(f"#### {doc.qualified_name}\n```\n{doc.text.strip()}\n```\n")
    return "\n".join(parts)


def open_book(task: Task, package: str, docs: Sequence[DocSnippet]) -> str:
    """The closed-book prompt with a first section holding the given functions' docs."""
    clause = f' and the functions documented in the "{package} functions" section'
    rules = _LIBRARY_RULES.format(package=package, docs_clause=clause) + _COMMON_RULES
    return (
        _INTRO_WITH_DOCS.format(package=package)
        + "\n"
        + docs_section(docs, package)
        + _task_block(task, rules)
        + _CLOSING_LIBRARY.format(package=package)
    )


_INTRO_WITH_MEMORY = (
    "You are given notes about the {package} library, written while solving earlier tasks with "
    "it, a programming problem, one example test case and a function to complete.\n"
    "The example test case only guarantees that its data structures are valid; its output value "
    "may be wrong.\n"
)


def memory_section(insights: Sequence[str], package: str) -> str:
    lines = "\n".join(f"- {text}" for text in insights)
    return f"### Notes on {package}\n\n{lines}\n"


def memory_book(task: Task, package: str, insights: Sequence[str]) -> str:
    """The closed-book prompt with a first section holding notes instead of docs."""
    clause = f' and the notes in the "Notes on {package}" section'
    rules = _LIBRARY_RULES.format(package=package, docs_clause=clause) + _COMMON_RULES
    return (
        _INTRO_WITH_MEMORY.format(package=package)
        + "\n"
        + memory_section(insights, package)
        + _task_block(task, rules)
        + _CLOSING_LIBRARY.format(package=package)
    )


def numpy_form(task: Task) -> str:
    """The original task with NumPy: what the model could do without a new library."""
    return _INTRO + _task_block(task, _NUMPY_RULES + _COMMON_RULES) + _CLOSING_NUMPY
