"""The package's shape: imports flow one way along the pipeline, heavy extras stay lazy."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "sebench"
PIPELINE = [
    "library",
    "data",
    "prompts",
    "rollout",
    "grading",
    "training",
    "integrations",
    "reports",
    "experiments",
    "cli",
]
HEAVY = ("torch", "transformers", "trl", "peft", "vllm", "datasets", "openai", "matplotlib")


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module imported, at module top level?) for every import in a file."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, id(node) in top))
    return found


def _stage_files(stage: str) -> list[Path]:
    return sorted((SRC / stage).rglob("*.py"))


@pytest.mark.parametrize("stage", PIPELINE[:-1])
def test_stage_never_imports_a_later_stage(stage: str) -> None:
    later = PIPELINE[PIPELINE.index(stage) + 1 :]
    offenders = [
        f"{path.relative_to(SRC)} imports {module}"
        for path in _stage_files(stage)
        for module, _ in _imports(path)
        if any(module == f"sebench.{s}" or module.startswith(f"sebench.{s}.") for s in later)
    ]
    assert not offenders, offenders


@pytest.mark.parametrize("stage", ["library", "data", "prompts", "grading", "integrations"])
def test_core_stages_import_heavy_extras_only_lazily(stage: str) -> None:
    offenders = [
        f"{path.relative_to(SRC)} imports {module} at module level"
        for path in _stage_files(stage)
        for module, top_level in _imports(path)
        if top_level and module.split(".")[0] in HEAVY
    ]
    assert not offenders, offenders


def test_importing_the_grader_loads_no_torch() -> None:
    code = (
        "import sys, sebench.grading, sebench.library, sebench.data;"
        "bad=[m for m in ('torch','transformers','trl','vllm') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_cli_help_loads_no_heavy_extra() -> None:
    """`pip install -e .` without extras must start the CLI: --help imports none of them."""
    code = (
        "import sys; sys.argv = ['sebench', '--help']; import sebench.cli.main as m\n"
        "try: m.main()\nexcept SystemExit: pass\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.strip() == ""


def test_cli_lists_every_command_group() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "sebench.cli.main", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    for command in (
        "lib",
        "data",
        "validate",
        "prompt",
        "rollout",
        "eval",
        "run",
        "train",
        "demo",
        "doctor",
        "experiment",
    ):
        assert command in out.stdout, command
