"""sebench: SE-Bench, benchmarking self-evolution with knowledge internalization.

The package follows the pipeline: library -> data -> prompts -> rollout -> grading -> training
-> reports -> cli. Imports flow one way along it.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
