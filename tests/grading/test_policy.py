import ast
import json
import warnings

import pytest

from sebench.grading.extract import extract_code
from sebench.grading.policy import check_policy, find_refusals


def rule_of(code: str) -> str | None:
    refusal = check_policy(ast.parse(code), "zwc")
    return refusal.rule if refusal else None


# A decorator of the program's that returns something else than what it decorates.
_KEEP = "import typing, functools\n\ndef keep(c):\n    return typing.Type\n\n"


@pytest.mark.parametrize(
    ("code", "rule"),
    [
        ("import numpy as np", "numpy-import"),
        ("import numpy.linalg", "numpy-import"),
        ("from numpy import mean", "numpy-import"),
        ("m = __import__('numpy')", "numpy-dynamic"),
        ("import importlib\nm = importlib.import_module('numpy')", "numpy-dynamic"),
        ("exec('import numpy')", "numpy-dynamic"),
        ("import sys\nnp = sys.modules['numpy']", "numpy-dynamic"),
        ("m = __import__('os')", "dunder-name"),
        ("exec(source)", "dynamic-code"),
        ("f = eval", "dynamic-code"),
        ("import sys\nm = sys.modules", "import-table"),
        ("from sys import modules", "import-table"),
        ("import zwc\nx = zwc._np", "underscore-attribute"),
        ("x = (1).__class__", "underscore-attribute"),
        ("def f(g):\n    return g.__globals__", "underscore-attribute"),
        ("import zwc\nx = getattr(zwc, name)", "dynamic-attribute"),
        ("import zwc\nx = getattr(zwc, '_np')", "underscore-attribute"),
        ("g = getattr", "dynamic-attribute"),
        ("import operator\nf = operator.attrgetter(n)", "dynamic-attribute"),
        ("x = vars()", "namespace-access"),
        ("x = globals()['y']", "namespace-access"),
        ("x = locals()", "namespace-access"),
        ("import zwc._runtime", "private-import"),
        ("from zwc import _runtime", "private-import"),
        ("from zwc._runtime import call_counts", "private-import"),
        ("from . import x", "relative-import"),
        ("import scipy", "non-stdlib-module"),
        ("import pandas as pd", "non-stdlib-module"),
        ("import sebench", "non-stdlib-module"),
        ("import gc", "forbidden-module"),
        ("import os", "forbidden-module"),
        ("import ctypes", "forbidden-module"),
        ("import builtins", "forbidden-module"),
        ("x = open('/etc/passwd').read()", "file-access"),
        ("import sys\nf = sys.exc_info()[2].tb_frame", "frame-introspection"),
        ("def g():\n    yield 1\nx = g().gi_frame.f_back", "frame-introspection"),
        ("s = '{0.__class__}'.format(1)", "format-attribute"),
        (
            "x = 0\nmatch x:\n    case object(__class__=c):\n        pass",
            "underscore-attribute",
        ),
        ("class A:\n    grab = __import__\n    __import__ = None", "dunder-name"),
        ("class A:\n    __builtins__ = 1\n    x = __builtins__", "dunder-definition"),
        # the allowlist: modules that hand out eval, sys.modules or objects by a string name
        ("import pydoc", "forbidden-module"),
        ("import rlcompleter", "forbidden-module"),
        ("import concurrent.futures", "forbidden-module"),
        ("import sys.monitoring", "forbidden-module"),
        # Python 3.11's `array` writes a converted item where the index was, however far the
        # conversion (the program's `__float__`) shrank the array (red team OE)
        ("import array", "forbidden-module"),
        ("from array import array", "forbidden-module"),
        # a slice store that does not go through the child's store guard (stores.py)
        ("from operator import setitem", "reflective-name"),
        ("import operator\nf = operator.setitem", "reflective-name"),
        # capabilities reached through allowed modules, on any object
        ("import enum\nf = enum.bltns.eval", "capability-attribute"),
        ("import dataclasses\nf = dataclasses.builtins", "capability-attribute"),
        ("import dataclasses\nf = dataclasses.inspect.getattr_static", "capability-attribute"),
        ("from dataclasses import inspect", "capability-attribute"),
        ("import typing\nt = typing.sys", "capability-attribute"),
        ("import json\nc = json.codecs", "capability-attribute"),
        ("import string\nv = string.Formatter().get_field('0', (1,), {})", "capability-attribute"),
        ("import typing\nh = typing.get_type_hints(f)", "capability-attribute"),
        ("from typing import get_type_hints", "capability-attribute"),
        ("from functools import singledispatch", "capability-attribute"),
        ("import enum\nenum.global_enum(E)", "capability-attribute"),
        ("x = obj.exec", "capability-attribute"),
        ("x = getattr(obj, 'builtins')", "capability-attribute"),
        ("import operator\nf = operator.attrgetter('inspect.stack')", "capability-attribute"),
        ("x = 0\nmatch x:\n    case object(builtins=b):\n        pass", "capability-attribute"),
        # string annotations are code (typing.get_type_hints evals them)
        ("def f(x: \"__import__('os')\"):\n    pass", "dunder-name"),
        ("def f(x) -> 'List[\"vars()\"]':\n    pass", "namespace-access"),
        ("y: 'exec(s)' = 1", "dynamic-code"),
        # sys: constants and limits only
        ("import sys\nm = sys", "sys-use"),
        (
            "import sys\ns = string.Formatter().vformat('{0.version}', (sys,), {})",
            "reflective-name",
        ),
        ("import sys as s\nm = s.monitoring", "capability-attribute"),
        ("import sys\nf = sys.call_tracing", "capability-attribute"),
        ("import sys\np = sys.path", "sys-use"),
        ("from sys import path", "sys-use"),
        ("match sys:\n    case object(version=v):\n        pass\nimport sys", "sys-use"),
        # a dunder name as a string is a computed attribute name
        ("functools.update_wrapper(box, f, assigned=('__globals__',))", "wrapper-attributes"),
        # format fields as Python parses them: a `}` inside `[...]` does not end the field
        ("s = '{0[}].__globals__}'.format({'}': f})", "format-attribute"),
        ("s = '{0[}].real.__class__}'.format({'}': 1})", "format-attribute"),
        # a name checked by what it is, bound to something else anywhere: at run time, in
        # another scope or after a `del`, it is still the builtin or the import
        ("def describe(v, type=None):\n    return v\n\nk = type(x)(y)", "shadowed-name"),
        ("type = None\ndel type\nk = type(x)(y)", "shadowed-name"),
        ("try:\n    pass\nexcept Exception as type:\n    pass", "shadowed-name"),
        ("ks = [type for type in range(3)]", "shadowed-name"),
        ("if 0:\n    getattr = 1", "shadowed-name"),
        ("from functools import wraps\n\ndef f(wraps):\n    return wraps", "shadowed-name"),
        ("import functools as ft\n\ndef f():\n    ft = 1\n    return ft", "shadowed-name"),
        ("from enum import Enum\n\nfor Enum in range(2):\n    pass", "shadowed-name"),
        # an annotation is evaluated: a type expression only, nothing that runs
        ("holder = []\nprobe: holder.append(type) = 0", "annotation-code"),
        ("def f(a: print('x')) -> int:\n    return 1", "annotation-code"),
        ("def f(a) -> (lambda: type)():\n    return 1", "annotation-code"),
        ("x: 'holder.append(type)' = 0", "annotation-code"),
        # the object a failed lookup was made on, handed out by AttributeError
        ("try:\n    pass\nexcept AttributeError as e:\n    o = e.obj", "frame-introspection"),
        # a submodule of an allowed package is not allowed by being its package's
        ("import json.tool", "forbidden-module"),
        ("import json.tool as t", "forbidden-module"),
        ("from json import tool", "forbidden-module"),
        ("from json.tool import main", "forbidden-module"),
        # the Enum functional API on an Enum class of the code's names members by data
        (
            "import enum\n\nclass C(enum.Enum):\n    pass\n\nclass D(C):\n    pass\n\n"
            "M = D('M', [('__reduce' + '_ex__', 1)], module='m')",
            "dynamic-class",
        ),
        # ... and on Enum itself, its arguments unpacked from a list (a red team's)
        ("import enum\nM = enum.Enum(*['M', [('_missing_', 1)]])", "dynamic-class"),
        ("import enum\nparts = ('M', 'a b')\nM = enum.Enum(*parts)", "dynamic-class"),
        # a definition is what its decorators return: `@keep class Base` may bind anything
        (f"{_KEEP}@keep\nclass Base:\n    pass\n\nclass Meta(Base):\n    pass", "class-base"),
        (f"{_KEEP}@keep\ndef d(f):\n    return f\n\n@d\ndef g():\n    pass", "decorator"),
        (f"{_KEEP}@functools.cache\nclass B:\n    pass\n\nclass C(B):\n    pass", "class-base"),
        (f"{_KEEP}@keep\ndef v(s):\n    pass\n\n@v.setter\ndef v(s, x):\n    pass", "decorator"),
        (
            "def f(c):\n    return c\n\n@f\ndef f(c):\n    return c\n\n@f\nclass A:\n    pass",
            "decorator",
        ),
        # slot names are attribute names: only literal plain ones (a red team's built special
        # members, `__array_ufunc__`, at run time)
        ("u = '_' * 2\n\nclass C:\n    __slots__ = (u + 'class' + u,)", "dunder-definition"),
        ("class C:\n    __slots__ = ('x', '__array_ufunc__')", "dunder-definition"),
        ("N = ('x',)\n\nclass C:\n    __slots__ = N", "dunder-definition"),
        ("class C:\n    __slots__: tuple = ('x' + 'y',)", "dunder-definition"),
        ("class C:\n    __slots__ = ()\n    __slots__ += ('x',)", "dunder-definition"),
    ],
)
def test_policy_refuses_each_trick_under_its_named_rule(code, rule):
    assert rule_of(code) == rule


