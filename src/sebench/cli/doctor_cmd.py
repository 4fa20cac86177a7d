"""`sebench doctor`: which isolation layers the sandbox can use on this machine."""

from __future__ import annotations

import json
from typing import Annotated

import typer


def doctor_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Report the sandbox's isolation layers (set up for real in a throwaway process)."""
    from rich.console import Console
    from rich.table import Table

    from sebench.errors import SebenchError
    from sebench.grading.sandbox import isolation

    try:
        layers, details, warnings = isolation.describe()
    except OSError as exc:
        raise SebenchError(f"the sandbox probe failed: {exc}") from exc
    contained = any(layers.get(name) for name in isolation.CONTAINMENT)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "layers": layers,
                    "details": details,
                    "warnings": warnings,
                    "untrusted_code_allowed": contained,
                },
                indent=2,
            )
        )
        return
    console = Console()
    table = Table(title="Sandbox isolation layers")
    table.add_column("layer")
    table.add_column("active")
    table.add_column("detail")
    for name in isolation.LAYERS:
        active = layers.get(name, False)
        table.add_row(name, "[green]yes[/]" if active else "[red]no[/]", details.get(name, ""))
    console.print(table)
    if "interpreter" in details:
        console.print(f"interpreter: {details['interpreter']}")
    if "file_times" in details:
        console.print(f"file times: {details['file_times']}")
    if "scratch" in details:
        console.print(f"scratch dir: {details['scratch']}")
    if "child_setup" in details:
        console.print(f"child set-up: {details['child_setup']}")
    for warning in warnings:
        console.print(f"[yellow]warning:[/] {warning}")
    if contained:
        console.print("[green]untrusted code runs with the layers marked yes[/]")
    else:
        console.print(
            "[red]no isolation layer works here: grading refuses to run untrusted code "
            "unless SandboxConfig(allow_unisolated=True)[/]"
        )


def register(app: typer.Typer) -> None:
    """Add this module's commands to the top-level app."""
    app.command("doctor")(doctor_command)
