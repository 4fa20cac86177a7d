"""Programmatic task generation: tasks generated per second, and the share the grader verifies.

    python benchmarks/task_generation.py [--per-function 2] [--multi 20] [--seed 0]
        [--api-doc FILE] [--lib-seed 1] [--workers 2]

Generates tasks for all 278 functions (input drawing, queries and the executed NumPy
references), then validates them as `sebench validate` does: every NumPy reference translated to
the library and graded by the real grader, for the official library (when its api_doc.jsonl is
found) and for a fresh library from --lib-seed. Prints tasks/s for generation and for
validation, and the verified fraction per library. Absolute rates depend on the machine; the
verified fractions do not.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_API_DOC = REPO.parent / "shared" / "data" / "sebench" / "api_doc.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-function", type=int, default=2)
    parser.add_argument("--multi", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--api-doc", type=Path, default=DEFAULT_API_DOC)
    parser.add_argument("--lib-seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    from sebench.data.generate.programmatic import GenerateConfig, generate
    from sebench.grading.sandbox import SandboxConfig
    from sebench.grading.validate import ValidateConfig, validate
    from sebench.library.cache import official_library, seeded_library
    from sebench.library.catalog import ALL

    config = GenerateConfig(per_function=args.per_function, multi=args.multi, seed=args.seed)
    start = time.perf_counter()
    generated = generate(ALL, config)
    seconds = time.perf_counter() - start
    tasks = generated.tasks
    print(
        f"generated {len(tasks)} tasks ({generated.coverage.covered}/{len(ALL)} functions, "
        f"{generated.coverage.multi} multi-function) in {seconds:.1f} s: "
        f"{len(tasks) / seconds:.0f} tasks/s"
    )
    libraries = []
    if args.api_doc.is_file():
        libraries.append(("official", official_library(args.api_doc)))
    libraries.append((f"seed {args.lib_seed}", seeded_library(args.lib_seed)))
    for name, library in libraries:
        start = time.perf_counter()
        report = validate(
            tasks,
            library,
            sandbox_config=SandboxConfig(workers=args.workers),
            config=ValidateConfig(run_plain=False),
        )
        seconds = time.perf_counter() - start
        print(
            f"{name:>9}: verified {len(report.verified_ids)}/{len(tasks)} "
            f"({report.fraction:.1%}); validation {len(tasks) / seconds:.0f} tasks/s"
        )


if __name__ == "__main__":
    main()
