"""sebench: SE-Bench, benchmarking self-evolution with knowledge internalization.

The package follows the pipeline: library -> data -> prompts -> rollout -> grading -> training
-> reports -> cli. Imports flow one way along it.
"""

from typing import TYPE_CHECKING

from sebench.lazy import lazy_exports

if TYPE_CHECKING:
    from sebench.grading.grader import grade

__version__ = "0.1.0"

__all__ = ["__version__", "grade"]

# Public API, imported on first use so that `import sebench` stays light.
__getattr__ = lazy_exports(__name__, {"grade": "sebench.grading.grader"})
