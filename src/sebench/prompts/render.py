"""Task + library + mode -> the chat messages a model receives (one user turn, no system prompt)."""

from __future__ import annotations

from typing import Any

from sebench.data.schema import Task
from sebench.errors import SebenchError
from sebench.prompts import templates
from sebench.prompts.docs import library_snippets, selected_snippets
from sebench.prompts.memory import Memory
from sebench.prompts.modes import PromptMode
from sebench.prompts.retrieval import BM25Index
from sebench.prompts.templates import DocSnippet

DEFAULT_TOP_K = 5  # ours: a single_test task needs one doc, a multiple_test task two to four


class _LibraryDocs:
    """A library's snippets and their BM25 index, built once per library folder."""

    def __init__(self, library: Any) -> None:
        self.snippets = library_snippets(library)
        self._index: BM25Index | None = None

    @property
    def index(self) -> BM25Index:
        if self._index is None:
            self._index = BM25Index([_indexed_text(s) for s in self.snippets])
        return self._index


def _indexed_text(snippet: DocSnippet) -> str:
    # The signature and summary say what a function does; the parameter tables and examples
    # below them repeat generic words and other functions' names. Measured on the 64 dev tasks:
    # the right doc is in the top 5 for 30 of them with the summary, 28 with the whole doc.
    text = snippet.text.strip()
    cut = text.find("Parameters\n---")
    return text if cut < 0 else text[:cut]


_CACHE: dict[tuple[str, str], _LibraryDocs] = {}


def _library_docs(library: Any) -> _LibraryDocs:
    # Keyed by folder and package: a built library folder never changes once written.
    key = (str(library.root), library.package)
    if key not in _CACHE:
        if len(_CACHE) >= 8:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = _LibraryDocs(library)
    return _CACHE[key]


def task_docs(task: Task, library: Any) -> list[DocSnippet]:
    """The docs an OPEN prompt shows for `task`."""
    return selected_snippets(task.selected_functions, _library_docs(library).snippets)


def retrieved_docs(task: Task, library: Any, top_k: int = DEFAULT_TOP_K) -> list[DocSnippet]:
    """The docs an OPEN_RETRIEVED prompt shows: BM25 top-k for the problem text."""
    docs = _library_docs(library)
    query = f"{task.query}\n{task.signature}"
    return [docs.snippets[i] for i in docs.index.search(query, top_k)]


def render_text(
    task: Task,
    library: Any,
    mode: PromptMode | str,
    *,
    top_k: int = DEFAULT_TOP_K,
    memory: Memory | None = None,
) -> str:
    """The user message for `task` under `mode`; mode `memory` needs `memory`."""
    mode = PromptMode(mode)
    match mode:
        case PromptMode.CLOSED:
            return templates.closed_book(task, library.package)
        case PromptMode.OPEN:
            return templates.open_book(task, library.package, task_docs(task, library))
        case PromptMode.OPEN_RETRIEVED:
            docs = retrieved_docs(task, library, top_k)
            return templates.open_book(task, library.package, docs)
        case PromptMode.NUMPY:
            return templates.numpy_form(task)
        case PromptMode.MEMORY:
            return templates.memory_book(
                task, library.package, [i.text for i in _memory_for(library, memory).insights]
            )
    raise AssertionError(mode)  # pragma: no cover - the match is exhaustive


def _memory_for(library: Any, memory: Memory | None) -> Memory:
    if memory is None:
        raise SebenchError(
            "prompt mode 'memory' shows insights instead of docs: pass --memory insights.json "
            "(made by `sebench memory build`)"
        )
    if memory.package != library.package:
        raise SebenchError(
            f"{memory.source or 'the memory'}: its insights are about library "
            f"'{memory.package}', but the tasks are run against '{library.package}'; build the "
            "memory with the same library (--lib / --api-doc)"
        )
    return memory


def render_prompt(
    task: Task,
    library: Any,
    mode: PromptMode | str,
    *,
    top_k: int = DEFAULT_TOP_K,
    memory: Memory | None = None,
) -> list[dict[str, str]]:
    """The chat messages for `task` under `mode`: one user message, no system prompt."""
    text = render_text(task, library, mode, top_k=top_k, memory=memory)
    return [{"role": "user", "content": text}]
