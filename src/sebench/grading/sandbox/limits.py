"""Resource limits for each child, computed in the server (the child only calls setrlimit)."""

from __future__ import annotations

import resource

from sebench.grading.sandbox.config import SandboxConfig

MIB = 1 << 20


def mapped_bytes() -> int:
    """Virtual memory the calling process maps now (VmSize), read from /proc."""
    with open("/proc/self/status", "rb") as status:
        for line in status:
            if line.startswith(b"VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def rlimits(config: SandboxConfig, base_vm_bytes: int) -> dict[int, tuple[int, int]]:
    """The limits for one child, computed in the server so a child only calls setrlimit."""
    cpu = config.cpu_limit_s
    # RLIMIT_AS counts everything mapped, and the warm server already maps NumPy and the library
    # (~100 MB or more): the budget is added on top so it means "new memory the code may use".
    memory = base_vm_bytes + config.memory_mb * MIB
    limits = {
        resource.RLIMIT_AS: (memory, memory),
        # soft: SIGXCPU (reported as a timeout); hard one second later: SIGKILL
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_FSIZE: (config.max_file_bytes, config.max_file_bytes),
        resource.RLIMIT_NOFILE: (config.max_open_files, config.max_open_files),
        resource.RLIMIT_CORE: (0, 0),
        # Counted per uid and ignored for root: it only bites after the uid drop.
        resource.RLIMIT_NPROC: (config.max_processes, config.max_processes),
    }
    # Never above the current hard limits: raising one needs CAP_SYS_RESOURCE, which root lacks
    # on these machines, and would make the child fail to start.
    return {which: _within_hard(which, soft, hard) for which, (soft, hard) in limits.items()}


def _within_hard(which: int, soft: int, hard: int) -> tuple[int, int]:
    current = resource.getrlimit(which)[1]
    if current != resource.RLIM_INFINITY:
        hard = min(hard, current)
        soft = min(soft, hard)
    return soft, hard
