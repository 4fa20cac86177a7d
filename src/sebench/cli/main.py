"""The `sebench` command: one error boundary around thin command modules.

Each command group lives in its own module with a `register(app)` function; this module only
wires them together and turns user-facing errors into a one-line message and exit code 2.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import typer
from rich.console import Console

from sebench.cli import (
    data_cmd,
    demo_cmd,
    doctor_cmd,
    eval_cmd,
    experiment_cmd,
    export_cmd,
    lib_cmd,
    memory_cmd,
    prompt_cmd,
    report_cmd,
    rollout_cmd,
    run_cmd,
    selfplay_cmd,
    serve_cmd,
    tasks_cmd,
    train_cmd,
    validate_cmd,
)
from sebench.cli.threads import apply_thread_policy
from sebench.errors import SebenchError

app = typer.Typer(
    name="sebench",
    help="SE-Bench: can a model learn a brand-new library into its weights?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (
    lib_cmd,
    data_cmd,
    validate_cmd,
    tasks_cmd,
    prompt_cmd,
    memory_cmd,
    rollout_cmd,
    eval_cmd,
    run_cmd,
    train_cmd,
    selfplay_cmd,
    demo_cmd,
    doctor_cmd,
    report_cmd,
    serve_cmd,
    export_cmd,
    experiment_cmd,
):
    module.register(app)


def main() -> None:
    # Before any command imports PyTorch: the thread pools are sized when it loads.
    apply_thread_policy()
    err = Console(stderr=True)
    try:
        # standalone_mode=False hands back exit codes (typer.Exit, and 130 for Ctrl-C) instead of
        # exiting, and raises usage errors, so that every user-facing error is rendered here, once.
        code = app(standalone_mode=False)
    except SebenchError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        code = 130
    except typer.TyperException as exc:
        # typer bundles its own click (and `click` itself may not be installed): its usage
        # errors (UsageError, BadParameter, NoSuchOption, ...) all derive from TyperException.
        _usage_error(err, exc)
    except typer.Abort:
        code = 130
    if code == 130:
        err.print(
            "[yellow]interrupted: finished work is saved; rerun the same command to resume[/]"
        )
    sys.exit(code if isinstance(code, int) else 0)


def _usage_error(err: Console, exc: typer.TyperException) -> NoReturn:
    """One line saying what is wrong, a hint where help is, exit 2 (a user error, like ours)."""
    message = exc.format_message()
    if not message or message.startswith("Usage:"):
        # a group called without a command (no_args_is_help): the help is the message, or typer
        # has printed it already (rich)
        typer.echo(message, err=True, nl=False)
        sys.exit(2)
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    context = getattr(exc, "ctx", None)  # usage errors carry the command they happened in
    if context is not None:
        err.print(f"see: {context.command_path} --help", highlight=False, soft_wrap=True)
    sys.exit(2)


if __name__ == "__main__":
    main()
