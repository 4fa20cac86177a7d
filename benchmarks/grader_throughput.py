"""Grader throughput: our sandboxed fork-server grader vs the official approach, in one run.

    python benchmarks/grader_throughput.py [--samples 300] [--rounds 3] [--workers N] [--data FILE]
    python benchmarks/grader_throughput.py --responses FILE [--samples 300] ...
    python benchmarks/grader_throughput.py --memory 10000

Samples: the dev set's NumPy references translated to the library, repeated to --samples: every
one correct, so every one runs twice in our grader (the run and the perturbed rerun), the
worst case for us. With --responses, a responses file's rows instead (e.g. the verdicts file's
model responses), with their own mix of verdicts: what grading in an RL loop looks like.
- ours: `Grader.grade_many` (warm fork servers, isolation layers, comparison in the parent);
- ours without the rerun: the same, except that a correct answer is not run again with the
  library's results perturbed (`Grader.confirm_dependence`): what that rule costs, measured in
  the same rounds; never a way to grade (an answer that ignores the library stays `correct`);
- official approach: one fresh `python -c` per sample that imports NumPy and the library, runs
  the code with the test calls appended and prints the results; as many at once as --workers;
  `official_approach.py` (its cost only: faithfulness is tested against official output).
The two alternate (--rounds): ours grades every sample in each round, the official approach a
share of them, so that both are measured on the same machine minute (its speed drifts).
Prints samples/s for each, per round and in all, the ratios, our per-sample
cost split (from the sandbox's timings) and the baseline: a bare fork (fork, exit, reap) of a
process shaped like a fork server, measured in the same run, against two sums of our overhead:
execution (everything but running the code and the static checks) and all of it.
--memory N grades N samples with our grader and prints this process's RSS along the way.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "sebench" / "single_test_dev.jsonl"


def build_samples(data: Path, count: int):
    from sebench.data.sources import find_api_doc, load
    from sebench.data.translate import to_library
    from sebench.library.cache import official_library

    library = official_library(find_api_doc(data))
    tasks = load("single_test", data)
    base = []
    for task in tasks:
        code = to_library(task.numpy_reference or "", library.table).code
        if code:
            base.append((task, f"```python\n{code}\n```"))
    samples = [base[i % len(base)] for i in range(count)]
    return library, samples


def response_samples(data: Path, responses: Path, count: int):
    """The rows of a responses file (on the tasks of `data`), repeated to `count`."""
    from sebench.data.sources import find_api_doc, load
    from sebench.grading.responses import Item, read_responses
    from sebench.library.cache import official_library

    library = official_library(find_api_doc(data))
    tasks = {task.task_id: task for task in load("single_test", data)}
    base = [
        (item.task, item.response)
        for item in read_responses(responses, tasks)
        if isinstance(item, Item) and item.response is not None
    ]
    if not base:
        raise SystemExit(f"{responses}: no response on a task of {data}")
    return library, [base[i % len(base)] for i in range(count)]


class BareFork:
    """The baseline: fork + _exit + waitpid, in a process shaped like a fork server (NumPy, the
    library, the same preimports, frozen GC) that does nothing else. One fork per `measure()`,
    interleaved with our samples so that both see the same machine (these machines are noisy).

    Not this process: it also holds the grader (threads, whose fork handler alone adds ~0.6 ms
    to each fork), which would flatter the ratio."""

    def __init__(self, library) -> None:
        import subprocess

        from sebench.grading.sandbox.isolation import interpreter_command, server_environment

        args = [str(library.root), library.package, library.submodule]
        self.process = subprocess.Popen(
            interpreter_command(str(Path(__file__).resolve()), "--bare-fork", *args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=server_environment(),
        )
        self.times: list[float] = []

    def measure(self) -> None:
        self.process.stdin.write("\n")
        self.process.stdin.flush()
        self.times.append(float(self.process.stdout.readline()))

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def bare_fork_in_server_shape(root: str, package: str, submodule: str) -> None:
    """The baseline's process: one fork + exit + reap per line read, its milliseconds printed."""
    import gc
    import importlib

    from sebench.grading.sandbox import server

    sys.path.insert(0, root)
    importlib.import_module(package)
    importlib.import_module(f"{package}.{submodule}")
    server.preimport()
    if "threading" in sys.modules:  # its fork handler would slow the baseline and flatter us
        raise SystemExit("the bare-fork baseline imported threading")
    gc.freeze()
    for _ in sys.stdin:
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        print((time.perf_counter() - start) * 1000, flush=True)


