"""Grading: one verdict per response, that honest code earns and tricks cannot.

- `extract`: the last fenced python block
- `policy`: the static checks, a named rule per refusal
- `sandbox/`: warm fork servers running each sample under isolation layers
- `compare`: printed results against the ground truth, parsed safely (never `eval`)
- `verdicts`: `Verdict`, `VerdictKind`, the official categories
- `grader`: `Grader` (static checks -> sandbox -> comparison)
- `responses`, `runner`: `sebench eval` (resumable), `metrics`: accuracy, pass@k, intervals
- `validate`: every task's references through the grader (`sebench validate`)
"""

from sebench.grading.grader import Grader, grade
from sebench.grading.verdicts import OfficialCategory, Verdict, VerdictKind

__all__ = ["Grader", "OfficialCategory", "Verdict", "VerdictKind", "grade"]
