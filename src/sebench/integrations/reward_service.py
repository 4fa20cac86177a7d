"""The reward service's core, without HTTP: batches graded concurrently behind a bounded queue.

Each request is one batch (an engine sends a micro-batch of rollouts at a time), graded with
`score_batch` in the grader's one warm sandbox pool; a few batches are graded at once so that
the pool stays busy between one batch's slowest sample and the next batch's first.

Backpressure: the samples admitted (queued or being graded) never exceed `capacity`. A request
that would pass it is refused at once (`Busy`: HTTP 503 with Retry-After) instead of queueing
without bound, so memory stays flat however many trainers call; one larger than `capacity`
itself could never be admitted (`TooLarge`: 413).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sebench.errors import SebenchError

if TYPE_CHECKING:  # the CLI reads the defaults below without loading the grader
    from sebench.grading.grader import Grader
    from sebench.integrations.openrlhf import RewardRequest
    from sebench.training.rewards import ScoredBatch

# Samples admitted at once. OpenRLHF sends each server its share of a rollout batch in one
# request (e.g. 1024 prompts x 8 samples / servers): the default admits such a share from a
# few trainers; a few KB per response keeps it well under a GB.
DEFAULT_CAPACITY = 16384
# Batches graded at once: each keeps twice the worker count in flight (`grade_many`), so a few
# are enough to keep the pool busy across batch boundaries.
DEFAULT_BATCHES_AT_ONCE = 4
DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024  # a 16384-sample batch of long responses fits
RETRY_AFTER_S = 1  # OpenRLHF's client waits 1 s between its retries whatever we say


class Busy(SebenchError):
    """The queue is full: retry later."""

    retry_after_s = RETRY_AFTER_S


class TooLarge(SebenchError):
    """A batch larger than the service's whole capacity."""


class Stopping(SebenchError):
    """The service is shutting down and takes no new work."""


@dataclass
class ServiceStats:
    requests: int = 0
    samples: int = 0
    retried: int = 0  # infra errors graded a second time
    unscored: int = 0  # infra errors twice: sent as 0.0, flagged `unscored`
    refused_busy: int = 0
    verdicts: Counter | None = None
    started: float = 0.0


class RewardService:
    """Admits batches up to `capacity` samples and grades them with `grader`, which its owner
    starts and closes. Thread-safe: the HTTP server calls `submit` from one thread per request."""

    def __init__(
        self,
        grader: Grader,
        *,
        capacity: int = DEFAULT_CAPACITY,
        batches_at_once: int = DEFAULT_BATCHES_AT_ONCE,
    ) -> None:
        if capacity < 1 or batches_at_once < 1:
            raise SebenchError("the reward service needs a capacity and batches_at_once >= 1")
        self.grader = grader
        self.capacity = capacity
        self.batches_at_once = batches_at_once
        self._admitted = 0
        self._stopping = False
        self._lock = threading.Lock()
        self._stats = ServiceStats(verdicts=Counter(), started=time.monotonic())
        self._batches = ThreadPoolExecutor(batches_at_once, thread_name_prefix="reward-batch")

    def submit(self, request: RewardRequest) -> Future[ScoredBatch]:
        """Queue `request` for grading, or refuse it at once (`Busy`, `TooLarge`, `Stopping`)."""
        size = len(request)
        if size > self.capacity:
            raise TooLarge(
                f"a batch of {size} samples is larger than the service's capacity "
                f"({self.capacity}): send smaller batches or start it with a larger --capacity"
            )
        with self._lock:
            if self._stopping:
                raise Stopping("the reward service is shutting down")
            if self._admitted + size > self.capacity:
                self._stats.refused_busy += 1
                raise Busy(
                    f"the queue is full ({self._admitted} of {self.capacity} samples admitted); "
                    f"retry in {RETRY_AFTER_S} s"
                )
            self._admitted += size
        future = self._batches.submit(self._grade, request)
        future.add_done_callback(lambda _: self._release(size))
        return future

    def grade(self, request: RewardRequest) -> ScoredBatch:
        return self.submit(request).result()

    def health(self) -> dict:
        with self._lock:
            stats = self._stats
            return {
                "status": "stopping" if self._stopping else "ok",
                "workers": self.grader.workers,
                "capacity": self.capacity,
                "admitted": self._admitted,
                "requests": stats.requests,
                "samples": stats.samples,
                "retried": stats.retried,
                "unscored": stats.unscored,
                "refused_busy": stats.refused_busy,
                "verdicts": dict(stats.verdicts),
                "uptime_s": round(time.monotonic() - stats.started, 1),
            }

    def close(self) -> None:
        """Refuse new work and wait for the admitted batches to finish (the grader stays up)."""
        with self._lock:
            self._stopping = True
        self._batches.shutdown(wait=True)

    def _grade(self, request: RewardRequest) -> ScoredBatch:
        from sebench.training.rewards import score_batch

        scored = score_batch(self.grader, request.tasks, request.responses)
        with self._lock:
            stats = self._stats
            stats.requests += 1
            stats.samples += len(request)
            stats.retried += scored.retried
            stats.unscored += sum(r is None for r in scored.rewards)
            stats.verdicts.update(v.kind.value for v in scored.verdicts)
        return scored

    def _release(self, size: int) -> None:
        with self._lock:
            self._admitted -= size
