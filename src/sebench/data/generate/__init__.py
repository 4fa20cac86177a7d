"""Task generation: official-schema tasks for any function of the library, without a model
(`programmatic`), and the model-free parts of model-written tasks (`written`, `dedup`; the
pipeline that runs models is `sebench.training.task_writing`)."""

from sebench.data.generate.coverage import Coverage, write_coverage
from sebench.data.generate.dedup import DUPLICATE_DISTANCE, duplicate_of, fingerprint
from sebench.data.generate.programmatic import (
    FrameSplit,
    GenerateConfig,
    GeneratedTasks,
    generate,
    write_tasks,
)
from sebench.data.generate.written import (
    Malformed,
    WrittenDraft,
    generator_prompt,
    parse_answer,
    reference_refusal,
)

__all__ = [
    "DUPLICATE_DISTANCE",
    "Coverage",
    "FrameSplit",
    "GenerateConfig",
    "GeneratedTasks",
    "Malformed",
    "WrittenDraft",
    "duplicate_of",
    "fingerprint",
    "generate",
    "generator_prompt",
    "parse_answer",
    "reference_refusal",
    "write_coverage",
    "write_tasks",
]
