"""The reference agents answer like a model would, from the task's reference solutions."""

from __future__ import annotations

from sebench.rollout.agents import AgentKind, ReferenceAgent
from sebench.rollout.backend import ChatRequest, FinishReason, SamplingConfig


def _answers(kind: AgentKind, tasks, library=None) -> dict[str, str]:
    agent = ReferenceAgent(kind, tasks, library)
    requests = [ChatRequest(task_id=t.task_id, sample=0, seed=0, messages=()) for t in tasks]
    done = list(agent.generate(requests, SamplingConfig()))
    assert all(c.finish_reason == FinishReason.STOP for c in done)
    return {c.task_id: c.text for c in done}


def test_oracle_answers_with_library_code_and_no_numpy(official_lib, dev_tasks):
    answers = _answers(AgentKind.ORACLE, dev_tasks[:20], official_lib)
    with_code = [a for a in answers.values() if a.startswith("```python\n")]
    assert len(with_code) >= 18
    for answer in with_code:
        assert "import zwc" in answer and "numpy" not in answer and "np." not in answer


def test_numpy_agent_answers_with_the_numpy_reference(dev_tasks):
    answers = _answers(AgentKind.NUMPY, dev_tasks[:5])
    for task in dev_tasks[:5]:
        assert task.numpy_reference.strip() in answers[task.task_id]
        assert "import numpy" in answers[task.task_id]


def test_plain_python_agent_uses_no_library_at_all(dev_tasks):
    answers = _answers(AgentKind.PLAIN_PYTHON, dev_tasks[:5])
    for answer in answers.values():
        assert answer.startswith("```python\n") and "def " in answer
        assert "numpy" not in answer and "zwc" not in answer


def test_unknown_task_is_recorded_as_a_failed_sample(dev_tasks):
    agent = ReferenceAgent(AgentKind.NUMPY, dev_tasks[:1])
    [completion] = agent.generate(
        [ChatRequest(task_id="nope", sample=0, seed=0, messages=())], SamplingConfig()
    )
    assert completion.finish_reason == FinishReason.ERROR and "unknown task" in completion.error
