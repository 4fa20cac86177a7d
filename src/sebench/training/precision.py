"""Which precision to train in, decided from what the processor can do.

bf16 autocast pays only where the processor multiplies bf16 natively (AVX-512 BF16 or AMX on
x86). Elsewhere PyTorch emulates it: measured on this project's machine with its AVX-512 turned
off (`ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2`), a 768x576 @ 576x1536 matmul with
backward, 20 times, took 0.50 s in fp32 and 14.8 s under bf16 autocast (30x); with the native
instructions, 0.24-0.51 s. So the default is bf16 only where it is native, and an explicit bf16
request on a processor without it is honoured with a warning.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sebench.training.cpu import CPUFeatures, cpu_features


@dataclass(frozen=True)
class Precision:
    """The precision a training run uses, and why (shown by the CLI, saved with the results)."""

    bf16: bool
    device: str  # "cpu" | "cuda"
    reason: str
    warning: str | None = None  # set when the user's explicit choice is likely slow

    @property
    def name(self) -> str:
        return "bf16 autocast" if self.bf16 else "fp32"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"name": self.name}


def decide_precision(
    requested: bool | None, *, on_gpu: bool, gpu_bf16: bool = False, cpu: CPUFeatures | None = None
) -> Precision:
    """bf16 where the hardware runs it natively, unless the user said otherwise (`requested`)."""
    if on_gpu:
        if requested is None:
            reason = "GPU with bf16" if gpu_bf16 else "GPU without bf16"
            return Precision(gpu_bf16, "cuda", reason)
        return Precision(requested, "cuda", "asked for")
    features = cpu or cpu_features()
    native = features.native_bf16
    where = f"CPU {features.capability}, " + ("native bf16" if native else "no native bf16")
    if requested is None:
        return Precision(native, "cpu", where)
    warning = None
    if requested and not native:
        warning = (
            f"bf16 on a CPU without native bf16 ({where}) is emulated, measured 30x slower "
            "than fp32 for matrix work; leave out --bf16 to train in fp32"
        )
    return Precision(requested, "cpu", f"asked for ({where})", warning)
