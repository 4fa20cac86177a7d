"""The accelerate configs shipped for `train sft` and `train grpo` (recipes/accelerate): each
parses, loads with accelerate's own loader (which refuses unknown keys), names a known
distributed type, and every DeepSpeed / FSDP key is one `accelerate launch` understands."""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "recipes" / "accelerate").glob("*.yaml"))
REQUIRED = {
    "compute_environment",
    "distributed_type",
    "mixed_precision",
    "num_machines",
    "num_processes",
    "machine_rank",
    "use_cpu",
}
PLUGIN_KEYS = {"DEEPSPEED": "deepspeed_config", "FSDP": "fsdp_config"}


def test_ddp_fsdp_and_zero3_are_all_shipped():
    kinds = {yaml.safe_load(path.read_text())["distributed_type"] for path in CONFIGS}
    assert kinds >= {"MULTI_GPU", "FSDP", "DEEPSPEED"}
    zero = [yaml.safe_load(p.read_text()).get("deepspeed_config", {}) for p in CONFIGS]
    assert any(block.get("zero_stage") == 3 for block in zero)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_has_what_accelerate_needs(path: Path):
    config = yaml.safe_load(path.read_text())
    assert set(config) >= REQUIRED, REQUIRED - set(config)
    assert config["mixed_precision"] == "bf16" and config["use_cpu"] is False
    assert config["num_processes"] >= 1 and config["num_machines"] >= 1
    plugin = PLUGIN_KEYS.get(config["distributed_type"])
    if plugin is not None:
        assert isinstance(config.get(plugin), dict) and config[plugin], plugin


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_accelerate_loads_it_and_knows_every_plugin_key(path: Path):
    config_args = pytest.importorskip("accelerate.commands.config.config_args")
    launch = pytest.importorskip("accelerate.commands.launch")
    loaded = config_args.load_config_from_file(str(path))  # unknown top-level keys raise
    assert str(loaded.distributed_type).split(".")[-1] in {"NO", "MULTI_GPU", "FSDP", "DEEPSPEED"}
    options = {
        option
        for action in launch.launch_command_parser()._actions
        for option in action.option_strings
    }
    config = yaml.safe_load(path.read_text())
    for block in ("deepspeed_config", "fsdp_config"):
        unknown = {key for key in config.get(block, {}) if f"--{key}" not in options}
        assert not unknown, f"{block}: accelerate launch has no option for {sorted(unknown)}"
