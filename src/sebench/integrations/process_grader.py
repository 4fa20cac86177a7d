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


@dataclass(frozen=True)
class _Held:
    grader: Grader
    settings: GraderSettings
    pid: int  # the process that started it: a forked child must not use its servers


_lock = threading.Lock()
_held: _Held | None = None
_atexit_registered = False


def shared_grader(settings: GraderSettings) -> Grader:
    """The process's warm grader for `settings`, started on first use."""
    global _held, _atexit_registered
    with _lock:
        if _held is not None and _held.pid == os.getpid():
            if _held.settings != settings:
                raise SebenchError(
                    f"this process already grades with {_held.settings}; one process, one "
                    f"grader: pass the same reward settings everywhere (got {settings})"
                )
            return _held.grader
        _held = _Held(_start(settings), settings, os.getpid())
        if not _atexit_registered:
            atexit.register(close_shared_grader)
            _atexit_registered = True
        return _held.grader


def close_shared_grader() -> None:
    global _held
    with _lock:
        held, _held = _held, None
    if held is not None and held.pid == os.getpid():
        held.grader.close()


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
