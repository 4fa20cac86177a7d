"""Training targets for generated tasks: the reference in the library's names, and its docs.

`sebench train sft` learns `extra.target` (the answer program) and shows `extra.docs` (one line
per function) in open-book prompts, as the demo's tasks carry them. A generated task holds a
NumPy reference; its target is that reference translated for one library (`translate.py`), so a
file with targets belongs to that library, while the NumPy reference serves any.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sebench.data.schema import Task
from sebench.data.translate import to_library
from sebench.errors import SebenchError
from sebench.library.catalog import CONSTRUCTOR

if TYPE_CHECKING:
    from sebench.library.library import Library

_SIGNATURE = re.compile(r"^[A-Za-z_][\w.]*\(")


def with_targets(tasks: Sequence[Task], library: Library) -> tuple[Task, ...]:
    """`tasks` with `extra.target` and `extra.docs` for `library`."""
    summaries = _summaries(library)
    done = []
    for task in tasks:
        translation = to_library(task.numpy_reference or "", library.table)
        if not translation.ok or translation.code is None:
            # every generated reference is translatable (the tests check it); a failure is a bug
            raise SebenchError(
                f"task {task.task_id}: the reference does not translate for {library.package}: "
                + "; ".join(translation.problems)
            )
        docs = [summaries[name] for name in (*task.selected_functions, CONSTRUCTOR)]
        extra = {**task.extra, "target": translation.code, "docs": docs, "library": library.package}
        done.append(dataclasses.replace(task, extra=extra))
    return tuple(done)


def _summaries(library: Library) -> dict[str, str]:
    """NumPy name -> `zwc.kocito: Compute the arithmetic mean along the specified axis.`"""
    rows = {(row.get("original_name"), row.get("curr_name")): row for row in library.docs()}
    summaries = {}
    for entry in library.table.entries:
        row = rows.get((entry.numpy_name.removeprefix("linalg."), entry.name), {})
        text = str(row.get("rewritten_doc") or row.get("docstring") or "")
        summaries[entry.numpy_name] = f"{library.table.qualified(entry)}: {_first_sentence(text)}"
    return summaries


def _first_sentence(doc: str) -> str:
    """The first sentence of a docstring, past its signature paragraph (`mean(a, axis=None, ...)`,
    sometimes over several lines)."""
    for paragraph in re.split(r"\n\s*\n", doc):
        text = " ".join(paragraph.split())
        if text and not _SIGNATURE.match(text):
            return text.split(". ")[0].rstrip(".") + "."
    return ""
