"""Rollout: getting responses out of a model (server, local checkpoint) or a reference agent."""

from sebench.rollout.agents import AgentKind, ReferenceAgent
from sebench.rollout.backend import (
    Backend,
    ChatRequest,
    Completion,
    FinishReason,
    SamplingConfig,
)
from sebench.rollout.runner import RolloutConfig, RolloutProgress, RolloutSummary, rollout

__all__ = [
    "AgentKind",
    "Backend",
    "ChatRequest",
    "Completion",
    "FinishReason",
    "ReferenceAgent",
    "RolloutConfig",
    "RolloutProgress",
    "RolloutSummary",
    "SamplingConfig",
    "rollout",
]
