"""The `sebench` command: one error boundary around thin command modules.

Each command group lives in its own module with a `register(app)` function; this module only
wires them together and turns user-facing errors into a one-line message and exit code 2.
"""

from __future__ import annotations

import sys

import click
import typer
from rich.console import Console

from sebench.cli import (
    data_cmd,
    demo_cmd,
    doctor_cmd,
    eval_cmd,
    lib_cmd,
    prompt_cmd,
    rollout_cmd,
    run_cmd,
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
    prompt_cmd,
    rollout_cmd,
    eval_cmd,
    run_cmd,
    train_cmd,
    demo_cmd,
    doctor_cmd,
):
    module.register(app)


def main() -> None:
    # Before any command imports PyTorch: the thread pools are sized when it loads.
    apply_thread_policy()
    err = Console(stderr=True)
    try:
        # standalone_mode=False hands back exit codes (typer.Exit, and 130 for Ctrl-C) instead of
        # exiting, so that user-facing errors can be rendered here, once.
        code = app(standalone_mode=False)
    except SebenchError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        code = 130
    except click.ClickException as exc:  # usage errors carry their own exit code
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        code = 130
    if code == 130:
        err.print(
            "[yellow]interrupted: finished work is saved; rerun the same command to resume[/]"
        )
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
