"""sebench.data: the official tasks (load, check), the oracle translator, reference runs."""

from sebench.data.schema import SPLITS, Task
from sebench.data.sources import filter_tasks, find_api_doc, load, load_subset
from sebench.data.translate import Translation, to_library, to_numpy

__all__ = [
    "SPLITS",
    "Task",
    "Translation",
    "filter_tasks",
    "find_api_doc",
    "load",
    "load_subset",
    "to_library",
    "to_numpy",
]
