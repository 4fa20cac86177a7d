"""Reading a generator's answer and refusing references that cannot be ground truth."""

from __future__ import annotations

import json

import pytest

from sebench.data.generate.written import (
    Malformed,
    generator_prompt,
    numpy_calls,
    parse_answer,
    reference_refusal,
)

REFERENCE = "import numpy as np\n\ndef solve(x, axis):\n    return np.mean(np.array(x), axis=axis).tolist()\n"
INPUTS = [f"x=[[{i}, 2], [3, 4]], axis={i % 2}" for i in range(6)]


def _answer(**change) -> str:
    data = {
        "query": "Average `x` along `axis`.",
        "signature": "def solve(x, axis):",
        "reference": REFERENCE,
        "test_inputs": INPUTS,
        "outputs": ["1"] * 6,
        **change,
    }
    return "Sure.\n```json\n" + json.dumps(data) + "\n```\nDone."


def test_a_well_formed_answer_reads_into_a_draft() -> None:
    draft = parse_answer(_answer())
    assert draft.entry_point == "solve"
    assert draft.test_inputs == tuple(INPUTS)
    assert draft.claimed_outputs == ("1",) * 6


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"signature": "solve(x, axis)"}, "not a `def name(...):` line"),
        ({"reference": "def other(x, axis):\n    return x\n"}, "does not define `solve`"),
        ({"reference": "def solve(x, axis:\n"}, "does not parse"),
        ({"test_inputs": INPUTS[:4] + INPUTS[:4]}, "4 distinct test inputs"),
        ({"test_inputs": [*INPUTS[:5], "x=np.ones(3), axis=0"]}, "not a Python literal"),
        ({"test_inputs": [*INPUTS[:5], "y=[1], axis=0"]}, "names 'y', not a parameter"),
        ({"test_inputs": [*INPUTS[:5], "[1, 2], 0"]}, "not keyword arguments"),
        ({"query": ""}, "`query` is missing"),
    ],
)
def test_a_malformed_answer_says_what_is_wrong(change, message) -> None:
    with pytest.raises(Malformed, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_answer(_answer(**change))


@pytest.mark.parametrize(
    "text",
    [
        "x=1)(x=0",  # closes the grader's call and opens another
        "x=__import__('os').getpid())(x=0",
        "x=[1], axis=0).real(x=0",
        "x=[1], axis=0)[0](x=0",
        "x=(Zq := type('Zq', (), {})) and 0).__class__(x=0",
    ],
)
def test_an_input_that_escapes_the_call_is_refused(text) -> None:
    """The grader runs each input as `solve(<input>)`: text that ends that call and makes
    another ran its own code in the graded run (a red team's self-play task: any solution
    `correct`)."""
    with pytest.raises(Malformed, match="not keyword arguments"):
        parse_answer(_answer(test_inputs=[*INPUTS[:5], text]))


def test_inputs_are_distinct_as_arguments_not_as_text() -> None:
    """Five spellings of one value are one test case (a red team's passed as five)."""
    spellings = ["x=[1.5], axis=0", "x=[1.5,], axis=0", "x=[ 1.5 ], axis=0", "axis=0, x=[1.5]"]
    with pytest.raises(Malformed, match="distinct test inputs"):
        parse_answer(_answer(test_inputs=[*spellings, *INPUTS[:3]]))
    draft = parse_answer(_answer(test_inputs=[*spellings, *INPUTS[:4]]))
    assert draft.test_inputs == (spellings[0], *INPUTS[:4])


def test_inputs_are_distinct_as_values_not_as_syntax() -> None:
    """Lists and tuples, and numbers equal in value, are one argument to NumPy: a red team's
    five "distinct" inputs (`[1, 2, 4]`, `(1, 2, 4)`, `[1.0, 2, 4]`, `[True, 2, 4]`, ...) all
    printed the example output shown in the prompt."""
    spellings = ["x=[1, 2, 4]", "x=(1, 2, 4)", "x=[1.0, 2, 4]", "x=[True, 2, 4]", "x=[1, 2.0, 4]"]
    with pytest.raises(Malformed, match="distinct test inputs"):
        parse_answer(_answer(test_inputs=[*[f"{s}, axis=0" for s in spellings], *INPUTS[:3]]))
    nans = ["x=[float('nan')], axis=0", "x=[float('NaN')], axis=0"]
    with pytest.raises(Malformed, match="distinct test inputs"):
        parse_answer(_answer(test_inputs=[*nans, *INPUTS[:3]]))
    apart = [
        "x=['ab'], axis=0",
        "x=[['a', 'b']], axis=0",
        "x=[{1: 2}], axis=0",
        "x=[{1, 2}], axis=0",
    ]
    assert len(parse_answer(_answer(test_inputs=[*apart, *INPUTS[:1]])).test_inputs) == 5


def test_nan_and_infinity_count_as_literal_inputs() -> None:
    inputs = [*INPUTS[:5], "x=[[float('nan'), 2], [float('-inf'), 4]], axis=0"]
    assert parse_answer(_answer(test_inputs=inputs)).test_inputs[-1].startswith("x=[[float")
    with pytest.raises(Malformed, match="not a Python literal"):
        parse_answer(_answer(test_inputs=[*INPUTS[:5], "x=[float('1' * 9)], axis=0"]))


def test_an_answer_without_json_is_malformed() -> None:
    with pytest.raises(Malformed, match="no JSON object"):
        parse_answer("I cannot write that task.")


@pytest.mark.parametrize(
    ("code", "rule"),
    [
        ("import random\ndef solve(x):\n    return x\n", "randomness"),
        ("import numpy as np\ndef solve(x):\n    return np.random.rand()\n", "randomness"),
        ("from numpy.random import rand\ndef solve(x):\n    return rand()\n", "randomness"),
        ("from numpy import random\ndef solve(x):\n    return x\n", "randomness"),
        ("import os\ndef solve(x):\n    return x\n", "banned-module"),
        ("import datetime\ndef solve(x):\n    return x\n", "banned-module"),
        ("from time import time\ndef solve(x):\n    return x\n", "banned-module"),
        ("import socket\ndef solve(x):\n    return x\n", "banned-module"),
        ("def solve(x):\n    return id(x)\n", "nondeterministic-builtin"),
        ("def solve(x):\n    return hash(str(x))\n", "nondeterministic-builtin"),
    ],
)
def test_a_reference_that_could_vary_is_refused(code, rule) -> None:
    refusal = reference_refusal(code)
    assert refusal is not None and refusal.rule == rule


def test_numpy_and_pure_modules_are_allowed() -> None:
    code = "import math\nfrom functools import reduce\nimport numpy as np\n" + REFERENCE
    assert reference_refusal(code) is None


def test_numpy_calls_follows_any_alias_and_the_linalg_submodule() -> None:
    code = "import numpy as xp\ndef solve(m):\n    return xp.linalg.inv(xp.array(m)).sum()\n"
    assert numpy_calls(code, {"linalg.inv", "array", "sum"}) == ("linalg.inv", "array")


def test_the_prompt_shows_every_function_doc_and_asks_for_enough_inputs() -> None:
    text = generator_prompt([("mean", "Compute the mean."), ("sum", "Sum.")], cases=3)
    assert "### np.mean" in text and "### np.sum" in text
    assert "combines all of" in text
    assert "at least 5 strings" in text
