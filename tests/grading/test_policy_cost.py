"""What the static stage costs and what bounds it: it runs in the grader's own process, on its one
thread for static checks, with no time limit, so no text may make it slow; and its verdict may
depend on the program alone, not on the recursion limit of the process that grades."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import time

import pytest

from sebench.grading import policy
from sebench.grading.official_rules import official_prepare
from sebench.grading.verdicts import VerdictKind
from tests.grading.conftest import fenced

SHIFT = "compress_data_chunks"  # dev row 0: left shifts


@pytest.fixture(scope="module")
def task(dev_tasks):
    return next(t for t in dev_tasks if t.entry_point == SHIFT)


@pytest.fixture(scope="module")
def honest(official_library) -> str:
    """A correct answer to `task`, which the programs below pad."""
    shift = official_library.table.numpy_to_library()["bitwise_left_shift"]
    return (
        f"import zwc\n\ndef {SHIFT}(data_chunks, encoding_shifts):\n"
        f"    return {shift}(data_chunks, encoding_shifts)\n\n"
    )


def _type_annotation(names: int) -> str:
    return f"def pad(a: tuple[{', '.join(['type'] * names)}]):\n    return a\n"


def _property_setters(redefinitions: int) -> str:
    setters = "    @p.setter\n    def p(s, v):\n        pass\n" * redefinitions
    return f"class Q:\n    @property\n    def p(s):\n        return 0\n{setters}"


def _nodes(code: str) -> int:
    return sum(1 for _ in ast.walk(ast.parse(code)))


@pytest.fixture
def resolutions(monkeypatch):
    """Counts `resolve`, which every check that asks what a name is goes through; past a
    budget it fails at once, so a quadratic check fails the test instead of stalling it."""
    count = {"calls": 0, "budget": 0}
    real = policy._PolicyVisitor.resolve

    def counted(self, node, **keywords):
        count["calls"] += 1
        if count["calls"] > count["budget"]:
            raise AssertionError(f"more than {count['budget']} resolutions")
        return real(self, node, **keywords)

    monkeypatch.setattr(policy._PolicyVisitor, "resolve", counted)
    return count


@pytest.mark.parametrize(
    "program",
    [
        pytest.param(_type_annotation(4_000), id="4,000 `type` names in one annotation"),
        pytest.param(_property_setters(1_500), id="1,500 `@p.setter` redefinitions"),
        pytest.param(
            "import math\n" + ("y = math" + ".e" * 190 + "\n") * 40,
            id="40 chains of 190 attributes",
        ),
    ],
)
def test_a_name_repeated_in_a_shared_structure_costs_a_few_resolutions_each(program, resolutions):
    """A red team's (OG): each `type` of `tuple[type, type, ...]` asked of the whole
    annotation whether it only describes (4,000 names: 29 s of grader CPU; 12,500: 5 min
    18 s, `correct` all the same), and each `@p.setter` looked at every decorator of every `p`
    (2,081 redefinitions: 15 s); each link of an attribute chain resolved the chain below it
    (a red team's 64 KB of such chains: 2.1 s). Counted, not timed: a few resolutions a node."""
    resolutions["budget"] = 4 * _nodes(program)  # under the cap: the checks are measured
    assert policy.find_refusals(ast.parse(program), "zwc") == []


def test_the_4000_name_annotation_is_judged_in_well_under_a_second(grader, task, honest):
    """The red team's program itself, through both static stages (strict, then the official
    rules'), as `sebench eval` runs them: unchanged verdict, and fast (a margin of ~50 times
    for noisy machines)."""
    response = fenced(honest + _type_annotation(4_000))
    started = time.process_time()
    strict = grader.prepare(task, response)
    official = official_prepare(task, response, grader.table)
    spent = time.process_time() - started
    assert strict.verdict is None and strict.job is not None, strict.verdict
    assert official.verdict is None, official.verdict
    assert spent < 5, f"{spent:.1f} s of CPU"


@pytest.mark.parametrize(
    "padding",
    [
        pytest.param("y = [" + "x, " * 12_000 + "]\n", id="a long list"),
        pytest.param("def f(a: 'tuple[" + "int, " * 12_000 + "]'):\n    pass\n", id="in a string"),
    ],
)
def test_code_with_more_nodes_than_the_cap_is_refused_by_both_stages(grader, task, honest, padding):
    """The bound on the whole class: however a check grows with the text, it sees at most
    `MAX_NODES` nodes (a string annotation's count too: the checks parse and walk it)."""
    response = fenced(honest + padding)
    for verdict in (
        grader.prepare(task, response).verdict,
        official_prepare(task, response, grader.table).verdict,
    ):
        assert verdict is not None and verdict.kind is VerdictKind.POLICY, verdict
        assert verdict.rule == "too-many-nodes", verdict


def test_the_node_cap_is_far_above_honest_code(dev_tasks):
    """Every dev reference, NumPy or plain, has under a twentieth of the cap's nodes."""
    counts = [
        _nodes(code)
        for task in dev_tasks
        for code in (task.numpy_reference, task.plain_reference)
        if code
    ]
    assert len(counts) >= len(dev_tasks)
    assert max(counts) * 20 < policy.MAX_NODES, max(counts)


def _class_chain(classes: int) -> str:
    chain = "class K0:\n    pass\n" + "".join(
        f"class K{i}(K{i - 1}):\n    pass\n" for i in range(1, classes + 1)
    )
    return chain + f"def unused():\n    return K{classes}(1, 2)\n"


def _decorator_chain_written_backwards(links: int) -> str:
    # in a function never called: written backwards, each decorator is bound after its use,
    # which fails only if it runs
    chain = "".join(
        f"    @d{i - 1}\n    def d{i}(f):\n        return f\n" for i in range(links, 0, -1)
    )
    return f"def unused():\n{chain}    def d0(f):\n        return f\n    return d{links}\n"


# What each program must get, strict and official: the same under every recursion limit.
_CHAINS = {
    # 500 classes, each deriving from the one before (the red team's `reclimit_class_chain.py`)
    "class chain": (_class_chain(500), None),
    # refused anyway; the walk along it ran into the limit first at 1,000 (`too-deep`)
    "decorator chain": (_decorator_chain_written_backwards(400), "decorator"),
    # the tree itself cannot be built at the default limit (the parser's conversion recurses)
    "4,000 attributes": ("y = data_chunks" + ".real" * 4_000 + "\n", "too-deep"),
}

_VERDICTS = """
import json, sys
limit, library, data, program_file = sys.argv[1:]
sys.setrecursionlimit(int(limit))
from sebench.data.sources import load
from sebench.grading.grader import Grader
from sebench.grading.official_rules import official_prepare
from sebench.library.library import Library
task = next(t for t in load("single_test", data) if t.entry_point == "compress_data_chunks")
grader = Grader(Library.load(library))
found = {}
for name, response in json.load(open(program_file)).items():
    verdicts = grader.prepare(task, response).verdict, official_prepare(task, response, grader.table).verdict
    found[name] = [None if v is None else [v.kind.value, v.rule] for v in verdicts]
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def verdicts_by_limit(official_library, single_test_dev_path, honest, tmp_path_factory):
    """Each program's static verdicts (strict, official) in a fresh process at each limit:
    1,000 (Python's default, `sebench eval`) and 2,000 (what `torch.compile` sets in a trainer:
    TRL and verl grade in that process)."""
    programs = tmp_path_factory.mktemp("chains") / "programs.json"
    programs.write_text(
        json.dumps({name: fenced(honest + code) for name, (code, _) in _CHAINS.items()})
    )
    found = {}
    for limit in (1000, 2000):
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                _VERDICTS,
                str(limit),
                str(official_library.root),
                str(single_test_dev_path),
                str(programs),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        found[limit] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize("name", list(_CHAINS))
def test_the_static_verdict_does_not_depend_on_the_recursion_limit(verdicts_by_limit, name):
    """A red team's (OG): `is_enum_class` recursed along the chain of classes, and its
    RecursionError was `policy` (`too-deep`) at the default limit and nothing at 2,000:
    reward 0 in `sebench eval`, 1.0 through TRL after `torch.compile`. Every walk along a
    chain now goes without recursion, and a tree too deep to build is `too-deep` as a tree
    built too deep is."""
    rule = _CHAINS[name][1]
    expected = [None, None] if rule is None else [["policy", rule], ["policy", rule]]
    assert verdicts_by_limit[1000][name] == verdicts_by_limit[2000][name] == expected
