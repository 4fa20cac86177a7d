"""The grader: one response to one task -> one `Verdict`.

Stages, in the official order of checks (see `official.py`): extract the last fenced python
block; parse it; the static policy (NumPy first: `uses_numpy`; otherwise a function with no
library call at all is `no_library` before the other rules, as officially); then run it in the
sandbox, which returns each test case's printed result as data plus the number of library calls
it made; then compare in this process against the expected outputs, which never leave it.

Those are the strict rules (`prepare`, `judge`). The official rules (`official_rules.py`) decide
the official category of every verdict, reusing the same sandbox run when both rules run the same
program; under `Rules.OFFICIAL` they decide the verdict itself and the strict stages are skipped.
A correct answer is run again with the library's results perturbed: unless at least half of
its test cases then print another answer, it does not depend on the library: `no_library`.
"""

from __future__ import annotations

import ast
import dataclasses
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sebench.data.schema import Task
from sebench.grading.compare import DEFAULT_TOLERANCE, Tolerance, outputs_match
from sebench.grading.evidence import UNKNOWN, evidence_names, needs_rows
from sebench.grading.extract import (
    MAX_CODE_CHARS,
    MAX_RESPONSE_CHARS,
    extract_code,
    extract_code_official,
)
from sebench.grading.official import any_library_call
from sebench.grading.official_rules import OfficialPrepared, official_judge, official_prepare
from sebench.grading.policy import Refusal, TooManyNodes, scan
from sebench.grading.rules import Rules
from sebench.grading.sandbox import stores
from sebench.grading.sandbox.execution import ExecStatus, Execution, Job
from sebench.grading.sandbox.perturbation import Perturbation
from sebench.grading.verdicts import DETAIL_CHARS, TOO_DEEP, Verdict, VerdictKind
from sebench.grading.verdicts import failed_run as _failed_run
from sebench.grading.verdicts import setup_message as _setup_message
from sebench.grading.verdicts import short as _short

if TYPE_CHECKING:
    from sebench.grading.sandbox.config import SandboxConfig
    from sebench.library.library import Library

_END = object()

# The most different library functions (the constructor aside) one run may call and still be
# evidence that the program knows the library. Honest answers call a few: at most 4 in a run of
# the translated dev references and of the 231 dev responses of the official verdicts file, 1 in
# the demo's tasks (`benchmarks/library_functions.py`). A program that calls dozens is searching the library, not
# using it: trying every function on a pair of probes finds the one whose results the reruns
# perturb, knowing none of them (red teams' blind detectors compared `f([1])` with
# `f(range(1, 2))`, `f([True])`'s float16 with `f([1])`'s float64, and took the one that told
# them apart for the perturbed run: `correct` on up to 14 dev tasks), and trying every function
# on an input finds the one that computes the answer. Bounding the search bounds every such
# detector at once, whatever relation between two results it reads: a program that tries this
# many functions finds the task's among some 270 about one time in seventeen.
MOST_FUNCTIONS = 16
# The same bound for the library's submodule (`rfx`, 31 functions against the top level's 247):
# 16 calls there try half of it, and a blind detector passed on 8 dev tasks (a red team's, two
# slices of 16 names: one or the other holds the task's function; `outer` and `diagonal` too,
# whose `linalg` namesakes count as theirs, `sebench.grading.evidence`). Honest answers call at
# most 2 of its functions in a run (`benchmarks/library_functions.py`); 4 try an eighth of it.
MOST_SUBMODULE_FUNCTIONS = 4


@dataclass(frozen=True)
class Prepared:
    """What the static stage decided: a verdict already, or the job to run."""

    verdict: Verdict | None
    job: Job | None = None
    calls_library: bool = False  # a function in the code calls the library (the official check)
    numpy_form: bool = False  # a NumPy-form task: NumPy allowed, the library not required


@dataclass(frozen=True)
class _Plan:
    """Both static stages of one sample: the strict one (None under the official rules, which
    need only their own) and the official one, whose category every verdict carries."""

    rules: Rules
    strict: Prepared | None
    official: OfficialPrepared
    numpy_form: bool = False  # strict stages only; the category is the verdict's own

    @property
    def verdict(self) -> Verdict | None:
        """The verdict when nothing needs to run."""
        if self.numpy_form:
            return self.strict.verdict
        if self.official.verdict is None:
            return None
        if self.strict is None:
            return self.official.verdict
        if self.strict.verdict is None:
            return None
        return self.combine(self.strict.verdict, self.official.verdict)

    def combine(self, strict: Verdict | None, official: Verdict) -> Verdict:
        if strict is None:
            return official
        return replace(strict, official=official.official_category)