@pytest.mark.parametrize(
    "code",
    [
        "import zwc\n\ndef f(x):\n    return zwc.kocito(x)",
        "from zwc import rfx\nimport zwc as z\n\ndef f(a):\n    return rfx.quvohe(z.yitaf(a))",
        "import math, itertools, functools, collections, statistics, sys\nx = sys.maxsize",
        "import sys\nsys.setrecursionlimit(10000)\nfrom sys import maxsize",
        "from collections.abc import Sequence\nfrom typing import List, Optional",
        "import re, json, heapq, bisect, copy, fractions, decimal, random, operator, string",
        "import datetime, numbers, enum, dataclasses, struct, textwrap, cmath, abc",
        "import re\npattern = re.compile(r'\\d+')",
        "def f(x: 'List[int]') -> 'Optional[float]':\n    return None",
        "class Stack:\n    def __init__(self):\n        self.stack = []\n    def push(self, v):\n"
        "        self.stack.append(v)",
        "if __name__ == '__main__':\n    pass",
        "from __future__ import annotations\nimport typing",
        "def f(x):\n    '''Uses numpy-like broadcasting.'''\n    return [v * 2 for v in x]",
        "if __name__ == '__main__':\n    print(1)",
        "class A:\n    def __init__(self):\n        self.x = 1\n    def __repr__(self):\n        return 'A'",
        "def f(obj):\n    return getattr(obj, 'shape', None), hasattr(obj, 'ndim')",
        "for _ in range(3):\n    pass",
        "class A:\n    def __str__(self):\n        return 'a'\n\n    __repr__ = __str__",
        "class P:\n    __slots__ = ('x', 'y')\n\nclass Q:\n    __slots__ = 'z'\n\nclass R:\n"
        "    __slots__ = []\n\nclass S:\n    __slots__: tuple = ('w',)",
        "x, y = 1.0, 'a'\ns = f'{x:.2f} {y!r}'",
        "def f(d, v, point):\n    return '{0[a]} {1:>{w}} {p.x}'.format(d, v, w=3, p=point)",
        # decorators that hand back what they decorate keep a definition a class or function
        "from dataclasses import dataclass\n\n@dataclass(frozen=True)\nclass P:\n    x: int\n\n"
        "class Q(P):\n    pass",
        "import functools\n\n@functools.total_ordering\nclass P:\n    pass\n\nclass Q(P):\n"
        "    pass",
        "def deco(f):\n    return f\n\n@deco\ndef g():\n    pass",
        "import enum\n\nclass C(enum.Enum):\n    A = 1\n\nc = C(1)",
        "import collections.abc\nimport json.decoder\nfrom json import JSONDecodeError",
        "import typing\n\nx: int | None = None\n\n"
        "def f(a: typing.Callable[[int], str], *b: 'list[int]') -> dict[str, typing.Any]:\n"
        "    return {}",
    ],
)
def test_policy_allows_ordinary_code(code):
    assert rule_of(code) is None


