"""The memory baseline: a model distils insights about the library from solved training tasks.

Our reading of Expel (Zhao et al., 2023, "ExpeL: LLM Agents Are Experiential Learners"): an agent
gathers trajectories on training tasks; an LLM then reads them (pairs of a failure and a success
on one task, and sets of successes) next to the current list of insights and answers with
operations on that list: ADD a new insight, EDIT one, UPVOTE (agree) or DOWNVOTE (disagree) one.
Each insight carries an importance count: 2 when added, +1 per upvote, -1 per downvote, removed
at 0. At test time the insights (and, in Expel, retrieved successful trajectories) are put in
the prompt. The SE-Bench paper reports this baseline at 47.1 / 15.5 (Single / Multiple).

What we keep and what we simplify:
- Input: successes only, one correct answer per task (the output of `sebench data sft`, or any
  rows with `query` and `response`), read in batches of `batch_size`; Expel's failure/success
  comparisons are not made (a solved-task file holds no failures).
- The same four operations, Expel's importance arithmetic, and the list shown numbered so that
  EDIT/UPVOTE/DOWNVOTE can name an insight; removals take effect after the batch, so numbers stay
  stable within one answer.
- Ours: an ADD whose text is nearly that of an existing insight (difflib ratio >= `similarity`)
  upvotes it instead (deduplication); an insight longer than `max_insight_chars` is refused; at
  the end the insights are ordered by importance and cut to `max_chars` in all (the memory must
  stay far shorter than the docs it replaces).
- Every insight keeps the task ids of the batches that added, edited or upvoted it (provenance).
- No retrieved trajectories at test time: only the insights are shown (prompt mode `memory`).
- Resumable: each batch's answer goes into a journal as soon as the model gives it; a rerun
  replays the journal (the operations are deterministic, so the list comes back exactly) and asks
  the model only for the batches that are missing. A journal of other settings, data or model is
  refused, never mixed in.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from sebench.errors import InputError, SebenchError
from sebench.grading.extract import extract_code
from sebench.jsonl import JsonlAppender, iter_jsonl, read_jsonl
from sebench.prompts.memory import Insight, Memory, write_memory
from sebench.provenance import provenance
from sebench.rollout.backend import Backend, ChatRequest, SamplingConfig
from sebench.rollout.runner import sample_seed

INITIAL_IMPORTANCE = 2  # Expel: a new insight starts at 2
_OPERATION = re.compile(
    r"^\s*(?:[-*]\s*|\d+[.)]\s*)?(ADD|EDIT|UPVOTE|DOWNVOTE)\b\s*(\d+)?\s*[:.\-]?\s*(.*)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class MemoryBuildConfig:
    """One memory build."""

    batch_size: int = 8  # ours: solved tasks per extraction call
    max_chars: int = (
        4000  # ours: the whole memory, about 1k tokens (one function's doc is ~2k chars)
    )
    max_insight_chars: int = 300  # ours: an insight is one line, not a doc
    similarity: float = 0.9  # ours: an ADD this close to an existing insight upvotes it instead
    # ours: deterministic extraction; 2048 tokens leave room for thinking models' preambles
    sampling: SamplingConfig = field(
        default_factory=lambda: SamplingConfig(temperature=0.0, max_new_tokens=2048)
    )
    seed: int = 0

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.max_chars < 1 or self.max_insight_chars < 1:
            raise InputError("batch size and character caps must be at least 1")


@dataclass(frozen=True)
class Solved:
    """A training task and a correct solution to it."""

    task_id: str
    query: str
    signature: str
    solution: str  # the code of the answer (the whole answer when it has no code block)


@dataclass(frozen=True)
class MemoryBuildProgress:
    batch: int  # batches done
    batches: int
    insights: int  # in the memory now


@dataclass
class MemoryBuildResult:
    memory: Memory
    operations: Counter[str]  # applied, per operation; `ignored`: lines that were no operation
    merged: int  # ADDs that upvoted a near-identical insight instead
    dropped_for_length: int  # insights cut by `max_chars`
    batches: list[dict[str, Any]]  # per batch: its task ids, the model's answer, what it did


def read_solved(path: str | Path) -> list[Solved]:
    """One solved example per task (the first), from `sebench data sft` rows or any rows with
    `query` and `response` (optional: `task_id`, `signature`)."""
    found: dict[str, Solved] = {}
    for line, row in iter_jsonl(path):
        query = row.get("query")
        answer = row.get("response")
        if answer is None and isinstance(row.get("completion"), list) and row["completion"]:
            answer = row["completion"][-1].get("content")
        if not isinstance(query, str) or not isinstance(answer, str) or not answer.strip():
            raise InputError(
                "a solved task needs `query` and a correct answer (`response`, or `completion` "
                "as `sebench data sft` writes)",
                path=str(path),
                line=line,
            )
        task_id = str(row.get("task_id") or f"line-{line}")
        found.setdefault(
            task_id,
            Solved(
                task_id=task_id,
                query=query.strip(),
                signature=str(row.get("signature") or "").strip(),
                solution=(extract_code(answer) or answer).strip(),
            ),
        )
    if not found:
        raise InputError("no solved tasks", path=str(path))
    return list(found.values())


def extraction_prompt(package: str, insights: Sequence[Insight], batch: Sequence[Solved]) -> str:
    current = (
        "\n".join(f"{n}. {i.text}" for n, i in enumerate(insights, start=1))
        if insights
        else "(none yet)"
    )
    tasks = "\n\n".join(
        f"#### Task {n}\n{s.query}\n{s.signature}\nSolution:\n```python\n{s.solution}\n```"
        for n, s in enumerate(batch, start=1)
    )
    return f"""You are building a short memory of the Python library `{package}`, which you will \
