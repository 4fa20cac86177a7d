"""The code a response is graded on: its last fenced python block (the official rule)."""

from __future__ import annotations

import re

# ```python / ```py / ```python3, optionally followed by text on the fence line; the block ends at
# the next fence. A block that is never closed (a truncated response) does not count, as officially.
_FENCED_PYTHON = re.compile(
    r"```[ \t]*(?:python3?|py)\b[^\n]*\n(.*?)```", re.DOTALL | re.IGNORECASE
)


def extract_code(response: str) -> str | None:
    """The last fenced python block of `response`, or None when there is none (or it is blank)."""
    blocks = _FENCED_PYTHON.findall(response or "")
    if not blocks:
        return None
    code = blocks[-1]
    return code if code.strip() else None
