"""Comparing a printed result with the expected one by the official comparator's semantics.

Used by the `official` rules only (`compare.py` is sebench's own comparator). Each rule was checked
against the official grader's own verdicts (`official_verdicts_dev.jsonl`) unless marked otherwise:
- the exact text (stripped) first;
- a print with a line break between two values of one row (NumPy wraps a long row: `[0.1 0.2\n
  0.3]`) does not parse, so it is a wrong answer; rows on their own lines (`[[1 2]\n [3 4]]`) and
  breaks after a comma (`array([[1, 2],\n [3, 4]])`) parse;
- `bool` is a number: `False` equals `0`, `True` equals `1` (and `1.001`, within the tolerance);
- a single-element list (or tuple, or array) equals its element, at every level: `2.5` equals
  `[[2.5]]`;
- a string inside a result is read as a literal when it is one: `'True'` equals `True`;
- complex numbers compare exactly and never equal a real;
- (not exercised by any dev response) a constructor print compares its name, its positional
  arguments and its keyword arguments (`SlogdetResult(sign=..., logabsdet=...)`);
- the absolute tolerance is 1e-2, relative none;
- (from the spec, not exercised by any dev response) when the expected print holds a `:`, only the
  text after the last `:` is compared, so most of a dict is ignored.

Parsing is `compare.parse_print`: nothing a response prints is ever passed to `eval`.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from sebench.grading.compare import (
    DEFAULT_TOLERANCE,
    MAX_DEPTH,
    SLACK_CHARS,
    SLACK_FACTOR,
    Call,
    Mapping,
    Name,
    ParseError,
    SetOf,
    parse_print,
)

# A line break whose last character before it (spaces aside) is not one that ends a row or an
# item (`]`, `,`) or opens one: the official parser reads a wrapped row as two values side by side.
_WRAPPED_ROW = re.compile(r"[^\s\]\[,({:][ \t]*\n")


def official_outputs_match(
    actual: str | None, expected: str, tolerance: float = DEFAULT_TOLERANCE
) -> bool:
    """Whether `actual` matches `expected` as the official comparator decides."""
    if actual is None:
        return False
    actual, expected = actual.strip(), expected.strip()
    if actual == expected:
        return True
    if len(actual) > SLACK_FACTOR * len(expected) + SLACK_CHARS:
        return False  # far longer than any print of the expected value: never parsed
    if ":" in expected:
        actual, expected = _after_last_colon(actual), _after_last_colon(expected)
        if actual == expected:
            return True
    if _WRAPPED_ROW.search(actual) or _WRAPPED_ROW.search(expected):
        return False
    try:
        want = _expected_value(expected)
        got = _normalized(parse_print(actual), 0, read_strings=True)
        return _same(got, want, tolerance, 0)
    except Exception:  # noqa: BLE001 - text that cannot be read is a mismatch, whatever
        return False  # breaks on it (never an unscorable infra error: see compare.py)


@lru_cache(maxsize=4096)
def _expected_value(text: str) -> object:
    """The expected side, cached (it is ours); the printed side never is."""
    return _normalized(parse_print(text), 0, read_strings=True)


def _after_last_colon(text: str) -> str:
    # as the official `split(":")[-1]`: the whole text when it has no colon
    return text.rsplit(":", 1)[-1].strip().rstrip("})").strip()


def _normalized(value: object, depth: int, read_strings: bool) -> object:
    """The value as the official comparator sees it: bools as numbers, strings read as literals
    (once: not the strings inside those), single-element sequences unwrapped."""
    if depth > MAX_DEPTH:
        raise ParseError("nested too deeply")
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        return _string_literal(value, depth) if read_strings else value
    if isinstance(value, list):
        items = [_normalized(item, depth + 1, read_strings) for item in value]
        return items[0] if len(items) == 1 else items
    if isinstance(value, Mapping):
        return Mapping(
            tuple(
                (_normalized(k, depth + 1, read_strings), _normalized(v, depth + 1, read_strings))
                for k, v in value.items
            )
        )
    if isinstance(value, SetOf):
        return SetOf(tuple(_normalized(item, depth + 1, read_strings) for item in value.items))
    if isinstance(value, Call):
        args = tuple(_normalized(a, depth + 1, read_strings) for a in value.args)
        return Call(value.name, args, value.kwargs)
    return value


def _string_literal(text: str, depth: int) -> object:
    try:
        value = parse_print(text)
    except ParseError:
        return text
    if isinstance(value, str | Name | Call):
        return text  # not a literal, or a string again
    return _normalized(value, depth + 1, read_strings=False)


def _same(got: object, want: object, tolerance: float, depth: int) -> bool:
    if isinstance(got, complex) or isinstance(want, complex):
        return isinstance(got, complex) and isinstance(want, complex) and got == want
    if isinstance(got, int | float) and isinstance(want, int | float):
        return _close(got, want, tolerance)
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(
            _same(g, w, tolerance, depth + 1) for g, w in zip(got, want, strict=True)
        )
    if isinstance(got, Mapping) and isinstance(want, Mapping):
        pairs = [list(pair) for pair in got.items], [list(pair) for pair in want.items]
        return _same(*pairs, tolerance, depth + 1)
    if isinstance(got, SetOf) and isinstance(want, SetOf):
        return _same(list(got.items), list(want.items), tolerance, depth + 1)
    if isinstance(got, Call) and isinstance(want, Call):
        # keywords too, by name in any order: NumPy prints some results by keywords alone
        # (`SlogdetResult(sign=..., logabsdet=...)`, `QRResult(Q=..., R=...)`), and a print of
        # that name with any values, or none, was `correct` (a red team's, OB)
        got_keys, want_keys = sorted(k for k, _ in got.kwargs), sorted(k for k, _ in want.kwargs)
        by_name = dict(got.kwargs)
        return (
            got.name == want.name
            and _same(list(got.args), list(want.args), tolerance, depth)
            and got_keys == want_keys
            and all(_same(by_name[k], v, tolerance, depth + 1) for k, v in want.kwargs)
        )
    return type(got) is type(want) and got == want


def _close(a: float, b: float, tolerance: float) -> bool:
    if isinstance(a, int) and isinstance(b, int):
        return abs(a - b) <= tolerance
    try:
        a, b = float(a), float(b)
    except OverflowError:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tolerance
