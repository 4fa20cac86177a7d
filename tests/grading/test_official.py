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
    ],
)
def test_official_static_library_check(code, expected, official_library):
    assert calls_library_in_functions(ast.parse(code), official_library.table) is expected
