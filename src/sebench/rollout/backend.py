"""What every way of getting responses shares: requests, completions and the `Backend` protocol.

A backend turns chat requests into completions and yields each one as soon as it is finished
(in any order), so the runner can write it to disk at once: a crash loses only work in flight.
A request that fails for good still yields a `Completion`, with `error` set: samples are never
dropped silently.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class FinishReason(StrEnum):
    STOP = "stop"  # the model ended its answer
    LENGTH = "length"  # cut off by max_new_tokens: the answer is truncated
    CONTENT_FILTER = "content_filter"  # a hosted API withheld the answer
    ERROR = "error"  # no answer: the request failed for good (see `Completion.error`)


@dataclass(frozen=True)
class SamplingConfig:
    temperature: float = 0.6  # official SE-Bench evaluation setting
    top_p: float = 1.0  # official scripts leave it at the server's default
    max_new_tokens: int = 8192  # official SE-Bench evaluation setting
    # Thinking mode for models whose chat template has one (Qwen3's `enable_thinking`);
    # None keeps the template's default.
    enable_thinking: bool | None = None


@dataclass(frozen=True)
class ChatRequest:
    task_id: str
    sample: int  # 0..samples-1 for this task and mode
    messages: tuple[dict[str, str], ...]
    seed: int  # the sampling seed of this one sample, recorded in the output
    mode: str = "closed"


@dataclass(frozen=True)
class Completion:
    task_id: str
    sample: int
    text: str
    finish_reason: FinishReason
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float  # wall time of the request (of the whole batch, for batched local models)
    seed: int
    mode: str = "closed"
    error: str | None = None  # why there is no answer, when finish_reason is ERROR

    @property
    def truncated(self) -> bool:
        return self.finish_reason == FinishReason.LENGTH

    @classmethod
    def failed(cls, request: ChatRequest, error: str, latency_s: float) -> Completion:
        return cls(
            task_id=request.task_id,
            sample=request.sample,
            text="",
            finish_reason=FinishReason.ERROR,
            prompt_tokens=None,
            completion_tokens=None,
            latency_s=latency_s,
            seed=request.seed,
            mode=request.mode,
            error=error,
        )


def finish_reason_of(value: str | None) -> FinishReason:
    """Map a server's finish_reason string onto ours ('length' is the one that matters)."""
    match value:
        case "length":
            return FinishReason.LENGTH
        case "content_filter":
            return FinishReason.CONTENT_FILTER
        case _:  # "stop", "eos", "tool_calls", None: the model ended on its own
            return FinishReason.STOP


class Backend(Protocol):
    """Something that answers chat requests: a server, a local model or a reference agent.

    A backend behind a server also has `check() -> None`, which `rollout` calls before any
    sampling and which raises a `SebenchError` naming the server when it cannot serve the run.
    """

    @property
    def model_name(self) -> str:
        """The name recorded in every output row."""
        ...

    def generate(
        self, requests: Sequence[ChatRequest], sampling: SamplingConfig
    ) -> Iterator[Completion]:
        """Yield one completion per request, each as soon as it is done, in any order."""
        ...

    def close(self) -> None: ...
