"""OpenRLHF's remote reward format: `{"query", "prompts", "labels"}` -> `{"rewards", "scores",
"extra_logs"}`.

What OpenRLHF sends (`--remote_rm_url http://host:port/get_reward`; openrlhf/utils/
remote_rm_utils.py, `remote_rm_fn_ray`): one JSON object with three lists of equal length.
`query[i]` is the prompt and the response decoded together (`tokenizer.batch_decode(sequences,
skip_special_tokens=False)` in its experience maker), `prompts[i]` the prompt as the dataset
gave it (after the chat template), `labels[i]` the dataset's `--label_key` column. It reads
back `rewards` (for the advantages), `scores` (0-1, for dynamic filtering) and `extra_logs` (a
per-sample list per key, logged); its own serve_rm.py answers the same three keys.

The response to grade is the query minus its prompt, as OpenRLHF's own example reward
functions cut it (examples/python/math_reward_func.py: `query[len(prompt):]`); a query that does
not contain its prompt is refused rather than graded whole, where the prompt's own text (open
prompts carry code examples) could be graded in place of the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sebench.data.schema import Task
from sebench.errors import SebenchError
from sebench.integrations.labels import TaskLabels
from sebench.integrations.scores import batch_logs, engine_rewards, verdict_names
from sebench.training.rewards import ScoredBatch


class RequestError(SebenchError):
    """A request the service refuses (HTTP 400): the message says which field and index."""


@dataclass(frozen=True)
class RewardRequest:
    """A parsed request: one task and one response text per sample, in request order."""

    tasks: list[Task]
    responses: list[str]

    def __len__(self) -> int:
        return len(self.responses)


def response_text(query: str, prompt: str) -> str | None:
    """The response inside `query`: what follows its prompt; None if the prompt is not in it."""
    if query.startswith(prompt):
        return query[len(prompt) :]
    at = query.find(prompt)
    return None if at < 0 else query[at + len(prompt) :]


def parse_request(body: Any, labels: TaskLabels) -> RewardRequest:
    """Check a decoded JSON body and resolve every label; every refusal says what and where."""
    if not isinstance(body, dict):
        raise RequestError(f"the body must be a JSON object, got {type(body).__name__}")
    columns = {}
    for key in ("query", "prompts", "labels"):
        if key not in body:
            raise RequestError(f"field '{key}' is missing (OpenRLHF sends query, prompts, labels)")
        if not isinstance(body[key], list):
            raise RequestError(f"field '{key}' must be a list, got {type(body[key]).__name__}")
        columns[key] = body[key]
    lengths = {key: len(values) for key, values in columns.items()}
    if len(set(lengths.values())) != 1:
        counts = ", ".join(f"{key} {n}" for key, n in lengths.items())
        raise RequestError(f"the lists differ in length: {counts}")
    tasks, responses = [], []
    for index, (query, prompt, label) in enumerate(
        zip(columns["query"], columns["prompts"], columns["labels"], strict=True)
    ):
        for key, value in (("query", query), ("prompts", prompt)):
            if not isinstance(value, str):
                raise RequestError(f"{key}[{index}] must be a string, got {type(value).__name__}")
        response = response_text(query, prompt)
        if response is None:
            raise RequestError(f"query[{index}] does not contain prompts[{index}]")
        try:
            tasks.append(labels.resolve(label, where=f"labels[{index}]"))
        except SebenchError as exc:
            raise RequestError(str(exc)) from None
        responses.append(response)
    return RewardRequest(tasks, responses)


def reward_response(scored: ScoredBatch) -> dict[str, Any]:
    """OpenRLHF's three keys, plus each sample's verdict (`verdicts`, which OpenRLHF ignores)."""
    rewards = engine_rewards(scored)
    return {
        "rewards": rewards,
        "scores": list(rewards),  # 0-1 already: dynamic filtering reads the same values
        "extra_logs": batch_logs(scored),
        "verdicts": verdict_names(scored.verdicts),
    }


def empty_response() -> dict[str, Any]:
    return reward_response(ScoredBatch([], [], 0))
