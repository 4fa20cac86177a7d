"""Model-written tasks, the data side: the generator's prompt, reading its answer, static checks.

A generator model sees the NumPy docs of one function (or of >= 3 for a multi-function task) and
answers with one JSON object: a query, a signature, a NumPy reference solution, >= 5 test inputs
and the outputs it believes the reference returns. Everything here is pure: it reads the answer
into a `WrittenDraft` or says why it cannot (`Malformed`), and refuses references that could not
be deterministic (`reference_refusal`). Executing the reference, the consensus of solver models
and the pipeline live in `sebench.training.task_writing`, which may use the sandbox and backends.

The claimed outputs are kept for the record only: the expected results of a task are always the
executed reference's.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from sebench.data.schema import entry_point_of

MIN_CASES = 5  # the floor; official dev rows have 8 to 16

_JSON_BLOCK = re.compile(r"```(?:json)?[ \t]*\n(.*?)```", re.DOTALL)

# Allow-list of what a reference may import: NumPy and pure computation. Anything else (random,
# time, datetime, os, sys, socket, subprocess, uuid, secrets, ...) is refused: a task's expected
# output must be a function of its inputs alone.
REFERENCE_MODULES = frozenset(
    [
        "numpy",
        "math",
        "cmath",
        "functools",
        "itertools",
        "collections",
        "operator",
        "fractions",
        "decimal",
        "statistics",
        "heapq",
        "bisect",
        "string",
        "re",
        "typing",
        "__future__",
    ]
)
# Builtins whose results depend on the process (addresses, hash seeds) or on the outside world.
_NONDETERMINISTIC_CALLS = frozenset({"id", "hash", "input", "open", "eval", "exec", "__import__"})


@dataclass(frozen=True)
class WrittenDraft:
    """A generator's answer, read and checked for shape; not yet executed."""

    query: str
    signature: str  # `def solve(x, axis):`
    entry_point: str
    reference: str  # NumPy code defining `entry_point`
    test_inputs: tuple[str, ...]  # keyword arguments as Python literals: `x=[1, 2], axis=0`
    claimed_outputs: tuple[str, ...]  # what the generator says the reference returns (untrusted)


class Malformed(ValueError):
    """The answer cannot be read as a task; the message says what is wrong."""


@dataclass(frozen=True)
class Refusal:
    rule: str  # `banned-module`, `randomness`, `nondeterministic-builtin`
    detail: str


def generator_prompt(docs: Sequence[tuple[str, str]], cases: int) -> str:
    """The generator's prompt for a task built on `docs`: (NumPy name, its NumPy docstring)."""
    names = ", ".join(f"`np.{name}`" for name, _ in docs)
    one = len(docs) == 1
    focus = (
        f"a task whose natural solution calls {names}"
        if one
        else f"a task whose natural solution combines all of {names} (each at least once)"
    )
    sections = "\n".join(f"### np.{name}\n```\n{text.strip()}\n```\n" for name, text in docs)
    return (
        "You write programming tasks that test whether someone can use NumPy.\n\n"
        f"Documentation:\n\n{sections}\n"
        f"Write {focus}. Answer with one JSON object in a ```json block, with these keys:\n"
        '- "query": the task in plain words, as a user would ask it (say what the inputs are '
        "and what to return; do not name NumPy functions).\n"
        '- "signature": the function header, e.g. "def solve(values, axis):".\n'
        '- "reference": a complete solution: `import numpy as np` and the function. Return '
        "plain Python values (use `.tolist()` or `float(...)`), never print. Use no randomness, "
        "no clock, no files and no modules other than NumPy and Python's pure ones (math, "
        "itertools, ...).\n"
        f'- "test_inputs": a list of at least {max(cases, MIN_CASES)} strings, each the keyword '
        'arguments of one call as Python literals, e.g. "values=[1.5, 2.0, -3.0], axis=0".\n'
        '- "outputs": for each test input, what the reference returns, as str(result).\n'
    )


