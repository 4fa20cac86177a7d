"""The programmatic task generator: official-schema tasks for every library function, no model.

For each requested NumPy function (`functions.py`) a task draws a frame, a context noun and
parameter names (`phrasing.py`), then >= 5 test inputs from the function's input profile
(`inputs.py`). The expected results come from *executing* the NumPy reference on those inputs in
a worker process (`references.py`, which prints results exactly as the grader's child does),
never from a hand-written value; a draw whose reference raises or prints nothing is redrawn.
Multi-function tasks chain two or three element-wise steps and a reduction (>= 3 functions, the
official `multiple_test` shape).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from sebench.data.generate.coverage import Coverage, write_coverage
from sebench.data.generate.functions import BY_NAME, EXCLUDED, FunctionSpec
from sebench.data.generate.inputs import Shapes, draw, literal
from sebench.data.generate.phrasing import (
    PARAMETER_NAMES,
    TEST_FRAMES,
    TEST_NOUNS,
    TRAIN_FRAMES,
    TRAIN_NOUNS,
)
from sebench.data.references import ReferenceJob, run_references
from sebench.data.rows import official_row
from sebench.data.schema import Task, make_task_id
from sebench.errors import SebenchError
from sebench.jsonl import write_jsonl
from sebench.provenance import provenance

ENTRY_POINT = "solve"
GENERATOR = "sebench.data.generate.programmatic"
MAX_ROUNDS = 4  # redraws for a function whose references keep failing on the drawn inputs


class FrameSplit(StrEnum):
    TRAIN = "train"  # training frames and nouns; rows of split `train`
    TEST = "test"  # held-out frames and nouns; rows of `single_test` / `multiple_test`
    ALL = "all"  # either, each row labelled by the frames it drew


@dataclass(frozen=True)
class GenerateConfig:
    functions: tuple[str, ...] | None = None  # NumPy names; None: every function with a spec
    per_function: int = 2  # single-function tasks per function
    multi: int = 0  # multi-function tasks (each composes >= 3 functions)
    cases: int = 8  # test inputs per task (official dev rows: 8 to 16, median 8)
    seed: int = 0
    split_frames: FrameSplit = FrameSplit.TRAIN


@dataclass(frozen=True)
class GeneratedTasks:
    tasks: tuple[Task, ...]
    coverage: Coverage
    config: GenerateConfig = field(default_factory=GenerateConfig)


@dataclass(frozen=True)
class _Draft:
    """A task before its references ran: everything but the expected results."""

    key: str
    function: str  # NumPy name, or `multi`
    split: str
    query: str
    signature: str
    code: str
    inputs: tuple[str, ...]
    selected: tuple[str, ...]
    meta: dict[str, Any]


def generate(
    library_names: Sequence[str],
    config: GenerateConfig | None = None,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> GeneratedTasks:
    """Tasks for `config.functions` of a library that has `library_names` (NumPy names).

    The rows hold NumPy references and no library name, so one file serves every library
    (`sebench validate --seed N` translates the references for any of them).

    Deterministic in `config.seed`. `on_progress(done, total)` is called per executed draft.
    """
    config = config or GenerateConfig()
    if config.cases < 5:
        raise SebenchError(f"--cases must be at least 5 (got {config.cases})")
    available = set(library_names)
    wanted = list(config.functions) if config.functions is not None else sorted(available)
    unknown = [name for name in wanted if name not in available]
    if unknown:
        raise SebenchError(f"the library has no function for NumPy name(s): {', '.join(unknown)}")
    missing = {name: EXCLUDED[name] for name in wanted if name in EXCLUDED}
    missing |= {
        name: "no input profile in sebench.data.generate.functions"
        for name in wanted
        if name not in BY_NAME and name not in EXCLUDED
    }
    specs = [BY_NAME[name] for name in wanted if name in BY_NAME]
    rng = random.Random(config.seed)
    kept: dict[str, list[Task]] = {spec.numpy_name: [] for spec in specs}
    failures: dict[str, str] = {}
    for round_ in range(MAX_ROUNDS):
        drafts = [
            _single(spec, config, rng, f"{spec.numpy_name}:{round_}:{i}")
            for spec in specs
            for i in range(config.per_function - len(kept[spec.numpy_name]))
        ]
        if not drafts:
            break
        for draft, task, error in _execute(drafts, on_progress):
            if task is not None:
                kept[draft.function].append(task)
            else:
                failures[draft.function] = error or "the reference failed"
    for name, tasks in kept.items():
        if not tasks:
            missing[name] = f"every draw failed: {failures.get(name, 'unknown')}"
    multi: list[Task] = []
    for round_ in range(MAX_ROUNDS):
        drafts = [
            _multi(config, rng, f"multi:{round_}:{i}") for i in range(config.multi - len(multi))
        ]
        if not drafts:
            break
        multi += [task for _, task, _ in _execute(drafts, on_progress) if task is not None]
    tasks = tuple(task for spec in specs for task in kept[spec.numpy_name]) + tuple(multi)
    coverage = Coverage(
        tasks={name: len(found) for name, found in kept.items()},
        missing=dict(sorted(missing.items())),
        multi=len(multi),
    )
    return GeneratedTasks(tasks, coverage, config)


# -- drafts -------------------------------------------------------------------------------


def _frame_and_noun(config: GenerateConfig, rng: random.Random) -> tuple[str, str, bool]:
    test = {
        FrameSplit.TRAIN: False,
        FrameSplit.TEST: True,
        FrameSplit.ALL: rng.random() < 0.5,
    }[config.split_frames]
    frames, nouns = (TEST_FRAMES, TEST_NOUNS) if test else (TRAIN_FRAMES, TRAIN_NOUNS)
    return rng.choice(frames), rng.choice(nouns), test


def _names(slots: Sequence[str], rng: random.Random) -> dict[str, str]:
    names: dict[str, str] = {}
    for slot in slots:
        pool = [n for n in PARAMETER_NAMES.get(slot, (slot,)) if n not in names.values()]
        names[slot] = rng.choice(pool) if pool else f"{slot}_{len(names)}"
    return names


def _fill(template: str, names: dict[str, str], code: bool) -> str:
    def array(match: re.Match[str]) -> str:
        return f"np.array({names[match.group(1)]})"

    text = re.sub(r"@([A-Za-z_]\w*)", array, template) if code else template
    return re.sub(
        r"\{([A-Za-z_]\w*)\}",
        lambda m: names[m.group(1)] if code else f"`{names[m.group(1)]}`",
        text,
    )


def _reference(body: str, params: Sequence[str]) -> str:
    lines = body.splitlines()
    if not any(line.startswith("return ") for line in lines):
        lines[-1] = f"return {lines[-1]}"
    inner = "\n".join(f"    {line}" for line in lines)
    return f"import numpy as np\n\n\ndef {ENTRY_POINT}({', '.join(params)}):\n{inner}\n"


def _inputs(
    params: Sequence[tuple[str, str]], names: dict[str, str], rng: random.Random, cases: int
) -> tuple[str, ...]:
    texts = []
    for _ in range(cases):
        shapes = Shapes.draw(rng)
        texts.append(
            ", ".join(f"{names[slot]}={literal(draw(kind, rng, shapes))}" for slot, kind in params)
        )
    return tuple(texts)


def _single(spec: FunctionSpec, config: GenerateConfig, rng: random.Random, key: str) -> _Draft:
    frame, noun, test = _frame_and_noun(config, rng)
    names = _names(spec.slots, rng)
    phrase = rng.choice(spec.phrases)
    params = [names[slot] for slot in spec.slots]
    return _Draft(
        key=key,
        function=spec.numpy_name,
        split="single_test" if test else "train",
        query=frame.format(noun=noun, result=_fill(phrase, names, code=False)),
        signature=f"def {ENTRY_POINT}({', '.join(params)}):",
        code=_reference(_fill(spec.body, names, code=True), params),
        inputs=_inputs(spec.params, names, rng, config.cases),
        selected=(spec.numpy_name,),
        meta={"frame": frame, "noun": noun, "phrase": phrase, "params": params},
    )


# element-wise steps a chain may apply: (NumPy name, call around `{v}`, what to do in words)
_STEPS = (
    ("abs", "np.abs({v})", "take the absolute value of each entry"),
    ("square", "np.square({v})", "square every value"),
    ("sort", "np.sort({v})", "sort them in ascending order"),
    ("cumsum", "np.cumsum({v})", "replace them by their running totals"),
    ("flip", "np.flip({v})", "reverse their order"),
    ("negative", "np.negative({v})", "negate each value"),
    ("clip", "np.clip({v}, -10, 10)", "limit each value to the range [-10, 10]"),
    ("tanh", "np.tanh({v})", "apply the hyperbolic tangent to each value"),
    ("diff", "np.diff({v})", "take the differences between neighbouring values"),
)
# final reductions: (NumPy name, call, the result in words)
_REDUCTIONS = (
    ("sum", "np.sum({v})", "the total"),
    ("mean", "np.mean({v})", "the mean"),
    ("max", "np.max({v})", "the largest value"),
    ("min", "np.min({v})", "the smallest value"),
    ("median", "np.median({v})", "the median"),
    ("ptp", "np.ptp({v})", "the range (largest minus smallest)"),
    ("argmax", "np.argmax({v})", "the position of the largest value"),
    ("count_nonzero", "np.count_nonzero({v})", "how many are non-zero"),
)


def _multi(config: GenerateConfig, rng: random.Random, key: str) -> _Draft:
    frame, noun, test = _frame_and_noun(config, rng)
    steps = rng.sample(_STEPS, rng.choice((2, 2, 3)))
    reduction = rng.choice(_REDUCTIONS)
    name = rng.choice(PARAMETER_NAMES["x"])
    expression = f"np.array({name})"
    for _, call, _ in steps:
        expression = call.format(v=expression)
    expression = reduction[1].format(v=expression)
    words = ", then ".join(step[2] for step in steps)
    result = f"{reduction[2]} of the values of `{name}` after you {words}"
    return _Draft(
        key=key,
        function="multi",
        split="multiple_test" if test else "train",
        query=frame.format(noun=noun, result=result),
        signature=f"def {ENTRY_POINT}({name}):",
        code=_reference(expression, [name]),
        inputs=_inputs((("x", "vec"),), {"x": name}, rng, config.cases),
        selected=tuple(step[0] for step in steps) + (reduction[0],),
        meta={"frame": frame, "noun": noun, "params": [name]},
    )


# -- execution -----------------------------------------------------------------------------


def _execute(
    drafts: Sequence[_Draft], on_progress: Callable[[int, int], None] | None
) -> list[tuple[_Draft, Task | None, str | None]]:
    """Run every draft's reference with NumPy; a task for each draft that printed every case."""
    done = 0

    def progress(_key: str, _run: object) -> None:
        nonlocal done
        done += 1
        if on_progress is not None:
            on_progress(done, len(drafts))

    runs = run_references(
        (ReferenceJob(d.key, d.code, ENTRY_POINT, d.inputs) for d in drafts),
        timeout_s=10.0,
        on_result=progress,
    )
    results = []
    for draft in drafts:
        run = runs[draft.key]
        error = _failure(run.printed, run.errors, run.setup_error, run.completed)
        results.append((draft, None if error else _task(draft, run.printed), error))
    return results


