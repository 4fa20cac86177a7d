"""The GPU recipes (recipes/grpo): each script is valid bash, its accelerate config parses, and
its `sebench train grpo` command resolves (`--dry-run`) to the paper's batch."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sebench.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
RECIPES = sorted((ROOT / "recipes" / "grpo").glob("*.sh"))
VALUES = {"MODEL": "qwen3", "DATA": "tasks.jsonl", "API_DOC": "api_doc.jsonl", "MODE": "closed"}


def _launch_command(script: Path, out: Path) -> list[str]:
    text = script.read_text().replace("\\\n", " ")
    line = next(x for x in text.splitlines() if "accelerate launch" in x)
    line = re.sub(r"\$\{INIT:\+[^}]*\}", "", line)  # no --init: RL from the base model
    for name, value in {**VALUES, "OUT": str(out)}.items():
        line = line.replace(f'"${name}"', value)
    return shlex.split(line[line.index("accelerate launch") :])


def test_there_are_recipes():
    assert {p.name for p in RECIPES} >= {"qwen3-1.7b-colocate.sh", "qwen3-8b-colocate.sh"}


@pytest.mark.parametrize("script", RECIPES, ids=lambda p: p.name)
def test_recipe_parses_and_resolves(script: Path, tmp_path):
    subprocess.run(["bash", "-n", str(script)], check=True)
    words = _launch_command(script, tmp_path / "out")
    config = yaml.safe_load((ROOT / words[words.index("--config_file") + 1]).read_text())
    processes = config["num_processes"]
    assert config["mixed_precision"] == "bf16" and processes >= 1

    args = words[words.index("sebench.cli.main") + 1 :]
    result = CliRunner().invoke(app, [*args, "--dry-run"])
    assert result.exit_code == 0, result.output
    resolved = json.loads(result.output)
    assert resolved["use_vllm"] and resolved["bf16"]
    assert resolved["prompts_per_step"] == 32 and resolved["generations_per_prompt"] == 8
    assert resolved["learning_rate"] == 1e-6 and resolved["updates_per_batch"] == 1  # closed
    # each of the launch's processes takes a whole number of micro batches per step
    assert (32 * 8) % (resolved["micro_batch_size"] * processes) == 0
