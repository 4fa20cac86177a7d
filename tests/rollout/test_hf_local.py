"""The local transformers backend with a tiny random model (mechanics only, never accuracy)."""

from __future__ import annotations

import pytest

from sebench.errors import InputError
from sebench.rollout.backend import ChatRequest, FinishReason, SamplingConfig
from sebench.rollout.hf_local import HFLocalBackend


def _requests(count: int, samples: int = 1) -> list[ChatRequest]:
    return [
        ChatRequest(
            task_id=f"t{i}",
            sample=s,
            seed=1000 * i + s,
            messages=({"role": "user", "content": "Write code. " * (i + 1)},),
        )
        for i in range(count)
        for s in range(samples)
    ]


@pytest.fixture(scope="module")
def backend(tiny_model):
    return HFLocalBackend(tiny_model, batch_size=4)


def _by_key(completions):
    return {(c.task_id, c.sample): c for c in completions}


def test_checkpoint_folder_generates_one_completion_per_request(backend):
    done = list(backend.generate(_requests(3, samples=2), SamplingConfig(max_new_tokens=6)))
    assert sorted(_by_key(done)) == [(f"t{i}", s) for i in range(3) for s in range(2)]
    for completion in done:
        assert completion.prompt_tokens > 0 and 1 <= completion.completion_tokens <= 6
        assert completion.error is None and completion.latency_s > 0


def test_hitting_max_new_tokens_marks_the_answer_truncated(backend):
    done = list(backend.generate(_requests(2), SamplingConfig(max_new_tokens=5)))
    # a random model almost never emits <|im_end|> within 5 tokens
    assert all(c.finish_reason == FinishReason.LENGTH and c.truncated for c in done)
    assert all(c.completion_tokens == 5 for c in done)


def test_greedy_decoding_is_deterministic(backend):
    sampling = SamplingConfig(temperature=0.0, max_new_tokens=8)
    first = _by_key(backend.generate(_requests(3), sampling))
    second = _by_key(backend.generate(_requests(3), sampling))
    assert {k: c.text for k, c in first.items()} == {k: c.text for k, c in second.items()}


def test_a_sample_depends_on_its_seed_not_on_its_batch(backend):
    sampling = SamplingConfig(temperature=1.0, max_new_tokens=10)
    requests = _requests(4, samples=2)
    together = _by_key(backend.generate(requests, sampling))
    alone = _by_key(backend.generate([requests[5]], sampling))
    key = (requests[5].task_id, requests[5].sample)
    assert alone[key].text == together[key].text
    texts = {c.text for c in together.values()}
    assert len(texts) > 1  # different seeds, different samples


def test_an_already_loaded_model_and_tokenizer_are_used_in_place(backend):
    model, tokenizer = backend.model, backend.tokenizer
    model.train()
    in_memory = HFLocalBackend(model, tokenizer, name="just-trained")
    [completion] = in_memory.generate(_requests(1), SamplingConfig(max_new_tokens=3))
    assert in_memory.model_name == "just-trained" and completion.completion_tokens >= 1
    assert model.training  # the caller's training mode is restored


def test_thinking_switch_reaches_a_template_that_has_one(backend):
    import copy

    tokenizer = copy.deepcopy(backend.tokenizer)
    tokenizer.chat_template = (
        "{% for m in messages %}{{ m['content'] }}{% endfor %}"
        "{% if enable_thinking is defined and not enable_thinking %}<no-think>{% endif %}"
    )
    thinking = HFLocalBackend(backend.model, tokenizer)
    messages = [{"role": "user", "content": "hi"}]
    off = tokenizer.decode(thinking.prompt_ids(messages, enable_thinking=False))
    default = tokenizer.decode(thinking.prompt_ids(messages))
    assert off.endswith("<no-think>") and not default.endswith("<no-think>")


def test_a_missing_checkpoint_folder_is_a_user_error(tmp_path):
    with pytest.raises(InputError, match="no such model folder"):
        HFLocalBackend(tmp_path / "nope")
