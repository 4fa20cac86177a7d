"""How many different library functions honest programs call in one run (`MOST_FUNCTIONS`, and
of the library's submodule: `MOST_SUBMODULE_FUNCTIONS`).

    python benchmarks/library_functions.py [--data ../shared/data/sebench]

Runs, through the real sandbox, the translated references of the dev tasks and the responses
of the official verdicts file (official library), and the reference answers of every
generated task (the demo's generator, a seeded library); prints, per source, the largest
number of different functions other than the constructor that one run called, its verdict,
and the limit, and the same for the submodule's functions, as one JSON line each.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from sebench.data.sources import load
from sebench.data.translate import to_library
from sebench.grading.extract import extract_code
from sebench.grading.grader import MOST_FUNCTIONS, MOST_SUBMODULE_FUNCTIONS, Grader
from sebench.grading.sandbox import SandboxConfig
from sebench.library.build import build_library
from sebench.library.names import generate_table
from sebench.library.official import load_official_table
from sebench.training.taskgen import FUNCTIONS, TaskSetConfig, generate_tasks


def called(grader: Grader, task, code: str) -> tuple[int, int, str]:
    """(different functions the run called, of them the submodule's, the strict verdict)."""
    prepared = grader.prepare(task, f"```python\n{code}\n```\n")
    if prepared.job is None:
        return 0, 0, prepared.verdict.kind.value
    execution = grader.execute(prepared.job)
    verdict = grader.judge(task, prepared, execution)
    return (
        max((c.library_functions for c in execution.cases), default=0),
        max((c.submodule_functions for c in execution.cases), default=0),
        verdict.kind.value,
    )


def report(source: str, found: list[tuple[int, int, str, str]]) -> None:
    most = max(found, default=(0, 0, "", ""))
    most_sub = max(found, key=lambda item: item[1], default=(0, 0, "", ""))
    print(
        json.dumps(
            {
                "source": source,
                "programs": len(found),
                "most_functions": most[0],
                "its_verdict": most[2],
                "its_task": most[3],
                "limit": MOST_FUNCTIONS,
                "most_submodule_functions": most_sub[1],
                "its_submodule_verdict": most_sub[2],
                "its_submodule_task": most_sub[3],
                "submodule_limit": MOST_SUBMODULE_FUNCTIONS,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/sebench"))
    data = parser.parse_args().data
    api_doc = data / "api_doc.jsonl"
    out = Path(tempfile.mkdtemp())
    official = build_library(load_official_table(api_doc), out / "o", api_doc_path=api_doc)
    seeded = build_library(generate_table(1), out / "s", api_doc_path=api_doc, seed=1)
    with Grader(official, SandboxConfig(workers=1)) as grader:
        tasks = load("single_test", data / "single_test_dev.jsonl")
        references = []
        for task in tasks:
            translation = to_library(task.numpy_reference or "", official.table)
            if translation.ok and translation.code:
                references.append((*called(grader, task, translation.code), task.task_id))
        report("translated dev references", references)
        by_id = {task.task_id: task for task in tasks}
        responses = []
        with (data / "official_verdicts_dev.jsonl").open() as rows:
            for line in rows:
                row = json.loads(line)
                code = extract_code(row["response"])
                if row["task_id"] in by_id and code:
                    task = by_id[row["task_id"]]
                    responses.append((*called(grader, task, code), task.task_id))
        report("official verdicts file responses", responses)
    with Grader(seeded, SandboxConfig(workers=1)) as grader:
        config = TaskSetConfig(functions=tuple(FUNCTIONS), train_per_function=2)
        split = generate_tasks(seeded.table, config)
        generated = [
            (*called(grader, task, task.extra["target"]), task.task_id)
            for task in (*split.train, *split.test)
        ]
        report("generated tasks' answers", generated)


if __name__ == "__main__":
    main()
