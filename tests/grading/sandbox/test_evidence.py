"""The evidence of library use cannot be forged from inside the child (class 3 of issue 12), and
a perturbed run nudges what the library returns (class 5).

The programs here run without the static policy (straight to the sandbox), as an attacker who
has read the source and found a way past the policy would: every route to the call counts, the
frame sender or the harness's objects must be refused at run time, and nothing they try may
count as a library call.
"""

from __future__ import annotations

import textwrap

import pytest

from sebench.grading.sandbox import ExecStatus, Job, SandboxConfig, SandboxPool
from sebench.grading.sandbox.perturbation import Perturbation

pytestmark = pytest.mark.usefixtures("no_leftovers")

# Each route returns something truthy when it got through. `typing.sys` is the real `sys`
# (reaching a module is not refused at run time; the static policy refuses the attribute).
ROUTES = """
import typing
import zwc

real_sys = typing.sys


def frame_of_a_traceback():
    try:
        1 / 0
    except ZeroDivisionError as exc:
        return exc.__traceback__.tb_frame.f_back


def frame_of_a_generator():
    return (item for item in [1]).gi_frame


def frame_of_a_coroutine():
    async def nothing():
        return None
    coroutine = nothing()
    try:
        return coroutine.cr_frame
    finally:
        coroutine.close()


def frame_by_getframe():
    return real_sys._getframe(1)


def current_frames():
    return real_sys._current_frames()


def gc_objects():
    return real_sys.modules["gc"].get_objects()


def gc_referrers():
    return real_sys.modules["gc"].get_referrers(zwc.kocito)


def import_gc():
    import gc
    return gc


def import_inspect():
    import inspect
    return inspect.stack()


def import_importlib():
    import importlib
    return importlib


def stand_in_sys_modules():
    import sys
    return sys.modules


def reload_the_runtime():
    runtime = real_sys.modules["importlib"].reload(real_sys.modules["zwc._runtime"])
    runtime.call(len, False, ([1],), {})
    return False  # got through, but must count nothing (checked by the counts)


def trace_hook():
    real_sys.settrace(lambda *args: None)
    return True


def profile_hook():
    real_sys.setprofile(lambda *args: None)
    return True


def audit_hook():  # refused silently: the hook is not added
    seen = []
    real_sys.addaudithook(lambda event, args: seen.append(args))
    real_sys.audit("probe")
    return seen


def signal_handler():
    real_sys.modules["signal"].signal(14, lambda *args: None)
    return True


def swap_a_library_function_code():
    zwc.kocito.__code__ = (lambda *args, **kwargs: 0).__code__
    return True


def take_a_library_function_code():
    def mine(x):
        return x
    mine.__code__ = zwc.kocito.__code__
    return True


def new_function_from_library_code():
    code, cells = zwc.kocito.__code__, zwc.kocito.__closure__
    return type(zwc.kocito)(code, {}, "mine", None, cells)


def compile_under_a_library_name():
    name = zwc.__file__.replace("__init__.py", "_runtime.py")
    return compile("def call(*args):\\n    pass\\n", name, "exec")


def exec_library_code():
    exec(zwc.kocito.__code__, {})
    return True


def raw_memory():
    return open("/proc/self/mem", "rb")


def raw_memory_through_ctypes():
    ctypes = real_sys.modules.get("ctypes") or __import__("ctypes")
    return ctypes.c_char.from_address(id(zwc))


ROUTES = [value for name, value in list(globals().items()) if callable(value)
          and getattr(value, "__module__", None) == "__main__" and name != "solve"]


def forge_counts():
    runtime = real_sys.modules["zwc._runtime"]
    runtime.call(len, False, ([1],), {})  # the runtime called directly
    real_sys.audit(runtime.EVENT, [False, None])  # the event raised by hand
    real_sys.audit(runtime.EVENT, [False, None], real_sys.modules["numpy"].mean)  # a real target
    for cell in zwc.kocito.__closure__:  # a library function's target rebound to plain Python
        if callable(cell.cell_contents):
            cell.cell_contents = lambda *args, **kwargs: 0
    zwc.kocito([1.0])
    try:  # and the announcement silenced for later calls (a module is read-only: refused)
        runtime._audit = lambda *args: None
    except RuntimeError:
        pass


def solve(x):
    through = []
    for route in ROUTES:
        try:
            if route():
                through.append(route.__name__)
        except BaseException:
            pass
    forge_counts()
    return [x + 1, through]
"""


def run(pool, code: str, inputs=("x=1",), perturbation: Perturbation = Perturbation.NONE):
    return pool.run(Job(textwrap.dedent(code), "solve", inputs, perturbation=perturbation))


