"""Prompts: what a model receives for a task, closed-book, open-book, NumPy-form or retrieved."""

from sebench.prompts.memory import Insight, Memory, load_memory
from sebench.prompts.modes import PromptMode
from sebench.prompts.render import render_prompt, render_text, retrieved_docs, task_docs
from sebench.prompts.templates import DocSnippet

__all__ = [
    "DocSnippet",
    "Insight",
    "Memory",
    "PromptMode",
    "load_memory",
    "render_prompt",
    "render_text",
    "retrieved_docs",
    "task_docs",
]