def _failure(
    printed: Sequence[str | None], errors: Sequence[str | None], setup: str | None, completed: bool
) -> str | None:
    if setup is not None:
        return f"the reference does not load: {setup}"
    if not completed:
        return "the reference timed out or crashed"
    for error in errors:
        if error is not None:
            return f"the reference raises {error}"
    if any(text is None or "nan" in text or "#" in text for text in printed):
        # `#` separates results in right_exe_result; NaN compares unequal to itself
        return "the reference printed NaN or a '#'"
    return None


def _task(draft: _Draft, printed: Sequence[str | None]) -> Task:
    expected = tuple(str(text) for text in printed)
    return Task(
        task_id=make_task_id(draft.split, draft.query, draft.signature, "#".join(expected)),
        split=draft.split,
        query=draft.query,
        signature=draft.signature,
        entry_point=ENTRY_POINT,
        test_inputs=draft.inputs,
        expected=expected,
        selected_functions=draft.selected,
        numpy_reference=draft.code,
        example_input=draft.inputs[0],
        example_output=expected[0],
        extra={"generator": GENERATOR, "function": draft.function, **draft.meta},
    )


def write_tasks(out: str | Path, generated: GeneratedTasks) -> tuple[Path, Path, Path]:
    """The tasks as official rows at `out`, the coverage reports next to it (JSON, Markdown)."""
    write_jsonl(out, (official_row(task) for task in generated.tasks))
    json_path, md_path = write_coverage(
        out, generated.coverage, provenance(generated.config, generator=GENERATOR)
    )
    return Path(out), json_path, md_path
