"""The training precision follows the processor: bf16 only where it is native."""

from __future__ import annotations

import pytest

from sebench.training.cpu import CPUFeatures, physical_cores, read_cpu_flags
from sebench.training.precision import decide_precision

ZEN4 = frozenset({"avx2", "avx512f", "avx512_bf16"})  # this project's machine, native bf16
AVX2_ONLY = frozenset({"avx2", "fma"})  # the machine kind of issue 11


def cpu(flags: frozenset[str], capability: str, onednn: str | None = None) -> CPUFeatures:
    return CPUFeatures(flags=flags, capability=capability, onednn_max_isa=onednn)


@pytest.mark.parametrize(
    ("features", "native"),
    [
        (cpu(ZEN4, "AVX512"), True),
        (cpu(AVX2_ONLY, "AVX2"), False),
        (cpu(frozenset({"avx2", "avx512f", "amx_bf16", "amx_tile"}), "AVX512"), True),
        (cpu(frozenset({"avx2", "avx512f"}), "AVX512"), False),  # AVX-512 without bf16
        # AVX-512 turned off for PyTorch (ATEN_CPU_CAPABILITY=avx2) or for oneDNN
        (cpu(ZEN4, "AVX2"), False),
        (cpu(ZEN4, "AVX512", onednn="AVX2"), False),
        (cpu(ZEN4, "AVX512", onednn="AVX512_CORE_BF16"), True),
    ],
)
def test_default_precision_is_bf16_only_where_the_cpu_has_it_natively(features, native):
    precision = decide_precision(None, on_gpu=False, cpu=features)
    assert precision.bf16 is native
    assert precision.warning is None
    assert precision.name == ("bf16 autocast" if native else "fp32")


def test_asking_for_bf16_on_an_avx2_cpu_is_honoured_with_a_warning():
    precision = decide_precision(True, on_gpu=False, cpu=cpu(AVX2_ONLY, "AVX2"))
    assert precision.bf16 is True
    assert "emulated" in precision.warning and "AVX2" in precision.warning


def test_no_bf16_is_honoured_on_a_cpu_with_native_bf16():
    precision = decide_precision(False, on_gpu=False, cpu=cpu(ZEN4, "AVX512"))
    assert precision.bf16 is False and precision.warning is None


def test_gpu_uses_bf16_where_the_gpu_supports_it():
    assert decide_precision(None, on_gpu=True, gpu_bf16=True).bf16 is True
    assert decide_precision(None, on_gpu=True, gpu_bf16=False).bf16 is False
    assert decide_precision(False, on_gpu=True, gpu_bf16=True).bf16 is False


CPUINFO = """processor\t: {n}
vendor_id\t: AuthenticAMD
model name\t: Test CPU
physical id\t: 0
core id\t\t: {core}
flags\t\t: fpu avx2 avx512f avx512_bf16

"""


def test_cpu_flags_and_physical_cores_are_read_from_cpuinfo(tmp_path):
    # four logical processors, two per core (hyperthreads)
    info = tmp_path / "cpuinfo"
    info.write_text("".join(CPUINFO.format(n=n, core=n // 2) for n in range(4)))
    assert {"avx2", "avx512_bf16"} <= read_cpu_flags(info)
    import os

    allowed = os.sched_getaffinity(0)
    expected = len({n // 2 for n in range(4) if n in allowed})
    assert physical_cores(info) == expected
    assert read_cpu_flags(tmp_path / "missing") == frozenset()
