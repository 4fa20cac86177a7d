"""Progress of the long training commands: a live bar on a terminal, plain lines elsewhere.

A rich bar draws nothing when stdout is not a terminal (a pipe, a log file, CI), so a run of
several minutes printed nothing until its end. There each change of stage, every tenth step and
each step's end of a stage get one line with the elapsed time instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console

LINE_EVERY = 10  # steps between plain progress lines within one stage


class ProgressView(Protocol):
    def __call__(
        self, description: str, done: int = 0, total: int = 0, extra: str = ""
    ) -> None: ...


@contextmanager
def progress_view(console: Console) -> Iterator[ProgressView]:
    """A callable that shows (description, done of total, extra) for the life of the block."""
    if console.is_terminal:
        with _bar(console) as view:
            yield view
    else:
        yield _Lines(console)


@contextmanager
def _bar(console: Console) -> Iterator[ProgressView]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[extra]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("", total=None, extra="")

        def update(description: str, done: int = 0, total: int = 0, extra: str = "") -> None:
            bar.update(
                task, description=description, completed=done, total=total or None, extra=extra
            )

        yield update


class _Lines:
    """One line per new stage, every `LINE_EVERY` steps and at a stage's last step."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.started = time.perf_counter()
        self.description: str | None = None

    def __call__(self, description: str, done: int = 0, total: int = 0, extra: str = "") -> None:
        new_stage = description != self.description
        self.description = description
        if not (new_stage or (total and (done % LINE_EVERY == 0 or done == total))):
            return
        count = f" {done}/{total}" if total else ""
        tail = f"  {extra}" if extra else ""
        self.console.print(
            f"[{time.perf_counter() - self.started:5.0f} s] {description}{count}{tail}",
            highlight=False,
            markup=False,
        )
