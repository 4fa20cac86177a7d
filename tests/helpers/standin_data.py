"""A stand-in for the official data, made from nothing outside the repository.

A public clone has no `../shared`, so the tests of our own code run on a data folder in the
official format that this module writes: `api_doc.jsonl` is the one a seeded library writes (the
seed's names, NumPy's docstrings renamed) and `single_test_dev.jsonl` holds one row per entry of
`SPECS` below: a NumPy reference, a plain-Python reference, eight inputs, and the expected outputs
printed by running the NumPy reference, exactly as the official `right_exe_result` was made, and
one model-style answer (the plain solution in a Markdown fence).
Only the tests of facts about the official files (their row counts, their names, the official
verdicts) need the real data.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sebench.library.build import build_library
from tests.helpers.official_names import standin_table

SEED = 9  # not 1: the tests compare the "official" library with seed 1, so they must differ
CASES = 8  # test cases per row, as in the official dev split

Inputs = Callable[[random.Random], str]


@dataclass(frozen=True)
class Spec:
    """One task: the NumPy function it is built around, its entry point and two solutions."""

    function: str  # as the official rows name it: bare, also for linalg (`cond`)
    query: str
    signature: str  # `def name(params):`
    numpy_body: str  # the body of the NumPy reference (indented)
    plain_body: str  # the body of the plain-Python reference (indented)
    inputs: Inputs
    first: tuple[str, ...] = ()  # fixed first inputs, the rest are drawn


def _floats(rng: random.Random, low: float, high: float) -> list[float]:
    return [round(rng.uniform(low, high), 1) for _ in range(rng.randint(3, 6))]


def _ints(rng: random.Random, low: int, high: int, count: int | None = None) -> list[int]:
    return [rng.randint(low, high) for _ in range(count or rng.randint(3, 6))]


def _matrix(rng: random.Random) -> list[list[float]]:
    while True:  # a well-conditioned 2x2 matrix: |det| >= 1
        m = [[float(rng.randint(-5, 5)) for _ in range(2)] for _ in range(2)]
        if abs(m[0][0] * m[1][1] - m[0][1] * m[1][0]) >= 1:
            return m


def one(name: str, make: Callable[[random.Random], object]) -> Inputs:
    return lambda rng: f"{name}={make(rng)!r}"


def two(a: str, make_a: Callable, b: str, make_b: Callable) -> Inputs:
    return lambda rng: f"{a}={make_a(rng)!r}, {b}={make_b(rng)!r}"


def paired(a: str, b: str, make: Callable[[random.Random, int], list]) -> Inputs:
    def inputs(rng: random.Random) -> str:
        count = rng.randint(3, 6)
        return f"{a}={make(rng, count)!r}, {b}={make(rng, count)!r}"

    return inputs


def _reduction(function: str, noun: str, what: str, plain: str, kind: str = "vec") -> Spec:
    make = {
        "vec": lambda rng: _floats(rng, -9, 9),
        "ints": lambda rng: _ints(rng, -3, 3),
    }[kind]
    return Spec(
        function,
        f"A sensor logs {noun} in a list `readings`. Return {what} as one number.",
        f"def summarize_{function}(readings):",
        f"    return float(np.{function}(np.array(readings)))",
        plain,
        one("readings", make),
    )


def _elementwise(function: str, what: str, plain: str, low: float, high: float) -> Spec:
    return Spec(
        function,
        f"Signal samples arrive in a list `samples`. Return {what} of every sample, as a list.",
        f"def transform_{function}(samples):",
        f"    return np.{function}(np.array(samples)).tolist()",
        f"    import math\n    return [{plain} for v in samples]",
        one("samples", lambda rng: _floats(rng, low, high)),
    )


SPECS: tuple[Spec, ...] = (
    # First, as in the official file, with the same entry point: the red-team responses
    # (tests/grading/redteam) attack this task.
    Spec(
        "bitwise_left_shift",
        "Compress each chunk in `data_chunks` by shifting it left by the matching number of bits "
        "in `encoding_shifts`.",
        "def compress_data_chunks(data_chunks, encoding_shifts):",
        "    return np.left_shift(data_chunks, encoding_shifts).tolist()",
        "    return [c << s for c, s in zip(data_chunks, encoding_shifts)]",
        paired("data_chunks", "encoding_shifts", lambda rng, n: _ints(rng, 0, 7, n)),
        ("data_chunks=[3, 7, 15, 1], encoding_shifts=[2, 1, 3, 4]",),
    ),
    _reduction("mean", "temperatures", "their average", "    return sum(readings) / len(readings)"),
    _reduction("sum", "rainfall amounts", "their total", "    return float(sum(readings))"),
    _reduction("max", "wind speeds", "the largest", "    return float(max(readings))"),
    _reduction("min", "pressures", "the smallest", "    return float(min(readings))"),
    _reduction("amax", "voltages", "the peak", "    return float(max(readings))"),
    _reduction(
        "prod",
        "growth factors",
        "their product",
        "    result = 1.0\n    for v in readings:\n        result *= v\n    return result",
    ),
    _reduction(
        "var",
        "levels",
        "their population variance",
        "    m = sum(readings) / len(readings)\n"
        "    return sum((v - m) ** 2 for v in readings) / len(readings)",
    ),
    _reduction(
        "std",
        "heights",
        "their population standard deviation",
        "    m = sum(readings) / len(readings)\n"
        "    return (sum((v - m) ** 2 for v in readings) / len(readings)) ** 0.5",
    ),
    _reduction(
        "median",
        "delays",
        "their median",
        "    s = sorted(readings)\n    n = len(s)\n"
        "    return float(s[n // 2]) if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2",
    ),
    _reduction(
        "ptp",
        "tides",
        "the range (largest minus smallest)",
        "    return float(max(readings) - min(readings))",
    ),
    _reduction(
        "count_nonzero",
        "event flags",
        "how many are not zero",
        "    return float(sum(1 for v in readings if v != 0))",
        "ints",
    ),
    _elementwise("sin", "the sine", "math.sin(v)", -3, 3),
    _elementwise("cosh", "the hyperbolic cosine", "math.cosh(v)", -2, 2),
    _elementwise("tanh", "the hyperbolic tangent", "math.tanh(v)", -2, 2),
    _elementwise("arctan", "the arctangent", "math.atan(v)", -5, 5),
    _elementwise("sqrt", "the square root", "math.sqrt(v)", 0, 20),
    _elementwise("exp", "the exponential", "math.exp(v)", -2, 2),
    _elementwise("abs", "the absolute value", "abs(v)", -9, 9),
    Spec(
        "hypot",
        "Each point has legs `xs` and `ys` of a right triangle. Return every hypotenuse.",
        "def hypotenuses(xs, ys):",
        "    return np.hypot(np.array(xs), np.array(ys)).tolist()",
        "    import math\n    return [math.hypot(x, y) for x, y in zip(xs, ys)]",
        paired("xs", "ys", lambda rng, n: [float(rng.randint(1, 9)) for _ in range(n)]),
    ),
    Spec(
        "divide",
        "Return the ratio of each amount in `spent` to the matching budget in `budget`.",
        "def spending_ratios(spent, budget):",
        "    return np.divide(np.array(spent), np.array(budget)).tolist()",
        "    return [s / b for s, b in zip(spent, budget)]",
        paired("spent", "budget", lambda rng, n: [float(rng.randint(1, 50)) for _ in range(n)]),
    ),
    Spec(
        "not_equal",
        "Two scanners read the codes `first` and `second`. Say, for each position, whether they "
        "disagree.",
        "def disagreements(first, second):",
        "    return np.not_equal(np.array(first), np.array(second)).tolist()",
        "    return [a != b for a, b in zip(first, second)]",
        paired("first", "second", lambda rng, n: _ints(rng, 0, 2, n)),
    ),
    Spec(
        "gcd",
        "Gears have tooth counts `a` and `b`. Return each pair's greatest common divisor.",
        "def common_teeth(a, b):",
        "    return np.gcd(np.array(a), np.array(b)).tolist()",
        "    import math\n    return [math.gcd(x, y) for x, y in zip(a, b)]",
        paired("a", "b", lambda rng, n: _ints(rng, 1, 60, n)),
    ),
    Spec(
        "lcm",
        "Buses leave every `a` and every `b` minutes. Return when each pair first leaves together.",
        "def meeting_times(a, b):",
        "    return np.lcm(np.array(a), np.array(b)).tolist()",
        "    import math\n    return [x * y // math.gcd(x, y) for x, y in zip(a, b)]",
        paired("a", "b", lambda rng, n: _ints(rng, 1, 20, n)),
    ),
    Spec(
        "logical_not",
        "Switches report 0 (off) or 1 (on) in `states`. Return, for each, whether it is off.",
        "def switched_off(states):",
        "    return np.logical_not(np.array(states)).tolist()",
        "    return [not s for s in states]",
        one("states", lambda rng: _ints(rng, 0, 1)),
    ),
    Spec(
        "outer",
        "Return the multiplication table of the row labels `rows` by the column labels `cols`.",
        "def times_table(rows, cols):",
        "    return np.outer(np.array(rows), np.array(cols)).tolist()",
        "    return [[r * c for c in cols] for r in rows]",
        two("rows", lambda rng: _ints(rng, -5, 9), "cols", lambda rng: _ints(rng, -5, 9)),
    ),
    Spec(
        "cumsum",
        "Daily deposits are in `deposits`. Return the balance after each day.",
        "def balances(deposits):",
        "    return np.cumsum(np.array(deposits)).tolist()",
        "    out, total = [], 0\n    for d in deposits:\n        total += d\n        out.append(total)\n"
        "    return out",
        one("deposits", lambda rng: _ints(rng, -20, 50)),
    ),
    Spec(
        "repeat",
        "Repeat every symbol in `symbols` `times` times in a row.",
        "def stretch(symbols, times):",
        "    return np.repeat(np.array(symbols), times).tolist()",
        "    return [s for s in symbols for _ in range(times)]",
        two("symbols", lambda rng: _ints(rng, 0, 9), "times", lambda rng: rng.randint(1, 3)),
    ),
    Spec(
        "zeros",
        "Return an empty score sheet: `n` scores, all zero (as floats).",
        "def blank_scores(n):",
        "    return np.zeros(n).tolist()",
        "    return [0.0] * n",
        one("n", lambda rng: rng.randint(1, 7)),
    ),
    Spec(
        "full",
        "Return a list of `n` seats, each holding the default value `value`.",
        "def default_seats(n, value):",
        "    return np.full(n, value).tolist()",
        "    return [value] * n",
        two("n", lambda rng: rng.randint(1, 6), "value", lambda rng: rng.randint(-9, 9)),
    ),
    Spec(
        "identity",
        "Return the `n` by `n` identity matrix as nested lists of floats.",
        "def unit_matrix(n):",
        "    return np.identity(n).tolist()",
        "    return [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]",
        one("n", lambda rng: rng.randint(1, 4)),
    ),
    Spec(
        "vstack",
        "Stack this week's counts `this_week` on top of last week's `last_week` as two rows.",
        "def two_weeks(this_week, last_week):",
        "    return np.vstack([np.array(this_week), np.array(last_week)]).tolist()",
        "    return [list(this_week), list(last_week)]",
        paired("this_week", "last_week", lambda rng, n: _ints(rng, 0, 30, n)),
    ),
    Spec(
        "swapaxes",
        "A table `grid` is stored by rows. Return it stored by columns.",
        "def by_columns(grid):",
        "    return np.swapaxes(np.array(grid), 0, 1).tolist()",
        "    return [list(column) for column in zip(*grid)]",
        one("grid", lambda rng: [_ints(rng, 0, 9, 3) for _ in range(rng.randint(2, 4))]),
    ),
    Spec(
        "diagonal",
        "Return the entries on the main diagonal of the square board `board`.",
        "def main_diagonal(board):",
        "    return np.diagonal(np.array(board)).tolist()",
        "    return [board[i][i] for i in range(len(board))]",
        one("board", lambda rng: [_ints(rng, 0, 9, 3) for _ in range(3)]),
    ),
    Spec(
        "argmax",
        "Return the position of the highest bid in `bids` (the first one on a tie).",
        "def best_bid(bids):",
        "    return int(np.argmax(np.array(bids)))",
        "    return bids.index(max(bids))",
        one("bids", lambda rng: _ints(rng, 0, 20)),
    ),
    Spec(
        "sort",
        "Return the race times in `times` from fastest to slowest.",
        "def ranking(times):",
        "    return np.sort(np.array(times)).tolist()",
        "    return sorted(times)",
        one("times", lambda rng: _floats(rng, 9, 15)),
    ),
    Spec(
        "det",
        "Return the determinant of the 2 by 2 transform `matrix` (its area scale).",
        "def area_scale(matrix):",
        "    return float(np.linalg.det(np.array(matrix)))",
        "    (a, b), (c, d) = matrix\n    return a * d - b * c",
        one("matrix", _matrix),
    ),
    Spec(
        "inv",
        "Return the inverse of the invertible 2 by 2 transform `matrix`.",
        "def undo_transform(matrix):",
        "    return np.linalg.inv(np.array(matrix)).tolist()",
        "    (a, b), (c, d) = matrix\n    det = a * d - b * c\n"
        "    return [[d / det, -b / det], [-c / det, a / det]]",
        one("matrix", _matrix),
    ),
    Spec(
        "solve",
        "Solve the linear system `matrix` @ x = `rhs` for x.",
        "def unknowns(matrix, rhs):",
        "    return np.linalg.solve(np.array(matrix), np.array(rhs)).tolist()",
        "    (a, b), (c, d) = matrix\n    det = a * d - b * c\n"
        "    return [(rhs[0] * d - b * rhs[1]) / det, (a * rhs[1] - c * rhs[0]) / det]",
        two("matrix", _matrix, "rhs", lambda rng: [float(rng.randint(-9, 9)) for _ in range(2)]),
    ),
    Spec(
        "norm",
        "Return the length (Euclidean norm) of the displacement `step`.",
        "def step_length(step):",
        "    return float(np.linalg.norm(np.array(step)))",
        "    return sum(v * v for v in step) ** 0.5",
        one("step", lambda rng: _floats(rng, -9, 9)),
    ),
    Spec(
        "cond",
        "Return the 2-norm condition number of the 2 by 2 system `matrix`.",
        "def sensitivity(matrix):",
        "    return float(np.linalg.cond(np.array(matrix)))",
        "    (a, b), (c, d) = matrix\n    t = a * a + b * b + c * c + d * d\n"
        "    det = abs(a * d - b * c)\n    root = max(t * t - 4 * det * det, 0.0) ** 0.5\n"
        "    return ((t + root) / (t - root)) ** 0.5",
        one("matrix", _matrix),
    ),
)


def reference(signature: str, body: str, numpy: bool) -> str:
    header = "\nimport numpy as np\n\n" if numpy else ""
    return f"{header}{signature}\n{body}\n"


def dev_rows(seed: int = 0) -> list[dict]:
    """One row per spec in the official `single_test` format; outputs from running NumPy."""
    rng = random.Random(seed)
    rows = []
    for index, spec in enumerate(SPECS):
        numpy_code = reference(spec.signature, spec.numpy_body, numpy=True)
        namespace: dict = {}
        exec(compile(numpy_code, f"<{spec.function}>", "exec"), namespace)
        entry = spec.signature.removeprefix("def ").split("(")[0]
        inputs = [*spec.first, *(spec.inputs(rng) for _ in range(CASES - len(spec.first)))]
        outputs = [str(eval(f"{entry}({text})", namespace)) for text in inputs]
        cases = [{"input": i, "output": o} for i, o in zip(inputs, outputs, strict=True)]
        rows.append(
            {
                "selected_functions": [spec.function],
                "query": spec.query,
                "test_cases": cases,
                "example_output": [numpy_code],
                "1func_query_id": 1000 + index,
                "function_name": spec.signature,
                "example": cases[0],
                # one model-style answer per row, as the official rows carry several
                "major_vote_response_dict": {
                    "standin-model": "Here is a plain Python solution.\n\n```python\n"
                    + reference(spec.signature, spec.plain_body, numpy=False)
                    + "```\n"
                },
                "is_valid": True,
                "right_exe_result": "#".join(outputs),
                "right_code": reference(spec.signature, spec.plain_body, numpy=False),
            }
        )
    return rows


def write_standin_data(folder: Path) -> Path:
    """Write `api_doc.jsonl` and `single_test_dev.jsonl` into `folder`; returns `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    library = build_library(standin_table(SEED), folder / "library", origin="seed", seed=SEED)
    (folder / "api_doc.jsonl").write_bytes((library.root / "api_doc.jsonl").read_bytes())
    with (folder / "single_test_dev.jsonl").open("w", encoding="utf-8") as out:
        for row in dev_rows():
            out.write(json.dumps(row) + "\n")
    return folder
