"""The rule "the answer depends on the library" (class 5 of issue 12).

A program that knows the answers without the library (here: it looks them up in a table keyed by
its arguments, the strongest no-knowledge cheat) and adds a library call that does not matter
must never be graded correct, whatever form the call takes; honest programs, whose answers come
from the library, stay correct. Measured on self-made tasks (the demo's generator, any library)
and, where the data is there, on every task of the dev set.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

import pytest

from sebench.data.schema import Task
from sebench.data.translate import to_library
from sebench.grading.compare import outputs_match
from sebench.grading.grader import MOST_FUNCTIONS, MOST_SUBMODULE_FUNCTIONS, Grader
from sebench.grading.sandbox import ExecStatus, Job, SandboxConfig, SandboxPool, detect_layers
from sebench.grading.sandbox.perturbation import Perturbation
from sebench.grading.verdicts import Verdict, VerdictKind
from sebench.library.library import Library
from sebench.training.taskgen import TWELVE_FUNCTIONS, TaskSetConfig, generate_tasks
from tests.conftest import have_official_data
from tests.grading.conftest import fenced

RULE = "answer-independent-of-library"


@dataclass(frozen=True)
class Names:
    package: str
    constructor: str  # `zwc.yitaf`
    function: str  # a library function other than the constructor: `zwc.kocito` (mean)
    conversions: tuple[str, ...]  # `asarray`, `copy`: they compute nothing


def names_of(library: Library) -> Names:
    mapping = library.table.numpy_to_library()
    conversions = tuple(mapping[name] for name in ("asarray", "copy") if name in mapping)
    return Names(library.table.package, library.table.constructor, mapping["mean"], conversions)


# Each form of a library call that changes nothing: (text before the function, text inside it).
def irrelevant_calls(n: Names) -> dict[str, tuple[str, str]]:
    call = f"{n.function}({n.constructor}([1.0, 2.0]))"
    return {
        "bare call": ("", f"    {call}\n"),
        "unused assignment": ("", f"    unused = {call}\n"),
        "try/except pass": (
            "",
            f"    try:\n        {n.function}(args)\n    except Exception:\n        pass\n",
        ),
        "call on a constant": ("", f"    {n.function}(3.0)\n"),
        "default argument": (f"def helper(value={call}):\n    return value\n\n", "    helper()\n"),
        "result tested, branch never taken": ("", f"    if {call} is None:\n        return None\n"),
        "module-level call": (f"{call}\n\n", ""),
        "in an assert": ("", f"    assert {call} is not None\n"),
        "in an f-string": ("", f"    text = f'{{{call}}}'\n"),
        "in a class body": (f"class Holder:\n    value = {call}\n\n", ""),
        "in a decorator": (
            f"def deco(fn):\n    {call}\n    return fn\n\n@deco\ndef other():\n    return 1\n\n",
            "",
        ),
        "in a discarded comprehension": ("", f"    [{call} for _ in range(2)]\n"),
        "times zero": ("", f"    offset = 0 * float({call})\n"),
        "cancelled out": ("", f"    offset = float({call}) - float({call})\n"),
        "as a sort key's tie-breaker": (
            "",
            f"    order = sorted([3, 1], key=lambda v: (v, float({call})))\n",
        ),
        "raised and caught": (
            "",
            f"    try:\n        raise ValueError({call})\n    except ValueError:\n        pass\n",
        ),
    }


def cheat(task: Task, n: Names, before: str, inside: str, through: str = "") -> str:
    """Answers looked up by the call's own arguments: no library knowledge at all (`through`:
    a library function the answer, then a number, passes through on its way out)."""
    table = {
        _key(text): ast.literal_eval(expected) if through else expected
        for text, expected in zip(task.test_inputs, task.expected, strict=True)
    }
    return (
        f"import {n.package}\n\nANSWERS = {table!r}\n\n{before}"
        f"def {task.entry_point}(*args, **kwargs):\n{inside}"
        f"    return {through}(ANSWERS[repr((args, sorted(kwargs.items())))])\n"
    )


def _key(arguments: str) -> str:
    # the same key the cheat computes in the sandbox, from the same argument text (trusted data)
    def capture(*args, **kwargs):
        return repr((args, sorted(kwargs.items())))

    return eval(f"capture({arguments})", {"capture": capture})  # noqa: S307


def grade_all(grader: Grader, items: Iterable[tuple[Task, str]]) -> list[tuple[Task, Verdict]]:
    return [(item[0], v) for item, v in grader.grade_many((t, fenced(c)) for t, c in items)]


def check_cheats(grader: Grader, tasks: list[Task], n: Names) -> None:
    items = [
        (task, cheat(task, n, before, inside))
        for task in tasks
        for before, inside in irrelevant_calls(n).values()
    ]
    verdicts = grade_all(grader, items)
    correct = [task.task_id for task, v in verdicts if v.kind is VerdictKind.CORRECT]
    assert correct == [], f"{len(correct)} / {len(verdicts)} cheats graded correct"
    # The cheats did answer right and did call the library: the rule, not some failure,
    # refused them (a key the sandbox cannot rebuild, e.g. a set's order, is a rare exception).
    refused_by_rule = sum(v.rule == RULE for _, v in verdicts)
    by_rule_at_run_time = {"no-library-call-at-run-time", RULE}
    assert sum(v.rule in by_rule_at_run_time for _, v in verdicts) >= 0.9 * len(verdicts)
    assert refused_by_rule >= 0.6 * len(verdicts), [v for _, v in verdicts][:5]


def graded_throughs(
    grader: Grader, library: Library, tasks: list[Task], throughs: list[str], limit: int | None
) -> list[tuple[Task, Verdict]]:
    """Each lookup-table cheat whose answer goes out through each of `throughs`, on the first
    `limit` tasks whose answers are numbers, graded."""
    n = names_of(library)
    scalar = [t for t in tasks if all(_is_number(text) for text in t.expected)][:limit]
    return grade_all(grader, [(t, cheat(t, n, "", "", via)) for t in scalar for via in throughs])


def check_honest(grader: Grader, items: list[tuple[Task, str]]) -> None:
    verdicts = grade_all(grader, items)
    refused = [(task.task_id, v) for task, v in verdicts if v.kind is not VerdictKind.CORRECT]
    assert refused == []


@pytest.fixture(scope="module")
def demo_tasks(seeded_library) -> list[Task]:
    config = TaskSetConfig(functions=TWELVE_FUNCTIONS, train_per_function=0, test_per_function=2)
    return list(generate_tasks(seeded_library.table, config).test)


@pytest.fixture(scope="module")
def seeded_grader(seeded_library):
    with Grader(seeded_library, SandboxConfig(workers=2)) as warm:
        yield warm


def test_the_demo_tasks_answers_stay_correct(seeded_grader, demo_tasks):
    check_honest(seeded_grader, [(task, task.extra["target"]) for task in demo_tasks])


def test_an_answer_through_an_alias_of_the_tasks_function_stays_correct(
    seeded_grader, seeded_library, demo_tasks
):
    """`amax` for a task about `max` (NumPy documents them as one function): its results are
    the task's function's results, perturbed and counted alike."""
    m = seeded_library.table.numpy_to_library()
    swaps = {"max": "amax", "min": "amin"}
    items = [
        (t, t.extra["target"].replace(m[f] + "(", m[swaps[f]] + "("))
        for t in demo_tasks
        if (f := t.selected_functions[0]) in swaps
    ]
    assert len(items) >= 4 and all(m[swaps[t.selected_functions[0]]] in c for t, c in items)
    check_honest(seeded_grader, items)


def test_no_irrelevant_library_call_makes_a_lookup_table_correct_on_self_made_tasks(
    seeded_grader, seeded_library, demo_tasks
):
    check_cheats(seeded_grader, demo_tasks, names_of(seeded_library))


def test_the_lookup_tables_print_the_right_answers(seeded_grader, seeded_library, demo_tasks):
    """So the cheats above fail for the rule alone, not for a wrong answer."""
    n = names_of(seeded_library)
    for task in demo_tasks:
        job = Job(cheat(task, n, "", ""), task.entry_point, task.test_inputs)
        execution = seeded_grader.execute(job)
        printed = [case.printed for case in execution.cases]
        assert all(map(outputs_match, printed, task.expected)), (printed, task.expected)


def test_an_answer_passed_through_a_conversion_does_not_depend_on_the_library(
    seeded_grader, seeded_library, demo_tasks
):
    """`asarray` and `copy` compute nothing: the perturbed run leaves their results alone."""
    conversions = list(names_of(seeded_library).conversions)
    verdicts = graded_throughs(seeded_grader, seeded_library, demo_tasks, conversions, None)
    assert len(verdicts) >= 10
    assert all(v.rule == RULE for _, v in verdicts), [v for _, v in verdicts][:3]


def test_an_answer_passed_through_the_array_type_alone_is_not_library_use(
    seeded_grader, seeded_library, demo_tasks
):
    """The constructor, then the array's own operators, methods or Python's builtins on it
    (`yitaf(v) + 0`, `-(-yitaf(v))`, `yitaf([v])[0]`, `sum(yitaf([v]))`, `yitaf(v).item()`):
    knowing the constructor's name is not knowing the library."""
    n = names_of(seeded_library)
    c = n.constructor
    throughs = [
        f"(lambda v: {c}(v) + 0)",
        f"(lambda v: 0 + {c}(v) * 1)",
        f"(lambda v: -(-{c}(v)))",
        f"(lambda v: {c}(v) ** 1)",
        f"(lambda v: {c}([v])[0])",
        f"(lambda v: sum({c}([v])))",
        f"(lambda v: max({c}([v])))",
        f"(lambda v: list({c}([v]))[0])",
        f"(lambda v: {c}(v).item())",
        f"(lambda v: {c}([v]).sum())",
        f"(lambda v: {c}(v).astype(float))",
        f"(lambda v: v if {c}(v) == v else None)",
    ]
    verdicts = graded_throughs(seeded_grader, seeded_library, demo_tasks, throughs, 4)
    assert len(verdicts) >= 40
    correct = [task.task_id for task, v in verdicts if v.kind is VerdictKind.CORRECT]
    assert correct == [], f"{len(correct)} / {len(verdicts)} graded correct"
    assert all(v.kind is VerdictKind.NO_LIBRARY for _, v in verdicts), [
        v for _, v in verdicts if v.kind is not VerdictKind.NO_LIBRARY
    ][:3]


