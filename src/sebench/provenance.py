"""What produced an output file: versions, seeds and the resolved config, stored with it."""

from __future__ import annotations

import platform
import sys
from dataclasses import asdict, is_dataclass
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

# sebench and every runtime dependency in pyproject.toml (tests/test_provenance.py checks it)
_TRACKED = (
    "sebench",
    "numpy",
    "typer",
    "rich",
    "torch",
    "transformers",
    "trl",
    "peft",
    "accelerate",
    "datasets",
    "gguf",
    "openai",
    "vllm",
    "matplotlib",
)


def package_versions() -> dict[str, str]:
    versions = {"python": sys.version.split()[0]}
    for name in _TRACKED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def provenance(config: Any = None, **extra: Any) -> dict[str, Any]:
    """A JSON-ready record to embed in every output file."""
    record: dict[str, Any] = {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "versions": package_versions(),
    }
    if config is not None:
        record["config"] = asdict(config) if is_dataclass(config) else config
    record.update(extra)
    return record
