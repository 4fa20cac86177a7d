"""`sebench serve-reward`: the grader as an HTTP reward service (OpenRLHF's remote format)."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from sebench.cli.options import (
    AllowUnisolatedOption,
    LibOption,
    SandboxTimeoutOption,
    WorkersOption,
)
from sebench.integrations.reward_service import (
    DEFAULT_BATCHES_AT_ONCE,
    DEFAULT_CAPACITY,
    DEFAULT_MAX_BODY_BYTES,
)

STOP_POLL_S = 0.5  # how often the main thread looks at the stop flag (signals set it)


def serve_reward_command(
    data: Annotated[
        list[str] | None,
        typer.Option(
            "--data",
            help="Tasks the labels name by id: file or folder (repeatable; SPLIT=PATH). "
            "Default: $SEBENCH_DATA. Labels may also carry the whole task row.",
        ),
    ] = None,
    lib: LibOption = None,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (0.0.0.0: every interface).")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port (0: any free one).")
    ] = 5000,
    workers: WorkersOption = 0,
    timeout: SandboxTimeoutOption = 3.0,
    capacity: Annotated[
        int,
        typer.Option(
            "--capacity", min=1, help="Samples admitted at once; past it a request gets a 503."
        ),
    ] = DEFAULT_CAPACITY,
    batches_at_once: Annotated[
        int, typer.Option("--batches-at-once", min=1, help="Requests graded concurrently.")
    ] = DEFAULT_BATCHES_AT_ONCE,
    max_body_mb: Annotated[
        int, typer.Option("--max-body-mb", min=1, help="Largest request body (MiB).")
    ] = DEFAULT_MAX_BODY_BYTES // (1024 * 1024),
    allow_unisolated: AllowUnisolatedOption = False,
) -> None:
    """Serve the grader's rewards over HTTP in OpenRLHF's remote reward format.

    POST /get_reward ({"query", "prompts", "labels"} -> {"rewards", "scores", "extra_logs"}),
    GET /health. Ctrl-C or SIGTERM finishes the admitted requests, then stops."""
    import logging
    import signal
    import threading

    from rich.console import Console

    from sebench.grading.grader import Grader
    from sebench.grading.responses import load_tasks
    from sebench.grading.runner import default_library
    from sebench.grading.sandbox.config import SandboxConfig
    from sebench.integrations.labels import TaskLabels
    from sebench.integrations.reward_server import HEALTH_PATH, REWARD_PATH, running
    from sebench.integrations.reward_service import RewardService
    from sebench.library.library import Library

    console = Console(stderr=True, highlight=False)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    sources = tuple(data or ())
    if not sources and os.environ.get("SEBENCH_DATA"):
        sources = (os.environ["SEBENCH_DATA"],)
    tasks = load_tasks(sources) if sources else {}
    library = Library.load(lib) if lib is not None else default_library(sources)
    sandbox = SandboxConfig(timeout_s=timeout, workers=workers, allow_unisolated=allow_unisolated)

    stop = threading.Event()
    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        with Grader(library, sandbox) as grader:
            service = RewardService(grader, capacity=capacity, batches_at_once=batches_at_once)
            labels = TaskLabels(tasks)
            with running(service, labels, host, port, max_body_mb * 1024 * 1024) as server:
                console.print(
                    f"serving rewards on {server.url} (POST {REWARD_PATH}, GET {HEALTH_PATH}): "
                    f"{len(tasks)} tasks by id, {grader.workers} sandbox workers, capacity "
                    f"{capacity} samples; Ctrl-C or SIGTERM stops"
                )
                while not stop.wait(STOP_POLL_S):
                    pass
                console.print(
                    f"stopping: answering the {service.health()['admitted']} admitted samples"
                )
            health = service.health()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    console.print(
        f"stopped after {health['requests']} requests, {health['samples']} samples "
        f"({health['unscored']} unscored, {health['refused_busy']} refused as busy)"
    )


def register(app: typer.Typer) -> None:
    """Add this module's commands to the top-level app."""
    app.command("serve-reward")(serve_reward_command)