class Grader:
    """Grades responses against tasks; a context manager around one sandbox pool.

    Thread-safe: `grade` may be called from several threads; `grade_many` runs as many jobs at
    once as the sandbox has workers.
    """

    def __init__(
        self,
        library: Library,
        sandbox_config: SandboxConfig | None = None,
        tolerance: float = DEFAULT_TOLERANCE,
        rel_tolerance: float | None = None,
        max_response_chars: int = MAX_RESPONSE_CHARS,
        max_code_chars: int = MAX_CODE_CHARS,
        rules: Rules = Rules.STRICT,
    ) -> None:
        self.library = library
        self.max_response_chars = max_response_chars
        self.max_code_chars = max_code_chars
        self.table = library.table
        self.sandbox_config = sandbox_config
        self.rules = Rules(rules)
        self.tolerance = Tolerance(absolute=tolerance, relative=rel_tolerance or 0.0)
        self._pool: Any = None
        self._numpy_pool: Any = None  # started on the first NumPy-form job
        self._lock = threading.Lock()
        # The static stages run on this one thread, whoever calls: how deep they may recurse
        # (the parser's conversion, the policy's walk) is then the same for `sebench eval`, the
        # reward server and TRL's trainer, deep in its own stack (a red team's: one program
        # was `policy` through one and `correct` through another). Checks hold the GIL: one
        # thread is as fast as several.
        self._static = ThreadPoolExecutor(max_workers=1, thread_name_prefix="grader-static")

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> Grader:
        with self._lock:
            if self._pool is None:
                from sebench.grading.sandbox import SandboxConfig, SandboxPool

                config = self.sandbox_config or SandboxConfig()
                self.sandbox_config = config
                pool = SandboxPool(self.library, config)
                pool.__enter__()
                self._pool = pool
        return self

    def _numpy_pool_started(self) -> Any:
        """The pool for NumPy-form jobs: the same config but for `allow_numpy`, started once."""
        self.start()
        with self._lock:
            if self._numpy_pool is None:
                from sebench.grading.sandbox import SandboxPool

                config = dataclasses.replace(self.sandbox_config, allow_numpy=True)
                pool = SandboxPool(self.library, config)
                pool.__enter__()
                self._numpy_pool = pool
            return self._numpy_pool

    def close(self) -> None:
        with self._lock:
            pools = (self._pool, self._numpy_pool)
            self._pool = self._numpy_pool = None
        for pool in pools:
            if pool is not None:
                pool.__exit__(None, None, None)
        self._static.shutdown(wait=False)  # a later `grade` starts it again

    def __enter__(self) -> Grader:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def workers(self) -> int:
        config = self.sandbox_config
        return config.worker_count if config is not None else 1

    # -- grading -----------------------------------------------------------------------------
    def grade(self, task: Task, response: str | None, *, numpy_form: bool = False) -> Verdict:
        """The verdict by this grader's rules, carrying the official-rules category.

        `numpy_form`: grade as a NumPy-form task (prompt mode `numpy`, the paper's upper
        bound): NumPy is allowed and the library is not required; the sandbox is the same."""
        plan = self._plan(task, response, numpy_form)
        if plan.verdict is not None:
            return plan.verdict
        return self._run_and_judge(task, plan)

    def grade_many(
        self,
        items: Iterable[tuple[Any, ...]],
        on_result: Callable[[tuple[Any, ...], Verdict], None] | None = None,
        *,
        numpy_form: Callable[[tuple[Any, ...]], bool] | None = None,
    ) -> Iterator[tuple[tuple[Any, ...], Verdict]]:
        """Grade `(task, response, ...)` items concurrently; yield `(item, verdict)` as each
        finishes (not in input order). At most twice the worker count is in flight, so memory
        stays flat however many items there are. `numpy_form(item)` true: that item is graded
        as a NumPy-form task (see `grade`)."""
        self.start()
        limit = max(1, 2 * self.workers)
        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="grader") as threads:
            pending: dict[Future, tuple[Any, ...]] = {}
            source = iter(items)
            backlog: deque = deque()
            exhausted = False
            while True:
                while not exhausted and len(pending) < limit:
                    item = next(source, _END)
                    if item is _END:
                        exhausted = True
                        break
                    task, response = item[0], item[1]
                    numpy = numpy_form is not None and numpy_form(item)
                    plan = self._plan(task, response, numpy)
                    if plan.verdict is not None:
                        backlog.append((item, plan.verdict))
                        if len(backlog) >= limit:
                            break
                        continue
                    future = threads.submit(self._run_and_judge, task, plan)
                    pending[future] = item
                while backlog:
                    item, verdict = backlog.popleft()
                    if on_result is not None:
                        on_result(item, verdict)
                    yield item, verdict
                if not pending:
                    if exhausted:
                        return
                    continue
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    item = pending.pop(future)
                    verdict = future.result()
                    if on_result is not None:
                        on_result(item, verdict)
                    yield item, verdict

    def _plan(self, task: Task, response: str | None, numpy_form: bool = False) -> _Plan:
        with self._lock:
            try:
                future = self._static.submit(self._plan_here, task, response, numpy_form)
            except RuntimeError:  # shut down by `close`: a grader may be used again after it
                self._static = ThreadPoolExecutor(1, thread_name_prefix="grader-static")
                future = self._static.submit(self._plan_here, task, response, numpy_form)
        return future.result()

    def _plan_here(self, task: Task, response: str | None, numpy_form: bool) -> _Plan:
        if numpy_form:
            # The official rules are those of library tasks: a NumPy-form task is graded by
            # the strict stages alone, its official category the one its verdict maps to.
            strict = self._prepare_safely(task, response, numpy_form=True)
            return _Plan(Rules.STRICT, strict, OfficialPrepared(None), numpy_form=True)
        if self.rules is Rules.OFFICIAL:
            strict, (too_large, _) = None, self._extract_within_limits(response or "")
        else:
            strict = self._prepare_safely(task, response)
            too_large = strict.verdict if _is_too_large(strict.verdict) else None
        if too_large is None:
            # the official rules read another block (the last one opened by ```python): the
            # same cap, before it is parsed (a red team's 1 MiB block behind a small honest one)
            too_large = self._code_too_large(extract_code_official(response or ""))
        if too_large is not None:  # the official stage would parse it: it is not reached
            return _Plan(self.rules, strict or Prepared(too_large), OfficialPrepared(too_large))
        try:
            official = official_prepare(task, response, self.table)
        except Exception as exc:  # a grader bug on one response must not end a long run
            official = OfficialPrepared(_infra_error("official static checks", exc))
        return _Plan(self.rules, strict, official)

    def _extract_within_limits(self, response: str) -> tuple[Verdict | None, str | None]:
        """(the size refusal, or None; the extracted code, None when there is no block).
        Extraction is linear in the response; parsing is what costs, so sizes are checked
        before it."""
        if len(response) > self.max_response_chars:
            return _too_large("response", len(response), self.max_response_chars), None
        code = extract_code(response)
        too_large = self._code_too_large(code)
        return too_large, None if too_large is not None else code

    def _code_too_large(self, code: str | None) -> Verdict | None:
        if code is not None and len(code) > self.max_code_chars:
            return _too_large("code block", len(code), self.max_code_chars)
        return None

    def _prepare_safely(
        self, task: Task, response: str | None, *, numpy_form: bool = False
    ) -> Prepared:
        try:
            return self.prepare(task, response, numpy_form=numpy_form)
        except Exception as exc:  # a grader bug on one response must not end a long run
            return Prepared(_infra_error("static checks", exc))

    def _run_and_judge(self, task: Task, plan: _Plan) -> Verdict:
        """Run what the static stages left open, once when both rules run the same program."""
        strict = plan.strict
        verdict, execution = strict.verdict if strict is not None else None, None
        if strict is not None and strict.job is not None:
            execution = self.execute(strict.job, numpy_form=strict.numpy_form)
            try:
                verdict = self.judge(task, strict, execution)
                if verdict.kind is VerdictKind.CORRECT and not strict.numpy_form:
                    verdict = self.confirm_dependence(task, strict.job, execution)
            except Exception as exc:
                verdict = _infra_error("judging", exc)
        if plan.numpy_form:
            return verdict
        official = plan.official.verdict
        if official is None:
            job = plan.official.job
            same_program = (
                strict is not None
                and strict.job is not None
                and (
                    job.entry_point == strict.job.entry_point
                    and job.code == strict.job.code + f"import {self.table.package}\n"
                )
            )
            if execution is None or not same_program:
                execution = self.execute(job)
            try:
                official = official_judge(task, execution, self._budget_s)
            except Exception as exc:
                official = _infra_error("official judging", exc)
        return plan.combine(verdict, official)

    @property
    def _budget_s(self) -> float:
        config = self.sandbox_config
        return config.timeout_s if config is not None else 3.0

    def confirm_dependence(self, task: Task, job: Job, first: Execution) -> Verdict:
        """The rule "the answer depends on the library", for an answer judged correct (`first`
        is its run): run all its test cases again with the library's results perturbed
        (sandbox/perturbation.py: values, then rows where only a shape can tell, then values
        negated). Only the task's own functions' results are perturbed and counted
        (`sebench.grading.evidence`). The answer came from the library only when, in one of
        those reruns, at least half of the cases in which they computed something (in the first
        run: a call whose result was not one of its arguments) print another answer. Not half
        of all the cases: the task's function may compute nothing on some inputs (`abs` of
        positive numbers), and an honest answer must not be refused for them.

        A bare call, an unused result or a call inside `try/except: pass` change no answer, and
        a call that hands its argument back (`ravel` of a flat list) computes nothing. Only a
        case that runs to its end and prints something else counts: an error, a crash, a
        timeout or a case cut off at the output cap is not evidence, since a program can
        provoke those knowing nothing (a reshape to its own perturbed shape raises). Half of the cases, not one: a program that answers
        right by chance (`random`, the clock) and differently in the rerun would otherwise earn
        the verdict one time in four; it must now be right in every case once and wrong in half
        of them after. The cases that count are read from the first run, which the program
        cannot steer by what it sees in the rerun. The reruns are compared with the expected
        answers (within the tolerance), not with the first run's text: two runs may print
        different noise below the tolerance. Only correct answers pay for the reruns, and most
        pay for one."""
        computing = [i for i, case in enumerate(first.cases) if case.computed_results > 0]
        if computing:
            needed, inputs = (len(computing) + 1) // 2, tuple(job.test_inputs)
            # Values first on the shortest prefix that can decide (a prefix runs as the full
            # run does up to its end: every input travels, each case's text is read just before
            # its call, and the child's memory is laid out alike, so `id()` is no tell), then on
            # all the cases, then rows (only where values cannot tell: `needs_rows`), then
            # values negated (for answers read through a sign).
            prefix = computing[needed - 1] + 1
            runs = [(Perturbation.VALUES, prefix)]
            if prefix < len(inputs):
                runs.append((Perturbation.VALUES, len(inputs)))
            if needs_rows(task.selected_functions, job.evidence):
                runs.append((Perturbation.ROWS, len(inputs)))
            runs.append((Perturbation.FLIPPED, len(inputs)))
            for perturbation, count in runs:
                rerun = self.execute(
                    dataclasses.replace(job, perturbation=perturbation, cases=count)
                )
                if rerun.status is ExecStatus.INFRA_ERROR:
                    return Verdict(
                        VerdictKind.INFRA_ERROR, detail=_short(f"perturbed run: {rerun.detail}")
                    )
                if self._changed_cases(rerun, task.expected, computing) >= needed:
                    return Verdict(VerdictKind.CORRECT)
        if not computing and job.evidence == (UNKNOWN,):
            detail = (
                f"the task's functions ({', '.join(task.selected_functions)}) are not functions "
                f"of the library {self.table.package}: no call can show that the answer "
                "depends on them"
            )
        elif not computing:
            whose = "the library"
            if job.evidence:
                names = ", ".join(f"{self.table.package}.{name}" for name in job.evidence)
                whose = f"the task's own functions ({names})"
            detail = f"{whose} computed nothing in any test case"
        else:
            detail = (
                "with the library's results perturbed, fewer than half of the test cases in "
                "which it computed something printed another answer"
            )
        return Verdict(
            VerdictKind.NO_LIBRARY, rule="answer-independent-of-library", detail=_short(detail)
        )

    def _changed_cases(
        self, rerun: Execution, expected: tuple[str, ...] | list[str], indices: list[int]
    ) -> int:
        """Of the cases `indices`, those a perturbed run finished with another answer."""
        if rerun.setup_error is not None:
            return 0
        cases = rerun.cases
        if rerun.status is ExecStatus.OUTPUT_LIMIT:
            # The case that crossed the output cap was cut off, not finished: its text differs
            # from any answer by the cut alone (a red team's reading).
            cases = cases[:-1]
        return sum(
            case.error_type is None
            and case.printed is not None
            and not outputs_match(case.printed, expected[index], self.tolerance)
            for index, case in enumerate(cases)
            if index in indices
        )

    def execute(self, job: Job, *, numpy_form: bool = False) -> Execution:
        self.start()
        try:
            pool = self._numpy_pool_started() if numpy_form else self._pool
            return pool.run(job)
        except Exception as exc:  # the sandbox failed, not the code: counted, never dropped
            return Execution.infra_error(f"{type(exc).__name__}: {exc}"[:DETAIL_CHARS])

    # -- the two halves, public so that tests and benchmarks can drive them -------------------
    def prepare(self, task: Task, response: str | None, *, numpy_form: bool = False) -> Prepared:
        """The static stage: the size limits, extraction, parsing, the official library check
        and the policy (for a NumPy-form task: without the NumPy import rule and without the
        library-use rule)."""
        too_large, code = self._extract_within_limits(response or "")
        if too_large is not None:
            return Prepared(too_large)
        if code is None:
            return Prepared(Verdict(VerdictKind.NO_CODE, detail="no fenced python block"))
        try:
            tree = ast.parse(code)
        except SyntaxError as exc:
            return Prepared(
                Verdict(VerdictKind.SYNTAX_ERROR, line=exc.lineno, detail=_short(exc.msg or ""))
            )
        except RecursionError:
            # Building the tree ran into the process's recursion limit (thousands of chained
            # attributes or operators), which is not the program's: `sebench eval` has 1,000,
            # a trainer that ran `torch.compile` 2,000, and there the tree is built and refused
            # as `too-deep` (a red team's, OG): so it is here too.
            return Prepared(TOO_DEEP)
        except (ValueError, MemoryError) as exc:
            detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            return Prepared(Verdict(VerdictKind.SYNTAX_ERROR, detail=_short(detail)))
        try:
            found = scan(tree, self.table.package)
            calls_library = any_library_call(found.imports, found.function_calls, self.table)
            refusals = found.refusals
        except TooManyNodes as exc:
            return Prepared(Verdict(VerdictKind.POLICY, rule=exc.rule, detail=_short(str(exc))))
        except (RecursionError, MemoryError):  # what the text did to the checks: no infra error
            return Prepared(TOO_DEEP)
        if numpy_form:
            # NumPy imports are the point; a NumPy name reached by a dynamic path stays refused
            refusals = [r for r in refusals if r.rule != "numpy-import"]
            calls_library = True  # not required: nothing below may ask for it
        numpy = next((r for r in refusals if r.numpy), None)
        if numpy is not None:
            # The kind says what the code did (tables show a NumPy agent as uses_numpy); its
            # official category (often without_zwc) is the official rules' (`official_rules`).
            detail = numpy.detail if calls_library else f"{numpy.detail}; {_NO_LIBRARY_IN_CODE}"
            return Prepared(
                Verdict(
                    VerdictKind.USES_NUMPY, rule=numpy.rule, line=numpy.line, detail=_short(detail)
                )
            )
        if refusals and not calls_library:
            # official order: no library call in the function is decided before the other rules
            return Prepared(_no_library_static(refusals[0]))
        if refusals:
            refusal = refusals[0]
            return Prepared(
                Verdict(
                    VerdictKind.POLICY,
                    rule=refusal.rule,
                    line=refusal.line,
                    detail=_short(refusal.detail),
                )
            )
        entry_point = task.entry_point or _first_function(tree)
        if entry_point is None:
            return Prepared(
                Verdict(
                    VerdictKind.NO_LIBRARY if not calls_library else VerdictKind.RUNTIME_ERROR,
                    rule="no-function",
                    error_type="NameError",
                    detail="the task names no function and the code defines none",
                )
            )
        job = Job(
            code=stores.rewrite(code, found.stores),  # as the pool would, without a parse
            entry_point=entry_point,
            test_inputs=tuple(task.test_inputs),
            evidence=evidence_names(task.selected_functions, self.table),
            stores_guarded=True,
        )
        return Prepared(None, job=job, calls_library=calls_library, numpy_form=numpy_form)

    def judge(self, task: Task, prepared: Prepared, execution: Execution) -> Verdict:
        """The dynamic stage: turn the sandbox's report into a verdict, comparing here."""
        cases = execution.cases
        # the constructor's calls are library use only on a task about the constructor
        about_constructor = "array" in task.selected_functions
        used_at_run_time = any(
            (case.library_calls if about_constructor else case.non_constructor_calls) > 0
            for case in cases
        )
        library_used = prepared.calls_library or used_at_run_time
        status = execution.status
        if status is ExecStatus.INFRA_ERROR:
            return Verdict(VerdictKind.INFRA_ERROR, detail=_short(execution.detail or ""))
        if execution.setup_error is not None:
            if not library_used:
                return _no_library_static(None)
            if execution.setup_error == "SyntaxError":
                return Verdict(VerdictKind.SYNTAX_ERROR, detail=_short(_setup_message(execution)))
            return Verdict(
                VerdictKind.RUNTIME_ERROR,
                error_type=execution.setup_error,
                detail=_short(_setup_message(execution)),
            )
        if status is not ExecStatus.OK or len(cases) < len(task.test_inputs):
            if not library_used:
                return _no_library_static(None)
            return _failed_run(execution, len(cases))
        for index, case in enumerate(cases):
            if case.error_type is not None:
                if not library_used:
                    return _no_library_static(None)
                return Verdict(
                    VerdictKind.RUNTIME_ERROR,
                    error_type=case.error_type,
                    case=index,
                    detail=_short(case.error_message or ""),
                )
        if not used_at_run_time and not prepared.numpy_form:
            return Verdict(
                VerdictKind.NO_LIBRARY,
                rule="no-library-call-at-run-time",
                detail="no library function other than the array constructor ran in any test case",
            )
        tried = max(case.library_functions for case in cases) if cases else 0
        tried_sub = max(case.submodule_functions for case in cases) if cases else 0
        if tried > MOST_FUNCTIONS and not prepared.numpy_form:
            return Verdict(
                VerdictKind.NO_LIBRARY,
                rule="searched-the-library",
                detail=f"the program called {tried} different library functions, over the "
                f"{MOST_FUNCTIONS} that a program knowing what it needs calls at most",
            )
        if tried_sub > MOST_SUBMODULE_FUNCTIONS and not prepared.numpy_form:
            return Verdict(
                VerdictKind.NO_LIBRARY,
                rule="searched-the-library",
                detail=f"the program called {tried_sub} different functions of "
                f"{self.table.package}.{self.table.submodule}, over the "
                f"{MOST_SUBMODULE_FUNCTIONS} that a program knowing what it needs calls at most",
            )
        for index, (case, expected) in enumerate(zip(cases, task.expected, strict=False)):
            if not outputs_match(case.printed, expected, self.tolerance):
                return Verdict(
                    VerdictKind.WRONG_ANSWER,
                    case=index,
                    detail=_short(f"printed {_clip(case.printed)}"),
                )
        return Verdict(VerdictKind.CORRECT)