def test_no_route_from_the_program_reaches_frames_gc_code_or_the_counts(pool):
    execution = run(pool, ROUTES, ("x=1", "x=2"))
    assert execution.status is ExecStatus.OK, execution
    assert [case.printed for case in execution.cases] == ["[2, []]", "[3, []]"], execution
    assert [(c.library_calls, c.non_constructor_calls) for c in execution.cases] == [(0, 0)] * 2


def test_below_the_introspection_layer_the_routes_get_through_but_counts_stay_true(
    pool_below_introspection,
):
    """The routes above are real (the test can fail): without the layer most get through.
    Counting needs no layer: a call the library did not make never counts."""
    execution = run(pool_below_introspection, ROUTES)
    assert execution.status is ExecStatus.OK, execution
    printed = execution.cases[0].printed or ""
    for route in ("frame_of_a_traceback", "gc_objects", "trace_hook", "new_function_from"):
        assert route in printed, printed
    assert (execution.cases[0].library_calls, execution.cases[0].non_constructor_calls) == (0, 0)


def test_real_library_calls_count_and_honest_standard_library_code_still_works(pool):
    """What the standard library does for an honest program (read its caller's module name,
    build classes, walk its own generators) is not what the layer refuses."""
    execution = run(
        pool,
        """
        import abc, collections, contextlib, dataclasses, decimal, enum, fractions, functools
        import heapq, itertools, json, re, statistics, sys, typing, warnings
        import zwc

        Point = collections.namedtuple("Point", "x y")  # reads its caller's frame: ValueError
        T = typing.TypeVar("T")  # the same
        UserId = typing.NewType("UserId", int)
        Color = enum.Enum("Color", "RED GREEN")  # the same

        class Pair(typing.NamedTuple):
            a: int
            b: int

        @dataclasses.dataclass(frozen=True)
        class Box:  # dataclasses reads __init__.__code__ for its docstring
            value: float

        class Shape(abc.ABC):
            @abc.abstractmethod
            def area(self): ...

        class Square(Shape):
            def area(self):
                return 4

        @functools.total_ordering
        class Rank:
            def __init__(self, n):
                self.n = n
            def __eq__(self, other):
                return self.n == other.n
            def __lt__(self, other):
                return self.n < other.n

        @contextlib.contextmanager
        def guarded():
            try:
                yield
            except KeyError:
                pass

        @functools.lru_cache(maxsize=None)
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)

        def gen(values):
            yield from values

        def solve(x):
            sys.setrecursionlimit(2000)
            with guarded():
                {}["missing"]
            try:
                try:
                    raise KeyError("a")
                except KeyError as exc:
                    raise ValueError("b") from exc
            except ValueError as exc:
                chained = type(exc.__cause__).__name__
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                warnings.warn("quiet")
            g = gen([1, 2, 3])
            next(g)
            try:
                g.throw(StopIteration)
            except (StopIteration, RuntimeError):
                pass
            mean = float(zwc.kocito(zwc.yitaf([x, 3])))
            return [
                Point(1, 2).x, Box(mean).value, dataclasses.asdict(Box(1.0)), Pair(1, 2).b,
                Color.RED.value, UserId(5), Square().area(), Rank(1) <= Rank(2), fib(20),
                chained, heapq.nsmallest(2, [3, 1, 2]), statistics.median([1, 2, 3]),
                str(fractions.Fraction(1, 3) + decimal.Decimal(1).as_integer_ratio()[0]),
                [k for k, _ in itertools.groupby("aab")], json.dumps({"a": 1}),
                re.sub("a", lambda m: "b", "aa"), sum(gen([1, 2])), sys.maxsize > 0,
            ]
    """,
    )
    assert execution.status is ExecStatus.OK, execution
    assert execution.cases[0].error_type is None, execution
    assert execution.cases[0].printed == (
        "[1, 2.0, {'value': 1.0}, 2, 1, 5, 4, True, 6765, 'KeyError', [1, 2], 2, '4/3', "
        """['a', 'b'], '{"a": 1}', 'bb', 3, True]"""
    )
    assert (execution.cases[0].library_calls, execution.cases[0].non_constructor_calls) == (2, 1)


