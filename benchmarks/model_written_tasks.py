"""Model-written tasks: requests per second through the consensus pipeline, and the share kept.

    python benchmarks/model_written_tasks.py [--functions 278] [--solvers 3] [--workers 2]
        [--lib-seed 0] [--batch 16]

The "model" is the scripted chat-completions server of the tests on 127.0.0.1: for each
function the generator answers with the programmatic generator's task for it (query, NumPy
reference, test inputs; claimed outputs left wrong on purpose), and every solver answers with
that reference. So the numbers measure the pipeline itself (HTTP, parsing, refusals, two sandbox
runs, translation and strict grading, dedup, N solver gradings), not a model, and the kept share
says how many realistic references over all functions pass every stage. Absolute rates depend on
the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the scripted server lives in tests/helpers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=278, help="the first N functions")
    parser.add_argument("--solvers", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--lib-seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=16)
    args = parser.parse_args()

    from sebench.data.generate.programmatic import GenerateConfig, generate
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig
    from sebench.library.cache import seeded_library
    from sebench.rollout.openai_compat import OpenAICompatBackend, OpenAIConfig
    from sebench.training.task_writing import ModelTasksConfig, generate_model_tasks
    from tests.helpers.chat_server import ChatServer, Reply

    library = seeded_library(args.lib_seed)
    names = sorted(library.table.numpy_to_library())[: args.functions]
    tasks = generate(names, GenerateConfig(functions=tuple(names), per_function=1)).tasks
    by_function = {task.extra["function"]: task for task in tasks}
    by_query = {task.query: task for task in tasks}

    def script(body: dict, attempt: int) -> Reply:
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("You write programming tasks"):
            task = by_function.get(re.search(r"### np\.(\S+)", prompt).group(1))
            if task is None:
                return Reply("no task for this function")
            answer = {
                "query": task.query,
                "signature": task.signature,
                "reference": task.numpy_reference,
                "test_inputs": list(task.test_inputs),
                "outputs": ["?"] * len(task.test_inputs),
            }
            return Reply("```json\n" + json.dumps(answer) + "\n```")
        task = next((t for q, t in by_query.items() if q in prompt), None)
        return Reply(f"```python\n{task.numpy_reference if task else ''}\n```")

    solver_names = tuple(f"solver-{i}" for i in range(args.solvers))
    with (
        ChatServer(script, models=("gen", *solver_names)) as server,
        Grader(library, SandboxConfig(workers=args.workers)) as grader,
        tempfile.TemporaryDirectory() as folder,
    ):

        def backend(model: str) -> OpenAICompatBackend:
            return OpenAICompatBackend(OpenAIConfig(model=model, base_urls=(server.url,)))

        out = Path(folder) / "tasks.jsonl"
        config = ModelTasksConfig(functions=tuple(names), per_function=1, batch=args.batch)
        start = time.perf_counter()
        summary = generate_model_tasks(
            backend("gen"),
            [backend(name) for name in solver_names],
            library,
            out,
            config,
            grader=grader,
        )
        seconds = time.perf_counter() - start
        reasons = Counter(
            f"{row['stage']}/{row['reason']}"
            for row in map(json.loads, summary.rejects_path.read_text().splitlines())
        )
    print(
        f"{summary.total} requests, {args.solvers} solvers, {args.workers} sandbox workers: "
        f"{summary.total / seconds:.1f} requests/s, kept {summary.kept}/{summary.total} "
        f"({summary.kept / summary.total:.1%}) in {seconds:.1f} s"
    )
    for reason, count in reasons.most_common():
        print(f"  rejected {reason}: {count}")


if __name__ == "__main__":
    main()
