"""A local Hugging Face `transformers` model: a checkpoint folder, or a model already in memory.

The demo evaluates models it has just trained in the same process, so the backend accepts an
already-loaded (model, tokenizer) pair as well as a path. Prompts go through the tokenizer's chat
template; requests run in batches, left-padded, sorted by length to waste little padding.

Sampling (temperature > 0) uses one random generator per sample, seeded with the sample's seed:
a sample's answer depends only on its seed, not on which other requests share its batch (up to
float rounding of padded batches). `generate` draws from one global generator per batch, so the
draw is done here by a logits processor and `generate` itself runs greedily over its output.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sebench.errors import InputError, require
from sebench.rollout.backend import ChatRequest, Completion, FinishReason, SamplingConfig


def _seeded_sampler(seeds: Sequence[int], temperature: float, top_p: float) -> Any:
    torch = require("torch", "train")
    transformers = require("transformers", "train")

    class SeededSampler(transformers.LogitsProcessor):
        """Samples each row with its own generator and leaves only that token possible."""

        def __init__(self) -> None:
            self.generators = [torch.Generator().manual_seed(int(seed)) for seed in seeds]

        def __call__(self, input_ids: Any, scores: Any) -> Any:
            probs = torch.softmax(scores.float() / temperature, dim=-1)
            if top_p < 1.0:
                ordered, index = torch.sort(probs, descending=True, dim=-1)
                # keep the smallest prefix whose mass reaches top_p (always the top token)
                outside = ordered.cumsum(dim=-1) - ordered > top_p
                ordered = ordered.masked_fill(outside, 0.0)
                probs = torch.zeros_like(probs).scatter(-1, index, ordered)
            probs = probs.cpu()
            picks = torch.stack(
                [
                    torch.multinomial(probs[row], 1, generator=generator)
                    for row, generator in enumerate(self.generators)
                ]
            ).to(scores.device)
            forced = torch.full_like(scores, float("-inf"))
            return forced.scatter(1, picks, 0.0)

    return SeededSampler()


class HFLocalBackend:
    def __init__(
        self,
        model: str | Path | Any,
        tokenizer: Any = None,
        *,
        name: str | None = None,
        batch_size: int = 8,
        device: str | None = None,
        dtype: str | None = None,
    ) -> None:
        torch = require("torch", "train")
        transformers = require("transformers", "train")
        if isinstance(model, str | Path):
            path = Path(model).expanduser()
            if not path.exists():
                raise InputError(
                    "no such model folder (give a Hugging Face checkpoint folder)", path=str(path)
                )
            name = name or str(path)
            tokenizer = tokenizer or transformers.AutoTokenizer.from_pretrained(str(path))
            model = transformers.AutoModelForCausalLM.from_pretrained(
                str(path), dtype=getattr(torch, dtype) if dtype else "auto"
            )
            if device:
                model = model.to(device)
        elif tokenizer is None:
            raise ValueError("an already-loaded model needs its tokenizer too")
        if not getattr(tokenizer, "chat_template", None):
            raise InputError(
                f"model {name or ''} has no chat template; sebench sends chat "
                "messages, so use an instruction-tuned checkpoint"
            )
        self.model = model
        self.tokenizer = tokenizer
        self.batch_size = max(1, batch_size)
        self._name = name or getattr(model.config, "_name_or_path", None) or "local-model"
        eos = model.generation_config.eos_token_id
        eos_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        if tokenizer.eos_token_id is not None:
            eos_ids.add(tokenizer.eos_token_id)
        self._eos = eos_ids
        pad = tokenizer.pad_token_id
        self._pad = pad if pad is not None else min(eos_ids, default=0)

    @property
    def model_name(self) -> str:
        return self._name

    def prompt_ids(
        self, messages: Sequence[dict[str, str]], enable_thinking: bool | None = None
    ) -> list[int]:
        kwargs = {}
        # Only templates that know the switch get it (Qwen3); others would ignore or reject it.
        if enable_thinking is not None and "enable_thinking" in self.tokenizer.chat_template:
            kwargs["enable_thinking"] = enable_thinking
        text = self.tokenizer.apply_chat_template(
            list(messages), add_generation_prompt=True, tokenize=False, **kwargs
        )
        # The template already wrote the special tokens (BOS and the role markers).
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def _batch(
        self,
        requests: Sequence[ChatRequest],
        prompts: Sequence[list[int]],
        sampling: SamplingConfig,
    ) -> list[Completion]:
        torch = require("torch", "train")
        transformers = require("transformers", "train")
        width = max(len(p) for p in prompts)
        input_ids = torch.tensor([[self._pad] * (width - len(p)) + p for p in prompts])
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
        device = self.model.device
        config = transformers.GenerationConfig(
            max_new_tokens=sampling.max_new_tokens,
            do_sample=False,
            pad_token_id=self._pad,
            eos_token_id=sorted(self._eos),
        )
        processors = []
        if sampling.temperature > 0:
            processors.append(
                _seeded_sampler([r.seed for r in requests], sampling.temperature, sampling.top_p)
            )
        start = time.monotonic()
        output = self.model.generate(
            input_ids=input_ids.to(device),
            attention_mask=mask.to(device),
            generation_config=config,
            logits_processor=transformers.LogitsProcessorList(processors),
        )
        latency = time.monotonic() - start
        completions = []
        for row, request in enumerate(requests):
            generated = output[row, width:].tolist()
            end = next((i for i, t in enumerate(generated) if t in self._eos), None)
            if end is None:
                tokens, reason = generated, FinishReason.LENGTH
            else:
                tokens, reason = generated[:end], FinishReason.STOP
            completions.append(
                Completion(
                    task_id=request.task_id,
                    sample=request.sample,
                    text=self.tokenizer.decode(tokens, skip_special_tokens=True),
                    finish_reason=reason,
                    prompt_tokens=len(prompts[row]),
                    completion_tokens=len(tokens) + (end is not None),
                    latency_s=latency,
                    seed=request.seed,
                    mode=request.mode,
                )
            )
        return completions

    def generate(
        self, requests: Sequence[ChatRequest], sampling: SamplingConfig
    ) -> Iterator[Completion]:
        torch = require("torch", "train")
        prompts = {id(r): self.prompt_ids(r.messages, sampling.enable_thinking) for r in requests}
        ordered = sorted(requests, key=lambda r: len(prompts[id(r)]))
        was_training = self.model.training
        self.model.eval()
        try:
            for first in range(0, len(ordered), self.batch_size):
                batch = ordered[first : first + self.batch_size]
                try:
                    with torch.inference_mode():
                        done = self._batch(batch, [prompts[id(r)] for r in batch], sampling)
                except torch.OutOfMemoryError as exc:
                    message = f"out of memory with a batch of {len(batch)}: lower --batch-size"
                    done = [Completion.failed(r, f"{message} ({exc})"[:2000], 0.0) for r in batch]
                yield from done
        finally:
            if was_training:
                self.model.train()

    def close(self) -> None:
        pass