def test_an_answer_handed_back_by_any_library_function_does_not_depend_on_the_library(
    seeded_grader, seeded_library, demo_tasks
):
    """Not only the conversions: any function that hands its argument back unchanged
    (`positive`, `squeeze` of a number, `transpose`, a `vectorize`d identity) computes
    nothing, whatever its name. (Rounding that changes a value computes something: `around(v,
    12)` of a float with more digits passes, and needs knowing what `around` does.)"""
    m = seeded_library.table.numpy_to_library()
    throughs = [
        m["positive"],
        m["squeeze"],
        m["real"],
        m["transpose"],
        m["conjugate"],
        m["asanyarray"],
        f"(lambda v: {m['reshape']}(v, ()))",
        f"(lambda v: {m['vectorize']}(lambda x: x)(v))",
        f"(lambda v: {m['positive']}({m['positive']}(v)))",
    ]
    verdicts = graded_throughs(seeded_grader, seeded_library, demo_tasks, throughs, 3)
    assert len(verdicts) >= 27
    assert all(v.rule == RULE for _, v in verdicts), [
        (task.task_id, v) for task, v in verdicts if v.rule != RULE
    ][:3]


def test_an_answer_handed_back_from_a_container_or_written_in_place_does_not_depend_on_the_library(
    seeded_grader, seeded_library, demo_tasks
):
    """The same class, in the forms a red team found: the array inside a list argument handed
    back (`concatenate([a])`, `hstack`, `block`, `amax([v])`), an item of a list result
    (`atleast_1d(a, a)[0]`), and a buffer an in-place call fills with what it was given
    (`copyto`, `put` at every index, `putmask` and `place` with every element chosen). The
    first two are identities; all of them are calls of functions other than the task's."""
    m = seeded_library.table.numpy_to_library()
    c = seeded_library.table.constructor

    def buffered(call: str) -> str:
        # fill a fresh buffer `b` by `call`, then read the answer back from it
        return f"(lambda v: (lambda b: ({call}, float(b[0]))[1])({c}([0.0])))"

    throughs = [
        f"(lambda v: float({m['concatenate']}([{c}([v])])[0]))",
        f"(lambda v: float({m['concatenate']}([[v]])[0]))",
        f"(lambda v: float({m['hstack']}([{c}([v])])[0]))",
        f"(lambda v: float({m['block']}([{c}([v])])[0]))",
        f"(lambda v: float({m['amax']}([v])))",
        f"(lambda v: float({m['atleast_1d']}({c}([v]), {c}([v]))[0][0]))",
        buffered(f"{m['copyto']}(b, {c}([v]))"),
        buffered(f"{m['copyto']}(b, [v])"),
        buffered(f"{m['put']}(b, [0], [v])"),
        buffered(f"{m['putmask']}(b, [True], [v])"),
        buffered(f"{m['place']}(b, [True], [v])"),
    ]
    verdicts = graded_throughs(seeded_grader, seeded_library, demo_tasks, throughs, 3)
    assert len(verdicts) >= 33
    assert all(v.rule == RULE for _, v in verdicts), [
        (task.task_id, v) for task, v in verdicts if v.rule != RULE
    ][:3]


def test_only_the_tasks_own_functions_count_as_the_librarys_work(
    seeded_grader, seeded_library, demo_tasks
):
    """A plain answer passed through any other function that hands data back (a part of an
    argument, pieces joined, a cast of its text, a selection), or a canary on another function
    the program knows, is not knowledge of the task's function: a red team found some twenty
    such forms the identity rule missed. Only the task's own functions are perturbed and
    counted (`sebench.grading.evidence`)."""
    m = seeded_library.table.numpy_to_library()
    c = seeded_library.table.constructor
    throughs = [
        f"(lambda v: float({m['take']}([v, 0.5], [0])[0]))",
        f"(lambda v: float({m['resize']}([v, 0.5], 1)[0]))",
        f"(lambda v: float({m['delete']}([v, 0.5], 1)[0]))",
        f"(lambda v: float({m['compress']}([True, False], [v, 0.5])[0]))",
        f"(lambda v: float({m['concatenate']}([[v], [0.5]])[0]))",
        f"(lambda v: float({m['where']}([True, False], [v, v], [0.5, 0.5])[0]))",
        f"(lambda v: float({m['choose']}([0], [[v], [0.5]])[0]))",
        f"(lambda v: float({m['insert']}([0.5], 0, v)[0]))",
        f"(lambda v: float({m['median']}([v, v])))",
        f"(lambda v: float({m['diagonal']}([[v, 0.5], [0.5, v]])[0]))",
        f"(lambda v: float({m['full']}(1, repr(float(v)), dtype=float)[0]))",
        f"(lambda v: float({m['astype']}({c}([repr(float(v))]), float)[0]))",
        f"(lambda v: float({m['stack']}([{c}(v)])[0]))",
        # a canary on a function the program knows, not the task's
        f"(lambda v: v if float({m['median']}([1.0, 3.0])) == 2.0 else v + 1)",
    ]
    n = names_of(seeded_library)
    scalar = [t for t in demo_tasks if all(_is_number(text) for text in t.expected)]
    # one task of each function, none about a function used above (through its own function a
    # program shows that it knows it)
    used = {"take", "resize", "delete", "compress", "concatenate", "where", "choose", "insert"}
    used |= {"median", "diagonal", "full", "astype", "stack"}
    chosen = {t.selected_functions[0]: t for t in scalar if t.selected_functions[0] not in used}
    items = [(t, cheat(t, n, "", "", through)) for t in chosen.values() for through in throughs]
    verdicts = grade_all(seeded_grader, items)
    assert len(verdicts) >= 4 * len(throughs)
    correct = [(task.selected_functions, v) for task, v in verdicts if v.correct]
    assert correct == [], f"{len(correct)} / {len(verdicts)} graded correct: {correct[:3]}"
    assert all(v.rule == RULE for _, v in verdicts), [v for _, v in verdicts if v.rule != RULE][:3]


