"""vLLM is an optional extra: without it, the backend says how to install it."""

from __future__ import annotations

import importlib.util

import pytest

from sebench.errors import MissingDependencyError
from sebench.rollout.vllm_offline import VLLMOfflineBackend


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vllm is installed")
def test_missing_vllm_names_the_install_command():
    with pytest.raises(MissingDependencyError, match=r"pip install 'sebench\[vllm\]'"):
        VLLMOfflineBackend("some/model")


def test_importing_the_rollout_package_loads_no_heavy_dependency():
    import subprocess
    import sys

    code = (
        "import sys, sebench.rollout, sebench.prompts;"
        "print(','.join(m for m in ('torch', 'transformers', 'vllm', 'openai') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
