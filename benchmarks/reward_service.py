"""Reward service throughput vs in-process grading, side by side in one run.

    python benchmarks/reward_service.py [--samples 240] [--batch 16] [--clients 4] [--workers N]

Samples: the dev set's NumPy references translated to the library (mostly correct: the costly
case, each correct answer is rerun with the library perturbed), every fourth replaced by a wrong
or code-free answer, as an RL batch mixes them.
- in-process: `score_batch` on the grader, one batch after another (what `sebench train grpo`'s
  TRL reward does);
- service: `sebench serve-reward` in its own process on 127.0.0.1 (as on a reward node: the
  clients do not share its interpreter), the same number of sandbox workers, `--clients`
  threads posting OpenRLHF-format batches (prompt + response in `query`, the task row as label)
  at once.
The two alternate for --rounds rounds so that both see the same machine.
Prints samples/s for each, the ratio service / in-process, and whether the verdicts agree.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "sebench" / "single_test_dev.jsonl"
PROMPT = "<|im_start|>user\nSolve the task with the library.<|im_end|>\n<|im_start|>assistant\n"


def build_samples(data: Path, count: int):
    from sebench.data.sources import find_api_doc, load
    from sebench.data.translate import to_library
    from sebench.library.cache import official_library

    library = official_library(find_api_doc(data))
    base = []
    for task in load("single_test", data):
        code = to_library(task.numpy_reference or "", library.table).code
        if code:
            base.append((task, f"```python\n{code}\n```"))
    samples = []
    for i in range(count):
        task, response = base[i % len(base)]
        if i % 4 == 3:  # a wrong or a code-free answer, alternately
            response = (
                "I am not sure." if i % 8 == 7 else response.replace("return ", "return 1 + ")
            )
        samples.append((task, response))
    return library, samples


def batches(samples, size: int):
    return [samples[i : i + size] for i in range(0, len(samples), size)]


def in_process(grader, chunks) -> tuple[float, list[str]]:
    from sebench.training.rewards import score_batch

    start = time.perf_counter()
    verdicts = []
    for chunk in chunks:
        scored = score_batch(grader, [t for t, _ in chunk], [r for _, r in chunk])
        verdicts += [v.kind.value for v in scored.verdicts]
    return time.perf_counter() - start, verdicts


def post(url: str, body: bytes) -> dict:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    try:
        connection.request("POST", "/get_reward", body, {"Content-Type": "application/json"})
        reply = connection.getresponse()
        payload = json.loads(reply.read())
        if reply.status != 200:
            raise RuntimeError(f"{reply.status}: {payload}")
        return payload
    finally:
        connection.close()


def through_service(url: str, chunks, clients: int) -> tuple[float, list[str]]:
    from sebench.integrations.labels import task_label

    bodies = [
        json.dumps(
            {
                "query": [PROMPT + r for _, r in chunk],
                "prompts": [PROMPT] * len(chunk),
                "labels": [task_label(t) for t, _ in chunk],
            }
        ).encode()
        for chunk in chunks
    ]
    answers: dict[int, list[str]] = {}
    next_index = iter(range(len(bodies)))
    lock = threading.Lock()

    def client() -> None:
        while True:
            with lock:
                index = next(next_index, None)
            if index is None:
                return
            answers[index] = post(url, bodies[index])["verdicts"]

    start = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - start
    return seconds, [v for i in range(len(bodies)) for v in answers[i]]


@contextmanager
def reward_service(library, workers: int):
    """`sebench serve-reward` in a child process; yields its URL, stops it with SIGTERM."""
    command = [
        sys.executable, "-m", "sebench.cli.main", "serve-reward", "--lib", str(library.root),
        "--port", "0", "--workers", str(workers),
    ]  # fmt: skip
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
        if " on http://" not in line:
            raise RuntimeError(line + process.stderr.read())
        yield line.split(" on ")[1].split(" ")[0]
    finally:
        process.terminate()
        process.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=240)
    parser.add_argument("--batch", type=int, default=16, help="samples per request / batch")
    parser.add_argument("--clients", type=int, default=4, help="concurrent service clients")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()

    from sebench.grading.grader import Grader
    from sebench.grading.sandbox.config import SandboxConfig

    library, samples = build_samples(args.data, args.samples)
    chunks = batches(samples, args.batch)
    totals = {"in-process": 0.0, "service": 0.0}
    agree = True
    with (
        Grader(library, SandboxConfig(workers=args.workers)) as grader,
        reward_service(library, args.workers) as url,
    ):
        # warm both: the first fork of each sandbox server costs more
        in_process(grader, chunks[:1])
        through_service(url, chunks[:1], 1)
        for _ in range(args.rounds):
            seconds, local = in_process(grader, chunks)
            totals["in-process"] += seconds
            seconds, remote = through_service(url, chunks, args.clients)
            totals["service"] += seconds
            agree = agree and local == remote
    graded = args.samples * args.rounds
    rates = {name: graded / seconds for name, seconds in totals.items()}
    print(
        f"{args.samples} samples x {args.rounds} rounds, batches of {args.batch}, "
        f"{args.workers} workers, {args.clients} service clients"
    )
    for name, rate in rates.items():
        print(f"{name}: {rate:.1f} samples/s")
    print(f"ratio: {rates['service'] / rates['in-process']:.2f}x (service / in-process)")
    print(f"verdicts identical: {'yes' if agree else 'NO'}")


if __name__ == "__main__":
    main()
