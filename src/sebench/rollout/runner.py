"""Tasks x modes x samples -> a responses JSONL that `sebench eval` reads; resumable.

Each finished sample is one row, flushed to disk at once (`sebench.jsonl`). A rerun with the same
output file skips the rows already there, so nothing is generated twice and nothing finished is
lost; rows that failed for good (`error` set) are dropped and retried, unless told otherwise.
The file's sidecar `<name>.meta.json` holds the resolved config, the model, the library, seeds
and package versions; a rerun with another model or other sampling settings is refused rather
than mixed into the same file.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sebench.data.schema import Task
from sebench.errors import InputError
from sebench.jsonl import JsonlAppender, read_completed, write_jsonl
from sebench.prompts.memory import Memory
from sebench.prompts.modes import PromptMode
from sebench.prompts.render import DEFAULT_TOP_K, render_prompt
from sebench.provenance import provenance
from sebench.rollout.backend import Backend, ChatRequest, Completion, SamplingConfig


@dataclass(frozen=True)
class RolloutConfig:
    modes: tuple[PromptMode, ...] = (PromptMode.CLOSED,)  # the test condition
    samples: int = 1  # per task and mode; the paper's main table averages 5, its design table 64
    seed: int = 0  # base seed; each sample's own seed is derived from it (see `sample_seed`)
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    subset: frozenset[str] | None = None  # task ids to keep (e.g. the verified subset)
    limit: int | None = None  # the first N tasks (after the subset filter)
    top_k: int = DEFAULT_TOP_K  # docs retrieved for the open-retrieved mode
    retry_errors: bool = True  # on resume, retry the samples whose request failed for good
    memory: Memory | None = None  # the insights the `memory` mode shows (`sebench memory build`)

    def to_dict(self) -> dict[str, Any]:
        row = asdict(self)
        row["modes"] = [str(m) for m in self.modes]
        row["subset"] = None if self.subset is None else len(self.subset)
        row["memory"] = None if self.memory is None else self.memory.describe()
        return row


@dataclass(frozen=True)
class RolloutProgress:
    done: int  # rows in the file now (resumed included)
    total: int
    resumed: int  # rows that were already there
    completion_tokens: int  # generated in this run
    elapsed_s: float
    last: Completion | None = None


@dataclass(frozen=True)
class RolloutSummary:
    path: Path
    total: int
    resumed: int
    generated: int
    errors: int  # samples whose request failed for good (recorded with their error)
    truncated: int  # answers cut off by max_new_tokens
    completion_tokens: int
    elapsed_s: float
    first_error: str | None = None  # the error of the first request that failed for good


def row_key(row: dict[str, Any]) -> tuple[str, str, int]:
    return (row["task_id"], row.get("mode", "closed"), int(row["sample"]))


def sample_seed(base: int, task_id: str, mode: str, sample: int) -> int:
    """A stable per-sample seed: the same sample gets the same seed on every rerun."""
    digest = hashlib.sha256(f"{base}:{task_id}:{mode}:{sample}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def select_tasks(tasks: Sequence[Task], config: RolloutConfig) -> list[Task]:
    chosen = [t for t in tasks if config.subset is None or t.task_id in config.subset]
    return chosen if config.limit is None else chosen[: config.limit]


def plan_requests(tasks: Sequence[Task], library: Any, config: RolloutConfig) -> list[ChatRequest]:
    requests = []
    for task in select_tasks(tasks, config):
        for mode in config.modes:
            messages = tuple(
                render_prompt(task, library, mode, top_k=config.top_k, memory=config.memory)
            )
            for sample in range(config.samples):
                requests.append(
                    ChatRequest(
                        task_id=task.task_id,
                        sample=sample,
                        messages=messages,
                        mode=str(mode),
                        seed=sample_seed(config.seed, task.task_id, str(mode), sample),
                    )
                )
    return requests


def meta_path(out_path: Path) -> Path:
    return out_path.with_name(out_path.stem + ".meta.json")


def _check_same_run(out_path: Path, model: str, config: RolloutConfig) -> None:
    meta = meta_path(out_path)
    if not out_path.exists() or not meta.exists():
        return
    try:
        old = json.loads(meta.read_text())
    except json.JSONDecodeError:
        return
    old_sampling = (old.get("config") or {}).get("sampling")
    if old.get("model") != model or old_sampling != asdict(config.sampling):
        raise InputError(
            f"already holds responses of model {old.get('model')!r} with sampling "
            f"{old_sampling}; this run is {model!r} with {asdict(config.sampling)}. "
            "Use another --out, or delete the file to start over",
            path=str(out_path),
        )


def _drop_failed_rows(out_path: Path) -> None:
    """Rewrite the file without the rows whose request failed, so they are generated again."""
    if not out_path.exists():
        return
    kept, dropped = [], 0
    with out_path.open("rb") as handle:
        for raw in handle:
            try:
                row = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue  # a torn last line from a crash
            if row.get("error"):
                dropped += 1
            else:
                kept.append(row)
    if dropped:
        write_jsonl(out_path, kept)


def _row(
    completion: Completion, task: Task, model: str, sampling: SamplingConfig
) -> dict[str, Any]:
    return {
        "task_id": completion.task_id,
        "sample": completion.sample,
        "mode": completion.mode,
        "split": task.split,
        "model": model,
        "response": completion.text,
        "finish_reason": str(completion.finish_reason),
        "truncated": completion.truncated,
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "latency_s": round(completion.latency_s, 4),
        "seed": completion.seed,
        "temperature": sampling.temperature,
        "max_new_tokens": sampling.max_new_tokens,
        "error": completion.error,
    }


def rollout(
    tasks: Sequence[Task],
    library: Any,
    backend: Backend,
    out_path: str | Path,
    config: RolloutConfig | None = None,
    *,
    on_progress: Callable[[RolloutProgress], None] | None = None,
    extra_meta: dict[str, Any] | None = None,
) -> RolloutSummary:
    """Generate the missing samples of `tasks` x `config.modes` x `config.samples` into `out_path`."""
    config = config or RolloutConfig()
    out_path = Path(out_path)
    model = backend.model_name
    _check_same_run(out_path, model, config)
    if config.retry_errors:
        _drop_failed_rows(out_path)
    requests = plan_requests(tasks, library, config)
    done = read_completed(out_path, row_key)
    wanted = {(r.task_id, r.mode, r.sample) for r in requests}
    resumed = len(done & wanted)
    todo = [r for r in requests if (r.task_id, r.mode, r.sample) not in done]
    by_id = {t.task_id: t for t in tasks}

    check = getattr(backend, "check", None)
    if todo and check is not None:  # a backend behind a server: is it there, with this model?
        check()
    out_path.parent.mkdir(parents=True, exist_ok=True)
    meta = provenance(
        config.to_dict(),
        model=model,
        library={"package": library.package, "root": str(library.root)},
        **(extra_meta or {}),
    )
    meta_path(out_path).write_text(json.dumps(meta, indent=2) + "\n")

    start = time.monotonic()
    generated = errors = truncated = tokens = 0
    first_error: str | None = None
    if on_progress:
        on_progress(RolloutProgress(resumed, len(requests), resumed, 0, 0.0))
    with JsonlAppender(out_path) as out:
        if todo:
            stream = backend.generate(todo, config.sampling)
            try:
                for completion in stream:
                    out.write(_row(completion, by_id[completion.task_id], model, config.sampling))
                    generated += 1
                    errors += completion.error is not None
                    first_error = first_error or completion.error
                    truncated += completion.truncated
                    tokens += completion.completion_tokens or 0
                    if on_progress:
                        on_progress(
                            RolloutProgress(
                                resumed + generated,
                                len(requests),
                                resumed,
                                tokens,
                                time.monotonic() - start,
                                completion,
                            )
                        )
            finally:
                close = getattr(stream, "close", None)
                if close:  # stop a backend's workers at once on Ctrl-C or an error
                    close()
    return RolloutSummary(
        path=out_path,
        total=len(requests),
        resumed=resumed,
        generated=generated,
        errors=errors,
        truncated=truncated,
        completion_tokens=tokens,
        elapsed_s=time.monotonic() - start,
        first_error=first_error,
    )
