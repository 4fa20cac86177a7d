#!/usr/bin/env bash
# Regenerate constraints.txt: the pinned, tested versions of every dependency, which the README's
# commands and .ci/run install with `pip install -c constraints.txt torch==2.13.0 -e '.[all]'`.
#
#   pip install uv                                        # the resolver, in any venv
#   scripts/update_constraints.sh                         # keeps each pin that still fits
#   scripts/update_constraints.sh --upgrade-package trl   # moves one pin (--upgrade: all)
#
# A new pin is tested before it is committed: install the set in a fresh venv and run the
# README's test command (.ci/run does both, and checks the core install without extras).
# The ranges in pyproject.toml stay the honest minimum the code works with; this file is the
# one set known to pass. Pins are for CPython 3.11 on x86_64 Linux, the project's machines.
set -euo pipefail
cd "$(dirname "$0")/.."
uv pip compile pyproject.toml scripts/constraints.in --extra all \
    --python-version 3.11 --python-platform x86_64-unknown-linux-gnu \
    --custom-compile-command scripts/update_constraints.sh \
    -o constraints.txt "$@"