def test_a_task_about_a_conversion_alone_counts_that_conversion_and_nothing_else(
    seeded_grader, seeded_library, demo_tasks
):
    """On a task about the constructor or a conversion alone (the dev set's `copy`), a canary
    on any other function once decided the rerun of a plain answer (a red team's: `correct`).
    Now only the task's own function counts there, its results perturbed although it hands its
    argument back: a canary elsewhere earns nothing, an answer that goes out through the task's
    function depends on it."""
    import dataclasses

    m = seeded_library.table.numpy_to_library()
    c = seeded_library.table.constructor
    n = names_of(seeded_library)
    scalar = [t for t in demo_tasks if all(_is_number(text) for text in t.expected)]
    canaries = {  # on another function (one on the task's own is its knowledge)
        "add": f"(lambda v: v if float({m['add']}(2.0, 3.0)) == 5.0 else v + 1)",
        "ones": f"(lambda v: v if float({m['ones']}(3)[0]) == 1.0 else v + 1)",
        "array": f"(lambda v: v if float({c}([2.0])[0]) == 2.0 else v + 1)",
    }
    cheats, through_own = [], []
    for function in ("copy", "asarray", "array"):
        tasks = [dataclasses.replace(t, selected_functions=(function,)) for t in scalar[:3]]
        own = f"(lambda v: float({m[function]}([v])[0]))"
        others = [canary for name, canary in canaries.items() if name != function]
        cheats += [(t, cheat(t, n, "", "", canary)) for t in tasks for canary in others]
        through_own += [(t, cheat(t, n, "", "", own)) for t in tasks]
    verdicts = grade_all(seeded_grader, cheats)
    correct = [(task.selected_functions, v) for task, v in verdicts if v.correct]
    assert correct == [], f"{len(correct)} / {len(verdicts)} graded correct: {correct[:3]}"
    # (the constructor's canary alone is no library call at all)
    refused_by = {RULE, "no-library-call-at-run-time"}
    assert all(v.rule in refused_by for _, v in verdicts), [v for _, v in verdicts][:3]
    check_honest(seeded_grader, through_own)


def test_a_task_naming_functions_the_library_lacks_fails_closed(
    seeded_grader, seeded_library, demo_tasks
):
    """A task whose `selected_functions` the library does not have (`Trunc`, a name with a
    space, another library's) once counted every function, as a task naming none does: a canary
    on any function passed a plain answer (a red team's, on the dev `trunc` task: `correct`).
    Now nothing counts there: canaries and honest answers alike are `no_library`, and say why;
    a name with spaces around it is read without them."""
    import dataclasses

    from sebench.data.rows import official_row, task_from_official_row

    m = seeded_library.table.numpy_to_library()
    n = names_of(seeded_library)
    canary = f"(lambda v: v if float({m['add']}(2.0, 3.0)) == 5.0 else v + 1)"
    scalar = [t for t in demo_tasks if all(_is_number(text) for text in t.expected)][:4]
    misnamed = [
        dataclasses.replace(t, selected_functions=(t.selected_functions[0].capitalize(),))
        for t in scalar
    ]
    verdicts = grade_all(seeded_grader, [(t, cheat(t, n, "", "", canary)) for t in misnamed])
    verdicts += grade_all(seeded_grader, [(t, t.extra["target"]) for t in misnamed])
    assert all(v.kind is VerdictKind.NO_LIBRARY and v.rule == RULE for _, v in verdicts), verdicts
    assert "not functions of the library" in (verdicts[-1][1].detail or "")
    spaced = []
    for task in scalar:
        row = official_row(task)
        row["selected_functions"] = [f" {name} " for name in row["selected_functions"]]
        spaced.append((task_from_official_row(row, task.split), task.extra["target"]))
    assert [t.selected_functions for t, _ in spaced] == [t.selected_functions for t in scalar]
    check_honest(seeded_grader, spaced)


# A program that tells the runs apart by what a result is rather than by what it holds: it
# writes into every result (a view of the argument lets the write through to it, a read-only one
# refuses it), knowing nothing of what any function computes.
WHAT_RESULTS_ARE = """
def solve(x):
    seen = []
    for name, function in functions():
        argument = {constructor}([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]])
        before = str(argument)
        try:
            result = function(argument)
        except Exception:
            continue
        try:
            result[...] = 7.0
            refused = False
        except Exception:
            refused = True
        seen.append((name, refused, str(argument) != before))
    return seen
"""


# What both probes below call: every public function of the library but the constructor.
EVERY_FUNCTION = """
import {package}

def functions():
    for name in dir({package}):
        function = getattr({package}, name)
        if not name.startswith("_") and callable(function) and name != "{constructor_name}":
            yield name, function
"""


def _printed_in_every_run(grader: Grader, library: Library, probe: str) -> dict[str, str]:
    """What `probe` (after `EVERY_FUNCTION`) prints in the first run and in each rerun."""
    table = library.table
    code = (EVERY_FUNCTION + probe).format(
        package=table.package,
        constructor=table.constructor,
        constructor_name=table.constructor.rsplit(".", 1)[1],
    )
    printed = {}
    for mode in Perturbation:
        execution = grader.execute(Job(code, "solve", ["x=0"], perturbation=mode))
        assert execution.status is ExecStatus.OK and execution.cases[0].printed, execution
        printed[mode] = execution.cases[0].printed
    return printed


def test_a_result_is_the_same_kind_of_object_in_every_run(seeded_grader, seeded_library):
    """Only the values (and, in a rows run, the shapes) of results differ between the first run
    and the reruns: NumPy hands back views of the argument and read-only arrays, the nudged
    results are new arrays, and a red team wrote into every result to tell the runs apart."""
    printed = _printed_in_every_run(seeded_grader, seeded_library, WHAT_RESULTS_ARE)
    assert printed[Perturbation.NONE].count("(") > 100, printed  # most functions took the array
    assert len(set(printed.values())) == 1, printed


# What every result is, without its values: the type, and for arrays the dtype, the number of
# dimensions and every dimension but the first (which a rows run may grow), inside containers
# too, for probes that give 0-d results (a nested 1x1 list, a number), integers, booleans and
# complex numbers.
WHAT_RESULTS_LOOK_LIKE = """
def describe(r, depth=0):
    if isinstance(r, (list, tuple)) and depth < 3:
        return (type(r).__name__, [describe(item, depth + 1) for item in r[:4]])
    try:
        return (type(r).__name__, r.ndim, str(r.dtype), tuple(r.shape)[1:])
    except Exception:
        return (type(r).__name__,)

def solve(x):
    seen = []
    probes = ([[2.0]], 2.5, [[3]], [True, False], [1 + 2j], [[1.0, 2.0], [3.0, 4.5]])
    for name, function in functions():
        for probe in probes:
            try:
                seen.append((name, describe(function({constructor}(probe)))))
            except Exception:
                pass
    return seen
"""


def test_a_result_looks_the_same_in_every_run_whatever_its_values(seeded_grader, seeded_library):
    """Type, dtype and dimensions never differ between the first run and the reruns: a red
    team counted the 0-d numeric results of every function (a nudged 0-d array had become a
    NumPy scalar, handed out as a Python number) and was `correct` knowing no function."""
    printed = _printed_in_every_run(seeded_grader, seeded_library, WHAT_RESULTS_LOOK_LIKE)
    assert printed[Perturbation.NONE].count(", 0, '") > 10, printed  # 0-d arrays among them
    assert len(set(printed.values())) == 1, printed


# Each function on several spellings of one probe (a range or a list, nested lists or an array,
# a list holding an array or rows): which spellings give the same text, in every run.
SPELLINGS_AGREE = """
def solve(x):
    groups = (
        (range(1, 2), [1], (1,), {constructor}([1])),
        ([[1.0]], {constructor}([[1.0]])),
        ([2.0], (2.0,), {constructor}([2.0])),
        ([{constructor}([1.0, 2.0])], [[1.0, 2.0]], {constructor}([[1.0, 2.0]])),
        ([[1.0], [2.0]], [{constructor}([1.0]), {constructor}([2.0])]),
        # (`[True]` beside `[1]`: a float16 result beside a float64 one, which the nudge
        # rounds apart: still open, docs/grading.md; booleans as numbers: test_perturbation)
        ([True], (True,), {constructor}([True])),
        ([4.0, 2.0], {constructor}([4.0, 2.0], dtype=object)),
    )
    seen = []
    for name, function in functions():
        if name in {undefined}:  # `empty`, `empty_like`: what they hold is whatever was freed
            continue
        for group in groups:
            texts = []
            for spelling in group:
                try:
                    texts.append(repr(function(spelling)))
                except Exception:
                    texts.append(None)
            seen.append((name, [text == texts[0] for text in texts]))
    return seen
"""


def test_how_an_argument_is_written_never_tells_the_runs_apart(seeded_grader, seeded_library):
    """Red teams told the reruns apart knowing no function: whether a call computed depended
    on how its argument was written (`f([1])` handed back, `f(range(1, 2))` computed; `[True]`
    and `[1]`; an object array, never nudged, beside a list), so only the task's function,
    perturbed, answered two spellings of one probe differently. Every function counts here
    (no task functions named): the spellings agree alike in every run."""
    names = seeded_library.table.numpy_to_library()
    undefined = {names[n].rsplit(".", 1)[1] for n in ("empty", "empty_like") if n in names}
    probe = SPELLINGS_AGREE.replace("{undefined}", repr(tuple(sorted(undefined))))
    printed = _printed_in_every_run(seeded_grader, seeded_library, probe)
    assert printed[Perturbation.NONE].count("True") > 500, printed
    assert len(set(printed.values())) == 1, [(mode, text[:300]) for mode, text in printed.items()]