def measured_grader(library, config):
    """A `Grader` whose dependence rerun can be switched off (`rerun = False`), to measure what
    it costs; only this benchmark does that."""
    from sebench.grading.grader import Grader
    from sebench.grading.verdicts import Verdict, VerdictKind

    class Measured(Grader):
        rerun = True

        def confirm_dependence(self, task, job, first):
            if self.rerun:
                return super().confirm_dependence(task, job, first)
            return Verdict(VerdictKind.CORRECT)

    return Measured(library, config)


def run_rounds(library, samples, workers: int, rounds: int):
    """Ours, ours without the rerun and the official approach alternately, `rounds` times;
    returns per round (our seconds for all samples, ours without the rerun, the official
    approach's seconds for its share), the official approach's sample counts, our cost split
    and the bare fork's median.

    Alternating makes the ratio a side-by-side measurement: this machine's speed drifts by tens
    of percent within a minute (other tenants), and one long run of each would compare two
    different machines. Ours grades every sample in each round; the official approach, ten
    times slower, grades a different `1/rounds` share of them in each round (all of them once
    over the whole run)."""
    from sebench.grading.sandbox import SandboxConfig

    items = [(task, response, index) for index, (task, response) in enumerate(samples)]
    ours, no_rerun, official, counts = [], [], [], []
    with measured_grader(library, SandboxConfig(workers=workers)) as grader:
        grader.grade(*samples[0])  # warm up: first fork of each server, imports in the parent
        for round_ in range(rounds):
            for rerun, times in ((True, ours), (False, no_rerun)):
                grader.rerun = rerun
                start = time.perf_counter()
                for _ in grader.grade_many(items):
                    pass
                times.append(time.perf_counter() - start)
            grader.rerun = True
            share = samples[round_::rounds]
            official.append(run_official(library, share, workers))
            counts.append(len(share))
        baseline = BareFork(library)
        try:
            split = cost_split(grader, samples, baseline)
        finally:
            baseline.close()
    return ours, no_rerun, official, counts, split, statistics.median(baseline.times)


STATIC, REAP = "static checks", "reap + clean"


def cost_split(grader, samples, baseline: BareFork) -> dict[str, float]:
    """Median milliseconds per stage, one sample at a time (no queueing in the numbers), with
    one baseline fork after each sample."""
    from sebench.grading.official_rules import official_judge, official_prepare

    stages: dict[str, list[float]] = {}

    def add(name: str, seconds: float) -> None:
        stages.setdefault(name, []).append(seconds * 1000)

    for task, response in samples:
        t0 = time.perf_counter()
        prepared = grader.prepare(task, response)
        # every verdict also carries the official-rules category: its static stage runs too
        official = official_prepare(task, response, grader.table)
        add(STATIC, time.perf_counter() - t0)
        if prepared.job is None:
            continue
        execution = grader.execute(prepared.job)
        t1 = time.perf_counter()
        grader.judge(task, prepared, execution)
        if official.job is not None:
            official_judge(task, execution, grader.sandbox_config.timeout_s)
        add("compare", time.perf_counter() - t1)
        # Let the server finish its reap first: measured while it runs, each would slow the other.
        time.sleep(0.005)
        baseline.measure()
        timings = execution.timings
        for name in ("fork", "isolation", "run"):
            if name in timings:
                add(name, timings[name])
        if "total" in timings:  # from the child having its job (forked and confined before)
            add("report", timings["total"] - timings.get("run", 0.0))
            if "roundtrip" in timings:
                add("transport", timings["roundtrip"] - timings["total"])
        if "reaped_before" in timings:  # the previous sample's reap, done after its reply
            add(REAP, timings["reaped_before"])
    return {name: statistics.median(values) for name, values in stages.items()}


