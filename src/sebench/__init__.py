"""sebench: SE-Bench, benchmarking self-evolution with knowledge internalization.

The package follows the pipeline: library -> data -> prompts -> rollout -> grading -> training
-> reports -> cli. Imports flow one way along it.
"""

from importlib import import_module

__version__ = "0.1.0"

# Public API, imported on first use so that `import sebench` stays light.
_LAZY = {"grade": "sebench.grading.grader"}

__all__ = ["__version__", "grade"]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'sebench' has no attribute {name!r}")
