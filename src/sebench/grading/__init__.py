"""Grading: one verdict per response, that honest code earns and tricks cannot.

- `extract`: the last fenced python block
- `policy`: the static checks, a named rule per refusal
- `sandbox/`: warm fork servers running each sample under isolation layers
- `compare`: printed results against the ground truth, parsed safely (never `eval`)
- `verdicts`: `Verdict`, `VerdictKind`, the official categories
- `rules`: `Rules` (strict, official); `official_rules`, `official_compare`: the official grader's
  verdict logic, quirks included
- `grader`: `Grader` (static checks -> sandbox -> comparison)
- `responses`, `runner`: `sebench eval` (resumable), `metrics`: accuracy, pass@k, intervals
- `validate`: every task's references through the grader (`sebench validate`)
"""

from typing import TYPE_CHECKING

from sebench.lazy import lazy_exports

if TYPE_CHECKING:
    from sebench.grading.grader import Grader, grade
    from sebench.grading.rules import Rules
    from sebench.grading.verdicts import OfficialCategory, Verdict, VerdictKind

__all__ = ["Grader", "OfficialCategory", "Rules", "Verdict", "VerdictKind", "grade"]

# Imported on first use: the sandbox's fork server imports `sebench.grading.sandbox`, and must
# not pull in the grader (threads, logging), whose fork handlers would slow down every fork.
__getattr__ = lazy_exports(
    __name__,
    {
        "Grader": "sebench.grading.grader",
        "grade": "sebench.grading.grader",
        "OfficialCategory": "sebench.grading.verdicts",
        "Rules": "sebench.grading.rules",
        "Verdict": "sebench.grading.verdicts",
        "VerdictKind": "sebench.grading.verdicts",
    },
)
