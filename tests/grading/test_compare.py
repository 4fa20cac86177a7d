import pytest

from sebench.grading.compare import ParseError, Tolerance, outputs_match, parse_print


@pytest.mark.parametrize(
    ("printed", "expected"),
    [
        ("[1. 2.]", "[1.0, 2.0]"),
        ("[[1 2]\n [3 4]]", "array([[1, 2],\n       [3, 4]])"),
        ("(ZWCArray([5.0]), ZWCArray([1.2, 3.4]))", "(array([5.]), array([1.2, 3.4]))"),
        ("np.float64(1.5)", "1.5049"),
        ("[1.+2.j 3.-4.j]", "[(1+2j), (3-4j)]"),
        ("[nan inf -inf]", "[nan, inf, -inf]"),
        ("[ True False]", "[True, False]"),
        ("array([], dtype=float64)", "[]"),
        ("['a' 'b']", "['a', 'b']"),
        ("{'b': [1, 2.001], 'a': 1}", "{'a': 1, 'b': [1, 2]}"),
        ("{2, 1}", "{1, 2}"),
        ("np.True_", "True"),
        ("(1,)", "[1]"),
        ("1.0e+10", "10000000000"),
    ],
)
def test_equivalent_prints_match(printed, expected):
    assert outputs_match(printed, expected)


@pytest.mark.parametrize(
    ("printed", "expected"),
    [
        ("{'a': 2}", "{'a': 1}"),  # the official comparator ignores dict values
        ("{'b': 1}", "{'a': 1}"),
        ("[1, 0]", "[True, False]"),  # bools only equal bools
        ("5", "[5]"),
        ("[1, 2, 3]", "[1, 2]"),
        ("1.02", "1.0"),
        ("nan", "0.0"),
        ("inf", "1e308"),
        ("'12'", "12"),
        ("<object object at 0x7f>", "[1]"),
        (None, "1"),
    ],
)
def test_different_prints_do_not_match(printed, expected):
    assert not outputs_match(printed, expected)


def test_absolute_tolerance_is_one_hundredth_by_default():
    assert outputs_match("1.0099", "1.0")
    assert not outputs_match("1.0101", "1.0")


def test_relative_tolerance_accepts_large_values_with_small_relative_error():
    assert not outputs_match("1000000.5", "1000000.0")
    assert outputs_match("1000000.5", "1000000.0", Tolerance(absolute=1e-2, relative=1e-6))


def test_exact_text_matches_even_when_unparseable():
    assert outputs_match("<function f at 0x1>", "<function f at 0x1>")


def test_parser_never_evaluates_code():
    with pytest.raises(ParseError):
        parse_print("__import__('os').system('touch /tmp/sebench-pwned')")
    with pytest.raises(ParseError):
        parse_print("[1, 2] + [3]")


def test_deep_nesting_is_refused_not_a_crash():
    with pytest.raises(ParseError):
        parse_print("[" * 5000 + "]" * 5000)


def test_every_expected_output_of_the_dev_set_parses(dev_tasks):
    for task in dev_tasks:
        for expected in task.expected:
            parse_print(expected)
            assert outputs_match(expected, expected)
