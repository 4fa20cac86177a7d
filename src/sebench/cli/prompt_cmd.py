"""`sebench prompt show`: print exactly what a model would receive for a task."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from sebench.cli.options import ApiDocOption, DataSourceOption, LibOption, MemoryOption
from sebench.prompts.modes import PromptMode

prompt_app = typer.Typer(help="Show the prompts models receive.", no_args_is_help=True)


@prompt_app.command("show")
def show(
    task_id: Annotated[str, typer.Argument(help="A task id, or a 0-based row index.")],
    mode: Annotated[PromptMode, typer.Option(help="Which prompt.")] = PromptMode.CLOSED,
    data: DataSourceOption = None,
    split: Annotated[
        str | None,
        typer.Option(help="Split (default: from the task id or the file name, else single_test)."),
    ] = None,
    lib: LibOption = None,
    api_doc: ApiDocOption = None,
    top_k: Annotated[int, typer.Option(min=1, help="Docs retrieved in open-retrieved mode.")] = 5,
    memory: MemoryOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the chat messages as JSON.")
    ] = False,
) -> None:
    """Print the chat messages for TASK_ID: the user message's text, byte for byte."""
    from sebench.cli.rollout_cmd import find_task, resolve_library
    from sebench.prompts.memory import load_memory
    from sebench.prompts.render import render_prompt

    task = find_task(task_id, data, split)
    library = resolve_library(lib, data, api_doc)
    insights = load_memory(memory) if memory is not None else None
    messages = render_prompt(task, library, mode, top_k=top_k, memory=insights)
    if as_json:
        typer.echo(json.dumps(messages, ensure_ascii=False, indent=2))
        return
    # Only the user message exists (no system prompt); print it unadorned so it can be piped.
    typer.echo("\n\n".join(m["content"] for m in messages))


def register(app: typer.Typer) -> None:
    app.add_typer(prompt_app, name="prompt")
