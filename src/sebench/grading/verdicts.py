"""Verdicts: what the grader decided about one sample, with the evidence for it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sebench.grading.sandbox.execution import ExecStatus, Execution

DETAIL_CHARS = 300  # evidence stays short: results files must not grow with hostile output


class VerdictKind(StrEnum):
    CORRECT = "correct"
    WRONG_ANSWER = "wrong_answer"  # ran, used the library, some test case printed the wrong result
    RUNTIME_ERROR = "runtime_error"  # an exception (error_type), a crash or too much output
    TIMEOUT = "timeout"  # past the wall-clock or CPU limit
    MEMORY = "memory"  # past the memory limit
    USES_NUMPY = "uses_numpy"  # NumPy reached in any form (static policy)
    NO_LIBRARY = "no_library"  # no library call ran in any test case, or only the array constructor
    POLICY = "policy"  # refused before running by a named static rule other than NumPy
    NO_CODE = "no_code"  # no fenced python block
    SYNTAX_ERROR = "syntax_error"
    INFRA_ERROR = "infra_error"  # the grader itself failed: counted, never dropped


class OfficialCategory(StrEnum):
    """The five fractions the official grader reports (they sum to 1 over all samples)."""

    ACC = "acc"
    WITHOUT_ZWC = "without_zwc"
    NUMPY = "numpy"
    RESULT_ERROR = "result_error"
    EXE_ERROR = "exe_error"


# The default official category of each kind: no code and syntax errors are `without_zwc`;
# anything that did not finish running is `exe_error`. Policy refusals never run, so they are
# `exe_error` too; infra errors are silently dropped officially, here they stay in the
# denominator as `exe_error` (the summary also counts them apart).
OFFICIAL_CATEGORY: dict[VerdictKind, OfficialCategory] = {
    VerdictKind.CORRECT: OfficialCategory.ACC,
    VerdictKind.WRONG_ANSWER: OfficialCategory.RESULT_ERROR,
    VerdictKind.RUNTIME_ERROR: OfficialCategory.EXE_ERROR,
    VerdictKind.TIMEOUT: OfficialCategory.EXE_ERROR,
    VerdictKind.MEMORY: OfficialCategory.EXE_ERROR,
    VerdictKind.USES_NUMPY: OfficialCategory.NUMPY,
    VerdictKind.NO_LIBRARY: OfficialCategory.WITHOUT_ZWC,
    VerdictKind.POLICY: OfficialCategory.EXE_ERROR,
    VerdictKind.NO_CODE: OfficialCategory.WITHOUT_ZWC,
    VerdictKind.SYNTAX_ERROR: OfficialCategory.WITHOUT_ZWC,
    VerdictKind.INFRA_ERROR: OfficialCategory.EXE_ERROR,
}

_EVIDENCE = ("rule", "line", "error_type", "case", "detail")


@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
    rule: str | None = None  # the policy or library-use rule that decided it: "dunder-attribute"
    line: int | None = None  # line in the extracted code the rule points at
    error_type: str | None = None  # exception type name for runtime errors: "ValueError"
    case: int | None = None  # index of the first test case that failed
    detail: str | None = None  # a short human-readable explanation
    # The official rules' category when it is not the kind's default (the grader sets it on
    # every verdict: `[[2.5]]` for `2.5` is `wrong_answer` but `acc` officially; NumPy code
    # without a library call is `uses_numpy` but `without_zwc`). None otherwise, so equal
    # verdicts compare equal however they were built.
    official: OfficialCategory | None = None

    def __post_init__(self) -> None:
        if self.official is not None:
            official = OfficialCategory(self.official)
            if official is OFFICIAL_CATEGORY[self.kind]:
                official = None
            object.__setattr__(self, "official", official)

    @property
    def correct(self) -> bool:
        return self.kind is VerdictKind.CORRECT

    @property
    def official_category(self) -> OfficialCategory:
        return self.official or OFFICIAL_CATEGORY[self.kind]

    def to_dict(self) -> dict[str, Any]:
        row: dict[str, Any] = {"verdict": self.kind.value, "official": self.official_category.value}
        for name in _EVIDENCE:
            value = getattr(self, name)
            if value is not None:
                row[name] = value
        return row

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> Verdict:
        return cls(
            kind=VerdictKind(row["verdict"]),
            official=row.get("official"),
            **{n: row.get(n) for n in _EVIDENCE},
        )

    def __str__(self) -> str:
        evidence = [f"{n}={getattr(self, n)!r}" for n in _EVIDENCE if getattr(self, n) is not None]
        if self.official is not None:
            evidence.append(f"official={self.official.value!r}")
        return f"{self.kind.value}({', '.join(evidence)})" if evidence else self.kind.value


# What the static stages give code that wore out their walks or the parser (nesting, the
# recursion limit): the same in `Grader.prepare` and `official_prepare`, whatever the process.
TOO_DEEP = Verdict(VerdictKind.POLICY, rule="too-deep", detail="code nested too deeply")


def short(text: str) -> str:
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 3] + "..."


def failed_run(execution: Execution, case: int) -> Verdict:
    detail = short(execution.detail or "")
    match execution.status:
        case ExecStatus.TIMEOUT:
            return Verdict(VerdictKind.TIMEOUT, case=case, detail=detail or None)
        case ExecStatus.MEMORY:
            return Verdict(
                VerdictKind.MEMORY, case=case, error_type="MemoryError", detail=detail or None
            )
        case ExecStatus.OUTPUT_LIMIT:
            return Verdict(
                VerdictKind.RUNTIME_ERROR,
                case=case,
                error_type="OutputLimit",
                detail=detail or None,
            )
        case _:  # CRASHED, or OK with missing cases: no complete result is a failure, never a pass
            return Verdict(
                VerdictKind.RUNTIME_ERROR,
                case=case,
                error_type="Crashed",
                detail=detail or "the program stopped before reporting every test case",
            )


def setup_message(execution: Execution) -> str:
    return getattr(execution, "setup_message", None) or execution.setup_error or ""
