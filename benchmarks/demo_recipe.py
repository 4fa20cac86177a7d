"""The demo's recipe on several data seeds: accuracy of every row and time of every stage.

    python benchmarks/demo_recipe.py --seeds 0,1,2 [--avx2] [--set freeze_fraction=0.8 ...]

Each seed runs the whole demo (`run_demo`) in fp32, the precision of a CPU without native bf16,
with `--avx2` under PyTorch's AVX2 kernels (`ATEN_CPU_CAPABILITY=avx2`, oneDNN and MKL capped
likewise: the emulation of docs/demo.md), and prints one JSON line per seed. `--set` overrides a
field of the demo's `SFTTrainingConfig` (`demo_sft()`), so that a recipe change can be checked
against the three thresholds on several seeds before it becomes the default.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

AVX2 = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
}


def one_seed(seed: int, overrides: dict[str, object]) -> dict[str, object]:
    """Run in this process (the parent sets the environment before PyTorch loads)."""
    from dataclasses import replace

    from sebench.library.cache import seeded_library
    from sebench.rollout.smollm import default_model_dir
    from sebench.training.demo import DemoConfig, run_demo

    config = DemoConfig(seed=seed)
    config = replace(config, sft=replace(config.sft, bf16=False, **overrides))
    started, load = time.perf_counter(), os.getloadavg()[0]
    result = run_demo(seeded_library(0), default_model_dir(), config)
    return {
        "seed": seed,
        "overrides": overrides,
        "rows": {e.key: f"{e.correct}/{e.total}" for e in result.evaluations},
        "checks_pass": result.paradox_shown,
        "train_s": {t.arm: t.seconds for t in result.trainings},
        "eval_s": {e.key: round(e.seconds, 1) for e in result.evaluations},
        "wall_s": round(time.perf_counter() - started, 1),
        "load": [round(load, 2), round(os.getloadavg()[0], 2)],
        "capability": os.environ.get("ATEN_CPU_CAPABILITY", "native"),
    }


def parse_value(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--avx2", action="store_true", help="PyTorch, oneDNN and MKL at AVX2")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child: one seed
    args = parser.parse_args()
    overrides = {k: parse_value(v) for k, v in (item.split("=", 1) for item in args.set)}
    if args.one is not None:
        print(json.dumps(one_seed(args.one, overrides)), flush=True)
        return
    # one process per seed: the environment must be set before PyTorch is imported
    env = {**os.environ, **(AVX2 if args.avx2 else {})}
    for seed in (int(s) for s in args.seeds.split(",")):
        command = [sys.executable, __file__, "--one", str(seed)]
        command += [f"--set={item}" for item in args.set]
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            sys.exit(f"seed {seed} failed:\n{done.stderr[-2000:]}")
        print(lines[-1], flush=True)


if __name__ == "__main__":
    main()