_DANGEROUS_BUILTINS = (
    "eval exec compile open getattr setattr delattr __import__ globals locals vars"
)


def test_no_public_attribute_path_from_an_allowed_module_leads_out_unrefused():
    """Walk every public attribute of the allowed modules (and of their classes and submodules):
    a path to a module outside the allowlist, to `sys`, or to a builtin that runs code or reads
    attributes by name must pass through an attribute name the policy refuses."""
    import builtins
    import importlib
    import types

    from sebench.grading.policy import (
        ALLOWED_MODULES,
        ALLOWED_SUBMODULES,
        CAPABILITY_ATTRIBUTES,
        IMPORT_TABLE_ATTRIBUTES,
        INTROSPECTION_ATTRIBUTES,
    )

    refused = CAPABILITY_ATTRIBUTES | IMPORT_TABLE_ATTRIBUTES | INTROSPECTION_ATTRIBUTES
    dangerous = {id(getattr(builtins, name)) for name in _DANGEROUS_BUILTINS.split()}
    allowed = (ALLOWED_MODULES | ALLOWED_SUBMODULES) - {"sys", "__future__"}
    queue = [(importlib.import_module(name), name, 0) for name in sorted(allowed)]
    seen: set[int] = set()
    leaks = []
    while queue:
        holder, path, depth = queue.pop()
        if id(holder) in seen or depth > 4:
            continue
        seen.add(id(holder))
        for name in dir(holder):
            if name.startswith("_") or name in refused:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)  # typing.re, typing.io
                    value = getattr(holder, name)
            except Exception:  # a lazy attribute that fails: nothing handed out
                continue
            where = f"{path}.{name}"
            if isinstance(value, types.ModuleType):
                if value.__name__ not in allowed:  # a submodule is a module of its own
                    # refused by what it reaches, not by a name on the way (`json.tool`, once
                    # something imported it: `forbidden-module`)
                    top = where.split(".")[0]
                    if rule_of(f"import {top}\nx = {where}.attribute") != "forbidden-module":
                        leaks.append(f"{where} is the module {value.__name__}")
                    continue
            elif id(value) in dangerous:
                leaks.append(f"{where} is the builtin {name}")
                continue
            if isinstance(value, types.ModuleType | type):
                queue.append((value, where, depth + 1))
    assert not leaks, leaks


