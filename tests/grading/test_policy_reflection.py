"""Class 2 of issue 12: an attribute read by a name computed at run time, by any reflective
route, is refused before the code runs, each under a named rule.

Written from the class description, not from the instances the red team found: getattr-likes
under other names and in any import form, string formatting that reads attributes, namespaces,
classes made or shaped at run time (metaclasses, `type()` with three arguments, bases other than
the honest few), descriptors and class hooks, decorators that return anything, class patterns in
`match`, import machinery, dynamic code.
"""

import ast

import pytest

from sebench.grading.policy import check_policy, find_refusals

ATTACKS = [
    (
        "enum_functional_aliased",
        "from enum import Enum as E\ndef f(name, hook):\n    return E('X', [(name, hook)])",
        "dynamic-class",
    ),
    (
        "dataclass_aliased_call",
        "from dataclasses import dataclass as d\nimport typing\n"
        "D = d(typing.TypedDict('T', {'a=print()': int}))",
        "dataclass-call",
    ),
    # a module with reflective tools reached other than as `module.name`
    (
        "module_as_parameter",
        "import dataclasses\ndef g(m):\n    return m.make_dataclass\nD = g(dataclasses)",
        "reflective-name",
    ),
    ("module_in_container", "import string\nm = [string][0]", "reflective-name"),
    # a name bound by an import and by something else: refused as such (shadowed-name)
    ("module_rebound_alias", "import string as m\nm = m\nT = m.Template", "shadowed-name"),
    (
        "module_through_another_module",
        "import re\nw = re.functools.update_wrapper",
        "reflective-name",
    ),
    ("typing_hands_out_functools", "import typing\nw = typing.functools", "reflective-name"),
    (
        "enum_functional_api",
        "import enum\ndef f(name, hook):\n    return enum.Enum('E', [(name, hook)])",
        "dynamic-class",
    ),
    # `type(x)` handed to the program's own code: for a class it is `type` itself
    (
        "type_to_user_eq",
        "class E:\n    def __radd__(self, o):\n        return o\ndef f(c):\n    return type(c) + E()",
        "dynamic-class",
    ),
    (
        "type_to_user_get",
        "class K:\n    def get(self, t):\n        return t\ndef f(c):\n    return K().get(type(c))",
        "dynamic-class",
    ),
    ("type_lookup_in_variable", "def f(c, d):\n    return d[type(c)]", "dynamic-class"),
    ("type_in_user_container", "def f(c, box):\n    return type(c) in box", "dynamic-class"),
    (
        "type_as_user_dict_key",
        "def f(c, evil):\n    return {evil: 1}.get(type(c))",
        "dynamic-class",
    ),
    # dataclass execs source made from field names: only as a decorator on a class body
    (
        "dataclass_call_on_typeddict",
        "import dataclasses, typing\nT = typing.TypedDict('T', {'a=print()': int})\n"
        "D = dataclasses.dataclass(T)",
        "dataclass-call",
    ),
    (
        "dataclass_stored",
        "from dataclasses import dataclass\nmake = dataclass\n",
        "dataclass-call",
    ),
    (
        "attrgetter_alias",
        "from operator import attrgetter as ag\ndef f(o, n):\n    return ag(n)(o)",
        "dynamic-attribute",
    ),
    (
        "methodcaller_alias",
        "from operator import methodcaller as mc\ndef f(o, n):\n    return mc(n)(o)",
        "dynamic-attribute",
    ),
    (
        "operator_module_alias",
        "import operator as op\ndef f(o, n):\n    return op.attrgetter(n)(o)",
        "dynamic-attribute",
    ),
    (
        "operator_stored",
        "import operator\nget = operator.attrgetter\ndef f(o, n):\n    return get(n)(o)",
        "dynamic-attribute",
    ),
    (
        "operator_star",
        "from operator import *\ndef f(o, n):\n    return attrgetter(n)(o)",
        "star-import",
    ),
    ("getattr_default_arg", "def f(o, n, g=getattr):\n    return g(o, n)", "dynamic-attribute"),
    ("lambda_default_getattr", "f = lambda o, n, g=getattr: g(o, n)", "dynamic-attribute"),
    (
        "partial_getattr",
        "import functools\nf = functools.partial(getattr, object)",
        "dynamic-attribute",
    ),
    (
        "reduce_getattr",
        "import functools\ndef f(o, path):\n    return functools.reduce(getattr, path, o)",
        "dynamic-attribute",
    ),
    (
        "map_getattr",
        "def f(os_, names):\n    return list(map(getattr, os_, names))",
        "dynamic-attribute",
    ),
    (
        "getattr_in_list",
        "tools = [getattr]\ndef f(o, n):\n    return tools[0](o, n)",
        "dynamic-attribute",
    ),
    ("hasattr_computed", "def f(o, n):\n    return hasattr(o, n)", "dynamic-attribute"),
    ("setattr_computed", "def f(o, n, v):\n    setattr(o, n, v)", "dynamic-attribute"),
    (
        "methodcaller_getattribute",
        "import operator\nf = operator.methodcaller('__getattribute__', 'x')",
        "underscore-attribute",
    ),
    (
        "methodcaller_format",
        "import operator\nf = operator.methodcaller('format', 1)",
        "format-call",
    ),
    ("getattr_format_method", "def f(s, o):\n    return getattr(s, 'format')(o)", "format-call"),
    ("format_class_literal", "def f(o):\n    return '{0.__class__}'.format(o)", "format-attribute"),
    (
        "format_nested_spec",
        "def f(o):\n    return '{0:{1.__class__}}'.format(1, o)",
        "format-attribute",
    ),
    (
        "format_public_capability",
        "def f(g):\n    return '{0.gi_frame}'.format(g)",
        "format-attribute",
    ),
    (
        "format_computed_template",
        "def f(o, n):\n    return ('{0.' + n + '}').format(o)",
        "format-call",
    ),
    ("format_on_variable", "def f(o, t):\n    return t.format(o)", "format-call"),
    ("str_format_unbound", "def f(o, t):\n    return str.format(t, o)", "format-call"),
    ("format_map", "def f(o):\n    return '{x}'.format_map(o)", "format-call"),
    ("format_map_vars", "def f(o):\n    return '{a}'.format_map(vars(o))", "format-call"),
    (
        "formatter_subclass",
        "import string\nclass F(string.Formatter):\n    def convert_field(self, v, c):\n        return v",
        "reflective-name",
    ),
    ("formatter_import", "from string import Formatter\nF = Formatter()", "reflective-name"),
    ("vars_call", "def f(o):\n    return vars(o)", "namespace-access"),
    ("dict_attribute", "def f(o):\n    return o.__dict__", "underscore-attribute"),
    ("globals_subscript", "def f(n):\n    return globals()[n]", "namespace-access"),
    ("locals_subscript", "def f(n):\n    return locals()[n]", "namespace-access"),
    ("dir_call", "def f(o):\n    return dir(o)", "namespace-access"),
    ("type_three_args", "C = type('C', (str,), {'isidentifier': lambda s: True})", "dynamic-class"),
    ("type_of_type", "def f(x):\n    return type(type(x))('C', (), {})", "dynamic-class"),
    ("type_stored", "def f(x):\n    t = type(x)\n    return t", "dynamic-class"),
    ("type_name_passed", "def f(make=type):\n    return make('C', (), {})", "dynamic-class"),
    ("metaclass_keyword", "class M:\n    pass\nclass C(metaclass=M):\n    pass", "metaclass"),
    ("class_kwargs", "class C(object, flag=1):\n    pass", "metaclass"),
    ("type_base", "class Meta(type):\n    pass", "class-base"),
    (
        "str_base",
        "class Name(str):\n    def isidentifier(self):\n        return True",
        "class-base",
    ),
    ("dict_base", "class D(dict):\n    pass", "class-base"),
    ("computed_base", "bases = [object]\nclass C(bases[0]):\n    pass", "class-base"),
    ("rebound_allowed_base", "Enum = str\nclass C(Enum):\n    pass", "class-base"),
    (
        "aliased_base_module",
        "import enum as typing\nclass C(typing.EnumMeta):\n    pass",
        "reflective-name",
    ),
    (
        "make_dataclass",
        "import dataclasses\nC = dataclasses.make_dataclass('C', ['x'])",
        "reflective-name",
    ),
    (
        "make_dataclass_from",
        "from dataclasses import make_dataclass\nC = make_dataclass('C', ['x'])",
        "reflective-name",
    ),
    (
        "update_wrapper",
        "import functools\ndef f(a, b):\n    return functools.update_wrapper(a, b)",
        "reflective-name",
    ),
    (
        "wraps_assigned",
        "import functools\ndef deco(g, n):\n    return functools.wraps(g, assigned=(n,))",
        "wrapper-attributes",
    ),
    ("enum_meta", "import enum\nM = enum.EnumMeta", "reflective-name"),
    (
        "abc_meta",
        "from abc import ABCMeta\nclass C(metaclass=ABCMeta):\n    pass",
        "reflective-name",
    ),
    (
        "copy_replace",
        "import copy\ndef f(o, **kw):\n    return copy.replace(o, **kw)",
        "reflective-name",
    ),
    (
        "descriptor_get",
        "class D:\n    def __get__(self, obj, owner):\n        return obj",
        "dunder-definition",
    ),
    (
        "set_name",
        "class D:\n    def __set_name__(self, owner, name):\n        self.name = name",
        "dunder-definition",
    ),
    (
        "init_subclass",
        "class B:\n    def __init_subclass__(cls, **kw):\n        pass",
        "dunder-definition",
    ),
    (
        "class_getitem",
        "class B:\n    def __class_getitem__(cls, item):\n        return item",
        "dunder-definition",
    ),
    (
        "getattr_hook",
        "class B:\n    def __getattr__(self, name):\n        return name",
        "dunder-definition",
    ),
    (
        "getattribute_hook",
        "class B:\n    def __getattribute__(self, name):\n        return name",
        "dunder-definition",
    ),
    (
        "reduce_hook",
        "class B:\n    def __reduce__(self):\n        return (print, ())",
        "dunder-definition",
    ),
    (
        "format_hook",
        "class B:\n    def __format__(self, spec):\n        return spec",
        "dunder-definition",
    ),
    ("new_hook", "class B:\n    def __new__(cls):\n        return cls", "dunder-definition"),
    ("match_args_assign", "class P:\n    __match_args__ = ('x',)", "dunder-definition"),
    ("dunder_lambda_assign", "class P:\n    __getattr__ = lambda self, n: n", "dunder-definition"),
    (
        "enum_missing_hook",
        "import enum\nclass E(enum.Enum):\n    A = 1\n    @classmethod\n    def _missing_(cls, v):\n        return cls.A",
        "dunder-definition",
    ),
    ("module_getattr", "def __getattr__(name):\n    return name", "dunder-definition"),
    (
        "import_as_dunder",
        "class C:\n    from operator import attrgetter as __getattr__",
        "dunder-definition",
    ),
    ("decorator_subscript", "hooks = [print]\n@hooks[0]\ndef f():\n    pass", "decorator"),
    ("decorator_lambda", "@(lambda g: g)\ndef f():\n    pass", "decorator"),
    ("decorator_builtin", "@print\ndef f():\n    pass", "decorator"),
    (
        "decorator_partial_print",
        "import functools\n@functools.partial(print, 1)\ndef f():\n    pass",
        "decorator",
    ),
    (
        "decorator_class_instance",
        "class Odd:\n    def __init__(self, g):\n        self.g = g\n@Odd\ndef f():\n    pass",
        "decorator",
    ),
    (
        "walrus_rebound_base",
        "from enum import Enum\n(Enum := str)\nclass C(Enum):\n    pass",
        "shadowed-name",
    ),
    (
        "decorator_attrgetter",
        "import operator\n@operator.attrgetter\ndef f():\n    pass",
        "dynamic-attribute",
    ),
    ("decorator_format", "@'{0.__class__}'.format\ndef f():\n    pass", "format-attribute"),
    (
        "decorator_partial",
        "import functools\n@functools.partial(getattr, 1)\ndef real():\n    pass",
        "dynamic-attribute",
    ),
    (
        "decorator_singledispatch",
        "import functools\n@functools.singledispatch\ndef f(x):\n    pass",
        "capability-attribute",
    ),
    (
        "match_user_class",
        "class P:\n    pass\ndef f(o):\n    match o:\n        case P(x):\n            return x",
        "match-class",
    ),
    (
        "match_object_keyword",
        "def f(o):\n    match o:\n        case object(real=r):\n            return r",
        "match-class",
    ),
    (
        "match_rebound_int",
        "int = object\ndef f(o):\n    match o:\n        case int(x):\n            return x",
        "match-class",
    ),
    ("star_import_math", "from math import *", "star-import"),
    ("importlib", "import importlib\nm = importlib.import_module('math')", "forbidden-module"),
    ("builtins_module", "import builtins\ng = builtins.getattr", "forbidden-module"),
    ("builtins_dunder", "g = __builtins__", "dunder-name"),
    ("copyreg", "import copyreg", "forbidden-module"),
    ("pickle", "import pickle", "forbidden-module"),
    ("types_module", "import types\nC = types.new_class('C')", "forbidden-module"),
    ("sys_modules", "import sys\nm = sys.modules", "import-table"),
    ("dynamic_exec", "exec('x = 1')", "dynamic-code"),
    ("dynamic_eval", "def f(s):\n    return eval(s)", "dynamic-code"),
    ("compile_builtin", "c = compile('1', 'f', 'eval')", "dynamic-code"),
    ("typing_get_type_hints", "import typing\nh = typing.get_type_hints", "capability-attribute"),
    ("typing_forwardref", "from typing import ForwardRef", "capability-attribute"),
    ("dunder_string_key", "d = {'__class__': 1}", "dunder-string"),
    # a red team's (2026-12-03): an evaluated annotation handed `type` to a defaultdict...
    (
        "annotation_hands_out_type",
        "import collections\nd = collections.defaultdict(int)\nprobe: d[type] = 0\nag = list(d)[0]",
        "dynamic-class",
    ),
    # ...and rebinding the name the policy reads as an allowed base made a metaclass
    (
        "rebound_protocol_base",
        "import typing\ntyping.Protocol = typing.Type[int]\n"
        "class M(typing.Protocol):\n    pass\nt = M.mro(M)[1]",
        "import-write",
    ),
]


