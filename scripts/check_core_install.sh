#!/usr/bin/env bash
# The core install (`pip install -e .`, no extras) in a fresh venv, as a user without torch has
# it: the CLI starts, builds a library, validates and grades a small task file, and a usage error
# is one message with exit code 2. Data: the official dev file where ../shared has it (CI), else a
# seeded library and a generated two-task file (a public clone). About a minute; .ci/run runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q -c constraints.txt -e .
sebench() { "$work/venv/bin/sebench" "$@"; }
# each step's output goes to a log, shown when the step fails
quiet() { "$@" >>"$work/log" 2>&1 || { cat "$work/log" >&2; echo "core install: failed: $*" >&2; exit 1; }; }
cd "$work"

quiet sebench --help
shared=${SEBENCH_SHARED_DATA:-$repo/../shared/data/sebench}  # as the tests read it
if [ -f "$shared/single_test_dev.jsonl" ] && [ -f "$shared/api_doc.jsonl" ]; then
    data=$shared/single_test_dev.jsonl
    quiet sebench lib build --official "$shared/api_doc.jsonl" --out L
else
    data=$work/tasks.jsonl
    "$work/venv/bin/python" "$repo/tests/cli/cli_run.py" "$data"
    quiet sebench lib build --seed 1 --out L
fi
quiet sebench validate --data "$data" --lib L --out-subset subset.json \
    --emit-responses responses.jsonl
quiet sebench eval responses.jsonl --lib L --data "$data" --subset subset.json \
    --out results.jsonl --summary summary.json
"$work/venv/bin/python" - <<'PY'
import json

summary = json.load(open("summary.json"))
assert summary["samples"] > 0 and summary["accuracy"] == 1.0, summary
print(f"core install: {summary['samples']} verified references graded correct")
PY

# a usage error: one message, exit code 2, no traceback
set +e
sebench eval 2>usage.txt
code=$?
set -e
if [ "$code" -ne 2 ] || grep -q Traceback usage.txt; then
    echo "core install: a usage error gave exit code $code:" >&2
    cat usage.txt >&2
    exit 1
fi
echo "core install: OK (help, lib build, validate, eval, usage error exit 2)"
