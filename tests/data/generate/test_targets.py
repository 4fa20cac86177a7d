"""Training targets: the reference in the library's names, one-line docs, what `train sft` reads."""

from __future__ import annotations

from sebench.data.generate.programmatic import GenerateConfig, generate
from sebench.data.generate.targets import with_targets
from sebench.library.catalog import ALL
from sebench.training.sft_data import build_examples
from sebench.training.taskprompts import Arm


def _tasks():
    config = GenerateConfig(functions=("mean", "linalg.inv"), per_function=1, multi=1, seed=2)
    return generate(ALL, config).tasks


def test_targets_call_the_library_by_its_own_names(official_library, seeded_library) -> None:
    for library in (official_library, seeded_library):
        mean, inv, _ = with_targets(_tasks(), library)
        names = library.table.numpy_to_library()
        assert names["mean"] + "(" in mean.extra["target"]
        assert names["linalg.inv"] + "(" in inv.extra["target"]
        assert "numpy" not in mean.extra["target"]
        assert mean.extra["docs"][0].startswith(names["mean"] + ": ")
        assert mean.extra["docs"][-1].startswith(library.table.constructor + ": ")


def test_multi_function_targets_document_every_function(official_library) -> None:
    chain = with_targets(_tasks(), official_library)[-1]
    assert len(chain.extra["docs"]) == len(chain.selected_functions) + 1


def test_train_sft_builds_both_arms_from_generated_tasks(official_library) -> None:
    tasks = with_targets(_tasks(), official_library)
    closed = build_examples(tasks, Arm.CLOSED)
    opened = build_examples(tasks, Arm.OPEN)
    assert [e.completion for e in closed] == [e.completion for e in opened]
    assert tasks[0].extra["docs"][0] in opened[0].prompt[-1]["content"]
    assert tasks[0].extra["docs"][0] not in closed[0].prompt[-1]["content"]
