"""The official comparator's semantics (each checked against the official grader's verdicts),
and that sebench's own comparator differs on each on purpose."""

import pytest

from sebench.grading.compare import outputs_match
from sebench.grading.official_compare import official_outputs_match


@pytest.mark.parametrize(
    ("printed", "expected"),
    [
        ("[False, False, False]", "[0, 0, 0]"),  # bool is a number
        ("True", "1.001"),
        ("2.5", "[[2.5]]"),  # single-element lists unwrap at every level
        ("[[1, 2], [3]]", "[[1, 2], 3]"),
        ("['True']", "True"),  # strings are read as literals
        ("'1.5'", "1.5"),
        ("{'a': 9, 'b': 2}", "{'a': 1, 'b': 2}"),  # only the text after the last ':'
    ],
)
def test_official_matches_where_the_strict_comparator_does_not(printed, expected):
    assert official_outputs_match(printed, expected)
    assert not outputs_match(printed, expected)


@pytest.mark.parametrize(
    ("printed", "expected"),
    [
        ("[0.1 0.2 0.3\n 0.4]", "[0.1, 0.2, 0.3, 0.4]"),  # a wrapped row does not parse
        ("(1+0j)", "1.0"),  # complex never equals a real
        ("(1+2j)", "(1+2.001j)"),  # and compares exactly
    ],
)
def test_official_refuses_where_the_strict_comparator_matches(printed, expected):
    assert not official_outputs_match(printed, expected)
    assert outputs_match(printed, expected)


@pytest.mark.parametrize(
    ("printed", "expected", "same"),
    [
        ("[[1. 0.]\n [0. 1.]]", "[[1.0, 0.0], [0.0, 1.0]]", True),  # rows on their own lines
        ("array([[1, 2],\n       [3, 4]])", "[[1, 2], [3, 4]]", True),
        ("1.005", "1.0", True),  # absolute tolerance 1e-2
        ("1.02", "1.0", False),
        ("True", "1.02", False),
        ("[1, 2]", "[1, 2, 3]", False),
        ("'abc'", "'abc'", True),
        ("'abc'", "'abd'", False),
        ("nothing to parse (", "1", False),
        ("[(1+2j)]", "(1+2j)", True),
    ],
)
def test_official_comparator(printed, expected, same):
    assert official_outputs_match(printed, expected) is same


def test_nothing_printed_never_matches():
    assert not official_outputs_match(None, "None")


SLOGDET = "SlogdetResult(sign=np.float64(1.0), logabsdet=np.float64(0.6931471805599453))"


@pytest.mark.parametrize(
    ("printed", "same"),
    [
        (SLOGDET, True),
        ("SlogdetResult(logabsdet=np.float64(0.69315), sign=np.float64(1.0))", True),
        ("SlogdetResult(sign=np.float64(-1.0), logabsdet=np.float64(0.6931471805599453))", False),
        ("SlogdetResult(sign=np.float64(1.0), logabsdet=np.float64(5.0))", False),
        ("SlogdetResult()", False),
        ("SlogdetResult(sign=np.float64(1.0))", False),
        ("SlogdetResult(sign=1.0, logabsdet=0.69, extra=1)", False),
    ],
)
def test_a_constructor_print_compares_its_keywords(printed, same):
    """A red team's (OB): NumPy prints some results by keywords alone, and the official rules'
    comparator compared only the name and the positional arguments, so any values, or none,
    were `correct` (a program printing `SlogdetResult()`, knowing no function). Keywords are
    compared by name, in any order, and by value within the tolerance, as the strict
    comparator does."""
    assert official_outputs_match(printed, SLOGDET) is same
    assert outputs_match(printed, SLOGDET) is same