def run_official(library, samples, workers: int):
    from concurrent.futures import ThreadPoolExecutor  # not at the top: see BareFork

    from official_approach import run_official_approach  # next to this script

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as threads:
        list(threads.map(lambda s: run_official_approach(s[0], s[1], library), samples))
    return time.perf_counter() - start


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def compare_mode(args) -> None:
    if args.responses:
        library, samples = response_samples(args.data, args.responses, args.samples)
        what = f"responses of {args.responses.name}"
    else:
        library, samples = build_samples(args.data, args.samples)
        what = f"translated references of {args.data.name}"
    workers = args.workers
    print(f"{len(samples)} samples ({what}), {workers} workers, {os.cpu_count()} CPUs")
    ours, no_rerun, official, counts, split, fork_ms = run_rounds(
        library, samples, workers, args.rounds
    )
    rounds = zip(ours, no_rerun, official, counts, strict=True)
    for index, (ours_s, no_rerun_s, official_s, count) in enumerate(rounds):
        ours_rate, official_rate = len(samples) / ours_s, count / official_s
        print(
            f"round {index + 1}: ours {ours_rate:6.1f} samples/s, official {official_rate:5.1f} "
            f"samples/s, {ours_rate / official_rate:5.1f}x; without the rerun "
            f"{len(samples) / no_rerun_s / official_rate:5.1f}x"
        )
    ours_rate = len(samples) * len(ours) / sum(ours)
    no_rerun_rate = len(samples) * len(no_rerun) / sum(no_rerun)
    official_rate = sum(counts) / sum(official)
    print(f"ours:      {ours_rate:8.1f} samples/s  ({sum(ours):.1f} s in all)")
    print(f"official:  {official_rate:8.1f} samples/s  ({sum(official):.1f} s in all)")
    print(f"ratio:     {ours_rate / official_rate:8.1f}x")
    # What the rule "the answer depends on the library" costs: only correct answers pay for it
    # (a second fresh process, sometimes more), so a set with fewer of them pays less.
    print(
        f"ours without the dependence rerun: {no_rerun_rate:8.1f} samples/s "
        f"({no_rerun_rate / official_rate:.1f}x); the rerun costs "
        f"{1000 / ours_rate - 1000 / no_rerun_rate:.2f} ms of this machine per sample"
    )
    print("our cost per sample, one at a time (median ms):")
    for name, value in split.items():
        note = "  (after the reply, while the grader compares)" if name == REAP else ""
        print(f"  {name:<14} {value:7.2f}{note}")
    # The bare fork below includes the child's exit and reap, so ours counts it too, even
    # though the grader no longer waits for it. Two sums: what executing a sample costs beyond
    # running its code (the fork's counterpart), and that plus the static checks, which read the
    # response before any process is involved.
    execution = sum(v for k, v in split.items() if k not in ("run", STATIC))
    overhead = execution + split.get(STATIC, 0.0)
    waited = overhead - split.get(REAP, 0.0)
    print(f"  {'all but run':<14} {overhead:7.2f}  (of which the grader waits for {waited:.2f})")
    print(f"bare fork of a server-shaped process (fork, exit, reap): {fork_ms:.2f} ms")
    print(
        f"  execution overhead (all but run and static checks): {execution:.2f} ms "
        f"= {execution / fork_ms:.2f}x the bare fork"
    )
    print(
        f"  all per-sample overhead (static checks too):        {overhead:.2f} ms "
        f"= {overhead / fork_ms:.2f}x the bare fork"
    )


def memory_mode(args) -> None:
    from sebench.grading.grader import Grader
    from sebench.grading.sandbox import SandboxConfig

    library, base = build_samples(args.data, 64)
    total = args.memory
    items = ((base[i % len(base)][0], base[i % len(base)][1], i) for i in range(total))
    with Grader(library, SandboxConfig(workers=args.workers)) as grader:
        grader.grade(*base[0])
        start_rss, start = rss_mb(), time.perf_counter()
        print(f"start: RSS {start_rss:.1f} MB")
        for done, _ in enumerate(grader.grade_many(items), start=1):
            if done % max(1, total // 10) == 0:
                print(
                    f"{done:6d} graded  RSS {rss_mb():6.1f} MB  "
                    f"{done / (time.perf_counter() - start):6.1f} samples/s"
                )
    print(f"end:   RSS {rss_mb():.1f} MB (start {start_rss:.1f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--rounds", type=int, default=3, help="ours and the official approach, alternated"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--responses", type=Path, help="grade this responses file's rows (on --data's tasks)"
    )
    parser.add_argument("--memory", type=int, default=0, help="grade N samples, report RSS")
    parser.add_argument("--bare-fork", nargs=3, help=argparse.SUPPRESS)  # the baseline's process
    args = parser.parse_args()
    if args.rounds < 1 or args.samples < args.rounds:
        parser.error("--rounds must be at least 1 and at most --samples")
    if args.bare_fork:
        return bare_fork_in_server_shape(*args.bare_fork)
    memory_mode(args) if args.memory else compare_mode(args)


if __name__ == "__main__":
    main()