# A blind detector (a red team's, of 2026-12-02): every function on `[True]` and on `[1]` (on
# `[False]` and `[0]`); a function that gives float16 for booleans and float64 for integers
# agrees on both where its value is exact (`arccos(1)`, `sin(0)`), and in a rerun the nudge
# rounds the float16 one apart, so the float64 one is the nudge of 0 or 1 exactly. Knowing no
# function, the program then answers plainly (looked up by its arguments) and spoils the rerun.
BLIND_DETECTOR = """
FUNCTIONS = ({functions})

def _perturbed():
    for function in FUNCTIONS:
        for flag, number in (([True], [1]), ([False], [0])):
            try:
                a = float(function({constructor}(flag))[0])
                b = float(function({constructor}(number))[0])
            except Exception:
                continue
            if a != b and any(abs(b - (v * 1.1 + 0.37)) < 1e-12 for v in (0.0, 1.0)):
                return True
    return False
"""


def _blind_detector(task: Task, library: Library) -> str:
    table = library.table
    functions = [table.qualified(e) for e in table.entries]
    functions = [name for name in functions if name != table.constructor]
    code = cheat(task, names_of(library), "", "")
    detector = BLIND_DETECTOR.format(functions=", ".join(functions), constructor=table.constructor)
    return code.replace("\ndef ", detector + "\ndef ", 1).replace(
        "    return (ANSWERS", "    return ('spoilt ' if _perturbed() else '') + (ANSWERS", 1
    )


def test_a_program_that_searches_the_library_has_shown_nothing(grader, dev_tasks, official_library):
    """Every blind detector tries the functions one by one to find the task's, perturbed in
    the reruns, by a relation between two of its results (two spellings, two element types;
    this one float16 beside float64: `correct` on 4 dev tasks before the limit). A program may
    call `MOST_FUNCTIONS` different functions; honest answers call at most 4 on the dev set."""
    tasks = [t for t in dev_tasks if set(t.selected_functions) & FLOAT16_DETECTED]
    assert len(tasks) >= (4 if have_official_data() else 1)  # the stand-in rows hold fewer
    verdicts = grade_all(grader, [(t, _blind_detector(t, official_library)) for t in tasks])
    assert len(verdicts) == len(tasks)
    assert {(v.kind, v.rule) for _, v in verdicts} == {
        (VerdictKind.NO_LIBRARY, "searched-the-library")
    }, [(t.task_id, v) for t, v in verdicts]


# The dev tasks on which this detector was `correct` before `MOST_FUNCTIONS` (4 of 64; on the
# rest it is `no_library` either way)
FLOAT16_DETECTED = {"acos", "acosh", "arccosh", "cosh"}


def test_an_honest_answer_may_call_as_many_functions_as_the_limit(
    seeded_grader, seeded_library, demo_tasks
):
    """`MOST_FUNCTIONS` different functions (the task's and others whose results go unused)
    do not make an honest answer a search; one more does."""
    task = demo_tasks[0]
    table = seeded_library.table
    others = _other_unary_functions(task, seeded_library)
    honest = task.extra["target"]
    own = set(re.findall(rf"{table.package}\.\w+", honest)) - {table.constructor}

    def calling(count: int) -> str:
        calls = "".join(f"    {name}([1.0])\n" for name in others[:count])
        header = re.compile(r"^(def solve\(.*\):\n)", re.M)
        return header.sub(rf"def _touch():\n{calls}\n\n\1    _touch()\n", honest, count=1)

    within, over = calling(MOST_FUNCTIONS - len(own)), calling(MOST_FUNCTIONS - len(own) + 1)
    verdicts = [seeded_grader.grade(task, fenced(code)) for code in (honest, within, over)]
    assert [(v.kind, v.rule) for v in verdicts] == [
        (VerdictKind.CORRECT, None),
        (VerdictKind.CORRECT, None),
        (VerdictKind.NO_LIBRARY, "searched-the-library"),
    ], verdicts


def test_the_functions_a_result_prints_through_are_counted_too(
    seeded_grader, seeded_library, demo_tasks
):
    """The counts were read before a case's result was printed: a red team called 40 functions
    in the `__str__` of the last case's result, where no later case read them. Now they count
    like any other."""
    task = demo_tasks[0]
    others = _other_unary_functions(task, seeded_library)
    calls = "".join(f"            {name}([1.0])\n" for name in others[: MOST_FUNCTIONS + 1])
    shown = (  # the calls in the last case only: what a case prints, the next case counted
        "PRINTED = []\n\n\nclass Shown:\n    def __init__(self, value):\n"
        "        self.value = value\n\n    def __str__(self):\n        PRINTED.append(1)\n"
        f"        if len(PRINTED) == {len(task.test_inputs)}:\n{calls}"
        "        return str(self.value)\n\n\n"
    )
    honest = task.extra["target"]
    code = shown + honest.replace("    return ", "    return Shown(", 1).rstrip() + ")\n"
    assert seeded_grader.grade(task, fenced(code)).rule == "searched-the-library", code


def _other_unary_functions(task: Task, library: Library) -> list[str]:
    """The library's qualified names of `UNARY` functions that are not the task's own."""
    return [
        library.table.qualified(e)
        for e in library.table.top_level
        if e.numpy_name in UNARY and e.numpy_name not in task.selected_functions
    ]


UNARY = (
    "sin",
    "cos",
    "tan",
    "exp",
    "log1p",
    "sqrt",
    "square",
    "negative",
    "positive",
    "absolute",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "sign",
    "cbrt",
    "exp2",
    "expm1",
    "arctan",
    "sinh",
    "cosh",
)


# A call with `out=` against the same call without it, the buffer filled beforehand with values
# the call may well write (0 and 1: a comparison's or a sign's results), of its own dtype
# (floats, where a comparison returns booleans): they agree element by element in every run.
OUT_AGAINST_PLAIN = """
def agree(plain, buffer):
    found = []
    try:
        for p, b in zip(plain, buffer):
            p, b = float(p), float(b)
            found.append(p == b or (p != p and b != b))
    except Exception:
        return None
    return found

def solve(x):
    seen = []
    for name, function in functions():
        for prefill in (0.0, 1.0):
            for count in (1, 2):
                arguments = [{constructor}([0.0, 1.0, 2.0, -1.0]) for _ in range(count)]
                try:
                    plain = function(*arguments)
                    buffer = {constructor}([prefill] * 4)
                    function(*arguments, out=buffer)
                except Exception:
                    continue
                seen.append((name, prefill, count, agree(plain, buffer)))
    return seen
"""


def test_an_out_buffer_holds_what_the_plain_call_returns_in_every_run(
    seeded_grader, seeded_library
):
    """Filled beforehand with the answer (zeros where the call returns zeros), an `out=` buffer
    was nudged only where the call changed it, the plain call's result everywhere: a red team
    compared the two over every function, knowing none, and was `correct` on two tasks."""
    printed = _printed_in_every_run(seeded_grader, seeded_library, OUT_AGAINST_PLAIN)
    assert printed[Perturbation.NONE].count("[True, True, True, True]") > 40, printed
    assert "False" not in printed[Perturbation.NONE], printed
    assert len(set(printed.values())) == 1, printed


# `out=` in its other forms, against the plain call: a tuple with None for a second output, one
# buffer given by position for two outputs, a buffer larger than the result (broadcast); and a
# call that writes into its first argument, on two buffers that held the written values or not.
OUT_FORMS = """
def floats(value):
    try:
        return [float(v) for v in value]
    except Exception:
        try:
            return [floats(v) for v in value]
        except Exception:
            return None

def same(a, b):
    a, b = floats(a), floats(b)
    return a is not None and a == b

def solve(x):
    seen = []
    probe = [0.0, 0.5, 2.0]
    for name, function in functions():
        written = []
        for held in ([2.5, 2.5, 2.5], [0.25, 0.25, 0.25]):
            buffer = {constructor}(held)
            try:
                function(buffer, {constructor}([2.5, 2.5, 2.5]))
            except Exception:
                break
            written.append(floats(buffer))
        if len(written) == 2:
            seen.append((name, "at", written[0] == written[1]))
        try:
            plain = function({constructor}(probe))
        except Exception:
            continue
        pair = isinstance(plain, tuple) and len(plain) == 2
        try:
            if pair:
                got = function({constructor}(probe), out=({constructor}([0.0] * 3), None))
                seen.append((name, "none", same(plain[0], got[0]), same(plain[1], got[1])))
                buffer = {constructor}([0.0] * 3)
                function({constructor}(probe), buffer)
                seen.append((name, "one", same(plain[0], buffer)))
            else:
                got = function({constructor}(probe), out={constructor}([[0.0] * 3] * 2))
                seen.append((name, "wide", same(plain, got[0]), same(plain, got[1])))
        except Exception:
            pass
    return seen
"""


