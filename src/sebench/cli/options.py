"""The options several commands share, declared once: one name, one help text, one set of checks.

A command whose option means something else there (another default, another use) declares its
own. Defaults stay at each command's parameter, where its `--help` shows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from sebench.grading.rules import Rules
from sebench.grading.sandbox.config import MAX_WORKERS

# Which model, and how to reach it.
ModelOption = Annotated[
    str | None,
    typer.Option(help="Checkpoint folder (hf), served model name (openai) or path/name (vllm)."),
]
BaseUrlOption = Annotated[
    list[str] | None, typer.Option("--base-url", help="openai: server URL (repeatable).")
]
ApiKeyEnvOption = Annotated[str, typer.Option(help="openai: variable holding the API key.")]
ConcurrencyOption = Annotated[int, typer.Option(min=1, help="openai: requests in flight.")]
TimeoutOption = Annotated[float, typer.Option(min=0.1, help="openai: seconds per attempt.")]
RetriesOption = Annotated[int, typer.Option(min=0, help="openai: retries per request.")]
BatchSizeOption = Annotated[int, typer.Option(min=1, help="hf: prompts per batch.")]
DeviceOption = Annotated[str | None, typer.Option(help="hf: torch device.")]
ThinkingOption = Annotated[
    bool | None,
    typer.Option(
        "--thinking/--no-thinking",
        help="Thinking mode, for chat templates that have one (default: the template's).",
    ),
]

# The tasks, the library and what the prompts show.
DataSourceOption = Annotated[
    str | None,
    typer.Option(
        help="A JSONL file, a data folder or a hub id (default: $SEBENCH_DATA, else the hub)."
    ),
]
LibOption = Annotated[
    Path | None, typer.Option(help="A built library folder (default: the official library).")
]
ApiDocOption = Annotated[
    Path | None,
    typer.Option(help="The official api_doc.jsonl (default: found next to the data)."),
]
MemoryOption = Annotated[
    Path | None, typer.Option(help="Insights shown in memory mode (`sebench memory build`).")
]

# The library of the commands that train locally (`sebench demo`, `train tasks`, `train grpo`):
# --lib, else the official one from --api-doc, else a fresh one from --library-seed.
DemoApiDocOption = Annotated[
    Path | None, typer.Option(help="Use the official library built from this api_doc.jsonl.")
]
DemoLibOption = Annotated[Path | None, typer.Option(help="Use this built library folder.")]
LibrarySeedOption = Annotated[
    int,
    typer.Option(help="Seed of the fresh library used when neither --api-doc nor --lib is given."),
]

# How to grade.

# Below this even an empty program times out: the child's set-up alone takes a few milliseconds.
MIN_TIMEOUT_S = 0.1
SandboxTimeoutOption = Annotated[
    float, typer.Option(min=MIN_TIMEOUT_S, help="Seconds per program (official: 3).")
]
WorkersOption = Annotated[
    int, typer.Option(min=0, max=MAX_WORKERS, help="Sandbox workers (0: one per CPU core).")
]
AllowUnisolatedOption = Annotated[
    bool,
    typer.Option(
        "--allow-unisolated",
        help="Run untrusted code even when no isolation layer is active (unsafe).",
    ),
]
RulesOption = Annotated[
    Rules,
    typer.Option(
        "--rules",
        help="Whose rules decide each verdict: strict (sebench's) or official (the official "
        "grader's verdict logic, quirks included, still sandboxed). The official-rules "
        "category is reported either way.",
    ),
]


@dataclass(frozen=True)
class BackendOptions:
    """How to reach a model: what the backend options of the commands say."""

    # No defaults here: the commands' options hold them, and always pass every field.
    model: str | None
    base_urls: tuple[str, ...]
    api_key_env: str
    concurrency: int
    timeout_s: float
    max_retries: int
    batch_size: int
    device: str | None


def backend_options(
    model: str | None,
    base_url: list[str] | None,
    api_key_env: str,
    concurrency: int,
    timeout: float,
    max_retries: int,
    batch_size: int,
    device: str | None,
) -> BackendOptions:
    """The record of a command's backend options, taken in the order and under the names of its
    parameters (every command that reaches a model passes them alike)."""
    return BackendOptions(
        model=model,
        base_urls=tuple(base_url or ()),
        api_key_env=api_key_env,
        concurrency=concurrency,
        timeout_s=timeout,
        max_retries=max_retries,
        batch_size=batch_size,
        device=device,
    )
