"""Standard-library objects that read attributes by a name they hold (stdlib_guard.py): in a
child, the name cannot be rewritten and `update_wrapper` copies only from functions, while the
honest uses keep working. Run without the static policy: these are the run-time layer."""

from __future__ import annotations

import textwrap

import pytest

from sebench.grading.sandbox import ExecStatus, Job


def run(pool, code: str) -> str | None:
    execution = pool.run(Job(textwrap.dedent(code), "solve", ("x=1",)))
    assert execution.status is ExecStatus.OK, execution
    case = execution.cases[0]
    return case.printed if case.error_type is None else f"{case.error_type}: {case.error_message}"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        (
            "a field renamed after its class is made",
            """
            import dataclasses
            F = dataclasses.field(default=None)
            @dataclasses.dataclass
            class Box:
                slot: int = F
            def solve(x):
                F.name = "__class__"
                return "renamed"
            """,
        ),
        (
            "a cached property pointed at another key",
            """
            import functools
            class Box:
                @functools.cached_property
                def value(self):
                    return 1
            def solve(x):
                Box.value.attrname = "_sys"
                return "retargeted"
            """,
        ),
        (
            "a module's globals copied onto an object",
            """
            import functools, collections
            class Box:
                pass
            def solve(x):
                functools.wraps(collections)(Box())
                return "copied"
            """,
        ),
        (
            "a class's namespace copied onto an object",
            """
            import functools
            def solve(x):
                functools.update_wrapper(lambda: 0, int)
                return "copied"
            """,
        ),
    ],
)
def test_no_held_name_can_be_retargeted(pool, name, code):
    printed = run(pool, code)
    assert printed is not None and printed.startswith(("AttributeError", "TypeError")), printed


def test_the_honest_uses_still_work(pool):
    code = """
        import dataclasses, functools
        @dataclasses.dataclass(order=True)
        class Point:
            x: int
            tags: list = dataclasses.field(default_factory=list)
        class Circle:
            def __init__(self, r):
                self.r = r
            @functools.cached_property
            def area(self):
                return 3 * self.r * self.r
        def deco(fn):
            @functools.wraps(fn)
            def inner(*a):
                return fn(*a)
            return inner
        @deco
        def double(v):
            return 2 * v
        @functools.lru_cache
        def square(v):
            return v * v
        def solve(x):
            p = dataclasses.replace(Point(1), x=2)
            return [p, Point(1) < p, Circle(2).area, double.__name__, double(3), square(4)]
    """
    assert run(pool, code) == "[Point(x=2, tags=[]), True, 12, 'double', 6, 16]"
