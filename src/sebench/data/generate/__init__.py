"""Task generation: official-schema tasks for any function of the library, without a model."""

from sebench.data.generate.coverage import Coverage, write_coverage
from sebench.data.generate.programmatic import (
    FrameSplit,
    GenerateConfig,
    GeneratedTasks,
    generate,
    write_tasks,
)

__all__ = [
    "Coverage",
    "FrameSplit",
    "GenerateConfig",
    "GeneratedTasks",
    "generate",
    "write_coverage",
    "write_tasks",
]
