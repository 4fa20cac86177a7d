"""The library's docs as prompt snippets, and the ones a task's open-book prompt shows.

`Library.docs()` rows name their function by `curr_name`, bare (`quvohe`) or qualified
(`zwc.rfx.quvohe`), as the official `api_doc.jsonl` does; the name table tells which bare name
lives in the submodule. A task's `selected_functions` are NumPy names without the `linalg.`
prefix in the official data (`inv`, `cross`), so six names (cross, diagonal, matmul, outer,
trace, tensordot) match both a top-level and a linalg function: the official open-book prompt
shows both docs, and so do we.
"""

from __future__ import annotations

from typing import Any

from sebench.prompts.templates import DocSnippet


def library_snippets(library: Any) -> tuple[DocSnippet, ...]:
    """Every documented function of `library`, in the order of its API doc."""
    table = library.table
    by_name = {entry.name: entry for entry in table.entries}
    snippets = []
    for row in library.docs():
        bare = str(row.get("curr_name", "")).rsplit(".", 1)[-1]
        entry = by_name.get(bare)
        if entry is None:  # a doc row for a name the table does not hold: nothing to call
            continue
        snippets.append(
            DocSnippet(
                qualified_name=table.qualified(entry),
                numpy_name=entry.numpy_name,
                text=str(row.get("rewritten_doc") or ""),
            )
        )
    return tuple(snippets)


def _candidates(selected: str) -> set[str]:
    name = selected.removeprefix("np.").removeprefix("numpy.")
    if name.startswith("linalg."):
        return {name}
    return {name, f"linalg.{name}"}


def selected_snippets(
    selected_functions: tuple[str, ...], snippets: tuple[DocSnippet, ...]
) -> list[DocSnippet]:
    """The docs of the task's selected functions (both docs for the six ambiguous names)."""
    chosen: list[DocSnippet] = []
    for selected in dict.fromkeys(selected_functions):  # keep order, drop repeats
        wanted = _candidates(selected)
        chosen.extend(s for s in snippets if s.numpy_name in wanted and s not in chosen)
    return chosen
