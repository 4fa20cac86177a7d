"""What the processor offers and what PyTorch uses of it: the facts behind every CPU timing.

`CPUFeatures` decides whether bf16 is native (`sebench.training.precision`); `physical_cores`
sizes the thread pool (`sebench.cli.threads`); `machine_report` goes with each timing the demo
and SFT report (flags, threads, load average), so that timings from different machines compare.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sebench.errors import require

CPUINFO = Path("/proc/cpuinfo")
# /proc/cpuinfo flags that make bf16 matrix work native (x86).
NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")
# Flags worth showing next to a timing: what decides the speed of the matrix work.
REPORTED_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile")
# PyTorch's own kernels on x86 use AVX-512 only at these capability levels.
_AVX512_CAPABILITIES = ("AVX512", "AVX512_BF16", "AVX512_VNNI", "AMX")


@dataclass(frozen=True)
class CPUFeatures:
    """What the processor offers (`flags`, from /proc/cpuinfo) and what PyTorch uses of it
    (`capability`, which `ATEN_CPU_CAPABILITY` can lower; `onednn_max_isa`, oneDNN's cap)."""

    flags: frozenset[str]
    capability: str  # torch.backends.cpu.get_cpu_capability(): "AVX2", "AVX512", ...
    onednn_max_isa: str | None = None  # ONEDNN_MAX_CPU_ISA, if set

    @property
    def native_bf16(self) -> bool:
        has_flag = any(flag in self.flags for flag in NATIVE_BF16_FLAGS)
        return (
            has_flag
            and self.capability in _AVX512_CAPABILITIES
            and _onednn_allows_bf16(self.onednn_max_isa)
        )

    def report(self) -> dict[str, Any]:
        return {
            "capability": self.capability,
            "flags": sorted(flag for flag in REPORTED_FLAGS if flag in self.flags),
            "onednn_max_isa": self.onednn_max_isa,
            "native_bf16": self.native_bf16,
        }


def _onednn_allows_bf16(max_isa: str | None) -> bool:
    """oneDNN runs the bf16 matmuls; an ISA cap below AVX512_CORE_BF16 makes it emulate them."""
    if not max_isa:
        return True
    name = max_isa.upper()
    return name == "ALL" or any(part in name for part in ("BF16", "AMX", "FP16", "AVX10"))


def read_cpu_flags(cpuinfo: Path = CPUINFO) -> frozenset[str]:
    """The flags of the first processor listed (empty where there is no /proc/cpuinfo)."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def cpu_features() -> CPUFeatures:
    torch = require("torch", "train")
    return CPUFeatures(
        flags=read_cpu_flags(),
        capability=torch.backends.cpu.get_cpu_capability(),
        onednn_max_isa=os.environ.get("ONEDNN_MAX_CPU_ISA") or None,
    )


def physical_cores(cpuinfo: Path = CPUINFO) -> int:
    """Physical cores this process may run on: hyperthread siblings count once (two threads on
    one core share its vector units, so a matmul gains nothing from the second)."""
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        text = ""
    cores: set[tuple[str, str]] = set()
    for block in text.split("\n\n"):
        fields = {}
        for line in block.splitlines():
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
        if "processor" not in fields or "core id" not in fields:
            continue
        if allowed is not None and int(fields["processor"]) not in allowed:
            continue
        cores.add((fields.get("physical id", "0"), fields["core id"]))
    if cores:
        return len(cores)
    return len(allowed) if allowed is not None else os.cpu_count() or 1


def machine_report() -> dict[str, Any]:
    """The machine behind a timing: CPU model, flags, PyTorch's capability and threads, load."""
    torch = require("torch", "train")
    model = ""
    try:
        for line in CPUINFO.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "cpu": model,
        "logical_cpus": os.cpu_count(),
        "physical_cores": physical_cores(),
        "torch_threads": torch.get_num_threads(),
        "load_average": [round(x, 2) for x in load],
        **cpu_features().report(),
    }
