"""The execution sandbox: runs untrusted code against a library in warm, isolated fork servers.

See docs/sandbox.md for what it protects against, and `isolation` for each layer.
"""

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
