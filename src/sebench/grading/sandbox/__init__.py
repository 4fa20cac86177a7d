"""The execution sandbox: runs untrusted code against a library in warm, isolated fork servers.

See docs/sandbox.md for what it protects against, and `isolation` for each layer.
"""

from typing import TYPE_CHECKING

from sebench.lazy import lazy_exports

if TYPE_CHECKING:
    from sebench.grading.sandbox.config import SandboxConfig
    from sebench.grading.sandbox.execution import CaseOutcome, ExecStatus, Execution, Job
    from sebench.grading.sandbox.isolation import detect_layers
    from sebench.grading.sandbox.pool import SandboxPool

__all__ = [
    "CaseOutcome",
    "ExecStatus",
    "Execution",
    "Job",
    "SandboxConfig",
    "SandboxPool",
    "detect_layers",
]

# Imported on first use: the fork server imports this package and must not load the pool
# (threads, subprocess); see server.py on why its imports are kept lean.
__getattr__ = lazy_exports(
    __name__,
    {
        "SandboxConfig": "sebench.grading.sandbox.config",
        "CaseOutcome": "sebench.grading.sandbox.execution",
        "ExecStatus": "sebench.grading.sandbox.execution",
        "Execution": "sebench.grading.sandbox.execution",
        "Job": "sebench.grading.sandbox.execution",
        "detect_layers": "sebench.grading.sandbox.isolation",
        "SandboxPool": "sebench.grading.sandbox.pool",
    },
)