def _infra_error(stage: str, exc: Exception) -> Verdict:
    return Verdict(VerdictKind.INFRA_ERROR, detail=_short(f"{stage}: {type(exc).__name__}: {exc}"))


_TOO_LARGE = "response-too-large"


def _is_too_large(verdict: Verdict | None) -> bool:
    return verdict is not None and verdict.rule == _TOO_LARGE


def _too_large(what: str, size: int, limit: int) -> Verdict:
    # never parsed nor run: officially it would not have finished running (`exe_error`)
    return Verdict(
        VerdictKind.POLICY,
        rule=_TOO_LARGE,
        detail=f"the {what} has {size} characters, over the limit of {limit}",
    )


_NO_LIBRARY_IN_CODE = (
    "no function in the code calls a library function other than the array constructor"
)


def _no_library_static(refusal: Refusal | None) -> Verdict:
    detail = _NO_LIBRARY_IN_CODE
    if refusal is not None:
        detail += f" (also refused: {refusal.rule} at line {refusal.line})"
    return Verdict(VerdictKind.NO_LIBRARY, rule="no-library-call", detail=detail)


def _first_function(tree: ast.Module) -> str | None:
    """The official fallback when a row names no function: the first function the code defines."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return node.name
    return None


def _clip(text: str | None, limit: int = 120) -> str:
    if text is None:
        return "nothing"
    return repr(text if len(text) <= limit else text[:limit] + "...")


_shared: dict[str, Grader] = {}
_shared_lock = threading.Lock()


def grade(
    task: Task, response: str | None, library: Library, rules: Rules = Rules.STRICT
) -> Verdict:
    """Grade one response with a grader shared per library and rules, started on first use (an
    RL reward calls this many times; the warm sandbox is reused). Closed when the interpreter
    exits."""
    key = f"{library.root}\x00{Rules(rules).value}"
    with _shared_lock:
        grader = _shared.get(key)
        if grader is None:
            import atexit

            grader = Grader(library, rules=rules).start()
            _shared[key] = grader
            atexit.register(grader.close)
    return grader.grade(task, response)