def parse_answer(text: str, *, min_cases: int = MIN_CASES) -> WrittenDraft:
    """The draft in a generator's answer (its last JSON block, or the whole text as JSON)."""
    blocks = _JSON_BLOCK.findall(text or "")
    raw = blocks[-1] if blocks else (text or "")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise Malformed(f"no JSON object ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise Malformed(f"expected a JSON object, got {type(data).__name__}")
    query = _text(data, "query")
    signature = _text(data, "signature").strip().splitlines()[0].strip()
    reference = _text(data, "reference")
    entry = entry_point_of(signature)
    if entry is None:
        raise Malformed(f"the signature is not a `def name(...):` line: {signature[:80]!r}")
    params = _parameters(signature)
    try:
        tree = ast.parse(reference)
    except SyntaxError as exc:
        raise Malformed(f"the reference does not parse (line {exc.lineno}: {exc.msg})") from None
    if not any(isinstance(n, ast.FunctionDef) and n.name == entry for n in tree.body):
        raise Malformed(f"the reference does not define `{entry}`")
    inputs = data.get("test_inputs")
    if not isinstance(inputs, list) or not all(isinstance(item, str) for item in inputs):
        raise Malformed("`test_inputs` is not a list of strings")
    # Distinct as argument values, not as text or syntax: `x=[1.5]`, `x=[1.5,]`, `x=(1.5,)` are
    # one case, and so are `x=[1]`, `x=[1.0]`, `x=[True]` (red teams' spellings of one value
    # passed as five, every expected output then the example shown in the prompt); the first
    # spelling is kept
    by_value: dict[tuple, str] = {}
    for item in (item.strip() for item in inputs if item.strip()):
        by_value.setdefault(_checked_arguments(item, params), item)
    unique = tuple(by_value.values())
    if len(unique) < min_cases:
        raise Malformed(f"{len(unique)} distinct test inputs; at least {min_cases} are needed")
    outputs = data.get("outputs") or []
    claimed = tuple(str(value) for value in outputs) if isinstance(outputs, list) else ()
    return WrittenDraft(query.strip(), signature, entry, reference, unique, claimed)


def reference_refusal(reference: str) -> Refusal | None:
    """Why this reference cannot be a task's ground truth, or None (it parses: `parse_answer`)."""
    for node in ast.walk(ast.parse(reference)):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or "."]
            if (node.module or "").split(".")[0] == "numpy":
                modules += [f"{node.module}.{alias.name}" for alias in node.names]
        for module in modules:
            parts = module.split(".")
            if "random" in parts:
                return Refusal("randomness", f"imports {module}: results must not be random")
            if parts[0] not in REFERENCE_MODULES:
                return Refusal(
                    "banned-module",
                    f"imports {module}: only NumPy and pure-computation modules "
                    f"({', '.join(sorted(REFERENCE_MODULES - {'__future__'}))})",
                )
        if isinstance(node, ast.Attribute) and node.attr == "random":
            return Refusal("randomness", f"uses `.random` (line {node.lineno})")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _NONDETERMINISTIC_CALLS
        ):
            return Refusal(
                "nondeterministic-builtin", f"calls {node.func.id}() (line {node.lineno})"
            )
    return None


def numpy_calls(reference: str, known: frozenset[str] | set[str]) -> tuple[str, ...]:
    """The NumPy names among `known` (`mean`, `linalg.inv`) that the reference reaches as
    `np.<name>` / `numpy.<name>` (any alias of NumPy), in order of first use."""
    tree = ast.parse(reference)
    aliases = {"numpy"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name == "numpy"}
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        dotted = _dotted(node)
        if dotted is None or dotted[0] not in aliases:
            continue
        name = ".".join(dotted[1:])
        if name in known and name not in found:
            found.append(name)
    return tuple(found)


