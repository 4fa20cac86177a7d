"""Run a dataset's own reference solutions with real NumPy, to tell bad data from translator gaps.

`sebench validate` grades the *translated* NumPy reference with the real grader. When that fails,
the question is whose fault it is: the translator's (the NumPy original passes) or the data's (the
NumPy original itself disagrees with `right_exe_result`). This module answers it by running the
original code in a separate worker process with NumPy importable.

This is not a sandbox: it runs the reference solutions shipped with the data file, trusted as much
as the file itself, never model output. The worker is a separate process, so a reference that
crashes, hangs or prints cannot take the caller down; a per-task timer and a parent-side deadline
bound its time.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

# Worker: one JSON job per stdin line -> one JSON result per stdout line. The code runs in a fresh
# namespace; each call is `entry(<input text>)` and its result recorded as `str(result)`, exactly
# as the grader's child prints it.
_WORKER = r"""
import io, json, signal, sys
out = sys.stdout
class Timeout(BaseException):
    pass
def alarm(signum, frame):
    raise Timeout()
signal.signal(signal.SIGALRM, alarm)
for line in sys.stdin:
    job = json.loads(line)
    result = {"printed": [], "errors": [], "setup_error": None, "timed_out": False}
    sys.stdout = io.StringIO()
    signal.setitimer(signal.ITIMER_REAL, job["timeout"])
    try:
        namespace = {"__name__": "reference"}
        try:
            exec(compile(job["code"], "<reference>", "exec"), namespace)
        except Exception as exc:
            result["setup_error"] = type(exc).__name__
        else:
            for text in job["inputs"]:
                try:
                    value = eval(job["entry"] + "(" + text + ")", namespace)
                    result["printed"].append(str(value))
                    result["errors"].append(None)
                except Exception as exc:
                    result["printed"].append(None)
                    result["errors"].append(type(exc).__name__ + ": " + str(exc)[:200])
    except Timeout:
        result["timed_out"] = True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout = out
    out.write(json.dumps(result) + "\n")
    out.flush()
"""


@dataclass(frozen=True)
class ReferenceJob:
    key: str
    code: str
    entry_point: str
    test_inputs: tuple[str, ...]


@dataclass(frozen=True)
class ReferenceRun:
    printed: tuple[str | None, ...]  # per test case, `str(result)`; None where it raised
    errors: tuple[str | None, ...]  # per test case, "TypeError: ..." where it raised
    setup_error: str | None = None  # exception type when running the code itself failed
    timed_out: bool = False
    crashed: bool = False  # the worker died (segfault, os._exit, memory)

    @property
    def completed(self) -> bool:
        return self.setup_error is None and not self.timed_out and not self.crashed


def run_references(
    jobs: Iterable[ReferenceJob],
    *,
    timeout_s: float = 10.0,
    on_result: Callable[[str, ReferenceRun], None] | None = None,
    library_root: Path | None = None,
) -> dict[str, ReferenceRun]:
    """Run each job's code in a worker process with NumPy; key -> what it printed per case.

    `library_root` also makes a built library importable (to compare a translation with its
    original outside the sandbox, in tests and benchmarks).
    """
    results: dict[str, ReferenceRun] = {}
    worker: subprocess.Popen[str] | None = None
    try:
        for job in jobs:
            if worker is None or worker.poll() is not None:
                worker = _start(library_root)
            run = _run_one(worker, job, timeout_s)
            if run.crashed or run.timed_out:
                _stop(worker)
                worker = None
            results[job.key] = run
            if on_result is not None:
                on_result(job.key, run)
    finally:
        if worker is not None:
            _stop(worker)
    return results


def _start(library_root: Path | None) -> subprocess.Popen[str]:
    env = dict(os.environ)
    if library_root is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(library_root), env.get("PYTHONPATH")])
        )
    return subprocess.Popen(
        [sys.executable, "-c", _WORKER],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # warnings of the references are noise here
        text=True,
        bufsize=1,
    )


def _stop(worker: subprocess.Popen[str]) -> None:
    if worker.poll() is None:
        worker.kill()
    worker.wait()
    for stream in (worker.stdin, worker.stdout):
        if stream is not None:
            stream.close()


def _run_one(worker: subprocess.Popen[str], job: ReferenceJob, timeout_s: float) -> ReferenceRun:
    assert worker.stdin is not None and worker.stdout is not None
    request = {
        "code": job.code,
        "entry": job.entry_point,
        "inputs": list(job.test_inputs),
        "timeout": timeout_s,
    }
    empty = (None,) * len(job.test_inputs)
    try:
        worker.stdin.write(json.dumps(request) + "\n")
        worker.stdin.flush()
    except BrokenPipeError:
        return ReferenceRun(empty, empty, crashed=True)
    # the in-worker timer cannot interrupt a long C call; this deadline can
    ready, _, _ = select.select([worker.stdout], [], [], timeout_s + 5.0)
    if not ready:
        return ReferenceRun(empty, empty, timed_out=True)
    line = worker.stdout.readline()
    if not line:
        return ReferenceRun(empty, empty, crashed=True)
    data = json.loads(line)
    if data["timed_out"]:
        return ReferenceRun(empty, empty, timed_out=True)
    printed = tuple(data["printed"]) or empty
    errors = tuple(data["errors"]) or empty
    return ReferenceRun(printed, errors, setup_error=data["setup_error"])