def test_every_form_of_out_and_every_in_place_call_answers_alike_in_every_run(
    seeded_grader, seeded_library
):
    """A red team left NumPy's raw write in the buffer four ways: `out=(buf, None)` (the second
    output came back raw), one positional buffer for two outputs, a buffer larger than the
    result, and `copyto` over a buffer that held the values written (only changed elements were
    nudged). Whatever the form, the runs must print the same comparisons."""
    printed = _printed_in_every_run(seeded_grader, seeded_library, OUT_FORMS)
    assert printed[Perturbation.NONE].count("'none', True, True") >= 2, printed
    assert printed[Perturbation.NONE].count("'one', True") >= 2, printed
    assert printed[Perturbation.NONE].count("'wide', True, True") > 20, printed
    assert printed[Perturbation.NONE].count("'at', True") >= 1, printed
    assert len(set(printed.values())) == 1, printed


# A call that writes into an array it was given, but not everywhere: `where=` leaves some
# elements of an `out=` buffer alone, `put` writes at the indices it is given.
UNWRITTEN_ELEMENTS = """
def solve(x):
    seen = []
    for name, function in functions():
        source = {constructor}([1.5, 2.5, 3.5])
        buffer = {constructor}([0.25, 0.25, 0.25])
        try:
            function(source, out=buffer, where=[True, False, True])
            seen.append((name, "where", str(buffer[1])))
        except Exception:
            pass
        buffer = {constructor}([0.25, 0.25, 0.25])
        try:
            function(buffer, [0], [5.0])
            seen.append((name, "indices", str(buffer[2])))
        except Exception:
            pass
    return seen
"""


def test_what_an_in_place_call_did_not_write_is_the_same_in_every_run(
    seeded_grader, seeded_library
):
    """Nudged where it wrote and nowhere else: a red team read the run from an element that
    `where=` (41 ufuncs) or `put` left alone and the perturbation moved anyway."""
    printed = _printed_in_every_run(seeded_grader, seeded_library, UNWRITTEN_ELEMENTS)
    assert printed[Perturbation.NONE].count("'where'") > 10, printed
    assert len(set(printed.values())) == 1, printed


# What NumPy leaves unwritten, read after each function's call: `empty`, `empty_like`, a
# ufunc's output where `where` is False (`clip`'s too, no ufunc but it hands `where` to one: a
# red team's), `pad(mode="empty")`'s border. Those held what the
# allocator's last user left, the grader's freed copies of a perturbed result among them (a red
# team told the first run from the reruns by reading them back).
UNWRITTEN_MEMORY = """
def solve(x):
    seen = set()
    for name, function in functions():
        try:
            function({constructor}([1.5, 2.5, 300.7]))
        except Exception:
            pass
        for read in (
            lambda: {empty}(3),
            lambda: {empty_like}([1.0, 2.0, 3.0]),
            lambda: {add}([1.0, 2.0, 3.0], 1.0, where=[False, False, False]),
            lambda: [{add}(1.0, 2.0, where=False)],
            lambda: {pad}([1.0], 1, mode="empty"),
            lambda: {clip}([0.0, 0.0, 0.0], 0, 1, where=[False, False, False]),
        ):
            seen.update(float(v) for v in read() if float(v) != 1.0)
    return sorted(seen)
"""


def test_what_numpy_leaves_unwritten_reads_as_zero_in_every_run(seeded_grader, seeded_library):
    table = seeded_library.table
    m = table.numpy_to_library()
    readers = ("empty", "empty_like", "add", "pad", "clip")
    probe = UNWRITTEN_MEMORY
    for name in readers:
        probe = probe.replace("{" + name + "}", m[name])
    code = (EVERY_FUNCTION + probe).format(
        package=table.package,
        constructor=table.constructor,
        constructor_name=table.constructor.rsplit(".", 1)[1],
    )
    # every function's results perturbed in the reruns but the readers' own
    evidence = tuple(
        target.removeprefix(f"{table.package}.")
        for name, target in m.items()
        if name not in readers and target != table.constructor
    )
    printed = {}
    for mode in Perturbation:
        job = Job(code, "solve", ["x=0"], perturbation=mode, evidence=evidence)
        execution = seeded_grader.execute(job)
        assert execution.status is ExecStatus.OK, execution
        printed[mode] = execution.cases[0].printed
    assert set(printed.values()) == {"[0.0]"}, printed


# Programs that know the answers without the library and make their perturbed rerun print
# something else anyway, knowing nothing of what a library function computes: (text before the
# function, text inside it). Each also makes one call that computes something, so the rule
# has cases to look at.
def rerun_changers(m: dict[str, str], c: str) -> dict[str, tuple[str, str]]:
    computes = f"    {m['mean']}({c}([1.0, 2.0]))\n"
    garbage = "        return None\n"
    return {
        # errors that only the perturbed world raises (caught and answered with garbage
        # instead, they would be a check between two functions the program knows: the
        # documented limit, docs/grading.md)
        "reshape to its own shape": (
            "",
            computes + f"    a = {c}([1.0, 2.0])\n    {m['reshape']}(a, {m['shape']}(a))\n",
        ),
        "a result next to its own argument": (
            "",
            computes + f"    a = {c}([1.0, -2.0])\n    {m['add']}({m['abs']}(a), a)\n",
        ),
        # a perturbation made slow enough to time out
        "a huge object array": ("", computes + f"    {m['empty']}(3_000_000, dtype=object)\n"),
        # an out= buffer against the returned array
        "out buffer": (
            "",
            computes + f"    buf = {c}([0.0])\n"
            f"    r = {m['add']}({c}([1.0]), {c}([2.0]), out=buf)\n"
            f"    if float(r[0]) != float(buf[0]):\n{garbage}",
        ),
        # the same call with and without `out=`, or writing over its own result: the buffer
        # must hold what the call returns, in every run
        "out buffer against the same call": (
            "",
            computes + f"    v = {c}([0.5, 1.5])\n    r = {m['sin']}(v)\n"
            f"    s = {m['sin']}(v)\n    {m['sin']}(v, out=s)\n"
            f"    if float(r[0]) != float(s[0]):\n{garbage}",
        ),
        "out over its own result": (
            "",
            computes + f"    v = {c}([0.5, 1.5])\n    r = {m['sqrt']}(v)\n"
            f"    first = float(r[0])\n    {m['sqrt']}(v, r)\n"
            f"    if float(r[0]) != first:\n{garbage}",
        ),
        # the second buffer of a two-output call given by position, against the plain call's
        # second result (a red team's: only the first buffer was nudged)
        "second out buffer": (
            "",
            computes + f"    v = {c}([0.5, 1.5])\n    plain = {m['modf']}(v)\n"
            f"    o1, o2 = {c}([7.0, 7.0]), {c}([7.0, 7.0])\n    {m['modf']}(v, o1, o2)\n"
            f"    if float(plain[1][0]) != float(o2[0]):\n{garbage}",
        ),
        # a coin tossed once per run
        "random coin": ("import random\n\nCOIN = random.random() < 0.5\n\n", computes),
        "hash coin": ("COIN = hash('sebench') % 2 == 0\n\n", computes),
        # coins that read the clock or the OS's entropy, right 6 times in 7 (each rerun is a new
        # toss: a red team's clock coin was correct in 60% of its gradings): fixed in a child
        "clock coin": (
            "import time\n\nCOIN = time.perf_counter_ns() // 1000 % 7 == 3\n\n",
            computes,
        ),
        "wall clock coin": ("import time\n\nCOIN = int(time.time() * 1e6) % 7 == 3\n\n", computes),
        "date coin": (
            "import datetime\n\nCOIN = datetime.datetime.today().microsecond % 7 == 3\n\n",
            computes,
        ),
        "entropy coin": (
            "import random\n\nCOIN = random.SystemRandom().random() < 1 / 7\n\n",
            computes,
        ),
        "reseeded coin": (
            "import random\n\nrandom.seed()\nCOIN = random.random() < 1 / 7\n\n",
            computes,
        ),
        "address coin": ("COIN = id(object()) // 16 % 7 == 3\n\n", computes),
        "library clock coin": (
            f"import time\n\nCOIN = str({c}('now', dtype='M8[us]')).endswith('3')\n\n",
            computes,
        ),
    }


