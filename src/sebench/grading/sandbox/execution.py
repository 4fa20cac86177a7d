"""The records that cross the sandbox boundary: a job in, an execution out.

A `Job` carries only what the untrusted code needs (its source, the function to call and the
argument text of each test case). Expected outputs have no field here on purpose: the processes
that run untrusted code never receive them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from sebench.grading.sandbox.perturbation import Perturbation


@dataclass(frozen=True)
class Job:
    code: str
    entry_point: str
    test_inputs: tuple[str, ...]
    # the library's results nudged (perturbation.py): the grader's check that a correct answer
    # depends on the library
    perturbation: Perturbation = Perturbation.NONE
    # run only the first N cases (None: all); every input still travels, so that the child's
    # memory starts out as in the full run (a rerun that decides on a prefix)
    cases: int | None = None
    # the library functions whose results count as the library's work, named within the
    # package (`kocito`, `rfx.quvohe`): the task's own (`Grader.evidence`); empty: every one's
    evidence: tuple[str, ...] = ()
    # `code` is already what the child runs (stores.rewrite, by a caller that had parsed it);
    # otherwise the pool rewrites it
    stores_guarded: bool = False


class ExecStatus(enum.Enum):
    """How the run of one job ended, as seen from outside the child process."""

    OK = "ok"  # the harness reported every case (each case may still carry an exception)
    TIMEOUT = "timeout"  # wall-clock deadline or CPU-time limit
    MEMORY = "memory"  # MemoryError under the address-space limit
    CRASHED = "crashed"  # no complete result: os._exit, sys.exit, a signal, a broken protocol
    OUTPUT_LIMIT = "output_limit"  # printed results over the output cap
    INFRA_ERROR = "infra_error"  # the sandbox itself failed; the job was not judged


@dataclass(frozen=True)
class CaseOutcome:
    """One test case: the printed result (`str(result)`, as print shows it) or the exception."""

    printed: str | None
    error_type: str | None
    error_message: str | None
    library_calls: int
    non_constructor_calls: int
    # where the official library would have raised and this one did not (`_runtime`)
    official_failures: int = 0
    # library calls whose result was not one of their arguments (perturbation.py): the case's
    # answer can depend on the library only where this is above 0
    computed_results: int = 0
    # how many different library functions, the constructor aside, the run had called by the
    # end of this case (since its start, not per case: `Grader.judge`)
    library_functions: int = 0
    # how many of those are functions of the library's submodule (`rfx.quvohe`)
    submodule_functions: int = 0

    def to_dict(self) -> dict:
        return {
            "printed": self.printed,
            "error_type": self.error_type,
            "error_message": self.error_message,
            "library_calls": self.library_calls,
            "non_constructor_calls": self.non_constructor_calls,
            "official_failures": self.official_failures,
            "computed_results": self.computed_results,
            "library_functions": self.library_functions,
            "submodule_functions": self.submodule_functions,
        }


@dataclass(frozen=True)
class Execution:
    """The result of one job.

    `cases` holds the cases that finished, in order (fewer than the inputs when the run stopped
    early). `setup_error` is the exception type name when executing the code itself failed
    (then `cases` is empty). `detail` says why a non-OK status was given (the signal, the limit,
    the protocol violation). `timings` (seconds): `fork`, `isolation`, `run`, `total` (in the
    server, fork to killed child), `reaped_before` (the server reaping and cleaning up after the
    previous job, once its reply was sent) and `roundtrip` (in the grader, request to reply).
    """

    status: ExecStatus
    cases: tuple[CaseOutcome, ...]
    setup_error: str | None
    timings: dict[str, float] = field(default_factory=dict)
    setup_message: str | None = None
    detail: str | None = None

    def to_dict(self) -> dict:
        return {
            "status": self.status.value,
            "cases": [case.to_dict() for case in self.cases],
            "setup_error": self.setup_error,
            "setup_message": self.setup_message,
            "detail": self.detail,
            "timings": dict(self.timings),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Execution:
        cases = tuple(
            CaseOutcome(
                _encodable(case.get("printed")),
                _encodable(case.get("error_type")),
                _encodable(case.get("error_message")),
                case["library_calls"],
                case["non_constructor_calls"],
                case.get("official_failures", 0),
                case.get("computed_results", 0),
                case.get("library_functions", 0),
                case.get("submodule_functions", 0),
            )
            for case in data.get("cases", ())
        )
        return cls(
            status=ExecStatus(data["status"]),
            cases=cases,
            setup_error=_encodable(data.get("setup_error")),
            timings={k: float(v) for k, v in (data.get("timings") or {}).items()},
            setup_message=_encodable(data.get("setup_message")),
            detail=_encodable(data.get("detail")),
        )

    @classmethod
    def infra_error(cls, detail: str) -> Execution:
        return cls(ExecStatus.INFRA_ERROR, (), None, {}, None, detail)


def _encodable(text: str | None) -> str | None:
    """`text` with lone surrogates (which a child's result or message may hold, and which UTF-8
    refuses) written as backslash escapes, so verdicts and reports can always be written out.
    No real output holds one, so a result that did can never match an expected output anyway."""
    if text is None or text.isascii():  # the common case, checked without a copy
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
