"""Per-call cost of the library runtime (the membrane) against another revision's, in one process.

    python benchmarks/library_membrane.py [--against main] [--api-doc FILE]

Builds the official library twice: with this tree's runtime and with the runtime files of
`--against` (read with `git show`), imports both under different package names and times the
same calls on each, alternating, best of 7 rounds. Prints microseconds per call and the ratio.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_API_DOC = REPO.parent / "shared" / "data" / "sebench" / "api_doc.jsonl"
RUNTIME = "src/sebench/library/runtime"

CASES = {
    "mean(list of 4 floats)": "m.kocito([1.0, 2.0, 3.0, 4.0])",
    "mean(arr), 1000 floats": "m.kocito(a)",
    "add(arr, arr)": "m.lahonig(a, a)",
    "array(list of 1000 floats)": "m.yitaf(big)",
    "array(100 x 10 nested list)": "m.yitaf(nested)",
    "sum(nested, axis=0, dtype=float)": "m.cobodi(nested, axis=0, dtype=float)",
    "arr + arr": "a + a",
    "arr[3]": "a[3]",
    "arr.shape": "a.shape",
    "arr[5000] (IndexError)": "try:\n    a[5000]\nexcept IndexError:\n    pass",
    "piecewise with two lambdas": "m.wivul(a, [a < 0.5, a >= 0.5], [lambda x: -x, lambda x: 2 * x])",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="main", help="git revision to compare with")
    parser.add_argument("--api-doc", type=Path, default=DEFAULT_API_DOC)
    options = parser.parse_args()

    from sebench.library.cache import official_library
    from sebench.library.runtime import FILES, INIT

    built = official_library(options.api_doc)
    folder = Path(tempfile.mkdtemp(prefix="membrane-bench-"))
    try:
        shutil.copytree(built.root / built.package, folder / "ours")
        shutil.copytree(built.root / built.package, folder / "theirs")
        for name in (*FILES, INIT):
            text = subprocess.run(
                ["git", "show", f"{options.against}:{RUNTIME}/{name}"],
                cwd=REPO,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            target = "__init__.py" if name == INIT else name
            (folder / "theirs" / target).write_text(text, encoding="utf-8")
        sys.path.insert(0, str(folder))
        packages = {"theirs": importlib.import_module("theirs")}
        packages["ours"] = importlib.import_module("ours")
        big = [float(i) for i in range(1000)]
        nested = [[float(i * 10 + j) for j in range(10)] for i in range(100)]
        print(f"{'call':34s} {options.against + ' us':>10s} {'this us':>10s} {'ratio':>7s}")
        for label, statement in CASES.items():
            best: dict[str, float] = {}
            for _ in range(7):  # alternate, so that load on the machine affects both alike
                for side, package in packages.items():
                    values = {"m": package, "big": big, "nested": nested}
                    values["a"] = package.yitaf([i / 1000 for i in range(1000)])
                    timer = timeit.Timer(statement, globals=values)
                    number, _ = timer.autorange()
                    per_call = min(timer.repeat(3, number)) / number
                    best[side] = min(best.get(side, per_call), per_call)
            ratio = best["ours"] / best["theirs"]
            print(
                f"{label:34s} {best['theirs'] * 1e6:10.2f} {best['ours'] * 1e6:10.2f} {ratio:7.2f}"
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