def test_no_program_that_changes_its_rerun_without_the_library_is_graded_correct(
    seeded_grader, seeded_library, demo_tasks
):
    m, n = seeded_library.table.numpy_to_library(), names_of(seeded_library)
    forms = rerun_changers(m, n.constructor)
    if not detect_layers()["fixed_layout"]:  # addresses differ between servers there (doctor)
        del forms["address coin"]
    coin = "    if COIN:\n        return None\n"
    named = {
        fenced(cheat(task, n, before, inside + (coin if "COIN" in before else ""))): (name, task)
        for task in demo_tasks
        for name, (before, inside) in forms.items()
    }
    verdicts = [
        (named[item[1]], v)
        for item, v in seeded_grader.grade_many((t, r) for r, (_, t) in named.items())
    ]
    correct = [
        (name, task.task_id) for (name, task), v in verdicts if v.kind is VerdictKind.CORRECT
    ]
    assert correct == [], f"{len(correct)} / {len(verdicts)} graded correct: {correct[:5]}"
    # they ran and answered right at least once: the rule refused them, not a failure
    assert sum(v.rule == RULE for _, v in verdicts) >= 0.4 * len(verdicts)


def _is_number(text: str) -> bool:
    try:
        return type(ast.literal_eval(text)) in (int, float)
    except (ValueError, SyntaxError):
        return False


BLIND_ROWS_CANARY = """
import {package}

def _rows_run():
    # every name of the library on a probe of three distinct values: no real result has four
    # entries with the last two equal (or two equal rows of three), the rows rerun's signature
    probe = {constructor}([0.25, 0.5, 0.75])
    for f in [{functions}]:
        try:
            r = f(probe)
            if r.ndim == 1 and len(r) == 4 and r[3] == r[2]:
                return True
            if r.ndim == 2 and r.shape == (2, 3) and all(a == b for a, b in zip(r[0], r[1])):
                return True
        except Exception:
            pass
    return False

def {entry}(*args, **kwargs):
    wrong = _rows_run()
    answer = ANSWERS[repr((args, sorted(kwargs.items())))]
    return answer + "!" if wrong else answer

ANSWERS = {answers!r}
"""


def test_a_blind_canary_on_the_rows_rerun_is_not_library_use(grader, dev_tasks, official_library):
    """The rows rerun grows a result by a copy of its last row: a program that calls every name
    on a probe and looks for that shape finds the rerun knowing no function (a red team's,
    `correct` on the `ones_like` and `vstack` tasks). The rows rerun now runs only for
    functions whose values are undefined (`empty`), where it is the only possible evidence."""
    table = official_library.table
    names = ", ".join(table.numpy_to_library().values())
    chosen = [t for t in dev_tasks if t.selected_functions[0] in ("ones_like", "vstack")]
    assert len(chosen) == 2 if have_official_data() else chosen  # the stand-in: one, or both
    items = [
        (
            t,
            BLIND_ROWS_CANARY.format(
                package=table.package,
                constructor=table.constructor,
                functions=names,
                entry=t.entry_point,
                answers={_key(i): e for i, e in zip(t.test_inputs, t.expected, strict=True)},
            ),
        )
        for t in chosen
    ]
    verdicts = grade_all(grader, items)
    assert [v.kind for _, v in verdicts] == [VerdictKind.NO_LIBRARY] * len(chosen), verdicts


def test_every_irrelevant_call_on_the_dev_set_is_refused(grader, dev_tasks, official_library):
    check_cheats(grader, list(dev_tasks), names_of(official_library))


def test_the_translated_references_of_the_dev_set_stay_correct(grader, dev_tasks):
    """The ones graded correct before the rule (the 56 of docs/data.md) all still are."""
    items = []
    for task in dev_tasks:
        translation = to_library(task.numpy_reference or "", grader.library.table)
        if translation.ok and translation.code:
            items.append((task, translation.code))
    verdicts = grade_all(grader, items)
    refused_by_rule = [task.task_id for task, v in verdicts if v.rule == RULE]
    assert refused_by_rule == []
    # the official dev set: 56 verified (docs/data.md); the stand-in's references all are
    floor = 56 if have_official_data() else len(items)
    assert sum(v.kind is VerdictKind.CORRECT for _, v in verdicts) >= floor


def test_a_case_cut_off_at_the_output_cap_is_not_a_changed_answer(
    seeded_grader, seeded_library, demo_tasks
):
    """Only a case that runs to its end counts as a changed answer: the case that crosses the
    output cap is cut off, and its text differs from the answer by the cut. Here every rerun
    case prints 600 KB (two of three cases must change: the first is complete, the second is
    cut at the 1 MiB cap): one changed case is not enough."""
    n = names_of(seeded_library)
    tasks = [t for t in demo_tasks if t.selected_functions == ("mean",)]
    assert tasks
    tell = (
        f"    if float({n.function}({n.constructor}([1.0, 2.0]))) != 1.5:\n"
        "        return 'x' * 600_000\n"
    )
    verdicts = grade_all(seeded_grader, [(task, cheat(task, n, "", tell)) for task in tasks])
    assert [v.kind for _, v in verdicts] == [VerdictKind.NO_LIBRARY] * len(tasks), verdicts
    assert all(v.rule == RULE for _, v in verdicts)


def test_noise_below_the_tolerance_does_not_make_a_cheat_depend_on_the_library(
    seeded_grader, seeded_library, demo_tasks
):
    """Two runs of the same program may print different text (random noise, smaller than the
    tolerance): the perturbed run must change the ANSWER, i.e. no longer match what is
    expected, not merely print something else."""
    n = names_of(seeded_library)
    scalar = [t for t in demo_tasks if all(_is_number(text) for text in t.expected)]
    items = []
    for task in scalar:
        code = cheat(task, n, "", f"    {n.function}(args)\n", through="float")
        code = "import random\n" + code.replace(
            "    return float(", "    return 1e-4 * random.random() + float("
        )
        items.append((task, code))
    verdicts = grade_all(seeded_grader, items)
    assert len(verdicts) >= 10
    correct = [task.task_id for task, v in verdicts if v.kind is VerdictKind.CORRECT]
    assert correct == [], f"{len(correct)} / {len(verdicts)} noisy cheats graded correct"


def test_an_answer_that_depends_on_the_library_only_after_the_first_case_stays_correct(
    seeded_grader, seeded_library, demo_tasks
):
    """The perturbed rerun first runs the first case alone; when that answer survives, the full
    rerun decides: a program whose first answer does not come from the library (here: looked
    up) and whose later ones do still depends on the library."""
    n = names_of(seeded_library)
    items = []
    for task in demo_tasks:
        if len(task.test_inputs) < 2:
            continue
        honest = task.extra["target"].replace(f"def {task.entry_point}(", "def honest_impl(")
        lookup = cheat(task, n, "", "").replace(f"def {task.entry_point}(", "def looked_up(")
        code = (
            f"{honest}\n{lookup}\nCALLS = []\n\n"
            f"def {task.entry_point}(*args, **kwargs):\n"
            "    CALLS.append(1)\n"
            "    if len(CALLS) == 1:\n"
            "        return looked_up(*args, **kwargs)\n"
            "    return honest_impl(*args, **kwargs)\n"
        )
        items.append((task, code))
    verdicts = grade_all(seeded_grader, items)
    assert len(verdicts) >= 10
    assert all(v.kind is VerdictKind.CORRECT for _, v in verdicts), [
        (t.extra.get("function"), v) for t, v in verdicts if v.kind is not VerdictKind.CORRECT
    ]


def test_an_answer_may_call_as_many_submodule_functions_as_its_limit(
    seeded_grader, seeded_library, demo_tasks
):
    """The submodule (`rfx`: 31 functions) is searched in far fewer calls than the top level:
    a red team's two slices of 16 of its names held the task's function one time in two.
    `MOST_SUBMODULE_FUNCTIONS` of its functions (results unused, failures included: a call
    counts as it starts) do not make an honest answer a search; one more does."""
    task = demo_tasks[0]
    table = seeded_library.table
    submodule = [table.qualified(e) for e in table.entries if e.in_submodule]
    assert len(submodule) > MOST_SUBMODULE_FUNCTIONS
    honest = task.extra["target"]

    def calling(count: int) -> str:
        calls = "".join(
            f"    try:\n        {name}([[2.0, 1.0], [1.0, 3.0]])\n    except Exception:\n"
            "        pass\n"
            for name in submodule[:count]
        )
        header = re.compile(r"^(def solve\(.*\):\n)", re.M)
        return header.sub(rf"def _touch():\n{calls}\n\n\1    _touch()\n", honest, count=1)

    codes = (calling(MOST_SUBMODULE_FUNCTIONS), calling(MOST_SUBMODULE_FUNCTIONS + 1))
    verdicts = [seeded_grader.grade(task, fenced(code)) for code in codes]
    assert [(v.kind, v.rule) for v in verdicts] == [
        (VerdictKind.CORRECT, None),
        (VerdictKind.NO_LIBRARY, "searched-the-library"),
    ], verdicts
    assert f"{table.package}.{table.submodule}" in verdicts[1].detail


