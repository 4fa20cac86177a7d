#!/usr/bin/env bash
# Regenerate docs/cli.md from the code (tests/cli/test_cli_docs.py checks it is current).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m typer sebench.cli.main utils docs --name sebench --title "sebench command reference" --output docs/cli.md
