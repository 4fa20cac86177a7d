"""Which rules decide a verdict: sebench's own (`strict`) or the official grader's (`official`).

`strict` is the default: library use decided at run time, the comparator without the official
comparator's bugs, the hardened static policy. `official` reproduces the official grader's verdict
logic, quirks included (see `official.py` and `official_compare.py`), so that numbers can be put
next to published ones; it stays safe all the same: the answers never enter the sandbox, nothing
is `eval`'d, and the sandbox and the static policy stay on. Whatever the rules, every verdict also
carries the official-rules category, so one run gives both numbers.
"""

from __future__ import annotations

from enum import StrEnum


class Rules(StrEnum):
    STRICT = "strict"
    OFFICIAL = "official"
