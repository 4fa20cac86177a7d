"""Any OpenAI-compatible chat-completions server: vLLM, SGLang, hosted APIs.

Unlike the official scripts (one server, failed requests dropped, truncation never recorded):
the load is spread over several base URLs (each request goes to the least busy one, and a retry
prefers another), at most `concurrency` requests are in flight, failures are retried with
exponential backoff (honouring a server's Retry-After), each request has its own timeout, and a
request that keeps failing is still yielded, with its error. The `openai` client's own retries
are off so that every attempt is counted and bounded here.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sebench.errors import InputError, SebenchError, require
from sebench.rollout.backend import ChatRequest, Completion, SamplingConfig, finish_reason_of

# HTTP statuses worth retrying: timeouts, conflicts, rate limits and server errors. Others
# (400 prompt too long, 401 bad key, 404 unknown model) fail the same way every time.
_RETRY_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
CHECK_TIMEOUT_S = 30.0  # the preflight's one request per server: a live server answers at once


@dataclass(frozen=True)
class OpenAIConfig:
    model: str  # the model name the server knows (`--served-model-name` for vLLM)
    base_urls: tuple[str, ...] = ("http://127.0.0.1:8000/v1",)  # vLLM's default address
    concurrency: int = 32  # requests in flight over all servers
    timeout_s: float = 900.0  # per attempt: 8192 tokens at ~10 tok/s fits
    max_retries: int = 6  # attempts after the first
    backoff_s: float = 1.0  # first wait; doubles each retry, with jitter
    backoff_max_s: float = 60.0


class _Servers:
    """Picks the base URL with the fewest requests in flight (ties: round robin)."""

    def __init__(self, count: int) -> None:
        self._busy = [0] * count
        self._next = 0
        self._lock = threading.Lock()

    def acquire(self, avoid: int | None = None) -> int:
        with self._lock:
            order = [(self._next + i) % len(self._busy) for i in range(len(self._busy))]
            if avoid is not None and len(order) > 1:
                order.remove(avoid)
            index = min(order, key=lambda i: self._busy[i])
            self._busy[index] += 1
            self._next = (index + 1) % len(self._busy)
            return index

    def release(self, index: int) -> None:
        with self._lock:
            self._busy[index] -= 1


def _reply(exc: Exception) -> str:
    """The server's own words about an error, kept short."""
    return str(getattr(exc, "message", None) or exc)[:300]


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        return float(headers.get("retry-after"))
    except (TypeError, ValueError):
        return None


