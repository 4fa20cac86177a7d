import ast

import pytest

from sebench.grading.official import calls_library_in_functions


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import zwc\ndef f(x):\n    return zwc.kocito(x)", True),
        ("import zwc as z\ndef f(x):\n    return z.rfx.quvohe(x)", True),
        ("from zwc import kocito as k\ndef f(x):\n    return k(x)", True),
        ("from zwc.rfx import quvohe\ndef f(x):\n    return quvohe(x)", True),
        ("from zwc import *\ndef f(x):\n    return kocito(x)", True),
        ("from zwc import *\ndef f(x):\n    return len(x)", False),
        ("import zwc\ndef f(x):\n    return zwc.yitaf(x)", False),  # only the constructor
        ("import zwc\ny = zwc.kocito([1])\ndef f(x):\n    return y", False),  # not in a function
        ("def f(x):\n    return sum(x)", False),
        ("import numpy as np\ndef f(x):\n    return np.mean(x)", False),
        ("import zwc\ndef f(x):\n    if False:\n        zwc.kocito(x)\n    return x", True),
        # where functions hide: module-level lambdas, methods, nested defs, decorators, blocks
        ("import zwc\nf = lambda x: zwc.kocito(x)", True),
        ("import zwc\nfs = [1, (lambda x: zwc.kocito(x))]", True),
        ("import zwc\nclass A:\n    def m(self, x):\n        return zwc.kocito(x)", True),
        ("import zwc\ndef f(x):\n    def g():\n        return zwc.kocito(x)\n    return g()", True),
        ("import zwc\ndef f(x, m=zwc.kocito([1])):\n    return x", True),  # a default
        ("import zwc\ntry:\n    pass\nexcept Exception:\n    g = lambda: zwc.kocito(1)", True),
        ("def f(x):\n    import zwc\n    return zwc.kocito(x)", True),
        ("if True:\n    import zwc as z\ndef f(x):\n    return z.kocito(x)", True),
        ("import zwc\nclass A:\n    y = zwc.kocito([1])", False),  # a class body is not one
        ("import zwc\nfor i in range(2):\n    zwc.kocito([i])\ndef f(x):\n    return x", False),
    ],
)
def test_official_static_library_check(code, expected, official_library):
    assert calls_library_in_functions(ast.parse(code), official_library.table) is expected
