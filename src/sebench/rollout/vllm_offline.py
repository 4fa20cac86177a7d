"""vLLM's offline engine, for GPU machines: `pip install 'sebench[vllm]'`.

One `LLM.chat` call over all requests; vLLM batches and schedules them itself. Each request
carries its own seed, so samples are reproducible one by one as with the other backends.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from sebench.errors import require
from sebench.rollout.backend import ChatRequest, Completion, SamplingConfig, finish_reason_of


class VLLMOfflineBackend:
    def __init__(
        self,
        model: str,
        *,
        name: str | None = None,
        tensor_parallel_size: int = 1,
        gpu_memory_utilization: float = 0.9,
        max_model_len: int | None = None,
    ) -> None:
        vllm = require("vllm", "vllm")
        self._vllm = vllm
        self._name = name or model
        self.llm = vllm.LLM(
            model=model,
            tensor_parallel_size=tensor_parallel_size,
            gpu_memory_utilization=gpu_memory_utilization,
            max_model_len=max_model_len,
        )

    @property
    def model_name(self) -> str:
        return self._name

    def generate(
        self, requests: Sequence[ChatRequest], sampling: SamplingConfig
    ) -> Iterator[Completion]:
        if not requests:
            return
        params = [
            self._vllm.SamplingParams(
                temperature=sampling.temperature,
                top_p=sampling.top_p,
                max_tokens=sampling.max_new_tokens,
                seed=r.seed,
            )
            for r in requests
        ]
        kwargs: dict[str, Any] = {}
        if sampling.enable_thinking is not None:
            kwargs["chat_template_kwargs"] = {"enable_thinking": sampling.enable_thinking}
        start = time.monotonic()
        outputs = self.llm.chat(
            [list(r.messages) for r in requests], params, use_tqdm=False, **kwargs
        )
        latency = time.monotonic() - start
        for request, output in zip(requests, outputs, strict=True):
            best = output.outputs[0]
            yield Completion(
                task_id=request.task_id,
                sample=request.sample,
                text=best.text,
                finish_reason=finish_reason_of(best.finish_reason),
                prompt_tokens=len(output.prompt_token_ids or []),
                completion_tokens=len(best.token_ids),
                latency_s=latency,
                seed=request.seed,
                mode=request.mode,
            )

    def close(self) -> None:
        pass
