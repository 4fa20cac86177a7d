"""Recipes: the shipped ones parse, and every mistake is one error naming the file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from sebench.errors import InputError, SebenchError
from sebench.experiments.recipe import GENERATED, load_recipe, parse_override
from tests.experiments.conftest import CPU_RECIPE, GPU_RECIPE

GOOD = """
name = "t"
regimes = ["no-docs", "closed-sft"]
[library]
kind = "seed"
seed = 3
[data]
single = "single.jsonl"
train = "train.jsonl"
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "recipe.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_cpu_recipe_parses_into_typed_records():
    recipe = load_recipe(CPU_RECIPE)
    assert recipe.name == "cpu-smollm2" and recipe.library.kind == "seed"
    assert recipe.data.single == GENERATED and recipe.data.generate.generator == "demo"
    assert recipe.sft.max_steps == 2 and recipe.grpo.max_steps == 1
    assert recipe.sampling.temperature == 0.0  # an integer-valued float in TOML is still a float


def test_gpu_recipe_holds_the_papers_numbers(monkeypatch, tmp_path):
    monkeypatch.setenv("SEBENCH_DATA", str(tmp_path))
    monkeypatch.setenv("QWEN3_8B", str(tmp_path / "model"))
    recipe = load_recipe(GPU_RECIPE)
    assert recipe.seeds == (0, 1, 2, 3, 4) and recipe.library.kind == "official"
    assert recipe.library.api_doc == tmp_path / "api_doc.jsonl"
    assert recipe.expected["closed-sft"] == {"single": 39.6, "multiple": 11.6}
    assert recipe.expected["sft-rl"] == {"single": 54.4, "multiple": 17.9}
    assert recipe.expected["memory"] == {"single": 47.1, "multiple": 15.5}
    assert recipe.expected["numpy-form"] == {"single": 97.4, "multiple": 93.6}
    for rl_only in ("open-rl", "closed-rl"):
        assert recipe.expected[rl_only] == {"single": 0.0, "multiple": 0.0}


def test_relative_paths_are_relative_to_the_recipe(tmp_path):
    recipe = load_recipe(_write(tmp_path, GOOD))
    assert recipe.data.single == tmp_path / "single.jsonl"
    assert recipe.data.train == tmp_path / "train.jsonl"


def test_overrides_are_checked_like_the_file(tmp_path):
    path = _write(tmp_path, GOOD)
    assert load_recipe(path, {"sft.max_steps": 3}).sft.max_steps == 3
    with pytest.raises(InputError, match=r"field 'sft.max_steps': expected an integer"):
        load_recipe(path, {"sft.max_steps": "three"})


def test_override_values_are_read_as_toml_else_as_text():
    assert parse_override("sft.learning_rate=2e-5") == ("sft.learning_rate", 2e-5)
    assert parse_override('regimes=["no-docs"]') == ("regimes", ["no-docs"])
    assert parse_override("model=/models/qwen") == ("model", "/models/qwen")
    with pytest.raises(SebenchError, match="expected KEY=VALUE"):
        parse_override("sft.max_steps")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ('\nsamples = "5"', r"field 'samples': expected an integer, got '5'"),
        ("\n[grpo]\nmax_step = 3", r"field 'grpo.max_step': unknown key; known here: .*max_steps"),
        ("\nseeds = [0, 0]", r"field 'seeds': list each seed once"),
        ("\n[sft]\nseed = 1", r"field 'sft.seed': seeds come from the top-level `seeds`"),
        ("\n[sft]\nmax_steps = 0", r"field 'sft': max_steps must be at least 1"),
        ('\n[backend]\nkind = "tgi"', r"field 'backend.kind': 'tgi' is not one of hf, openai"),
        ('\n[backend]\nkind = "openai"', r"field 'backend.kind': .*closed-sft.* need backend"),
        ("\n[expected.closed-sft]\nsingle = 39.6\nsingel = 1.0", r"'expected.closed-sft.singel'"),
        ("\n[expected.closd-sft]\nsingle = 1.0", r"'expected.closd-sft': unknown regime"),
        ("\ncolour = 1", r"field 'colour': unknown key"),
        ('\n[sft_data]\nanswers = "gold"', r"field 'sft_data.answers': 'gold' is not one of"),
        ("\n[sft_data]\nsamples = 0", r"field 'sft_data.samples': must be at least 1"),
        ("\n[memory]\nbatch_size = 0", r"field 'memory': batch size .* at least 1"),
    ],
)
def test_a_bad_recipe_gives_one_error_naming_the_key(tmp_path, change, message):
    text = GOOD
    if change.startswith("\nsamples") or change.startswith("\nseeds") or "colour" in change:
        text = change + "\n" + GOOD  # top-level keys go before the first table
    else:
        text = GOOD + change
    with pytest.raises(InputError, match=message) as caught:
        load_recipe(_write(tmp_path, text))
    assert str(caught.value).startswith(f"{tmp_path / 'recipe.toml'}: field ")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'name = "t"\nregimes = ["no-docs"]\n[data]\nsingle = "s.jsonl"\n[library]\n'
            'kind = "official"',
            r"field 'library.api_doc': the official library is built",
        ),
        ('regimes = ["no-docs"]', r"field 'name': is required"),
        ('name = "t"\nregimes = ["closed-sfft"]', r"field 'regimes': unknown regime 'closed-sfft'"),
        ('name = "a b"\nregimes = ["no-docs"]', r"field 'name': 'a b': use letters"),
        (
            'name = "t"\nregimes = ["no-docs"]\n[library]\nseed = 1\n[data]\nsingle = "generated"',
            r"field 'data.single': 'generated' test tasks need data.generate",
        ),
        (
            'name = "t"\nregimes = ["no-docs"]\n[library]\nseed = 1\n[data]\nsingle = "${NO_SUCH_VAR_X}/s"',
            r"field 'data.single': .*NO_SUCH_VAR_X is not set",
        ),
        (
            'name = "t"\nregimes = ["closed-sft"]\n[library]\nseed = 1\n[data]\nsingle = "s"',
            r"field 'data.train': the regimes closed-sft train",
        ),
        ('name = "t"\nregimes = [', r"not valid TOML"),
    ],
)
def test_incomplete_or_inconsistent_recipes_are_refused(tmp_path, monkeypatch, text, message):
    monkeypatch.delenv("NO_SUCH_VAR_X", raising=False)
    with pytest.raises(InputError, match=message):
        load_recipe(_write(tmp_path, text))


def test_the_memory_regime_may_use_a_served_model(tmp_path):
    text = (
        'name = "t"\nregimes = ["memory"]\n[library]\nseed = 1\n[data]\nsingle = "s"\n'
        'train = "t"\n[backend]\nkind = "openai"'
    )
    assert load_recipe(_write(tmp_path, text)).regimes == ("memory",)  # it trains no weights


def test_a_missing_recipe_file_is_named(tmp_path):
    with pytest.raises(SebenchError, match="no such recipe file"):
        load_recipe(tmp_path / "nope.toml")
