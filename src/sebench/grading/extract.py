"""The code a response is graded on: its last fenced python block (the official rule)."""

from __future__ import annotations

FENCE = "```"
# Size limits the grader checks before anything is parsed: the static checks run in the grader
# process, outside the sandbox, and a 4 MB block cost them 2 GB and 18 s there. Honest answers
# to these tasks are a few KiB of code; a reasoning model's whole response may run to a few
# hundred KiB (extraction is a linear scan, so the response limit can be looser than the code's).
MAX_RESPONSE_CHARS = 1 << 20
MAX_CODE_CHARS = 64 << 10

# Labels in the order a regex `python3?|py` tries them; matched case-insensitively and followed
# by a word boundary, then optional text up to the end of the fence line.
_LABELS = ("python3", "python", "py")


def extract_code(response: str) -> str | None:
    """The last fenced python block of `response`, or None when there is none (or it is blank).

    An opening fence is ```` ``` ```` then optional spaces or tabs, then ``python``, ``py`` or
    ``python3`` (any case, not followed by a letter, digit or underscore), then anything up to the
    end of that line; the block ends at the next ```` ``` ````. A block that is never closed (a
    truncated response) does not count, as officially. This is a linear scan on purpose: the
    same rule as one regular expression backtracks quadratically on hostile text (``"```py" * n``
    with no newline).
    """
    blocks = _python_blocks(response or "")
    if not blocks:
        return None
    code = blocks[-1]
    return code if code.strip() else None


def _python_blocks(text: str) -> list[str]:
    blocks = []
    pos = 0
    while True:
        start = text.find(FENCE, pos)
        if start < 0:
            return blocks
        label_end = _label_end(text, start + len(FENCE))
        if label_end is None:
            pos = start + 1  # a longer run of backticks may still open a block one further on
            continue
        newline = text.find("\n", label_end)
        if newline < 0:
            return blocks  # no later fence line can end either
        close = text.find(FENCE, newline + 1)
        if close < 0:
            return blocks  # never closed: neither can any later block be
        blocks.append(text[newline + 1 : close])
        pos = close + len(FENCE)


def _label_end(text: str, index: int) -> int | None:
    """Where the python label after a fence at `index` ends, or None when there is none."""
    if text.startswith("`", index):
        return None  # O(1) for every fence inside a run of backticks but the last
    while index < len(text) and text[index] in " \t":
        index += 1
    for label in _LABELS:
        end = index + len(label)
        if text[index:end].lower() == label and not _is_word_char(text[end : end + 1]):
            return end
    return None


def _is_word_char(char: str) -> bool:
    return bool(char) and (char.isalnum() or char == "_")


OFFICIAL_OPENING = "```python\n"


def extract_code_official(response: str) -> str | None:
    """The last block the official rule finds: only ```` ```python ```` directly followed by a
    newline opens one (```` ```py ````, ```` ```Python ```` or a trailing space do not), and it
    ends at the next ```` ``` ````. None when there is none; a blank block is returned as is."""
    text = response or ""
    found = None
    pos = 0
    while True:
        start = text.find(OFFICIAL_OPENING, pos)
        if start < 0:
            return found
        body = start + len(OFFICIAL_OPENING)
        close = text.find(FENCE, body)
        if close < 0:
            return found  # never closed: a truncated response
        found = text[body:close]
        pos = close + len(FENCE)
