"""The OpenAI-compatible backend against a real scripted HTTP server on 127.0.0.1."""

from __future__ import annotations

import threading
import time

from sebench.rollout.backend import ChatRequest, FinishReason, SamplingConfig
from sebench.rollout.openai_compat import OpenAICompatBackend, OpenAIConfig
from tests.helpers.chat_server import ChatServer, Reply, echo_answer

FAST = {"backoff_s": 0.01, "backoff_max_s": 0.05}


def _requests(count: int) -> list[ChatRequest]:
    return [
        ChatRequest(
            task_id=f"t{i}",
            sample=0,
            seed=100 + i,
            messages=({"role": "user", "content": f"task {i}"},),
        )
        for i in range(count)
    ]


def _backend(*servers: ChatServer, **overrides) -> OpenAICompatBackend:
    config = OpenAIConfig(
        model="scripted", base_urls=tuple(s.url for s in servers), **{**FAST, **overrides}
    )
    return OpenAICompatBackend(config)


def test_answers_are_recorded_with_finish_reason_tokens_latency_and_seed():
    with ChatServer() as server:
        done = list(_backend(server).generate(_requests(3), SamplingConfig(max_new_tokens=64)))
    assert sorted(c.task_id for c in done) == ["t0", "t1", "t2"]
    for completion in done:
        assert completion.finish_reason == FinishReason.STOP and not completion.truncated
        assert f"return {completion.seed}" in completion.text
        assert completion.prompt_tokens == 11 and completion.completion_tokens > 0
        assert completion.latency_s > 0 and completion.error is None
    body = server.requests[0]
    assert body["max_tokens"] == 64 and body["temperature"] == 0.6
    assert body["seed"] in {100, 101, 102}


def test_server_errors_are_retried_until_success():
    def flaky(body, attempt):
        return Reply(status=500) if attempt <= 2 else echo_answer(body, attempt)

    with ChatServer(flaky) as server:
        backend = _backend(server)
        [completion] = backend.generate(_requests(1), SamplingConfig())
    assert completion.error is None and "def solve" in completion.text
    assert backend.attempts == 3 and len(server.requests) == 3


def test_rate_limit_is_retried_after_the_servers_retry_after():
    def limited(body, attempt):
        if attempt == 1:
            return Reply(status=429, headers={"retry-after": "0.3"})
        return echo_answer(body, attempt)

    with ChatServer(limited) as server:
        start = time.monotonic()
        [completion] = _backend(server, backoff_max_s=5.0).generate(_requests(1), SamplingConfig())
        waited = time.monotonic() - start
    assert completion.error is None
    assert waited >= 0.3


def test_slow_answer_times_out_and_is_retried():
    def slow_first(body, attempt):
        reply = echo_answer(body, attempt)
        reply.delay_s = 1.5 if attempt == 1 else 0.0
        return reply

    with ChatServer(slow_first) as server:
        backend = _backend(server, timeout_s=0.3)
        [completion] = backend.generate(_requests(1), SamplingConfig())
    assert completion.error is None and backend.attempts == 2


def test_request_that_keeps_failing_is_recorded_with_its_error_not_dropped():
    with ChatServer(lambda body, attempt: Reply(status=503)) as server:
        backend = _backend(server, max_retries=2)
        done = list(backend.generate(_requests(2), SamplingConfig()))
    assert len(done) == 2
    for completion in done:
        assert completion.finish_reason == FinishReason.ERROR and completion.text == ""
        assert "3 attempt(s) failed" in completion.error and "503" in completion.error
    assert len(server.requests) == 6


def test_bad_request_is_not_retried():
    with ChatServer(lambda body, attempt: Reply(status=400)) as server:
        [completion] = _backend(server).generate(_requests(1), SamplingConfig())
    assert completion.error is not None and "BadRequestError" in completion.error
    assert len(server.requests) == 1


def test_length_finish_reason_marks_the_answer_truncated():
    def cut(body, attempt):
        return Reply(content="```python\ndef solve(x):\n    return", finish_reason="length")

    with ChatServer(cut) as server:
        [completion] = _backend(server).generate(_requests(1), SamplingConfig())
    assert completion.truncated and completion.finish_reason == FinishReason.LENGTH


def test_load_is_spread_over_several_servers():
    def slowish(body, attempt):
        reply = echo_answer(body, attempt)
        reply.delay_s = 0.05
        return reply

    with ChatServer(slowish) as first, ChatServer(slowish) as second:
        done = list(
            _backend(first, second, concurrency=4).generate(_requests(20), SamplingConfig())
        )
    assert len(done) == 20
    assert len(first.requests) >= 5 and len(second.requests) >= 5
    assert len(first.requests) + len(second.requests) == 20


def test_a_retry_goes_to_another_server():
    with ChatServer(lambda body, attempt: Reply(status=500)) as broken, ChatServer() as healthy:
        backend = _backend(broken, healthy, concurrency=1)
        done = list(backend.generate(_requests(4), SamplingConfig()))
    assert all(c.error is None for c in done)


def test_requests_in_flight_never_exceed_the_concurrency_bound():
    lock = threading.Lock()
    state = {"now": 0, "most": 0}

    def counting(body, attempt):
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return echo_answer(body, attempt)

    with ChatServer(counting) as server:
        done = list(_backend(server, concurrency=3).generate(_requests(12), SamplingConfig()))
    assert len(done) == 12
    assert state["most"] == 3


def test_thinking_switch_reaches_the_chat_template_kwargs():
    with ChatServer() as server:
        list(_backend(server).generate(_requests(1), SamplingConfig(enable_thinking=False)))
    assert server.requests[0]["chat_template_kwargs"] == {"enable_thinking": False}