def _dotted(node: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def _text(data: dict, key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise Malformed(f"`{key}` is missing or not a non-empty string")
    return value


def _parameters(signature: str) -> tuple[str, ...]:
    try:
        tree = ast.parse(signature.rstrip() + "\n    pass\n")
    except SyntaxError:
        raise Malformed(f"the signature does not parse: {signature[:80]!r}") from None
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    return tuple(arg.arg for arg in function.args.args + function.args.kwonlyargs)


def _checked_arguments(text: str, params: tuple[str, ...]) -> tuple:
    """Each test input is `name=literal, ...` over the signature's parameters: the grader pastes
    it into a call in the library's sandbox, where a NumPy expression would not run. Returns
    the arguments as parsed, in keyword order: equal for equal calls."""
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError:
        raise Malformed(f"test input is not keyword arguments: {text[:80]!r}") from None
    # The call itself must be `f`'s: the grader runs the text as `solve(<text>)`, and a text
    # that closes that call and opens another (`x=<any code>)(x=0`) ran its code in the graded
    # program's run, where its library calls counted as the program's: any solution, `return
    # None` too, was `correct` on such a task (a red team's, through the self-play pipeline).
    if (
        not isinstance(call, ast.Call)
        or not isinstance(call.func, ast.Name)
        or call.func.id != "f"
        or call.args
        or not call.keywords
    ):
        raise Malformed(f"test input is not keyword arguments: {text[:80]!r}")
    for keyword in call.keywords:
        if keyword.arg not in params:
            raise Malformed(f"test input names {keyword.arg!r}, not a parameter: {text[:80]!r}")
        if not _is_literal(keyword.value):
            raise Malformed(f"test input is not a Python literal: {text[:80]!r}")
    return tuple(sorted((k.arg, _value_key(k.value)) for k in call.keywords))


def _value_key(node: ast.expr) -> Hashable:
    """A checked literal's value, equal for equal arguments as NumPy reads them: lists and
    tuples alike, numbers by value (`1 == 1.0 == True`, as Python compares them), NaN equal to
    NaN. Containers carry a tag, so that `"ab"` and `["a", "b"]` stay apart."""
    if isinstance(node, ast.List | ast.Tuple):
        return ("sequence", tuple(_value_key(item) for item in node.elts))
    if isinstance(node, ast.Set):
        return ("set", frozenset(_value_key(item) for item in node.elts))
    if isinstance(node, ast.Dict):
        pairs = zip(node.keys, node.values, strict=True)  # no `**`: `_is_literal` refused it
        return ("dict", frozenset((_value_key(k), _value_key(v)) for k, v in pairs))  # type: ignore[arg-type]
    if isinstance(node, ast.Call):  # `float('nan')` / `float('inf')`, as `_is_literal` allows
        assert isinstance(node.args[0], ast.Constant)
        value = float(node.args[0].value)
    else:
        value = ast.literal_eval(node)
    if isinstance(value, float | complex) and value != value:  # NaN: one value, as printed
        return ("nan", repr(value))
    return value


def _special_float(text: object) -> bool:
    """`text` is what `float()` reads as NaN or an infinity (`"--inf"` is not: a red team's
    passed the check, then failed `float()` later and ended the run)."""
    if not isinstance(text, str) or text.strip().lower().lstrip("+-") not in _SPECIAL_FLOATS:
        return False
    try:
        value = float(text)
    except ValueError:
        return False
    return value != value or value in (math.inf, -math.inf)


_SPECIAL_FLOATS = frozenset({"nan", "inf", "infinity"})


def _is_literal(node: ast.expr) -> bool:
    """A Python literal, or a container of them, where `float('nan')` / `float('inf')` also count
    (there is no literal for them, and the grader's call runs them as written)."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(_is_literal(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_literal(k) for k in node.keys) and all(
            _is_literal(v) for v in node.values
        )
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "float"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and _special_float(node.args[0].value)
    ):
        return True
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return False
    return True
