"""The sandbox's one config dataclass; each default says where it comes from."""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass

# The grader waits on each worker's pipes with select(), which takes descriptors below 1024 only
# (FD_SETSIZE); three per worker keep this many well inside it.
MAX_WORKERS = 256


@dataclass(frozen=True)
class SandboxConfig:
    timeout_s: float = 3.0  # official: 3 s per program (all test cases of one response)
    memory_mb: int = 1024  # address space on top of what the warm server already maps (~100 MB)
    cpu_s: int | None = None  # None: the wall-clock timeout rounded up, plus 1 s
    max_output_bytes: int = 1 << 20  # printed results of one job, all cases together (1 MiB)
    max_processes: int = 16  # RLIMIT_NPROC for the per-slot sandbox uid (threads count too)
    workers: int = 0  # fork servers; 0: one per CPU core
    allow_unisolated: bool = False  # run even when no isolation layer is active (explicit opt-out)
    max_file_bytes: int = 16 << 20  # RLIMIT_FSIZE: largest file the code may write
    max_open_files: int = 64  # RLIMIT_NOFILE
    scratch_mb: int = 64  # size of the tmpfs scratch dir, where a mount namespace allows one
    drop_uid: bool = True  # run children as a dedicated uid per worker (only when root)
    uid_base: int = 1_800_000_000  # sandbox uid = uid_base + server pid; far above real users
    # Only these optional layers (names in isolation.LAYERS); None: every layer that works here.
    # For measuring each layer's cost and for tests; a smaller set is never safer.
    layers: tuple[str, ...] | None = None
    # Children enter their layers through the compiled helper when it is built (isolation.py);
    # False: always the Python path (for tests and measurements).
    compiled_setup: bool = True
    # NumPy-form tasks (prompt mode `numpy`, the paper's upper bound): the children may import
    # NumPy (no import guard); every isolation layer and limit stays. A pool is one or the other.
    allow_numpy: bool = False

    @property
    def cpu_limit_s(self) -> int:
        return self.cpu_s if self.cpu_s is not None else math.ceil(self.timeout_s) + 1

    @property
    def worker_count(self) -> int:
        return self.workers if self.workers > 0 else min(MAX_WORKERS, os.cpu_count() or 1)

    def wants(self, layer: str) -> bool:
        return self.layers is None or layer in self.layers

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> SandboxConfig:
        if data.get("layers") is not None:
            data = {**data, "layers": tuple(data["layers"])}
        return cls(**data)