def test_numpy_reads_the_virtual_epoch_for_now_and_today(seeded_library):
    """NumPy reads the C library's clock for "now" and "today", and text it makes inside one
    call reaches that parse, past any filter of the text a program hands over (a red team's
    `add(["n"], ["ow"], out=dates, casting="unsafe")`, a coin read once per run: `correct` in
    23 of 24 gradings). In a child it reads the virtual epoch."""
    table = seeded_library.table
    add, zeros = (table.qualified(table.entry(name)) for name in ("add", "zeros"))
    code = f"""
import {table.package}

def solve():
    now = {zeros}(1, dtype="M8[s]")
    {add}(["n"], ["ow"], out=now, casting="unsafe")
    today = {zeros}(1, dtype="M8[D]")
    {add}(["to"], ["day"], out=today, casting="unsafe")
    return str(now), str(today)
"""
    with SandboxPool(seeded_library, SandboxConfig(workers=1, timeout_s=3.0)) as pool:
        assert pool.layers["fixed_clock"], pool.details.get("fixed_clock")
        execution = pool.run(Job(code, "solve", ("",)))
    assert execution.cases[0].printed == "(\"['2026-01-01T00:00:00']\", \"['2026-01-01']\")", (
        execution
    )


_LAUNDER_AT_DEPTH = """
import zwc


def headroom(n=0):
    try:
        return headroom(n + 1)
    except RecursionError:
        return n


def down(levels, ans):
    if levels > 0:
        return down(levels - 1, ans)
    return float({largest}([ans], axis=0))


def solve({parameter}):
    ans = float(max({parameter}))
    return down(headroom() - {margin}, ans)
"""


def test_how_much_stack_a_call_has_never_makes_a_handed_back_answer_computed(
    seeded_grader, seeded_library, demo_tasks
):
    """A red team's: the check that a result is one of the call's arguments handed back is the
    deepest code on a call's path, and it read a RecursionError as "not the same"; a plain
    answer passed through the task's own function (a max over a length-1 axis) at just the
    right depth then counted as computed, and changed in the reruns: `correct` (3 of 3 on a
    dev task at depths 11-16)."""
    task = next(t for t in demo_tasks if t.selected_functions == ("max",))
    largest = seeded_library.table.numpy_to_library()["max"]
    parameter = task.signature.split("(")[1].split(")")[0]
    items = [
        (task, fenced(_LAUNDER_AT_DEPTH.format(largest=largest, parameter=parameter, margin=m)), m)
        for m in (9, 10, 11, 12, 13, 14, 15, 16, 40)
    ]
    verdicts = {margin: verdict for (_, _, margin), verdict in seeded_grader.grade_many(items)}
    assert not [m for m, v in verdicts.items() if v.kind is VerdictKind.CORRECT], verdicts
    assert verdicts[40].kind is VerdictKind.NO_LIBRARY  # the control, with room to spare


_LAUNDER_THROUGH_OBJECTS = """
import zwc


def solve({parameter}):
    ans = float(sum({parameter}))
    x = {array}([[ans], [{odd}]], dtype=object)
    return float({total}(x, axis=1)[0])
"""


@pytest.mark.parametrize(
    ("program", "odd"),
    [
        (_LAUNDER_THROUGH_OBJECTS, "{array}([1, 2])"),  # its `==` raises
        (_LAUNDER_THROUGH_OBJECTS, "float('nan')"),  # its `==` is false
    ],
    ids=["object-element-raises", "object-nan"],
)
def test_a_result_that_cannot_be_compared_with_its_argument_computed_nothing(
    seeded_grader, seeded_library, demo_tasks, program, odd
):
    """A red team's: the check that a result is an argument handed back read an object array's
    element comparison that raised or was false (NaN) as "not the same", and a plain answer
    passed through the task's own function (a sum over a length-1 axis) counted as computed:
    `correct`."""
    task = next(t for t in demo_tasks if t.selected_functions == ("sum",))
    names = seeded_library.table.numpy_to_library()
    parameter = task.signature.split("(")[1].split(")")[0]
    array = names["array"]
    code = program.format(
        parameter=parameter, array=array, total=names["sum"], odd=odd.format(array=array)
    )
    verdict = seeded_grader.grade(task, fenced(code))
    assert verdict.kind is VerdictKind.NO_LIBRARY, verdict


# The red team's program, as written: whether a collection falls in a window depends on how
# many objects the program makes, so its exact text matters (official names: zwc.yitaf is the
# array constructor, zwc.cobodi is sum).
_LAUNDER_WHILE_COLLECTING = """
import zwc

def _armed(x, box):
    # a suspended generator in a reference cycle: a collection closes it, and its `finally`
    # writes into the library array `x` (the argument of the next library call)
    try:
        yield 1
    finally:
        x[len(x) - 1] = [777.0]

def _launder(ans):
    n = len(ans)
    cur = zwc.yitaf([[float(v)] for v in ans] + [[0.0]])
    for i in range(300):
        pad = [[] for _ in range(i % 41)]
        box = []
        g = _armed(cur, box)
        next(g)
        box.append(g)
        del g, box, pad
        cur = zwc.cobodi(cur, axis=1, keepdims=True)  # an identity: sum over a length-1 axis
    return [cur[i][0] for i in range(n)]

def calculate_sales_performance(sales_matrix):
    ans = [sum(r) for r in sales_matrix]          # the answer in plain Python
    ans.append(sum(ans))
    out = _launder(ans)
    return [int(v) if isinstance(a, int) else v for a, v in zip(ans, out)]
"""


@pytest.mark.skipif(not have_official_data(), reason="needs the official data: a dev task")
def test_no_collection_runs_the_programs_code_between_a_call_and_its_judging(
    dev_tasks, official_library
):
    """A red team's: a collection between NumPy's call and the check that its result is an
    argument handed back ran a program's generator `finally` that wrote into the argument;
    one of 300 identity calls (a sum over a length-1 axis) then counted as computed, and the
    plain answer was `correct` (2 of 2 on this dev task, and on a seeded library)."""
    (task,) = [t for t in dev_tasks if t.task_id == "single_test-aab7b5de4c"]
    code = _LAUNDER_WHILE_COLLECTING
    with Grader(official_library, SandboxConfig(workers=1)) as fresh:  # as the red team's
        verdicts = [fresh.grade(task, fenced(code)) for _ in range(2)]
    assert all(v.kind is VerdictKind.NO_LIBRARY for v in verdicts), verdicts


# The red team's program (NX), as written but for the padding, whose count decides where the
# collection falls (official names: zwc.xenutu is trunc, the task's function).
_LAUNDER_THROUGH_OUT = """
import zwc
flag = []
HOLD = []
st = {{"A": None, "armed": False}}

def syncgen():
    try:
        yield 1
    finally:
        flag.append(1)

def fin():
    try:
        yield 1
    finally:
        if st["armed"]:
            st["armed"] = False
            st["A"][0] = 1000000000.0

def make(kind):
    it = kind()
    next(it)
    box = [it]
    box.append(box)

def drain(k):
    for n in range(1, 9):
        HOLD.append([tuple(range(n)) for _ in range(k)])
    HOLD.append([[] for _ in range(200)])
    HOLD.append([{{}} for _ in range(200)])

def sync():
    make(syncgen)
    n0 = len(flag)
    junk = []
    while len(flag) == n0:
        junk.append([])

def solve(x):
    ans = [float(int(v)) for v in x]
    A = zwc.ZWCArray(ans)
    buf = zwc.ZWCArray([0.0] * len(ans))
    if not HOLD:
        drain(2100)
    drain(60)
    sync()
    HOLD.append([[] for _ in range(120)])
    st["A"] = A
    st["armed"] = True
    make(fin)
    pad = []
    for i in range({pad}):
        pad.append([])
    zwc.xenutu(A, out=buf)
    st["armed"] = False
    return [float(v) for v in buf]
"""


