"""A tiny real model for tests: a random 2-layer Llama with SmolLM2's tokenizer and chat template.

It exercises the real code paths (tokenizing, chat templates, generation, training steps) in
well under a second per step; its outputs are random text, so tests with it check mechanics,
never accuracy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SEED = 0


def _tokenizer():
    """SmolLM2's tokenizer: from the converted default model if cached (fast), else the GGUF."""
    from transformers import AutoTokenizer

    from sebench.rollout.smollm import MODEL_NAME, cache_root, gguf_path

    for cached in sorted((cache_root() / "models").glob(f"{MODEL_NAME}-v*")):
        if (cached / "tokenizer.json").is_file():
            return AutoTokenizer.from_pretrained(cached)
    source = gguf_path()
    return AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)


def tiny_model_dir(where: Any) -> Path:
    """Write (once) and return a Hugging Face folder holding the tiny model.

    `where` is a folder path, or pytest's `tmp_path_factory` (a session-scoped fixture can then
    build it once for all tests).
    """
    if hasattr(where, "mktemp"):
        base = Path(where.getbasetemp()) / "tiny-model"
    else:
        base = Path(where) / "tiny-model"
    if (base / "config.json").is_file() and (base / "model.safetensors").is_file():
        return base
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = _tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(config)
    base.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(base)
    tokenizer.save_pretrained(base)
    return base
