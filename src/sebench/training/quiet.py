"""Silence the progress bars and log lines that transformers, datasets and the Trainer print.

Library code reports progress through callbacks only; these libraries would otherwise write
"Loading weights", "Tokenizing train dataset" bars and one dict per logged step to the terminal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def quiet_progress() -> Iterator[None]:
    """Progress bars off inside the block, restored to their previous state after it."""
    from transformers.utils import logging as hf_logging

    try:
        import datasets
    except ImportError:  # pragma: no cover - datasets comes with the `train` extra
        datasets = None
    bars_were_on = hf_logging.is_progress_bar_enabled()
    data_bars_were_off = datasets.are_progress_bars_disabled() if datasets else True
    hf_logging.disable_progress_bar()
    if datasets:
        datasets.disable_progress_bars()
    try:
        yield
    finally:
        if bars_were_on:
            hf_logging.enable_progress_bar()
        if datasets and not data_bars_were_off:
            datasets.enable_progress_bars()


def remove_printing_callbacks(trainer) -> None:  # noqa: ANN001
    """The Trainer prints every log dict (PrinterCallback) or draws tqdm bars (ProgressCallback);
    our own callback reports the same numbers to the caller instead."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    trainer.remove_callback(PrinterCallback)
    trainer.remove_callback(ProgressCallback)
