"""Comparing a printed result with the expected one, as the official grader does, minus its bugs.

Official semantics: the exact string first; otherwise both sides are parsed as NumPy/Python prints
(`[1. 2.]`, `array([...], dtype=...)`, `ZWCArray([...])`, `np.float64(1.5)`, nan/inf, complex,
nested lists, tuples, dicts, sets) and compared numerically with an absolute tolerance of 1e-2.
Differences from the official comparator, on purpose: dict keys and values are compared (the
official one only compares the text after the last ':'), and a relative tolerance can be added.

The parser is a small recursive-descent parser over a regular-expression tokenizer: nothing a
response prints is ever passed to `eval`. List, tuple and array are the same kind of sequence
(the library prints arrays where a reference printed lists); bools only equal bools.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from functools import lru_cache

DEFAULT_TOLERANCE = 1e-2  # official absolute tolerance
MAX_DEPTH = 200  # deeper nesting is not a real result; refusing it keeps the parser bounded
MAX_PARSE_CHARS = 4 * 1024 * 1024
# A printed result longer than this beyond the expected one is a wrong answer without parsing:
# parsing hostile output costs time and memory in the grader. Four times the expected length
# leaves room for a plain-Python print of a NumPy-printed value (`0.30000000000000004` for
# `0.3`), and 64 KiB for everything short.
SLACK_CHARS = 64 * 1024
SLACK_FACTOR = 4

# Calls whose printed form wraps a plain value: `array([1, 2], dtype=int32)` is `[1, 2]`.
_WRAPPERS = frozenset(
    str.split(
        "array asarray ZWCArray matrix float64 float32 float16 float128 longdouble int64 int32 "
        "int16 int8 uint64 uint32 uint16 uint8 intp uintp complex128 complex64 clongdouble bool_ "
        "bool str_ bytes_ float_ int_ object_ longlong ulonglong double single half intc"
    )
)
_BOOL_NAMES = {"True": True, "False": False, "True_": True, "False_": False}
_FLOAT_NAMES = {"nan": math.nan, "NaN": math.nan, "inf": math.inf, "Infinity": math.inf}

_REAL = r"(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?|nan|inf)"
_TOKEN = re.compile(
    rf"""
    (?P<ws>\s+)
  | (?P<number>[+-]?{_REAL}(?:[+-]{_REAL}j|j)?(?![A-Za-z0-9_]))
  | (?P<string>[bru]{{0,2}}'(?:[^'\\]|\\.)*'|[bru]{{0,2}}"(?:[^"\\]|\\.)*")
  | (?P<ellipsis>\.\.\.)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<punct>[\[\](){{}},:=])
    """,
    re.VERBOSE,
)


_LONG_INT = re.compile(r"[+-]?\d+")


class ParseError(ValueError):
    """The text is not a print this parser understands."""


@dataclass(frozen=True)
class Name:
    """A bare name the parser does not know (`float64` in `dtype=float64`); equal by name."""

    name: str


@dataclass(frozen=True)
class Call:
    """An unknown constructor print (`Counter({'a': 1})`, `SlogdetResult(sign=1.0, ...)`),
    compared by name, positional arguments and keyword arguments (by keyword, in any order)."""

    name: str
    args: tuple
    kwargs: tuple = ()  # ((keyword, value), ...) as printed


@dataclass(frozen=True)
class Mapping:
    items: tuple  # ((key, value), ...)


@dataclass(frozen=True)
class SetOf:
    items: tuple


ELLIPSIS = Name("...")


@dataclass(frozen=True)
class Tolerance:
    absolute: float = DEFAULT_TOLERANCE
    relative: float = 0.0


def outputs_match(actual: str | None, expected: str, tolerance: Tolerance | None = None) -> bool:
    """Whether a printed result matches the expected print under the official semantics."""
    if actual is None:
        return False
    if actual.strip() == expected.strip():
        return True
    if len(actual) > SLACK_FACTOR * len(expected) + SLACK_CHARS:
        return False  # far longer than any print of the expected value: never parsed
    try:
        want = _parse_expected(expected)
        got = parse_print(actual)
        return values_match(got, want, tolerance or Tolerance())
    except Exception:  # noqa: BLE001 - text that cannot be read is a mismatch, whatever breaks
        # on it (a red team's `set(5)` raised a TypeError: an unscorable infra error, which the
        # RL reward leaves out of the group, not a wrong answer); either side may be a
        # program's output (model-written tasks compare answers with each other)
        return False


@lru_cache(maxsize=4096)
def _parse_expected(text: str) -> object:
    """The expected side, cached: it is ours, and each one is compared with many responses.
    The printed side is never cached, so hostile output is not kept."""
    return parse_print(text)


def parse_print(text: str) -> object:
    """Parse one printed result into plain values (numbers, str, bool, None, lists, ...)."""
    if len(text) > MAX_PARSE_CHARS:
        raise ParseError("too long")
    parser = _Parser(_tokenize(text))
    value = parser.value(0)
    if parser.pos != len(parser.tokens):
        raise ParseError(f"unexpected {parser.tokens[parser.pos][1]!r} after a complete value")
    return value


def values_match(got: object, want: object, tolerance: Tolerance) -> bool:
    if isinstance(got, bool) or isinstance(want, bool):
        return isinstance(got, bool) and isinstance(want, bool) and got == want
    if isinstance(got, int | float | complex) and isinstance(want, int | float | complex):
        return _numbers_close(got, want, tolerance)
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(
            values_match(g, w, tolerance) for g, w in zip(got, want, strict=True)
        )
    if isinstance(got, Mapping) and isinstance(want, Mapping):
        return _mappings_match(got, want, tolerance)
    if isinstance(got, SetOf) and isinstance(want, SetOf):
        return _unordered_match(list(got.items), list(want.items), tolerance)
    if isinstance(got, Call) and isinstance(want, Call):
        return (
            got.name == want.name
            and values_match(list(got.args), list(want.args), tolerance)
            and _keywords_match(got.kwargs, want.kwargs, tolerance)
        )
    return type(got) is type(want) and got == want


def _keywords_match(got: tuple, want: tuple, tolerance: Tolerance) -> bool:
    got_names, want_names = sorted(k for k, _ in got), sorted(k for k, _ in want)
    if got_names != want_names:
        return False
    by_name = dict(got)
    return all(values_match(by_name[key], value, tolerance) for key, value in want)


def _numbers_close(a: complex, b: complex, tolerance: Tolerance) -> bool:
    if isinstance(a, complex) or isinstance(b, complex):
        a, b = complex(a), complex(b)
        return _reals_close(a.real, b.real, tolerance) and _reals_close(a.imag, b.imag, tolerance)
    return _reals_close(a, b, tolerance)


def _reals_close(a: float, b: float, tolerance: Tolerance) -> bool:
    if isinstance(a, int) and isinstance(b, int) and a == b:
        return True  # exact, also for integers too big for a float
    try:
        a, b = float(a), float(b)
    except OverflowError:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= max(tolerance.relative * max(abs(a), abs(b)), tolerance.absolute)


def _mappings_match(got: Mapping, want: Mapping, tolerance: Tolerance) -> bool:
    if len(got.items) != len(want.items):
        return False
    exact = Tolerance(absolute=0.0)
    remaining = list(got.items)
    for key, value in want.items:
        for index, (other_key, other_value) in enumerate(remaining):
            if values_match(other_key, key, exact):
                if not values_match(other_value, value, tolerance):
                    return False
                del remaining[index]
                break
        else:
            return False
    return True


def _unordered_match(got: list, want: list, tolerance: Tolerance) -> bool:
    if len(got) != len(want):
        return False
    remaining = list(got)
    for item in want:
        for index, other in enumerate(remaining):
            if values_match(other, item, tolerance):
                del remaining[index]
                break
        else:
            return False
    return True


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens = []
    pos, end = 0, len(text)
    while pos < end:
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ParseError(f"cannot read {text[pos : pos + 20]!r}")
        kind = match.lastgroup
        if kind != "ws":
            tokens.append((kind, match.group()))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", "")

    def take(self, text: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token[0] == "end" or (text is not None and token[1] != text):
            raise ParseError(f"expected {text or 'a value'}, got {token[1] or 'the end'!r}")
        self.pos += 1
        return token

    def accept(self, text: str) -> bool:
        if self.peek()[1] == text and self.peek()[0] == "punct":
            self.pos += 1
            return True
        return False

    def value(self, depth: int) -> object:
        if depth > MAX_DEPTH:
            raise ParseError("nested too deeply")
        kind, text = self.take()
        if kind == "number":
            return _number(text)
        if kind == "string":
            return _string(text)
        if kind == "ellipsis":
            return ELLIPSIS
        if kind == "ident":
            return self.named(text, depth)
        if text == "[":
            return self.items("]", depth)
        if text == "(":
            return self.parenthesized(depth)
        if text == "{":
            return self.braced(depth)
        raise ParseError(f"unexpected {text!r}")

    def items(self, close: str, depth: int) -> list:
        """Elements up to `close`; commas are optional (NumPy prints `[1. 2.]`)."""
        found = []
        while not self.accept(close):
            found.append(self.value(depth + 1))
            if not self.accept(","):
                if self.peek()[1] == close:
                    continue
                if self.peek()[0] in ("end",) or self.peek()[1] in (")", "}", "]", ":", "="):
                    raise ParseError(f"expected {close!r}")
        return found

    def parenthesized(self, depth: int) -> object:
        if self.accept(")"):
            return []
        first = self.value(depth + 1)
        if self.accept(")"):
            return first  # a parenthesized value, such as `(1+2j)`
        self.take(",")
        rest = self.items(")", depth)
        return [first, *rest]

    def braced(self, depth: int) -> object:
        if self.accept("}"):
            return Mapping(())
        first = self.value(depth + 1)
        if self.accept(":"):
            pairs = [(first, self.value(depth + 1))]
            while self.accept(","):
                if self.peek()[1] == "}":
                    break
                key = self.value(depth + 1)
                self.take(":")
                pairs.append((key, self.value(depth + 1)))
            self.take("}")
            return Mapping(tuple(pairs))
        items = [first]
        while self.accept(","):
            if self.peek()[1] == "}":
                break
            items.append(self.value(depth + 1))
        self.take("}")
        return SetOf(tuple(items))

    def named(self, name: str, depth: int) -> object:
        short = name.rsplit(".", 1)[-1]
        if self.peek() != ("punct", "("):
            if short in _BOOL_NAMES:
                return _BOOL_NAMES[short]
            if short in _FLOAT_NAMES:
                return _FLOAT_NAMES[short]
            if name == "None":
                return None
            return Name(name)
        self.take("(")
        args, kwargs = [], []
        while not self.accept(")"):
            if self.peek()[0] == "ident" and self.tokens[self.pos + 1 : self.pos + 2] == [
                ("punct", "=")
            ]:
                keyword = self.take()[1]
                self.pos += 1
                kwargs.append((keyword, self.value(depth + 1)))
            else:
                args.append(self.value(depth + 1))
            if not self.accept(","):
                self.take(")")
                break
        if short in _WRAPPERS:
            # `array([1, 2], dtype=int32)` is `[1, 2]`: only the dtype is not part of the value
            # (`shape=(0, 3)` is, and so is anything else printed as a keyword)
            kwargs = [(key, value) for key, value in kwargs if key != "dtype"]
            if len(args) == 1 and not kwargs:
                return args[0]
        if kwargs:
            return Call(short, tuple(args), tuple(kwargs))
        if short in ("set", "frozenset"):
            inner = args[0] if args else SetOf(())
            return inner if isinstance(inner, SetOf) else SetOf(tuple(inner))
        if short == "dict" and len(args) == 1 and isinstance(args[0], Mapping):
            return args[0]
        return Call(short, tuple(args))


@dataclass(frozen=True)
class LongInt:
    """An integer printed with more digits than Python converts from text (4,300 by default),
    kept as its digits and compared exactly. Read as a float it was `inf`, so any two such
    integers matched (a red team's reading); converting it with the limit lifted would cost
    the grader quadratic time in hostile output."""

    digits: str  # an optional `-`, then the digits without leading zeros


def _number(text: str) -> int | float | complex | LongInt:
    if text.endswith("j"):
        return complex(text.replace("+-", "-"))
    try:
        return int(text)
    except ValueError:
        if _LONG_INT.fullmatch(text):
            sign, digits = ("-" if text[0] == "-" else ""), text.lstrip("+-").lstrip("0")
            return LongInt(sign + (digits or "0"))
        return float(text)


def _string(text: str) -> str | bytes:
    try:
        return ast.literal_eval(text)  # a single string token: a literal, never code
    except (ValueError, SyntaxError):
        return text[1:-1]