def test_no_function_a_reflective_module_hands_out_returns_type_or_a_metaclass():
    """`type` (or any metaclass) as a value reads the class of anything and makes classes: a
    red team had it from `typing.get_origin(typing.Type[int])`. Every callable the policy lets
    those modules hand out, given a generic alias, a class or a function, returns neither."""
    import importlib
    import inspect
    import typing

    from sebench.grading.policy import REFLECTIVE_MODULE_NAMES

    # the typing module's own aliases, as a program writes them (the attack used typing.Type)
    probes = (typing.Type[int], typing.List[int], typing.Optional[int])  # noqa: UP006, UP045
    probes += (int, object, len, (int,))
    leaks = []
    for module_name, names in sorted(REFLECTIVE_MODULE_NAMES.items()):
        module = importlib.import_module(module_name)
        for name in sorted(names):
            value = getattr(module, name, None)
            if not callable(value) or inspect.isclass(value):
                continue
            for probe in probes:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        result = value(probe)
                except Exception:
                    continue
                items = result if isinstance(result, tuple) else (result,)
                if any(isinstance(item, type) and issubclass(item, type) for item in items):
                    leaks.append(f"{module_name}.{name}({probe!r})")
    assert not leaks, leaks


def test_numpy_refusal_wins_on_the_same_line():
    refusals = find_refusals(ast.parse("import numpy, os"), "zwc")
    assert refusals[0].rule == "numpy-import"


