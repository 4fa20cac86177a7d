"""The official grader's verdict logic, quirks included: the `official` rules.

Each rule below was checked against the official grader's own verdicts on the dev tasks
(`official_verdicts_dev.jsonl`); docs/grading.md lists where `strict` differs and why.
1. The code is the last block opened by exactly ```` ```python ```` and a newline
   (`extract.extract_code_official`); none: `without_zwc`.
2. The program is that code with `import <library>` appended straight after it: without a newline
   before the closing fence it is glued onto the last line. A syntax error: `without_zwc`.
3. The entry function is the first `def name(` in the text, even one inside a comment, a string or
   a helper; none: `without_zwc`. It is also the function the test cases call.
4. Its body (the text of the lines after the `def` line indented deeper, and the rest of the
   `def` line) must call the library (resolved through the code's imports, so `z.f(` after
   `import zwc as z` and `f(` after `from zwc import f` count; a call in a comment counts too) and
   not only once through the array constructor (two constructor calls pass), and must hold a
   `return <expr>`; else `without_zwc`.
5. NumPy: `numpy`. The run: `exe_error` when it fails, where the library reports that the
   official library would have failed (a unary operator on an array, NumPy converting an array
   with `dtype=`: `_runtime.official_failure`), or when it takes longer than the budget
   less the cost of starting a fresh interpreter (the official budget includes it, see
   `START_COST_S`); then the official comparator (`official_compare`): `result_error` or `acc`.
Safe all the same: the static policy still refuses what `strict` refuses (such code never runs,
and counts as `exe_error` unless it is NumPy), and the run is the sandbox's.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from sebench.data.schema import Task
from sebench.grading.extract import extract_code_official
from sebench.grading.official import LibraryNames, library_bindings
from sebench.grading.official_compare import official_outputs_match
from sebench.grading.policy import TooManyNodes, scan
from sebench.grading.sandbox.execution import ExecStatus, Execution, Job
from sebench.grading.verdicts import (
    TOO_DEEP,
    Verdict,
    VerdictKind,
    failed_run,
    setup_message,
    short,
)

# The official grader starts one fresh interpreter per sample that imports NumPy and the library
# before the first test case, all inside its 3 s budget (about 0.3 s, see
# ../shared/spec/official-behaviour.md); a warm fork pays none of it, so a run counts as too
# slow officially once it takes longer than the budget less this.
START_COST_S = 0.3

_DEF = re.compile(r"\bdef\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# A dotted name, then the `(` of a call if one follows: every chain is matched (and consumed)
# once, so a text of chains that are no calls (`# a. a. a. ...`) costs linear time; matching
# only chains followed by `(` restarted at each link (a red team's 23 s in one search).
_CALL = re.compile(rf"(?<![\w.])({_NAME}(?:\s*\.\s*{_NAME})*)(\s*\()?")
_RETURN_VALUE = re.compile(r"\breturn\b[ \t]*[^\s#;]")


@dataclass(frozen=True)
class EntryFunction:
    name: str
    body: str  # the text the official checks read: see the module docstring, rule 4


@dataclass(frozen=True)
class OfficialPrepared:
    """What the official static stage decided: a verdict already, or the job to run."""

    verdict: Verdict | None
    job: Job | None = None


def first_def(code: str) -> EntryFunction | None:
    """The first textual `def name(` of `code`, with the body text the official checks read."""
    match = _DEF.search(code)
    if match is None:
        return None
    line_start = code.rfind("\n", 0, match.start()) + 1
    line = code[line_start:].split("\n", 1)
    indent = _indent(line[0])
    body = [code[match.end() : line_start + len(line[0])]]
    for text in line[1].split("\n") if len(line) > 1 else ():
        if text.strip() and _indent(text) <= indent:
            break
        body.append(text)
    return EntryFunction(match.group(1), "\n".join(body))


def calls_library_officially(body: str, imports: list[ast.AST], table: LibraryNames) -> bool:
    """Rule 4's library check: a library call in `body` other than one lone constructor call,
    names resolved through `imports` (the code's import statements, as `policy.scan` finds)."""
    bindings = library_bindings(imports, table.package)
    if not bindings:
        return False
    known = table.library_to_numpy() if "*" in bindings else {}
    prefix = table.package + "."
    calls = []
    for match in _CALL.finditer(body):
        if match.group(2) is None:
            continue
        target = _resolve(re.sub(r"\s+", "", match.group(1)), bindings, known)
        if target is not None and target.startswith(prefix):
            calls.append(target)
    return len(calls) >= 2 or any(call != table.constructor for call in calls)


def official_prepare(task: Task, response: str | None, table: LibraryNames) -> OfficialPrepared:
    """The static stage of the official rules (the module docstring's rules 1-5)."""
    code = extract_code_official(response or "")
    if code is None:
        return OfficialPrepared(Verdict(VerdictKind.NO_CODE, detail="no ```python block"))
    program = code + f"import {table.package}\n"
    try:
        tree = ast.parse(program)
    except SyntaxError as exc:
        return OfficialPrepared(
            Verdict(VerdictKind.SYNTAX_ERROR, line=exc.lineno, detail=short(exc.msg or ""))
        )
    except RecursionError:  # the process's limit, not the program's: as in `Grader.prepare`
        return OfficialPrepared(TOO_DEEP)
    except (ValueError, MemoryError) as exc:
        return OfficialPrepared(Verdict(VerdictKind.SYNTAX_ERROR, detail=short(type(exc).__name__)))
    entry = first_def(program)
    if entry is None:
        return OfficialPrepared(
            Verdict(VerdictKind.NO_LIBRARY, rule="official-no-function", detail="no def")
        )
    try:
        found = scan(tree, table.package)
        calls = calls_library_officially(entry.body, found.imports, table)
    except TooManyNodes as exc:
        return OfficialPrepared(Verdict(VerdictKind.POLICY, rule=exc.rule, detail=short(str(exc))))
    except (RecursionError, MemoryError):
        return OfficialPrepared(TOO_DEEP)
    if not calls:
        return OfficialPrepared(
            Verdict(
                VerdictKind.NO_LIBRARY,
                rule="official-no-library-call",
                detail=f"the body of {entry.name} (the first def) has no library call other "
                "than one array constructor",
            )
        )
    if not _RETURN_VALUE.search(entry.body):
        return OfficialPrepared(
            Verdict(
                VerdictKind.NO_LIBRARY,
                rule="official-no-return",
                detail=f"the body of {entry.name} (the first def) has no `return <expr>`",
            )
        )
    numpy = next((r for r in found.refusals if r.numpy), None)
    refusal = numpy or (found.refusals[0] if found.refusals else None)
    if refusal is not None:
        kind = VerdictKind.USES_NUMPY if refusal.numpy else VerdictKind.POLICY
        return OfficialPrepared(
            Verdict(kind, rule=refusal.rule, line=refusal.line, detail=short(refusal.detail))
        )
    unknown = _keyword_it_cannot_take(tree, entry.name, task.test_inputs[:1])
    if unknown is not None:
        # The first call fails whatever else the program does (a helper first, say): the
        # official program crashes, so the run it would cost is skipped.
        return OfficialPrepared(
            Verdict(
                VerdictKind.RUNTIME_ERROR,
                rule="official-entry-signature",
                error_type="TypeError",
                case=0,
                detail=f"{entry.name}() (the first def) has no parameter {unknown!r}",
            )
        )
    return OfficialPrepared(None, Job(program, entry.name, tuple(task.test_inputs)))


def official_judge(task: Task, execution: Execution, budget_s: float) -> Verdict:
    """The dynamic stage of the official rules: the run, the budget, the official comparator."""
    cases = execution.cases
    if execution.status is ExecStatus.INFRA_ERROR:
        return Verdict(VerdictKind.INFRA_ERROR, detail=short(execution.detail or ""))
    if execution.setup_error is not None:
        kind = (
            VerdictKind.SYNTAX_ERROR
            if execution.setup_error == "SyntaxError"
            else VerdictKind.RUNTIME_ERROR
        )
        return Verdict(
            kind, error_type=execution.setup_error, detail=short(setup_message(execution))
        )
    if execution.status is not ExecStatus.OK or len(cases) < len(task.test_inputs):
        return failed_run(execution, len(cases))
    for index, case in enumerate(cases):
        if case.official_failures and case.error_type is None:
            # the official library raises where ours went on (a unary operator, NumPy converting
            # an array with dtype=): the official program crashed in this case. Counted even
            # inside the program's own `try`, whose other branch never ran here.
            return Verdict(
                VerdictKind.RUNTIME_ERROR,
                rule="official-library-failure",
                error_type="TypeError",
                case=index,
                detail="the official library raises here (a unary operator on an array, or "
                "NumPy converting an array with dtype=)",
            )
        if case.error_type is not None:
            return Verdict(
                VerdictKind.RUNTIME_ERROR,
                error_type=case.error_type,
                case=index,
                detail=short(case.error_message or ""),
            )
    ran = execution.timings.get("run", 0.0)
    if ran + START_COST_S > budget_s:
        return Verdict(
            VerdictKind.TIMEOUT,
            rule="official-budget",
            detail=f"ran {ran:.2f} s; with {START_COST_S} s to start an interpreter, over the "
            f"{budget_s:g} s budget",
        )
    for index, (case, expected) in enumerate(zip(cases, task.expected, strict=False)):
        if not official_outputs_match(case.printed, expected):
            return Verdict(VerdictKind.WRONG_ANSWER, case=index, detail="official comparator")
    return Verdict(VerdictKind.CORRECT)


def _keyword_it_cannot_take(
    tree: ast.Module, name: str, test_inputs: tuple[str, ...]
) -> str | None:
    """A keyword of the first test call that the entry function cannot take, when that is
    certain: one plain top-level `def` of that name, nothing else at top level binding it."""
    if not test_inputs:
        return None
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if len(defs) != 1 or defs[0].decorator_list or defs[0].args.kwarg is not None:
        return None
    try:
        call = ast.parse(f"f({test_inputs[0]})", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(call, ast.Call) or any(k.arg is None for k in call.keywords):
        return None  # `**mapping`: which keywords it holds is only known at run time
    args = defs[0].args
    accepted = {a.arg for a in args.args + args.kwonlyargs}
    unknown = next((k.arg for k in call.keywords if k.arg not in accepted), None)
    if unknown is None:
        return None
    for node in tree.body:
        if node is not defs[0] and name in _top_level_bindings(node):
            return None
    return unknown


def _top_level_bindings(node: ast.stmt) -> set[str]:
    """Names a top-level statement may bind (any name it stores, defines or imports)."""
    names = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store | ast.Del):
            names.add(child.id)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(child.name)
        elif isinstance(child, ast.alias):
            names.add((child.asname or child.name).split(".")[0])
        elif isinstance(child, ast.Global | ast.Nonlocal):
            names.update(child.names)
    return names


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _resolve(dotted: str, bindings: dict[str, str], known: dict[str, str]) -> str | None:
    root, _, rest = dotted.partition(".")
    target = bindings.get(root)
    if target is None:
        star = bindings.get("*")
        if star is None or f"{star}.{root}" not in known:
            return None
        target = f"{star}.{root}"
    return f"{target}.{rest}" if rest else target