have to use later without its documentation. Below are the current insights and some tasks \
solved correctly with the library.

### Current insights
{current}

### Solved tasks
{tasks}

### What to do
Update the insights so that they teach how to use `{package}`: the exact names of its functions \
and submodules, their signatures and arguments, what they return, and usage patterns seen in the \
solutions. Each insight is one line. Answer only with operations, one per line:
ADD: <a new insight>
EDIT <number>: <the insight rewritten>
UPVOTE <number>
DOWNVOTE <number>
Add what the solutions show that no insight says yet; upvote insights the solutions confirm; \
downvote insights they contradict."""


def apply_operations(
    insights: list[Insight],
    answer: str,
    sources: tuple[str, ...],
    config: MemoryBuildConfig,
) -> tuple[list[Insight], Counter[str], int]:
    """Expel's update of the numbered list `insights` by the operations in `answer`.

    Returns the new list, the count per operation applied (`ignored`: lines that name no valid
    operation) and how many ADDs were merged into a near-identical insight."""
    current = list(insights)
    counts: Counter[str] = Counter()
    merged = 0

    def vote(index: int, delta: int, text: str | None = None) -> None:
        old = current[index]
        current[index] = replace(
            old,
            text=text if text is not None else old.text,
            importance=old.importance + delta,
            sources=tuple(dict.fromkeys(old.sources + (sources if delta > 0 else ()))),
        )

    for line in answer.splitlines():
        match = _OPERATION.match(line)
        if match is None:
            if line.strip():
                counts["ignored"] += 1
            continue
        operation, number, text = match[1].upper(), match[2], _clean(match[3])
        # numbers name the list as shown in the prompt: insights added meanwhile come after it
        index = int(number) - 1 if number is not None else -1
        numbered = 0 <= index < len(insights)
        if operation == "ADD" and number is None and 0 < len(text) <= config.max_insight_chars:
            twin = _near(current, text, config.similarity)
            if twin is None:
                current.append(Insight(text, INITIAL_IMPORTANCE, sources))
            else:
                vote(twin, +1)
                merged += 1
        elif operation == "EDIT" and numbered and 0 < len(text) <= config.max_insight_chars:
            vote(index, +1, text)
        elif operation == "UPVOTE" and numbered:
            vote(index, +1)
        elif operation == "DOWNVOTE" and numbered:
            vote(index, -1)
        else:
            counts["ignored"] += 1
            continue
        counts[operation] += 1
    return [i for i in current if i.importance > 0], counts, merged


def _clean(text: str) -> str:
    return " ".join(text.strip().strip('"').split())


def _near(insights: Sequence[Insight], text: str, similarity: float) -> int | None:
    wanted = text.lower()
    for index, insight in enumerate(insights):
        if difflib.SequenceMatcher(None, insight.text.lower(), wanted).ratio() >= similarity:
            return index
    return None


def cap_length(insights: Sequence[Insight], max_chars: int) -> list[Insight]:
    """The most important insights (ties: the earlier one) that fit in `max_chars` together."""
    ranked = sorted(range(len(insights)), key=lambda i: (-insights[i].importance, i))
    kept, used = [], 0
    for i in ranked:
        size = len(insights[i].text) + 1
        if used + size <= max_chars:
            kept.append(insights[i])
            used += size
    return kept


def build_memory(
    solved: Sequence[Solved],
    package: str,
    backend: Backend,
    config: MemoryBuildConfig | None = None,
    *,
    journal: str | Path | None = None,
    on_progress: Callable[[MemoryBuildProgress], None] | None = None,
) -> MemoryBuildResult:
    """Read `solved` in batches and let the model keep the insight list up to date.

    `journal`: a JSONL file that keeps each batch's answer as it comes; batches already in it
    are replayed, not asked again (see the module's docstring). The caller removes it once the
    memory is saved."""
    config = config or MemoryBuildConfig()
    if not solved:
        raise InputError("no solved tasks to learn from")
    batches = [solved[i : i + config.batch_size] for i in range(0, len(solved), config.batch_size)]
    fingerprint = _fingerprint(solved, package, getattr(backend, "model_name", None), config)
    # Opened first: it cuts a line a crash left torn, so that what is read below is whole.
    appender = JsonlAppender(journal) if journal is not None else None
    try:
        journaled = _journaled_answers(journal, fingerprint) if journal is not None else None
        answers = journaled or []
        if len(answers) < len(batches):
            check = getattr(backend, "check", None)
            if check is not None:
                check()
        if appender is not None and journaled is None:
            appender.write({"kind": "header", "fingerprint": fingerprint})
        insights: list[Insight] = []
        operations: Counter[str] = Counter()
        merged = 0
        log = []
        for number, batch in enumerate(batches):
            sources = tuple(s.task_id for s in batch)
            if number < len(answers):
                text = answers[number]
            else:
                text = _ask(backend, package, insights, batch, number, len(batches), config)
                # only after the answer came: a failed call leaves the journal as it was
                if appender is not None:
                    appender.write({"kind": "batch", "batch": number, "answer": text})
            insights, counts, added_twins = apply_operations(insights, text, sources, config)
            operations += counts
            merged += added_twins
            log.append(
                {
                    "batch": number,
                    "tasks": list(sources),
                    "operations": dict(counts),
                    "merged": added_twins,
                    "answer": text,  # what the model wrote: why a line was ignored
                }
            )
            if on_progress is not None:
                on_progress(MemoryBuildProgress(number + 1, len(batches), len(insights)))
    finally:
        if appender is not None:
            appender.close()
    kept = cap_length(insights, config.max_chars)
    return MemoryBuildResult(
        memory=Memory(package=package, insights=tuple(kept)),
        operations=operations,
        merged=merged,
        dropped_for_length=len(insights) - len(kept),
        batches=log,
    )


def _ask(
    backend: Backend,
    package: str,
    insights: Sequence[Insight],
    batch: Sequence[Solved],
    number: int,
    total: int,
    config: MemoryBuildConfig,
) -> str:
    """The model's answer for one batch; a call that failed for good stops the build."""
    request = ChatRequest(
        task_id=f"memory-batch-{number}",
        sample=0,
        messages=({"role": "user", "content": extraction_prompt(package, insights, batch)},),
        seed=sample_seed(config.seed, f"memory-batch-{number}", "memory-build", 0),
        mode="memory-build",
    )
    completion = next(iter(backend.generate([request], config.sampling)))
    if completion.error is not None:
        raise SebenchError(
            f"memory build: the model call for batch {number + 1} of {total} failed for good: "
            f"{completion.error} (with a journal, the {number} batches before it are kept: the "
            "same command again asks only for the rest)"
        )
    return completion.text


def _fingerprint(
    solved: Sequence[Solved], package: str, model: str | None, config: MemoryBuildConfig
) -> str:
    """What a journal's answers depend on: the solved tasks and their order, the library's
    package, the model and every setting."""
    described = {
        "solved": [asdict(s) for s in solved],
        "package": package,
        "model": model,
        "config": asdict(config),
    }
    text = json.dumps(described, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _journaled_answers(journal: str | Path, fingerprint: str) -> list[str] | None:
    """The answers of the batches a journal (open for appending, so it exists and ends whole)
    holds, in order; None when it has not started."""
    path = Path(journal)
    rows = read_jsonl(path)
    if not rows:
        return None
    if rows[0].get("kind") != "header" or rows[0].get("fingerprint") != fingerprint:
        raise InputError(
            "this memory build's journal was made with other solved tasks, model or settings; "
            "delete it to start over, or write to another --out",
            path=str(path),
        )
    answers = []
    for row in rows[1:]:
        if row.get("batch") != len(answers) or not isinstance(row.get("answer"), str):
            raise InputError("journal rows out of order (edited by hand?)", path=str(path))
        answers.append(row["answer"])
    return answers


def save_memory(
    path: str | Path,
    result: MemoryBuildResult,
    config: MemoryBuildConfig,
    **extra: Any,
) -> None:
    """Write the insights with the build's statistics and provenance (`insights.json`)."""
    write_memory(
        path,
        result.memory,
        stats={
            "operations": dict(sorted(result.operations.items())),
            "merged": result.merged,
            "dropped_for_length": result.dropped_for_length,
            "chars": sum(len(i.text) + 1 for i in result.memory.insights),
        },
        batches=result.batches,
        provenance=provenance(asdict(config), **extra),
    )