def _legitimate_programs(dev_tasks, single_test_dev_path, table):
    """Library translations of the NumPy references, the plain-Python `right_code` functions
    and the models' majority-vote responses: every one that does not use NumPy itself."""
    from sebench.data.translate import to_library

    programs = []
    for task in dev_tasks:
        if task.numpy_reference:
            translated = to_library(task.numpy_reference, table)
            if translated.code:
                programs.append(("translated", task.task_id, translated.code))
        if task.plain_reference:
            programs.append(("plain", task.task_id, task.plain_reference))
    with open(single_test_dev_path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            for model, response in (json.loads(line).get("major_vote_response_dict") or {}).items():
                code = extract_code(response)
                if code:
                    programs.append((f"vote:{model}", f"row {number}", code))
    legit = []
    for kind, where, code in programs:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        refusals = find_refusals(tree, table.package)
        if any(r.numpy for r in refusals):
            continue  # uses NumPy: a correct refusal, not a false one
        legit.append((kind, where, refusals))
    return legit


def test_policy_false_refusal_rate_on_legitimate_code_is_under_one_percent(
    dev_tasks, single_test_dev_path, official_library
):
    legit = _legitimate_programs(dev_tasks, single_test_dev_path, official_library.table)
    refused = [(kind, where, r[0].rule) for kind, where, r in legit if r]
    translated = [item for item in legit if item[0] == "translated"]
    assert len(translated) >= len(dev_tasks) - 4, "the references' translations must be measured"
    assert len(legit) >= 2.3 * len(dev_tasks)  # official dev split: 165 programs for 64 rows
    rate = len(refused) / len(legit)
    print(f"false refusals: {len(refused)}/{len(legit)} = {rate:.2%}: {refused}")
    assert rate < 0.01, refused
    assert not [item for item in translated if item[2]], "a library translation was refused"


def test_policy_refuses_no_demo_task_target_nor_its_translated_reference(official_library):
    """The demo's tasks (training/taskgen.py): the target solution and the library translation
    of the NumPy reference, for every function the generator knows."""
    from sebench.data.translate import to_library
    from sebench.training.taskgen import TWELVE_FUNCTIONS, TaskSetConfig, generate_tasks

    table = official_library.table
    tasks = generate_tasks(table, TaskSetConfig(functions=TWELVE_FUNCTIONS, train_per_function=8))
    programs = [task.extra["target"] for task in (*tasks.train, *tasks.test)]
    programs += [to_library(task.numpy_reference, table).code for task in tasks.test]
    refused = [(code, find_refusals(ast.parse(code), table.package)) for code in programs]
    assert len(programs) > 100
    assert [item for item in refused if item[1]] == []


# Every way Python binds a name: none may define a name the interpreter calls or reads by name
# (a red team bound `__annotations__` with a `match` capture, which the per-statement checks
# missed).
BINDING_FORMS = {
    "assignment": "{n} = 1",
    "annotated assignment": "{n}: int = 1",
    "augmented assignment": "{n} += 1",
    "for target": "for {n} in []:\n    pass",
    "with as": "with manager as {n}:\n    pass",
    "except as": "try:\n    pass\nexcept Exception as {n}:\n    pass",
    "import as": "import math as {n}",
    "from import as": "from math import pi as {n}",
    "walrus": "if ({n} := 1):\n    pass",
    "comprehension target": "[0 for {n} in []]",
    "match capture": "match 1:\n    case {n}:\n        pass",
    "match as": "match 1:\n    case int() as {n}:\n        pass",
    "match star": "match [1]:\n    case [*{n}]:\n        pass",
    "match mapping rest": "match {{}}:\n    case {{**{n}}}:\n        pass",
    "parameter": "def f({n}):\n    pass",
    "keyword-only parameter": "def f(*, {n}):\n    pass",
    "star parameter": "def f(*{n}):\n    pass",
    "lambda parameter": "f = lambda {n}: 0",
    "function name": "def {n}():\n    pass",
    "class name": "class {n}:\n    pass",
    "global, then assigned": "def f():\n    global {n}\n    {n} = 1",
    "in a class body, by match": "class A:\n    match 1:\n        case {n}:\n            pass",
}


@pytest.mark.parametrize("form", list(BINDING_FORMS))
@pytest.mark.parametrize("name", ["__annotations__", "__getattr__", "__class_getitem__"])
def test_no_form_of_binding_defines_a_special_name(form, name):
    assert rule_of(BINDING_FORMS[form].format(n=name)) == "dunder-definition"


# Every place an identifier is written, read or bound; inside a class body Python renames each
# `__x` there to `_Class__x` (`{n}` is the private name).
PRIVATE_NAME_FORMS = {
    **BINDING_FORMS,
    "read": "x = {n}",
    "attribute": "x = y.{n}",
    "call keyword": "f({n}=1)",
    "class pattern keyword": "match 1:\n    case int({n}=v):\n        pass",
    "nonlocal": "def f():\n    x = 1\n    def g():\n        nonlocal {n}",
    "imported name": "from math import {n}",
    "base": "class A({n}):\n    pass",
    "decorator": "@{n}\ndef f():\n    pass",
}


@pytest.mark.parametrize("form", list(PRIVATE_NAME_FORMS))
@pytest.mark.parametrize("name", ["__B", "___x", "__x_"])
def test_a_name_python_renames_in_a_class_is_refused_wherever_it_is_written(form, name):
    """A red team's: `_Holder__B = typing.Type` and a class `__B`; in `class Holder`, `class
    Meta(__B)` derived from `type` while the policy read a class of the code's."""
    code = PRIVATE_NAME_FORMS[form].format(n=name)
    assert "private-name" in {r.rule for r in find_refusals(ast.parse(code), "zwc")}, code


def test_the_renamed_binding_is_refused_with_the_class_that_reads_it():
    code = (
        "from typing import Type as _Holder__B\n\n"
        "class __B:\n    pass\n\n"
        "class Holder:\n    class Meta(__B):\n        pass\n"
    )
    assert rule_of(code) == "private-name"


@pytest.mark.parametrize("operator", ["+=", "|=", "@=", "**="])
@pytest.mark.parametrize(
    ("target", "rule"),
    [
        ("exec", "dynamic-code"),
        ("eval", "dynamic-code"),
        ("compile", "dynamic-code"),
        ("globals", "namespace-access"),
        ("vars", "namespace-access"),
        ("open", "file-access"),
        ("getattr", "dynamic-attribute"),
        ("__builtins__", "dunder-name"),
        ("typing.sys", "capability-attribute"),
    ],
)
def test_an_augmented_assignment_reads_its_target_under_the_rules_for_reads(operator, target, rule):
    """`x += y` reads x before it binds it: a red team's `exec += Grab()` handed the real
    builtin to `Grab.__radd__` (the store alone had been checked)."""
    code = f"import typing\n\nclass Grab:\n    pass\n\n{target} {operator} Grab()\n"
    assert rule in {r.rule for r in find_refusals(ast.parse(code), "zwc")}, code


@pytest.mark.parametrize("name", ["__init__", "__name__", "__", "_x", "_A__", "x__y"])
def test_special_and_single_underscore_names_are_not_private(name):
    assert "private-name" not in {r.rule for r in find_refusals(ast.parse(f"x = {name}"), "zwc")}


@pytest.mark.parametrize(
    "code",
    [
        # attribute names given positionally, through partial, or under another name
        "import functools\nfunctools.wraps(f, ('a',), ())(g)",
        "import functools\nw = functools.partial(functools.wraps, f, ('a',))",
        "import functools\nw = functools.wraps\nw(f, ('a',))",
        "from functools import wraps\nwraps(f, names)",
        "import functools\nfunctools.wraps(*args)",
        "import functools\nfor w in [functools.wraps]:\n    w(f, names)",
    ],
)
def test_wraps_copies_no_attribute_named_by_the_program(code):
    assert rule_of(code) == "wrapper-attributes"


def test_wraps_as_honest_code_uses_it_passes():
    assert (
        rule_of(
            "import functools\n\ndef deco(f):\n    @functools.wraps(f)\n"
            "    def inner(*a):\n        return f(*a)\n    return inner"
        )
        is None
    )


@pytest.mark.parametrize(
    "code",
    [
        "t = type(int)(int)",  # `type` itself
        "c = type(x)(y)",  # for a class `x`, `type`
        "k = [type(x)][0](y)",
        "c = type(x)(*args)",
        # text: for an `attrgetter` that is its class, reading a name no check sees (a red
        # team's `type(getter)("g.__class__")`, on to `__globals__`)
        "import operator\ng = type(operator.attrgetter('real'))('imag')",
        "g = type(x)('real')",
        "g = type(x)(b'real')",
    ],
)
def test_the_type_of_an_object_is_called_with_numbers_only(code):
    assert rule_of(code) == "dynamic-class"


@pytest.mark.parametrize("constant", ["0", "0.0", "None", "True", "1j"])
def test_the_type_of_a_value_called_with_a_number_passes(constant):
    assert rule_of(f"def zero_like(x):\n    return type(x)({constant})") is None


@pytest.mark.parametrize("text", ["g.__class__", "a.b.__globals__", "__class__.x"])
def test_a_dotted_path_through_a_dunder_is_refused_as_text(text):
    assert rule_of(f"path = {text!r}") == "dunder-string"


@pytest.mark.parametrize("text", ["a.b.c", "__main__", "see x.__init__ docs", "_private.x"])
def test_text_that_is_no_dunder_path_passes(text):
    assert rule_of(f"path = {text!r}") is None


def test_dataclass_fields_whose_names_replace_reads_are_not_handed_out():
    code = "import dataclasses\nf = dataclasses.fields(Box)[0]\nf.name = name"
    assert rule_of(code) == "reflective-name"


@pytest.mark.parametrize(
    "code",
    [
        "import datetime\nx = datetime.datetime.now()",
        "from datetime import datetime\nx = datetime.utcnow()",
        "import datetime\nx = datetime.datetime.now(datetime.timezone.utc)",
        "import operator, datetime\nx = operator.methodcaller('now')(datetime.datetime)",
    ],
)
def test_the_system_clock_read_in_c_is_refused(code):
    """`datetime.now` reads the clock in C, where the sandbox's virtual clock cannot reach: a
    coin a program could toss once per run (`date.today()` reads the virtual one)."""
    assert rule_of(code) == "capability-attribute"


def test_the_dates_that_read_the_virtual_clock_pass():
    assert rule_of("import datetime\nx = datetime.date.today()") is None


@pytest.mark.parametrize(
    "code",
    [
        "def helper():\n    raise",
        "raise",
        # a def inside a handler runs later, wherever it is called from
        "try:\n    pass\nexcept ValueError:\n    def later():\n        raise",
        "try:\n    pass\nexcept ValueError:\n    f = lambda: (yield)\nraise",
        "def gen():\n    try:\n        yield 1\n    finally:\n        raise",
    ],
)
def test_a_bare_raise_outside_an_except_block_is_refused(code):
    """It re-raises whatever exception is being handled: from a finalizer that a collection ran
    while the library handled one of NumPy's, that was NumPy's raw exception (a red team's)."""
    assert rule_of(code) == "bare-raise"


@pytest.mark.parametrize(
    "code",
    [
        "try:\n    pass\nexcept ValueError:\n    raise",
        "def f():\n    try:\n        pass\n    except (KeyError, IndexError):\n        if True:\n            raise",
        "try:\n    pass\nexcept ValueError:\n    try:\n        pass\n    finally:\n        raise",
        "x = 1\nraise ValueError('no')",
    ],
)
def test_a_bare_raise_in_the_programs_own_except_block_passes(code):
    assert rule_of(code) is None


@pytest.mark.parametrize(
    "code",
    [
        "import time\nx = time.pthread_getcpuclockid(140737344072560)",
        "from time import clock_getres",
        "import time\nx = time.clock_settime(0, 1.0)",
    ],
)
def test_time_functions_that_take_a_clock_id_are_refused(code):
    """glibc reads a thread clock's id as a pointer: an arbitrary read of the child's memory."""
    assert rule_of(code) == "capability-attribute"


# A name no binding of the code's and no builtin gives raises NameError in honest code; a name
# put into the code's globals some other way would pass every check that asks what a name is
# (a red team copied typing's module globals in, then used `sys` without importing it).
@pytest.mark.parametrize(
    "code",
    [
        "def f():\n    return sys.modules",
        "def f():\n    return os.system('true')",
        "def f():\n    return gc.get_objects()",
        "def f(x):\n    return operator.attrgetter(x)",
        "def f():\n    return types.FunctionType",
        "x = ctypes",
        "class C(Base):\n    pass",
        "def f(x: np.ndarray):\n    return x",  # evaluated when `def` runs
        "def f() -> Unknown:\n    return 0",
        "x: Unknown = 0",  # a module's annotation is evaluated
        "class C:\n    x: Unknown = 0",  # and a class body's
        "def f():\n    return [y for y in range(3) if z]",
        "def f():\n    return os.system('true')\n\ndef g():\n    del os",  # deleting binds nothing
        "types: int\n\ndef f():\n    return types.FunctionType",  # nor does declaring
    ],
)
def test_a_name_nothing_binds_is_refused(code):
    assert "unbound-name" in [r.rule for r in find_refusals(ast.parse(code), "zwc")]


@pytest.mark.parametrize(
    "code",
    [
        "def f():\n    return len(g())\n\ndef g():\n    return [1]",  # bound after its use
        "def f():\n    global total\n    total = 1\n\ndef g():\n    return total",
        "def f():\n    x: Unknown = 0\n    return x",  # a local's annotation is never evaluated
        "from __future__ import annotations\n\ndef f(x: np.ndarray) -> Unknown:\n    return x",
        "from __future__ import annotations\n\nclass C:\n    x: Unknown = 0",
        "def f(x: 'np.ndarray') -> 'Unknown':\n    return x",
        "if __name__ == '__main__':\n    print(len([]))",
        "try:\n    pass\nexcept ValueError as e:\n    print(e)",
        "def f(p):\n    match p:\n        case [a, *rest]:\n            return a, rest\n"
        "        case {'k': v, **others}:\n            return v, others",
        "def f():\n    return [(n := i) for i in range(3)], n",
    ],
)
def test_names_bound_anywhere_builtins_and_unevaluated_annotations_pass(code):
    assert rule_of(code) is None


# `from M import n` reads `M.n`: what no code may read as an attribute of anything is refused
# whichever module re-exports it (a red team's `from numbers import ABCMeta`, a metaclass it
# then called with a namespace holding `__eq__`; `from re import functools`, then
# `functools.GenericAlias`, a name the module's own list refuses).
@pytest.mark.parametrize(
    ("code", "rule"),
    [
        ("from numbers import ABCMeta", "reflective-name"),
        ("from typing import ABCMeta", "reflective-name"),
        ("from re import functools", "reflective-name"),
        ("from re import enum", "reflective-name"),
        ("from fractions import operator", "reflective-name"),
        ("from typing import functools", "reflective-name"),
        ("from enum import EnumType", "reflective-name"),
        ("from re import copyreg", "capability-attribute"),
        ("from json import codecs", "capability-attribute"),
        ("from dataclasses import sys", "capability-attribute"),
        ("from typing import get_type_hints", "capability-attribute"),
        ("from sys import modules", "import-table"),
        ("from sys import exc_info", "frame-introspection"),
    ],
)
def test_an_imported_name_is_checked_as_an_attribute_of_its_module(code, rule):
    assert rule_of(code) == rule


def test_a_reflective_module_bound_by_from_import_has_its_names_checked():
    """`module_of` knows a reflective module however an import binds it, so `m.name` is
    checked against that module's list."""
    from sebench.grading.policy import _PolicyVisitor

    visitor = _PolicyVisitor("zwc")
    visitor.visit(ast.parse("from re import functools as f\nimport string as s"))
    assert (visitor.module_of("f"), visitor.module_of("s")) == ("functools", "string")


@pytest.mark.parametrize(
    ("code", "rule"),
    [
        (
            "import typing\n\nclass C(typing.Protocol):\n    __slots__ = ('now',)",
            "capability-attribute",
        ),
        (
            "import typing\n\nclass C(typing.Protocol):\n    __slots__ = 'obj'",
            "frame-introspection",
        ),
        (
            "import typing\n\nclass C(typing.Protocol):\n    __slots__: tuple = ['modules']",
            "import-table",
        ),
    ],
)
def test_a_protocols_slot_names_are_members_it_reads(code, rule):
    """`isinstance(x, P)` reads each member of a protocol from any object, the names its
    `__slots__` lists too (a red team's `__slots__ = ("now", "obj")`)."""
    assert rule_of(code) == rule


@pytest.mark.parametrize(
    ("code", "rule"),
    [
        (
            "import enum\n\nclass Color(enum.Enum):\n    A = 1\n\nclass C(Color['A']):\n    pass",
            "class-base",
        ),
        ("import enum\n\nclass C(enum.Enum['A']):\n    pass", "class-base"),
        ("class C(Exception[int]):\n    pass", "class-base"),
        (
            "import typing\nT = typing.TypeVar('T')\n\nclass Box(typing.Generic[T]):\n    pass\n\n"
            "class IntBox(Box[int]):\n    pass",
            None,
        ),
        ("import typing\nT = typing.TypeVar('T')\n\nclass P(typing.Protocol[T]):\n    pass", None),
    ],
)
def test_only_a_generic_class_is_subscripted_as_a_base(code, rule):
    """An Enum class's subscript is a member, an instance, whose class then makes the new class
    (a red team's `class C(Color["A"])`: a metaclass call that no keyword shows)."""
    assert rule_of(code) == rule


def _decorator_chain(depth: int, uses: int) -> str:
    names = ["A"] + [f"f{i}" for i in range(1, depth + 1)]
    chain = "".join(f"@{names[i + 1]}\ndef {names[i]}(x):\n    return 0\n" for i in range(depth))
    return chain + f"def {names[depth]}(x):\n    return 0\n" + "A.b\n" * uses


def _counting_resolves(monkeypatch) -> list[int]:
    from sebench.grading import policy

    calls = [0]
    real = policy._PolicyVisitor.resolve

    def counted(self, node, **keywords):
        calls[0] += 1
        return real(self, node, **keywords)

    monkeypatch.setattr(policy._PolicyVisitor, "resolve", counted)
    return calls


def test_the_cost_of_a_name_is_paid_once_however_often_it_is_used(monkeypatch):
    """A red team's: each use of a name at the end of a chain of decorated decorators walked
    the whole chain again (36 KB cost the grader 93 s of CPU). Counted in resolutions, not
    timed: 4x the uses may cost at most ~4x the resolutions, not 4x the chain per use."""
    calls = _counting_resolves(monkeypatch)
    counts = []
    for uses in (200, 800):
        calls[0] = 0
        find_refusals(ast.parse(_decorator_chain(100, uses)), "zwc")
        counts.append(calls[0])
    assert counts[1] - counts[0] <= 600 * 4, counts  # a few resolutions per added use


def test_a_long_method_is_scanned_in_linear_time():
    """A red team's: a method of 32,000 one-character statements cost the grader quadratic time
    (64 KB: 17.5 s) in `_class_members`. Counted in comparisons the scan makes of statements."""
    from sebench.grading import policy

    body = "0;" * 4000 + "0"
    tree = ast.parse(f"class C:\n def f(x):{body}\n")
    compared = [0]

    class Counting(ast.Expr):
        def __eq__(self, other):
            compared[0] += 1
            return self is other

        __hash__ = object.__hash__

    method = tree.body[0].body[0]
    method.body = [Counting(value=s.value) for s in method.body]
    list(policy._class_members(tree.body[0]))
    assert compared[0] == 0


def test_a_submodule_is_a_module_whether_or_not_the_grader_imported_it():
    """A red team's (NY): `m = json.tool` was refused (`module-value`) in a grader that had
    imported `json.tool` and let through in one that had not, as the policy looked at the
    grading process's own modules. The verdict is the program's alone: refused in both, as a
    module outside the allowlist (`import json.tool` is)."""
    import subprocess
    import sys

    program = """
import ast, sys
from sebench.grading import policy
code = "import json\\n\\ndef solve(a):\\n    m = json.tool\\n    return a\\n"
before = "json.tool" in sys.modules
print(before, [r.rule for r in policy.find_refusals(ast.parse(code), "zwc")])
"""
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["False", "['forbidden-module']"], done.stdout
    import json.tool  # noqa: F401 - imported here: the same answer

    assert rule_of("import json\n\ndef solve(a):\n    m = json.tool\n    return a\n") == (
        "forbidden-module"
    )
    assert rule_of("import json\n\ndef solve(a):\n    return json.tool.main\n") == (
        "forbidden-module"
    )
