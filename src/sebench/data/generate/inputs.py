"""Input profiles: random test inputs of the kinds a NumPy function's signature asks for.

A test case draws its shapes once (a vector length `n`, a matrix shape `r x c`, a square size `k`)
and every argument of the case is drawn against them, so that two vectors of one case always
broadcast, an index array always fits its vector and `a @ b` always has matching inner sizes.
Values are plain Python literals (lists, ints, floats, bools, complex numbers), since a test
input is keyword-argument text pasted into the call: `x=[1.5, -2.0, 3.0], axis=0`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Shapes:
    """The sizes one test case shares among its arguments."""

    n: int  # vector length
    rows: int
    cols: int
    k: int  # square matrices
    m: int  # a shorter length (index arrays, kernels)

    @classmethod
    def draw(cls, rng: random.Random) -> Shapes:
        n = rng.randint(4, 7)
        return cls(
            n=n,
            rows=rng.randint(2, 4),
            cols=rng.randint(2, 4),
            k=rng.randint(2, 4),
            m=rng.randint(2, n - 1),
        )


def _real(rng: random.Random, low: float, high: float, integers: bool | None = None) -> int | float:
    if integers is None:
        integers = rng.random() < 0.5
    if integers:
        return rng.randint(int(low), int(high))
    return round(rng.uniform(low, high), 1)


def _reals(rng: random.Random, count: int, low: float, high: float) -> list[int | float]:
    # one dtype per array: all ints or all floats, as NumPy arrays of real data are
    integers = rng.random() < 0.5
    return [_real(rng, low, high, integers) for _ in range(count)]


def _matrix(
    rng: random.Random, rows: int, cols: int, low: float = -9, high: float = 9
) -> list[list[Any]]:
    integers = rng.random() < 0.5
    return [[_real(rng, low, high, integers) for _ in range(cols)] for _ in range(rows)]


def _invertible(rng: random.Random, k: int) -> list[list[int]]:
    # diagonally dominant: invertible and well conditioned, so results are stable to print
    rows = [[rng.randint(-3, 3) for _ in range(k)] for _ in range(k)]
    for i in range(k):
        rows[i][i] = sum(abs(v) for v in rows[i]) + rng.randint(1, 4)
    return rows


def _spd(rng: random.Random, k: int) -> list[list[int]]:
    # B Bᵀ + k I: symmetric positive definite with integer entries
    b = [[rng.randint(-3, 3) for _ in range(k)] for _ in range(k)]
    return [
        [sum(b[i][t] * b[j][t] for t in range(k)) + (k if i == j else 0) for j in range(k)]
        for i in range(k)
    ]


def _symmetric(rng: random.Random, k: int) -> list[list[int]]:
    a = [[rng.randint(-5, 5) for _ in range(k)] for _ in range(k)]
    return [[a[min(i, j)][max(i, j)] for j in range(k)] for i in range(k)]


def _complex(rng: random.Random, count: int) -> list[complex]:
    return [complex(rng.randint(-5, 5), rng.randint(-5, 5)) for _ in range(count)]


Drawer = Callable[[random.Random, Shapes], Any]

# kind -> how to draw one argument of that kind. The kinds are named in `functions.py`.
KINDS: dict[str, Drawer] = {
    # vectors of length n
    "vec": lambda r, s: _reals(r, s.n, -20, 30),
    "pos": lambda r, s: _reals(r, s.n, 1, 40),
    "small": lambda r, s: [round(r.uniform(-2, 2), 2) for _ in range(s.n)],
    "unit": lambda r, s: [round(r.uniform(-0.95, 0.95), 2) for _ in range(s.n)],
    "gt1": lambda r, s: [round(r.uniform(1.1, 9), 2) for _ in range(s.n)],
    "ints": lambda r, s: [r.randint(-20, 30) for _ in range(s.n)],
    "nat": lambda r, s: [r.randint(0, 12) for _ in range(s.n)],
    "posint": lambda r, s: [r.randint(1, 60) for _ in range(s.n)],
    "bits": lambda r, s: [r.randint(0, 255) for _ in range(s.n)],
    "shifts": lambda r, s: [r.randint(0, 4) for _ in range(s.n)],
    "bools": lambda r, s: [r.random() < 0.5 for _ in range(s.n)],
    "cplx": lambda r, s: _complex(r, s.n),
    "sorted": lambda r, s: sorted(_reals(r, s.n, -20, 30)),
    "angles": lambda r, s: [round(r.uniform(-3.1, 3.1), 2) for _ in range(s.n)],
    "degrees": lambda r, s: [r.randint(-360, 360) for _ in range(s.n)],
    "withnan": lambda r, s: [
        float("nan") if r.random() < 0.3 else _real(r, -9, 9, False) for _ in range(s.n)
    ],
    "phase": lambda r, s: [round(t * 1.9 + r.uniform(-0.3, 0.3), 2) for t in range(s.n)],
    # shorter vectors
    "kernel": lambda r, s: _reals(r, s.m, -5, 5),
    "idx": lambda r, s: [r.randrange(s.n) for _ in range(s.m)],
    "uidx": lambda r, s: sorted(r.sample(range(s.n), s.m)),
    "vec3": lambda r, s: _reals(r, 3, -9, 9),
    # matrices
    "mat": lambda r, s: _matrix(r, s.rows, s.cols),
    "matpos": lambda r, s: _matrix(r, s.rows, s.cols, 1, 20),
    "matB": lambda r, s: _matrix(r, s.cols, s.k),  # right operand of a `mat` product
    "colvec": lambda r, s: _reals(r, s.cols, -9, 9),  # a vector fitting a `mat` product
    "rowvec": lambda r, s: _reals(r, s.rows, -9, 9),
    "sq": lambda r, s: _matrix(r, s.k, s.k),
    "inv": lambda r, s: _invertible(r, s.k),
    "spd": lambda r, s: _spd(r, s.k),
    "sym": lambda r, s: _symmetric(r, s.k),
    "kvec": lambda r, s: _reals(r, s.k, -9, 9),  # a right-hand side for a k x k system
    "tall": lambda r, s: _matrix(r, s.k + 2, 2),  # least squares: more rows than unknowns
    "tallrhs": lambda r, s: _reals(r, s.k + 2, -9, 9),
    "cube": lambda r, s: [_matrix(r, 2, s.cols) for _ in range(s.rows)],
    # scalars
    "axis": lambda r, s: r.randint(0, 1),
    "axis3": lambda r, s: r.randint(0, 2),
    "int": lambda r, s: r.randint(1, 5),
    "size": lambda r, s: r.randint(2, 6),
    "shift": lambda r, s: r.randint(-3, 3),
    "num": lambda r, s: _real(r, -9, 9),
    "posnum": lambda r, s: _real(r, 1, 9),
    "low": lambda r, s: _real(r, -9, 0),
    "high": lambda r, s: _real(r, 1, 12),
    "bits1": lambda r, s: r.randint(0, 255),
    "base": lambda r, s: r.randint(2, 9),
    "decimals": lambda r, s: r.randint(0, 2),
    "q": lambda r, s: r.randint(5, 95),
    "frac": lambda r, s: round(r.uniform(0.05, 0.95), 2),
    "tol": lambda r, s: r.choice([0.1, 0.5, 1.0]),
    "power": lambda r, s: r.randint(0, 4),
    "deg": lambda r, s: r.randint(1, 3),
    "kth": lambda r, s: r.randrange(s.n),
    "flat": lambda r, s: r.randrange(s.rows * s.cols),
    "shape": lambda r, s: [s.rows, s.cols],
    "rows": lambda r, s: s.rows,
    "cols": lambda r, s: s.cols,
    "n": lambda r, s: s.n,
    "dtype": lambda r, s: r.choice(["int32", "int64", "float32", "float64"]),
    "fill": lambda r, s: _real(r, -9, 9),
}


def draw(kind: str, rng: random.Random, shapes: Shapes) -> Any:
    return KINDS[kind](rng, shapes)


def literal(value: Any) -> str:
    """Python source for `value`; NaN has no literal, so it is written as `float('nan')`."""
    if isinstance(value, float) and math.isnan(value):
        return "float('nan')"
    if isinstance(value, list):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    return repr(value)