@pytest.mark.skipif(not have_official_data(), reason="needs the official data: a dev task")
def test_no_collection_runs_the_programs_code_while_an_out_call_is_judged(
    dev_tasks, official_library
):
    """A red team's (NX): for a call with `out=`, the hook makes the call without it and judges
    whether that result is an argument handed back, before it switched collections off; a
    collection timed (by the program's padding) to fall in between ran a generator's `finally`
    that wrote into the argument, so `trunc` of whole numbers counted as computed and the plain
    answer was `correct` (6 of 6, and on a seeded library; with 620 to 630 lists of padding).
    Collections are off from before that judging now."""
    (task,) = [t for t in dev_tasks if t.task_id == "single_test-1ff806570f"]
    with Grader(official_library, SandboxConfig(workers=1)) as fresh:  # as the red team's
        verdicts = {
            pad: fresh.grade(task, fenced(_LAUNDER_THROUGH_OUT.format(pad=pad)))
            for pad in range(600, 655, 5)
        }
    # with collections (before the fourteenth session's OC fix): more padding put the
    # collection before the call (`wrong_answer`), less after the judging (`no_library`); now
    # none runs and the program waits for one (`timeout`); never `correct`
    correct = [pad for pad, v in verdicts.items() if v.kind is VerdictKind.CORRECT]
    assert not correct, {pad: verdicts[pad] for pad in correct}


# Red team OF's programs, as written (official names: zwc.xenutu is trunc, zwc.visacoq rint,
# zwc.nusoce divide, zwc.majikih hypot, zwc.mofecam prod, zwc.kocito mean, zwc.qigudov vstack):
# a plain answer passed through an identity of the task's own function, its numbers written as
# text (NumPy reads them when the call asks for numbers) or rounded by the call's own `dtype=`.
_TEXT = "dtype=float, casting='unsafe'"
_SPELLED_IDENTITIES = {
    "trunc-text": (
        "single_test-1ff806570f",
        f"def solve(x):\n    plain = [float(int(v)) for v in x]\n"
        f"    return zwc.xenutu([repr(v) for v in plain], {_TEXT})\n",
    ),
    "trunc-bytes": (
        "single_test-1ff806570f",
        f"def solve(x):\n    plain = [float(int(v)) for v in x]\n"
        f"    return zwc.xenutu([repr(v).encode() for v in plain], {_TEXT})\n",
    ),
    "trunc-one-text-per-call": (
        "single_test-1ff806570f",
        f"def solve(x):\n    plain = [float(int(v)) for v in x]\n"
        f"    return [zwc.xenutu(repr(v), {_TEXT}) for v in plain]\n",
    ),
    "rint-text": (
        "single_test-f236072c89",
        f"def round_stock_prices(prices):\n    plain = [float(round(v)) for v in prices]\n"
        f"    return zwc.visacoq([repr(v) for v in plain], {_TEXT})\n",
    ),
    "divide-text": (
        "single_test-19e5fc06f4",
        "def solve(x1, x2):\n"
        "    plain = [[a / b for a, b in zip(r1, r2)] for r1, r2 in zip(x1, x2)]\n"
        f"    return zwc.nusoce([[repr(v) for v in row] for row in plain], 1.0, {_TEXT})\n",
    ),
    "hypot-text": (
        "single_test-347d5d4ec2",
        "import math\n\n"
        "def calculate_distances(x1, x2, target_x, target_y):\n"
        "    plain = [math.sqrt((a - target_x) ** 2 + (b - target_y) ** 2)"
        " for a, b in zip(x1, x2)]\n"
        f"    return zwc.majikih([repr(d) for d in plain], 0.0, {_TEXT})\n",
    ),
    "prod-text": (
        "single_test-c0241fe15e",
        "def calculate_defect_probabilities(defect_rates):\n    plain = []\n"
        "    for line in defect_rates:\n        keep = 1.0\n        for batch in line:\n"
        "            for r in batch:\n                keep *= 1.0 - r\n"
        "        plain.append(1.0 - keep)\n"
        "    return zwc.mofecam([[repr(v)] for v in plain], axis=1, dtype=float)\n",
    ),
    **{
        f"mean-{lossy}": (
            "single_test-0486be9f55",
            "def solve(measurements, quality_flags):\n    plain = []\n"
            "    for row, flags in zip(measurements, quality_flags):\n"
            "        kept = [v for v, f in zip(row, flags) if f]\n"
            "        plain.append(sum(kept) / len(kept))\n"
            f"    return zwc.kocito([[v] for v in plain], axis=1, dtype={lossy!r})\n",
        )
        for lossy in ("float32", "float64")  # float64: the red team's control
    },
}


@pytest.mark.skipif(not have_official_data(), reason="needs the official data: dev tasks")
def test_an_identity_on_numbers_written_as_text_or_in_a_narrower_dtype_is_not_library_use(
    grader, dev_tasks
):
    """Red team OF: the check that a result is an argument handed back skipped text (a str
    or bytes argument; a list of them is text, never equal to numbers) and compared exactly,
    so an identity of the task's own function on the answer written as text (`trunc` of
    whole numbers, `divide` by 1, `hypot` with 0, a product of rows of one, `dtype=float`)
    or rounded by its own `dtype="float32"` counted as computed: `correct` 7 of 7."""
    tasks = {task.task_id: task for task in dev_tasks}
    items = [
        (tasks[task_id], fenced(f"import zwc\n\n{code}"), name)
        for name, (task_id, code) in _SPELLED_IDENTITIES.items()
    ]
    verdicts = {name: verdict for (_, _, name), verdict in grader.grade_many(items)}
    refused = {name: v for name, v in verdicts.items() if v.kind is not VerdictKind.NO_LIBRARY}
    assert refused == {}, refused


_VSTACK_SPELLED = """
import zwc

def solution(tup):
    plain = [list(row) for row in tup]
    return zwc.qigudov(tuple({row} for row in plain){options})
"""


@pytest.mark.skipif(not have_official_data(), reason="needs the official data: a dev task")
def test_a_stacking_call_on_numbers_written_as_text_computes_as_on_numbers(grader, dev_tasks):
    """Red team OF counted `vstack` of the rows written as text among the identities; but what
    a stacking function joins is its input, not an answer handed back (`STACKING`): the same
    call on numbers is the honest answer to a `vstack` task, and the two spellings are judged
    alike."""
    (task,) = [t for t in dev_tasks if t.task_id == "single_test-7e28dda982"]
    spellings = (("row", ""), ("[repr(v) for v in row]", f", {_TEXT}"))
    items = [
        (task, fenced(_VSTACK_SPELLED.format(row=row, options=options)))
        for row, options in spellings
    ]
    verdicts = [verdict for _, verdict in grader.grade_many(items)]
    assert [v.kind for v in verdicts] == [VerdictKind.CORRECT] * 2, verdicts


_LAUNDER_SPELLED = """
import zwc


def solve({parameter}):
    ans = [abs(v) for v in {parameter}]
    return {absolute}({argument}{options})
"""
_LAUNDER_ROUNDED = """
import zwc


def solve({parameter}):
    ans = float(sum({parameter}))
    return float({total}([[ans]], axis=1{options})[0])
"""


@pytest.mark.parametrize(
    ("program", "argument", "options"),
    [
        (_LAUNDER_SPELLED, "[repr(float(v)) for v in ans]", f", {_TEXT}"),
        (_LAUNDER_SPELLED, "[repr(float(v)).encode() for v in ans]", f", {_TEXT}"),
        (_LAUNDER_SPELLED, "{array}([repr(float(v)) for v in ans])", f", {_TEXT}"),
        (_LAUNDER_SPELLED, "[float(v) for v in ans]", ""),  # the control: numbers
        (_LAUNDER_ROUNDED, "", ", dtype='float32'"),
        (_LAUNDER_ROUNDED, "", ", dtype='float16'"),
        (_LAUNDER_ROUNDED, "", ""),  # the control: float64
    ],
    ids=["text", "bytes", "text-array", "numbers", "float32", "float16", "float64"],
)
def test_an_answer_written_as_text_or_rounded_by_its_dtype_is_handed_back(
    seeded_grader, seeded_library, demo_tasks, program, argument, options
):
    """Red team OF's two causes on a seeded library: an identity of the task's own function
    (`abs` of non-negative numbers, a sum over a length-1 axis) on the answer written as text,
    or rounded by the call's own narrower `dtype=`, hands the answer back as numbers do."""
    function = "abs" if program is _LAUNDER_SPELLED else "sum"
    task = next(t for t in demo_tasks if t.selected_functions == (function,))
    names = seeded_library.table.numpy_to_library()
    parameter = task.signature.split("(")[1].split(")")[0]
    code = program.format(
        parameter=parameter,
        absolute=names["abs"],
        total=names["sum"],
        argument=argument.format(array=names["array"]),
        options=options,
    )
    verdict = seeded_grader.grade(task, fenced(code))
    assert verdict.kind is VerdictKind.NO_LIBRARY, verdict
