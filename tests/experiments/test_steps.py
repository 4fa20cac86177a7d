"""The library and data steps on their own: what they write is what the later steps read."""

from __future__ import annotations

from sebench.data.sources import load_file
from sebench.experiments.plan import build_steps
from sebench.experiments.recipe import load_recipe
from sebench.experiments.steps import Context, build_library, make_data
from sebench.library.library import Library

RECIPE = """
name = "p"
regimes = ["no-docs", "closed-sft"]
[library]
kind = "seed"
seed = 2
[data]
single = "generated"
[data.generate]
generator = "programmatic"
functions = ["mean", "sum", "linalg.det"]
per_function = 2
test_per_function = 1
"""


def test_programmatic_data_trains_in_the_runs_library_and_tests_on_held_out_tasks(tmp_path):
    path = tmp_path / "recipe.toml"
    path.write_text(RECIPE)
    recipe = load_recipe(path)
    steps = {s.id: s for s in build_steps(recipe)}
    context = Context(recipe, tmp_path / "run")
    built = build_library(steps["library"], context)
    library = Library.load(tmp_path / "run" / "library")
    assert built["package"] == library.package and len(built["hash"]) == 64
    made = make_data(steps["data"], context)
    train = load_file(context.train_tasks(), "train")
    test = load_file(context.test_tasks("single"), "single_test")
    assert made["train_tasks"] == len(train) == 6 and made["test_tasks"] == len(test) == 3
    qualified = set(library.table.numpy_to_library().values())
    for task in train:  # targets call the run's library, as `train sft` needs
        assert any(name.split(".")[-1] in task.extra["target"] for name in qualified)
    assert not {t.query for t in train} & {t.query for t in test}
