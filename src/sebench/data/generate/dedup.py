"""Near-duplicate references: the same program up to names, by token edit distance.

A generator asked many times about one function writes the same solution again under other
variable names. Each reference is normalised (docstrings dropped, every name the code binds, its
parameters and functions included, renamed `v0, v1, ...` in order of first appearance; module
aliases, attributes and builtins kept) and unparsed, then split into Python tokens. Two references
are near-duplicates when they call the same NumPy functions and their token edit distance is at
most `DUPLICATE_DISTANCE` of the longer token list.

Why 0.1: a rename gives 0; the smallest real variation of a one-call reference (an added
`axis=0`, a `.tolist()`, another argument) changes 3-6 tokens of its 20-40, i.e. 0.1-0.3, and is
a different task. 0.1 catches renamed copies with a cosmetic extra (a cast, parentheses) and
keeps those. Requiring the same NumPy calls keeps `np.mean(x)` and `np.median(x)` apart although
they differ by one token.
"""

from __future__ import annotations

import ast
import builtins
import io
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

DUPLICATE_DISTANCE = 0.1
_SKIPPED_TOKENS = (tokenize.ENCODING, tokenize.ENDMARKER, tokenize.NL, tokenize.COMMENT)
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class Fingerprint:
    key: str  # what the caller calls this program (a task id)
    calls: tuple[str, ...]  # NumPy functions it calls, sorted
    tokens: tuple[str, ...]  # the normalised program's tokens
    # what it is asked and answers (test inputs and expected outputs), where the caller has
    # them: two tasks of the same functions alike there are one task, however their programs
    # differ ("" where unknown)
    cases: str = ""


def fingerprint(key: str, code: str, calls: Sequence[str]) -> Fingerprint:
    return Fingerprint(key, tuple(sorted(set(calls))), tuple(normalised_tokens(code)))


def normalised_tokens(code: str) -> list[str]:
    """The tokens of `code` with docstrings dropped and its own names renamed in order."""
    tree = _Renamer().visit(ast.parse(code))
    text = ast.unparse(tree)
    return [
        token.string
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type not in _SKIPPED_TOKENS
    ]


def token_distance(a: Sequence[str], b: Sequence[str]) -> float:
    """Levenshtein distance over tokens divided by the longer length (0: equal, 1: disjoint)."""
    if not a and not b:
        return 0.0
    previous = list(range(len(b) + 1))
    for i, left in enumerate(a, start=1):
        current = [i]
        for j, right in enumerate(b, start=1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (left != right))
            )
        previous = current
    return previous[-1] / max(len(a), len(b))


def same_cases(candidate: Fingerprint, kept: Sequence[Fingerprint]) -> str | None:
    """The key of the first kept program with `candidate`'s functions and cases, or None."""
    if not candidate.cases:
        return None
    for other in kept:
        if other.cases == candidate.cases and other.calls == candidate.calls:
            return other.key
    return None


def duplicate_of(
    candidate: Fingerprint, kept: Sequence[Fingerprint], threshold: float = DUPLICATE_DISTANCE
) -> tuple[str, float] | None:
    """(key, distance) of the first kept program `candidate` nearly duplicates, or None."""
    for other in kept:
        if other.calls != candidate.calls:
            continue
        # the length difference is a lower bound of the distance: skip the quadratic work
        longest = max(len(other.tokens), len(candidate.tokens), 1)
        if abs(len(other.tokens) - len(candidate.tokens)) / longest > threshold:
            continue
        distance = token_distance(candidate.tokens, other.tokens)
        if distance <= threshold:
            return other.key, distance
    return None


class _Renamer(ast.NodeTransformer):
    """Renames bound names in order of first appearance; leaves imports, attributes, builtins."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.imported: set[str] = set()

    def _new(self, name: str) -> str:
        if name in self.imported or (name in _BUILTINS and name not in self.names):
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Import(self, node: ast.Import) -> ast.AST:
        self.imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        self.imported |= {a.asname or a.name for a in node.names}
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self._new(node.name)
        body = node.body
        first = body[0].value if body and isinstance(body[0], ast.Expr) else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            node.body = body[1:] or [ast.Pass()]
        self.generic_visit(node)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._new(node.arg)
        node.annotation = None
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._new(node.id)
        return node