def test_a_perturbed_run_nudges_library_results_but_not_the_constructor(pool):
    code = """
        import zwc
        def solve(x):
            return [str(zwc.yitaf(x)), float(zwc.kocito(zwc.yitaf(x)))]
    """
    plain = run(pool, code, ("x=[1.0, 3.0]",))
    nudged = run(pool, code, ("x=[1.0, 3.0]",), perturbation=Perturbation.VALUES)
    assert plain.cases[0].printed == "['[1. 3.]', 2.0]"
    assert nudged.cases[0].printed == f"['[1. 3.]', {2.0 * 1.1 + 0.37!r}]"
    assert nudged.cases[0].non_constructor_calls == 1


def test_the_program_cannot_tell_a_perturbed_run_from_the_runtime(pool):
    """Nothing the program can read (the runtime module, the event it raises) differs."""
    code = """
        import typing
        import zwc
        def solve(x):
            runtime = typing.sys.modules["zwc._runtime"]
            answer = [False, None]
            typing.sys.audit(runtime.EVENT, answer)
            return sorted(k for k in vars(runtime) if not k.startswith("__")), answer
    """
    plain, nudged = run(pool, code), run(pool, code, perturbation=Perturbation.VALUES)
    assert plain.cases[0].printed == nudged.cases[0].printed
    assert "None]" in plain.cases[0].printed


def test_the_official_librarys_failures_count_only_from_the_library_and_stay_counted(pool):
    """A report of where the official library would have raised only lowers the official-rules
    verdict: one raised by the program counts nothing, and silencing the runtime's announcer
    (as `forge_counts` does for the calls) does not hide the library's own reports."""
    execution = run(
        pool,
        """
        import typing
        import zwc

        real_sys = typing.sys

        def solve(x):
            runtime = real_sys.modules["zwc._runtime"]
            if x == 1:
                real_sys.audit("sebench.official_failure", "forged")
                runtime.official_failure("forged through the runtime")
                return float(zwc.kocito([1.0, 2.0]))
            try:  # a module is read-only to the program: refused
                runtime._audit = lambda *args: None
            except RuntimeError:
                pass
            return float(zwc.kocito(-zwc.yitaf([1.0, 2.0])))
        """,
        ("x=1", "x=2"),
    )
    assert execution.status is ExecStatus.OK, execution
    assert [case.printed for case in execution.cases] == ["1.5", "-1.5"], execution
    assert [case.official_failures for case in execution.cases] == [0, 1]


def test_code_the_standard_library_runs_in_the_programs_module_is_program_code(pool):
    """`dataclasses` execs the methods it writes with the globals of the class's module,
    `__main__`: in a child that is the program's own module, not the fork server's globals and
    imports. (The program itself compiles nothing: `exec` is refused to it, test_hostile.py.)"""
    code = """
        import dataclasses

        @dataclasses.dataclass
        class P:
            a: int

        def solve(x):
            return [P.__init__.__globals__ is globals(), P(x).a]
    """
    execution = run(pool, code)
    assert execution.cases[0].printed == "[True, 1]", execution


# A collection started by the frames the hook's own lookups make ran the program's finalizers
# (a generator's `finally`) inside the hook's window, where every event passed: uncounted,
# unperturbed, unrefused (a red team tried all 247 functions there: `correct`). The window is
# told from outside by `namedtuple`, whose `sys._getframe` is refused to the program but not
# there: its class then names the program's module.
GC_WINDOW_JOB = textwrap.dedent(
    """
    from collections import namedtuple

    import zwc

    state = {"inside": 0, "ran": 0}


    def finalizer():
        try:
            yield 1
        finally:
            state["ran"] += 1
            if "__main__" in str(namedtuple("T", "a")):
                state["inside"] += 1


    def plant():
        generator = finalizer()
        next(generator)
        cycle = [generator]
        cycle.append(cycle)


    class K:
        pass


    keep = []
    plant()
    seen = 0
    for i in range(6000):
        if state["inside"]:
            break
        if state["ran"] > seen:
            seen = state["ran"]
            plant()
        for k in range((i * 7) % 23 + 1):
            keep.append(K())
        namedtuple("T", "a")
        zwc.kocito([1.0])
    keep = None


    def solve():
        return state["inside"], state["ran"] > 0
    """
)


def test_no_code_of_the_programs_runs_inside_the_hooks_own_window(standin_library):
    # a pool of its own: the search takes ~1 s here, the shared pool's deadline is 1.5 s
    with SandboxPool(standin_library, SandboxConfig(workers=1, timeout_s=10.0)) as pool:
        execution = pool.run(Job(GC_WINDOW_JOB, "solve", ("",)))
    assert execution.status is ExecStatus.OK, execution
    # none inside the window; and since the fourteenth session none at all: collections are
    # off for the whole run (child.py), so the finalizer never runs (OC's use-after-free)
    assert execution.cases[0].printed == "(0, False)", execution
