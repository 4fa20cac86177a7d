"""Experiments: a recipe (TOML) in, one run folder with the paper's table out.

recipe (what to run) -> plan (steps, keys, run or skip) -> runner (steps into the run folder,
records, manifest) -> status. See docs/experiments.md.
"""

from sebench.experiments.manifest import MANIFEST, Arm, ArmStatus, Manifest
from sebench.experiments.plan import Decision, Plan, Planned, Step, StepKind, make_plan
from sebench.experiments.recipe import Recipe, load_recipe, parse_override
from sebench.experiments.regimes import REGIMES, Regime, TrainKind
from sebench.experiments.runner import Outcome, RunResult, StepEvent, run_experiment
from sebench.experiments.status import StepStatus, run_status

__all__ = [
    "MANIFEST",
    "REGIMES",
    "Arm",
    "ArmStatus",
    "Decision",
    "Manifest",
    "Outcome",
    "Plan",
    "Planned",
    "Recipe",
    "Regime",
    "RunResult",
    "Step",
    "StepEvent",
    "StepKind",
    "StepStatus",
    "TrainKind",
    "load_recipe",
    "make_plan",
    "parse_override",
    "run_experiment",
    "run_status",
]