class OpenAICompatBackend:
    def __init__(self, config: OpenAIConfig, *, api_key: str | None = None) -> None:
        openai = require("openai", "serve")
        if not config.base_urls:
            raise InputError("give at least one --base-url")
        self.config = config
        self._openai = openai
        # Local servers accept any key; the client insists on having one.
        self._clients = [
            openai.OpenAI(
                base_url=url, api_key=api_key or "EMPTY", max_retries=0, timeout=config.timeout_s
            )
            for url in config.base_urls
        ]
        self._servers = _Servers(len(self._clients))
        self.attempts = 0  # every HTTP request made, retries included
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        return self.config.model

    def check(self) -> None:
        """Before any sampling: every server answers `GET /models` and, where it lists its models
        (vLLM, SGLang and OpenAI do), serves this one. A server down or a mistyped model name
        otherwise turns every request of the run into a recorded failure. A server without a
        model list (an error status other than a refused key) is let through: the requests
        will tell."""
        openai, model = self._openai, self.config.model
        for url, client in zip(self.config.base_urls, self._clients, strict=True):
            try:
                listed = client.with_options(timeout=CHECK_TIMEOUT_S).models.list()
            except openai.APIStatusError as exc:
                if exc.status_code in (401, 403):
                    raise SebenchError(
                        f"the server at {url} refused the API key ({exc.status_code}: "
                        f"{_reply(exc)}); set it in the variable --api-key-env names"
                    ) from None
                continue
            except openai.OpenAIError as exc:  # connection refused, timeout, not an API at all
                raise SebenchError(
                    f"cannot reach an OpenAI-compatible server at {url} ({type(exc).__name__}: "
                    f"{exc}); is it running, and is --base-url right?"
                ) from None
            served = [entry.id for entry in getattr(listed, "data", None) or ()]
            if served and model not in served:
                raise SebenchError(
                    f"the server at {url} does not serve model {model!r}; it serves: "
                    f"{', '.join(served[:10])}. Pass one of these as --model"
                )

    def _retryable(self, exc: Exception) -> bool:
        openai = self._openai
        if isinstance(exc, openai.APIConnectionError | openai.APITimeoutError):
            return True
        if isinstance(exc, openai.APIStatusError):
            return exc.status_code in _RETRY_STATUS
        return False

    def _body(self, request: ChatRequest, sampling: SamplingConfig) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": list(request.messages),
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "max_tokens": sampling.max_new_tokens,
            "seed": request.seed,
        }
        if sampling.enable_thinking is not None:
            # vLLM and SGLang pass these to the chat template (Qwen3's thinking switch).
            body["extra_body"] = {
                "chat_template_kwargs": {"enable_thinking": sampling.enable_thinking}
            }
        return body

    def _one(
        self, request: ChatRequest, sampling: SamplingConfig, stop: threading.Event
    ) -> Completion:
        start = time.monotonic()
        body = self._body(request, sampling)
        server: int | None = None
        errors: list[str] = []
        for attempt in range(self.config.max_retries + 1):
            if stop.is_set():
                errors.append("cancelled: the rollout was stopped")
                break
            server = self._servers.acquire(avoid=server)
            try:
                with self._lock:
                    self.attempts += 1
                response = self._clients[server].chat.completions.create(**body)
            except self._openai.OpenAIError as exc:
                errors.append(f"{self.config.base_urls[server]}: {type(exc).__name__}: {exc}")
                if not self._retryable(exc) or attempt == self.config.max_retries:
                    break
                wait = min(self.config.backoff_max_s, self.config.backoff_s * 2**attempt)
                wait = min(
                    _retry_after(exc) or wait * (0.5 + random.random()), self.config.backoff_max_s
                )
            else:
                return self._completion(request, response, time.monotonic() - start)
            finally:
                self._servers.release(server)
            stop.wait(wait)
        summary = f"{len(errors)} attempt(s) failed; last: {errors[-1]}"
        return Completion.failed(request, summary[:2000], time.monotonic() - start)

    @staticmethod
    def _completion(request: ChatRequest, response: Any, latency_s: float) -> Completion:
        choice = response.choices[0] if response.choices else None
        usage = getattr(response, "usage", None)
        return Completion(
            task_id=request.task_id,
            sample=request.sample,
            text=(choice.message.content or "") if choice else "",
            finish_reason=finish_reason_of(choice.finish_reason if choice else None),
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
            latency_s=latency_s,
            seed=request.seed,
            mode=request.mode,
        )

    def generate(
        self, requests: Sequence[ChatRequest], sampling: SamplingConfig
    ) -> Iterator[Completion]:
        # Daemon worker threads, not a ThreadPoolExecutor: on Ctrl-C the interpreter must not
        # wait at exit for requests still in flight (up to `timeout_s` each).
        todo: queue.SimpleQueue[ChatRequest] = queue.SimpleQueue()
        for request in requests:
            todo.put(request)
        results: queue.SimpleQueue[Completion | BaseException] = queue.SimpleQueue()
        stop = threading.Event()

        def work() -> None:
            while not stop.is_set():
                try:
                    request = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    results.put(self._one(request, sampling, stop))
                except BaseException as exc:  # a bug: hand it to the caller's thread
                    results.put(exc)

        workers = [
            threading.Thread(target=work, name=f"sebench-openai-{i}", daemon=True)
            for i in range(min(max(1, self.config.concurrency), len(requests)))
        ]
        for worker in workers:
            worker.start()
        try:
            for _ in range(len(requests)):
                item = results.get()
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()  # on an early exit, queued requests are never sent

    def close(self) -> None:
        for client in self._clients:
            client.close()