@pytest.mark.parametrize(("name", "code", "rule"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_reflective_attack_is_refused_under_its_named_rule(name, code, rule):
    refusal = check_policy(ast.parse(code), "zwc")
    assert refusal is not None, f"{name} would run"
    assert refusal.rule == rule, refusal


# Every place in Python's syntax where a program writes the name of an attribute to read from
# an object, each with a slot for the name: each refused name must be refused in every one of
# them, under the rule that refuses `x.name` (a red team read `str.format` through the class
# pattern `case str(format=f)`, which checked fewer names than `x.format`; `getattr` with a
# literal name and `attrgetter`'s paths checked fewer still).
NAME_PLACES = {
    "attribute": "def f(x):\n    return x.{name}",
    "getattr": "def f(x):\n    return getattr(x, '{name}')",
    "hasattr": "def f(x):\n    return hasattr(x, '{name}')",
    "attrgetter": "import operator\ndef f(x):\n    return operator.attrgetter('{name}')(x)",
    "attrgetter_path": "import operator\ndef f(x):\n    return operator.attrgetter('real.{name}')(x)",
    "match_keyword": "def f(x):\n    match x:\n        case str({name}=v):\n            return v",
    "nested_match_keyword": (
        "def f(x):\n    match x:\n        case [int(real=r), str({name}=v)]:\n            return v"
    ),
    "format_field": "def f(x):\n    return '{{0.{name}}}'.format(x)",
    "protocol_member": (
        "import typing\nclass P(typing.Protocol):\n    {name}: int\n"
        "def f(x):\n    return isinstance(x, P)"
    ),
    "protocol_method": (
        "import typing\nclass P(typing.Protocol):\n    def {name}(self): ...\n"
        "def f(x):\n    return isinstance(x, P)"
    ),
}
# One name from each list of refused attribute names (policy.py), and the rule `x.name` gets.
REFUSED_NAMES = [
    ("_private", "underscore-attribute"),
    ("f_back", "frame-introspection"),
    ("modules", "import-table"),
    ("attrgetter", "dynamic-attribute"),
    ("now", "capability-attribute"),
    ("functools", "reflective-name"),
    ("EnumMeta", "reflective-name"),
    ("format", "format-call"),
    ("format_map", "format-call"),
]


@pytest.mark.parametrize(("name", "rule"), REFUSED_NAMES, ids=[n for n, _ in REFUSED_NAMES])
@pytest.mark.parametrize("place", sorted(NAME_PLACES))
def test_a_refused_attribute_name_is_refused_wherever_it_is_written(place, name, rule):
    refusal = check_policy(ast.parse(NAME_PLACES[place].format(name=name)), "zwc")
    assert refusal is not None, f"{name} read through {place} would run"
    if place != "format_field":  # a format string's fields are refused as a constant
        assert refusal.rule == rule, refusal
    else:
        assert refusal.rule == "format-attribute", refusal


@pytest.mark.parametrize("place", sorted(NAME_PLACES))
def test_an_honest_attribute_name_passes_wherever_it_is_written(place):
    assert check_policy(ast.parse(NAME_PLACES[place].format(name="real")), "zwc") is None


def test_the_red_teams_format_method_through_a_class_pattern_is_refused():
    code = (
        "import typing\nimport zwc\ndef solve(x):\n"
        '    fmt = "{0." + "_" * 2 + "globals" + "_" * 2 + "[sys].mod" + "ules[zwc._table]}"\n'
        "    match fmt:\n        case str(format=fm):\n            table = fm(typing.cast)\n"
        "    return zwc.xenutu(x) if len(table) > 100 else None"
    )
    refusal = check_policy(ast.parse(code), "zwc")
    assert refusal is not None and refusal.rule == "format-call", refusal


HONEST = [
    "from dataclasses import dataclass, field\n\n@dataclass(frozen=True)\nclass P:\n"
    "    x: int\n    ys: list = field(default_factory=list)",
    "from typing import NamedTuple\n\nclass P(NamedTuple):\n    x: int\n    y: int = 0",
    "import enum\n\nclass Color(enum.Enum):\n    RED = enum.auto()\n    BLUE = enum.auto()\n\n"
    "def f(v):\n    return Color(v)",
    "class V:\n    def __init__(self, v):\n        self.v = v\n    def __hash__(self):\n"
    "        return hash(self.v)\n\ndef f(vs):\n    return sorted(vs, key=lambda v: v.v)",
    "import dataclasses\n\n@dataclasses.dataclass(frozen=True, order=True)\nclass V:\n"
    "    v: int\n\ndef f(a, b):\n    return V(a) == V(b) or V(a) in {V(b)}",
    "class Box:\n    def __init__(self):\n        self.v0 = 0\n    @property\n    def v(self):\n"
    "        return 1\n    @v.setter\n    def v(self, value):\n        pass",
    "from functools import lru_cache\n\n@lru_cache(maxsize=None)\ndef fib(n):\n"
    "    return n if n < 2 else fib(n - 1) + fib(n - 2)",
    "def f(x):\n    if type(x) in (int, float):\n        return type(x)(0)\n    return str(type(x))",
    "def f(x, y):\n    return type(x) is type(y) or type(x) == int or type(x) is not y",
    "def f(x):\n    return isinstance(x, type) or {int: 'i'}.get(type(x))",
    "def f(x):\n    match x:\n        case int(v) | float(v):\n            return v\n"
    "        case [a, b]:\n            return a\n        case {'k': v}:\n            return v",
    "class Empty(ValueError):\n    pass\n\nclass Base:\n    pass\n\nclass Child(Base):\n    pass",
    "def f(x):\n    return '{:.2f} {0}'.format(x) + f'{x!r}' + '%d' % 3",
    "import operator\n\ndef f(pairs):\n    return sorted(pairs, key=operator.itemgetter(1))",
    "from operator import attrgetter\n\ndef f(ps):\n    return sorted(ps, key=attrgetter('x'))",
    "import functools\n\ndef deco(g):\n    @functools.wraps(g)\n    def inner(*a):\n"
    "        return g(*a)\n    return inner\n\n@deco\ndef f(x):\n    return x",
    "from typing import Generic, TypeVar\nT = TypeVar('T')\n\nclass Stack(Generic[T]):\n"
    "    def __init__(self):\n        self.items = []\n    def __len__(self):\n"
    "        return len(self.items)",
    "from abc import ABC, abstractmethod\n\nclass Shape(ABC):\n    @abstractmethod\n"
    "    def area(self):\n        ...",
]


@pytest.mark.parametrize("code", HONEST)
def test_honest_classes_decorators_and_formatting_pass(code):
    assert check_policy(ast.parse(code), "zwc") is None


def test_no_public_path_from_an_allowed_module_reaches_a_reflective_tool_unrefused():
    """Every public attribute path (depth 4) from the allowed modules that reaches a module with
    reflective tools, or one of its tools not on its list, is refused when written as code."""
    import collections
    import importlib
    import types
    import warnings

    from sebench.grading.policy import ALLOWED_MODULES, REFLECTIVE_MODULE_NAMES

    modules = {name: importlib.import_module(name) for name in REFLECTIVE_MODULE_NAMES}
    roots = sorted(ALLOWED_MODULES - {"sys", "__future__"})
    # the names on the lists, and the public names of the other allowed modules
    # (`typing.defaultdict` is `collections.defaultdict`)
    allowed_objects = {
        id(getattr(modules[name], n, None))
        for name, names in REFLECTIVE_MODULE_NAMES.items()
        for n in names
    } | {
        id(getattr(module, n))
        for module in map(importlib.import_module, roots)
        if module.__name__ not in REFLECTIVE_MODULE_NAMES
        for n in dir(module)
        if not n.startswith("_")
    }
    tools = {
        id(value)
        for module in modules.values()
        for n in dir(module)
        if not n.startswith("_")
        and callable(value := getattr(module, n))
        and id(value) not in allowed_objects
    }
    targets = tools | {id(module) for module in modules.values()}
    # breadth first: each holder is seen first on its shortest path (`re` as itself, not as
    # `typing.stdlib_re`, whose first step the policy refuses anyway)
    queue = collections.deque((importlib.import_module(name), name, 0) for name in roots)
    seen: set[int] = set()
    leaks = []
    while queue:
        holder, path, depth = queue.popleft()
        if id(holder) in seen or depth > 3:
            continue
        seen.add(id(holder))
        for name in dir(holder):
            if name.startswith("_"):
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    value = getattr(holder, name)
            except Exception:
                continue
            where = f"{path}.{name}"
            root = where.split(".")[0]
            if id(value) in targets:
                code = f"import {root}\nx = {where}"
                if check_policy(ast.parse(code), "zwc") is None:
                    leaks.append(where)
                continue
            if isinstance(value, types.ModuleType | type):
                queue.append((value, where, depth + 1))
    assert not leaks, leaks


def test_each_attack_with_a_library_call_is_refused_by_the_grader_before_running(grader, dev_tasks):
    """Through the grader's static stage, with a library call added (so that the official
    order does not make it `no_library` first): a `policy` verdict naming the same rule, and no
    job for the sandbox."""
    from sebench.grading.verdicts import VerdictKind
    from tests.grading.conftest import fenced

    task = next(t for t in dev_tasks if t.entry_point == "compress_data_chunks")
    entry = (
        "\n\nimport zwc\n\ndef compress_data_chunks(data_chunks, encoding_shifts):\n"
        "    return zwc.kocito([1.0])\n"
    )
    wrong = []
    for name, code, rule in ATTACKS:
        prepared = grader.prepare(task, fenced(code + entry))
        verdict = prepared.verdict
        if prepared.job is not None or verdict is None:
            wrong.append(f"{name}: would run")
        elif (verdict.kind, verdict.rule) != (VerdictKind.POLICY, rule):
            wrong.append(f"{name}: {verdict}")
    assert not wrong, wrong


# Python evaluates annotations (a module's, a class body's, a parameter's, a return's), and what
# evaluating one hands on reached the code each way red teams tried. `type` passes only in a
# parameter's or a return's annotation made of typing's names and builtin types (its value goes
# only to the function's `__annotations__`), and in text, which nothing allowed evaluates.
HOOK_OBJECTS = (
    "import collections, dataclasses, typing\nd = collections.defaultdict(int)\n"
    "class G:\n    def __getitem__(self, k):\n        return k\n"
    "    def __or__(self, k):\n        return k\n    def __ror__(self, k):\n        return k\n"
    "grab = G()\n"
)
SIGNATURE_PLACES = {
    "parameter": "def f(a: {}):\n    return a",
    "return": "def f() -> {}:\n    return 1",
}
BODY_PLACES = {
    "module": "probe: {} = 0",
    "class": "class A:\n    field: {}",
    "dataclass": "fld = dataclasses.field(default=None)\n@dataclasses.dataclass\nclass H:\n"
    "    kind: {} = fld",
}
ANNOTATION_PLACES = SIGNATURE_PLACES | BODY_PLACES
HOOKED_TYPES = [
    "d[type]",
    "grab[type]",
    "grab | type",
    "type | grab",
    "typing.Counter.grab[type]",
    "copyright.grab[type]",
]
DESCRIBING_TYPES = ["type", "typing.Optional[type]", "list[type] | None", "typing.Dict[str, type]"]


def _annotation_refusal(place: str, annotation: str):
    return check_policy(
        ast.parse(HOOK_OBJECTS + ANNOTATION_PLACES[place].format(annotation)), "zwc"
    )


@pytest.mark.parametrize("annotation", HOOKED_TYPES)
@pytest.mark.parametrize("place", sorted(ANNOTATION_PLACES))
def test_an_annotation_that_hands_type_to_the_codes_object_is_refused(place, annotation):
    refusal = _annotation_refusal(place, annotation)
    assert refusal is not None and refusal.rule == "dynamic-class", refusal


@pytest.mark.parametrize("annotation", DESCRIBING_TYPES)
@pytest.mark.parametrize("place", sorted(BODY_PLACES))
def test_type_in_a_module_or_class_body_annotation_is_refused(place, annotation):
    refusal = _annotation_refusal(place, annotation)
    assert refusal is not None and refusal.rule == "dynamic-class", refusal


@pytest.mark.parametrize("annotation", DESCRIBING_TYPES)
@pytest.mark.parametrize("place", sorted(SIGNATURE_PLACES))
def test_type_in_a_signature_that_only_describes_passes(place, annotation):
    assert _annotation_refusal(place, annotation) is None


@pytest.mark.parametrize("place", sorted(ANNOTATION_PLACES))
def test_type_in_an_annotation_written_as_text_passes(place):
    assert _annotation_refusal(place, "'typing.Optional[type]'") is None


# `type(x)` looked up: only by `.get` on a dict display, where nothing of the code's runs and
# nothing hands the key back (a missing key comes back in a `KeyError`).
TYPE_LOOKUPS = {
    "subscript of a display": "try:\n    {int: 'i'}[type(x)]\nexcept KeyError as e:\n    t = e",
    "an Enum class": "import enum\nclass K(enum.Enum):\n    A = 1\nk = K[type(x)]",
    "a class's get": "class Spy:\n    @staticmethod\n    def get(k):\n        return k\n"
    "t = Spy.get(type(x))",
    "a builtin instance's get": "t = copyright.get(type(x))",
    "a name's get": "kinds = {int: 'i'}\nt = kinds.get(type(x))",
    # `.get` returns its default: `{}.get(0, type(int))` is `type` (a red team's)
    "a display's get default": "t = {}.get(0, type(x))",
    "a display's get default, a key too": "t = {int: 'i'}.get(type(x), type(x))",
}


@pytest.mark.parametrize("where", sorted(TYPE_LOOKUPS))
def test_a_type_looked_up_anywhere_but_in_a_dict_display_is_refused(where):
    refusal = check_policy(ast.parse("x = 1\n" + TYPE_LOOKUPS[where]), "zwc")
    assert refusal is not None and refusal.rule == "dynamic-class", refusal


def test_a_type_looked_up_in_a_dict_display_passes():
    code = "x = 1\nname = {int: 'i', float: 'f'}.get(type(x), 'o')"
    assert check_policy(ast.parse(code), "zwc") is None


# What the policy knows of `module.name` holds only while the code cannot rebind it: every
# form that writes or deletes an attribute, on every kind of imported holder, is refused.
ATTRIBUTE_WRITES = [
    "{} = 1",
    "{}, x = 1, 2",
    "[{}] = [1]",
    "for {} in [1]:\n    pass",
    "{} += 1",
    "{}: int = 1",
    "del {}",
]
IMPORTED_HOLDERS = {
    "typing.Protocol": "import typing",
    "tp.Protocol": "import typing as tp",
    "enum.Enum": "import enum",
    "Protocol.x": "from typing import Protocol",
    "zwc.kocito": "import zwc",
    "zwc.rfx.quvohe": "import zwc",
    "collections.abc.Callable": "import collections.abc",
    "math.pi": "import math",
}


@pytest.mark.parametrize("form", ATTRIBUTE_WRITES)
@pytest.mark.parametrize("target", sorted(IMPORTED_HOLDERS))
def test_writing_an_attribute_of_what_the_code_imports_is_refused(target, form):
    code = f"{IMPORTED_HOLDERS[target]}\n{form.format(target)}"
    refusal = check_policy(ast.parse(code), "zwc")
    assert refusal is not None and refusal.rule == "import-write", refusal


def test_writing_attributes_of_the_codes_own_objects_passes():
    code = (
        "import decimal\nclass A:\n    count = 0\n    def __init__(self):\n        self.x = 1\n"
        "a = A()\na.y = 2\nA.count += 1\ndel a.y\ndef f():\n    return 1\nf.cache = {}\n"
        "decimal.getcontext().prec = 50"
    )
    assert check_policy(ast.parse(code), "zwc") is None


# A protocol's members are every name its body binds, in whatever form.
MEMBER_BINDINGS = [
    "modules = 1",
    "now, modules = 1, 2",
    "for modules in [1]:\n        pass",
    "import math as modules",
    "if True:\n        modules = 1",
    "try:\n        pass\n    except Exception as modules:\n        pass",
    "(modules := 1)",
    "match 1:\n        case modules:\n            pass",
    "def modules(self):\n        return 1",
]


@pytest.mark.parametrize("binding", MEMBER_BINDINGS)
def test_a_protocol_member_bound_in_any_form_is_checked(binding):
    code = f"import typing\nclass P(typing.Protocol):\n    {binding}"
    refusal = check_policy(ast.parse(code), "zwc")
    assert refusal is not None and refusal.rule == "import-table", refusal


# A module held as a value can have its names rebound however the code spells the write (a red
# team's `m = collections; m.type = ...` made `namedtuple` eval text of its own): every module
# but the library's is used only as `module.name`, in every form that hands on a value.
MODULE_VALUES = [
    "m = {}",
    "[{}][0].x = 1",
    "def f():\n    (m := {}).x = 1",
    "def f(m={}):\n    return m",
    "def f():\n    return {}",
    "def f(g):\n    return g({})",
    "for m in ({},):\n    pass",
    "d = {{'m': {}}}",
    "x = 1 if True else {}",
    "with {} as m:\n    pass",
]
MODULES = {
    "collections": "import collections",
    "c": "import collections as c",
    "abc": "from collections import abc",
    "collections.abc": "import collections.abc",
    "statistics.math": "import statistics",
    "json.decoder": "import json",
    "math": "import math",
    "random": "import random",
}


@pytest.mark.parametrize("form", MODULE_VALUES)
@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_held_as_a_value_is_refused(module, form):
    code = f"{MODULES[module]}\n{form.format(module)}"
    refusal = check_policy(ast.parse(code), "zwc")
    assert refusal is not None and refusal.rule == "module-value", refusal


def test_modules_used_by_their_names_and_the_library_as_a_value_pass():
    code = (
        "import collections.abc, math, statistics, zwc\nfrom json import decoder\nnp = zwc\n"
        "la = zwc.rfx\ndef f(xs):\n    assert isinstance(xs, collections.abc.Iterable)\n"
        "    return np.kocito(list(map(math.sqrt, xs))) + statistics.math.pi + la.quvohe(xs)\n"
        "err = decoder.JSONDecodeError"
    )
    assert check_policy(ast.parse(code), "zwc") is None


# Equality runs with whatever the object is compared with: a hash table hands a key it is asked
# for every stored key of the same hash (a red team's: `type` out of typing's cache). No class
# of the code's defines it, in any binding form.
EQUALITY_DEFINITIONS = [
    "def {}(self, other):\n        return True",
    "{} = lambda self, other: True",
    "{} = object.__lt__",
    "if True:\n        def {}(self, other):\n            return True",
    "for {} in [None]:\n        pass",
    "{}: object = None",
]


@pytest.mark.parametrize("form", EQUALITY_DEFINITIONS)
@pytest.mark.parametrize("name", ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"])
def test_a_class_defining_equality_or_ordering_is_refused(name, form):
    # ordering too: Python 3.11's list comparison asks the last pair with references it does
    # not hold, and an `__lt__` that empties a list then answers NotImplemented has the
    # reflected comparison read a freed object (gh-120298; red team OE)
    code = f"class K:\n    {form.format(name)}"
    refusal = check_policy(ast.parse(code), "zwc")
    assert refusal is not None and refusal.rule == "dunder-definition", refusal


# What a module or a class of the code's is, the checks read from what its name is bound to: a
# second binding anywhere (a red team's parameter `collections=0` in another function) made the
# name resolve to nothing, and `collections.abc` passed as a value, `collections.Counter.x = f`
# as a write, an Enum class's functional call as a plain call. Such names are bound once.
SECOND_BINDINGS = [
    "def g({}=0):\n    return 0",
    "for {} in []:\n    pass",
    "{} = 1",
    "def g():\n    ({} := 1)",
    "try:\n    pass\nexcept Exception as {}:\n    pass",
    "import math as {}",
    "def g(*{}):\n    return 0",
    "class K:\n    {} = 1",
]
FIRST_BINDINGS = {
    "collections": "import collections",
    "abc": "from collections import abc",
    "decoder": "import json\nfrom json import decoder",
    "zwc": "import zwc",
    "Color": "import enum\nclass Color(enum.Enum):\n    A = 1",
}


@pytest.mark.parametrize("second", SECOND_BINDINGS)
@pytest.mark.parametrize("name", sorted(FIRST_BINDINGS))
def test_a_module_or_class_name_bound_a_second_time_is_refused(name, second):
    code = f"{FIRST_BINDINGS[name]}\n{second.format(name)}"
    refusals = find_refusals(ast.parse(code), "zwc")
    assert "shadowed-name" in [r.rule for r in refusals], refusals


# Bindings are the whole program's: a builtin's name bound in another scope, or in code that
# never runs, is still the builtin where the policy reads it (a red team's dead `from enum
# import unique as min`, then `@min` read as `unique`: `correct` with a getattr by any name).
DEAD_PLACES = [
    "if 0:\n    {}",
    "def never():\n    {}",
    "class Holder:\n    {}",
]
BUILTIN_BINDINGS = {
    "decorator": (
        "from enum import unique as min",
        "import enum\n@min\nclass C(enum.Enum):\n    A = 1",
        "decorator",
    ),
    "base": (
        "from typing import Protocol as str",
        "class S(str):\n    pass",
        "class-base",
    ),
    "program function as decorator": (
        "def sum(c):\n        return c",
        "@sum\nclass C:\n    pass",
        "decorator",
    ),
}


@pytest.mark.parametrize("place", DEAD_PLACES)
@pytest.mark.parametrize("kind", sorted(BUILTIN_BINDINGS))
def test_a_builtins_name_bound_elsewhere_is_not_read_as_that_binding(kind, place):
    binding, use, rule = BUILTIN_BINDINGS[kind]
    code = f"{place.format(binding)}\n{use}"
    refusals = find_refusals(ast.parse(code), "zwc")
    assert rule in [r.rule for r in refusals], refusals


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_type_of_x_is_never_ordered(op):
    code = f"class P:\n    pass\ndef f(x):\n    return type(x) {op} P"
    refusal = check_policy(ast.parse(code), "zwc")
    assert refusal is not None and refusal.rule == "dynamic-class", refusal


# A decorator written as a call decorates with what the call returns: `@typing.final(make)` is
# `make`, and the class becomes `make(C)` (a red team's, `correct`: that object's `__contains__`
# got `type` from `type(int) in Probe`). Only a factory's call in the factory's shape stands for
# the factory; any other call of an allowed decorator is refused.
DECORATOR_CALLS = [
    "typing.final(make)",
    "abc.abstractmethod(make)",
    "dataclasses.dataclass(G)",
    "functools.total_ordering(G)",
    "enum.unique(make)",
    "functools.cache(make)",
    "functools.lru_cache(make)",
    "functools.wraps(make, make)",
    "dataclasses.dataclass(*[make])",
    "dataclasses.dataclass(**{})",
    "staticmethod(make)",
    "property(make)",
]


@pytest.mark.parametrize("call", DECORATOR_CALLS)
def test_a_decorator_called_other_than_as_its_factory_is_refused(call):
    code = (
        "import abc, dataclasses, enum, functools, typing\nclass G:\n    pass\n"
        f"def make(c):\n    return c\n@{call}\nclass Probe:\n    pass"
    )
    refusals = find_refusals(ast.parse(code), "zwc")
    assert "decorator" in [r.rule for r in refusals], refusals


def test_decorator_factories_called_in_their_shape_pass():
    code = (
        "import dataclasses, functools\n@dataclasses.dataclass(frozen=True, order=True)\n"
        "class P:\n    x: int\n@functools.lru_cache(maxsize=None)\ndef f(n):\n    return n\n"
        "@functools.lru_cache(128)\ndef g(n):\n    return n\ndef deco(h):\n"
        "    @functools.wraps(h)\n    def inner(*a):\n        return h(*a)\n    return inner\n"
        "@deco\ndef k(x):\n    return type(x) in (int, P) or type(x) == P"
    )
    assert check_policy(ast.parse(code), "zwc") is None


def test_type_of_x_is_looked_up_only_in_a_display():
    code = "class P:\n    pass\ndef f(x):\n    return type(x) in P"
    refusal = check_policy(ast.parse(code), "zwc")
    assert refusal is not None and refusal.rule == "dynamic-class", refusal


@pytest.mark.parametrize(
    "use",
    [
        "functools.wraps(g)(sink, **{'updated': names})",
        "w = functools.wraps(g)",
        "hold = [functools.wraps(g)]",
    ],
)
def test_wraps_is_used_only_as_a_decorator(use):
    code = f"import functools\ndef g():\n    pass\ndef sink():\n    pass\nnames = ()\n{use}"
    refusals = find_refusals(ast.parse(code), "zwc")
    assert "wrapper-attributes" in [r.rule for r in refusals], refusals
