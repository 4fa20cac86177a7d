"""One warm grader per process, for engines that call a plain function per sample or batch.

verl calls `compute_score` in its reward workers, with no object to hold a sandbox pool: the
pool (fork servers, a second or so to start) is started on the first call and reused by every
later one in that process, and closed when the process exits. It is keyed by its settings:
a call asking for another library or sandbox is refused instead of silently graded by the first
one. A forked child (an engine's process pool) starts its own: the parent's servers are not
its to use.
"""

from __future__ import annotations

import atexit
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sebench.errors import SebenchError

if TYPE_CHECKING:
    from sebench.grading.grader import Grader


@dataclass(frozen=True)
class GraderSettings:
    """What the warm grader is built from (verl passes these as `reward_kwargs`)."""

    lib: str | None = None  # a built library folder; None: the official one
    api_doc: str | None = None  # the official api_doc.jsonl to build it from; None: found
    workers: int = 0  # 0: one per CPU core
    timeout: float = 3.0  # seconds per program, the official limit


_lock = threading.Lock()
_held: dict[str, object] = {}  # "grader", "settings", "pid"


def shared_grader(settings: GraderSettings) -> Grader:
    """The process's warm grader for `settings`, started on first use."""
    with _lock:
        grader = _held.get("grader")
        if grader is not None and _held["pid"] == os.getpid():
            if _held["settings"] != settings:
                raise SebenchError(
                    f"this process already grades with {_held['settings']}; one process, one "
                    f"grader: pass the same reward settings everywhere (got {settings})"
                )
            return grader  # type: ignore[return-value]
        grader = _start(settings)
        first = not _held
        _held.update(grader=grader, settings=settings, pid=os.getpid())
        if first:
            atexit.register(close_shared_grader)
        return grader


def close_shared_grader() -> None:
    with _lock:
        grader, pid = _held.pop("grader", None), _held.pop("pid", None)
        _held.pop("settings", None)
    if grader is not None and pid == os.getpid():
        grader.close()  # type: ignore[attr-defined]


def _start(settings: GraderSettings) -> Grader:
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox.config import SandboxConfig
    from sebench.library.cache import official_library
    from sebench.library.library import Library

    if settings.lib is not None:
        library = Library.load(Path(settings.lib))
    elif settings.api_doc is not None:
        library = official_library(Path(settings.api_doc))
    else:
        from sebench.grading.runner import default_library

        library = default_library(())
    sandbox = SandboxConfig(timeout_s=settings.timeout, workers=settings.workers)
    return Grader(library, sandbox).start()
