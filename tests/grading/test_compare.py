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


def test_keyword_arguments_of_a_named_print_are_compared():
    expected = "SlogdetResult(sign=np.float64(1.0), logabsdet=np.float64(0.6931471805599453))"
    assert outputs_match("SlogdetResult(sign=1.0, logabsdet=0.693)", expected)
    assert outputs_match("SlogdetResult(logabsdet=0.69, sign=1)", expected)  # by keyword
    assert not outputs_match("SlogdetResult(sign=-1.0, logabsdet=99.0)", expected)
    assert not outputs_match("SlogdetResult(sign=1.0, logabsdet=0.2)", expected)
    assert not outputs_match("SlogdetResult(sign=1.0)", expected)
    assert not outputs_match("SlogdetResult(sign=1.0, logabsdet=0.69, extra=0)", expected)
    assert not outputs_match("SlogdetResult(1.0, 0.69)", expected)


def test_only_the_dtype_of_an_array_print_is_ignored():
    assert outputs_match("array([1, 2], dtype=int32)", "[1 2]")
    assert outputs_match("ZWCArray([1., 2.], dtype=float32)", "array([1., 2.])")
    assert not outputs_match("array([], shape=(0, 3), dtype=float64)", "[]")
    assert outputs_match(
        "array([], shape=(0, 3), dtype=float64)", "array([], shape=(0, 3), dtype=float32)"
    )


def test_a_print_far_longer_than_the_expected_one_is_wrong_without_parsing(monkeypatch):
    from sebench.grading import compare

    def refuse(text):
        raise AssertionError("the long printed text was parsed")

    hostile = "[" + ", ".join(["1.0"] * 40_000) + "]"
    monkeypatch.setattr(compare, "parse_print", refuse)
    assert not outputs_match(hostile, "[1.0, 2.0]")
    assert not outputs_match("[1.0" + ",      " * 12_000 + "]", "[1.0]")


def test_printed_outputs_are_not_cached_expected_ones_are():
    from sebench.grading import compare

    compare._parse_expected.cache_clear()
    for index in range(50):
        outputs_match(f"[{index}.5, 2]", "[1.0, 2.0]")
    assert compare._parse_expected.cache_info().currsize == 1


@pytest.mark.parametrize("printed", ["set(5)", "frozenset(None)", "set(1.5)", "set(...)"])
def test_printed_text_that_breaks_the_parser_is_a_mismatch_not_an_error(printed):
    """A red team's `set(5)` raised a TypeError out of the comparator: an infra error, which
    the RL reward leaves out of the group's baseline, where a wrong answer is a 0."""
    from sebench.grading.official_compare import official_outputs_match

    assert outputs_match(printed, "[1, 2]") is False
    assert official_outputs_match(printed, "[1, 2]") is False
    assert official_outputs_match(f"'{printed}'", "[1]") is False
    assert official_outputs_match(printed, "{'a': 3}") is False  # no colon on the printed side


def test_integers_longer_than_python_converts_compare_by_their_digits():
    """Past 4,300 digits `int()` refuses text; read as floats every such integer was `inf`, and
    any two matched (a red team's reading)."""
    big = "1" + "0" * 4999
    other = "9" * 4400
    assert not outputs_match(other, big)
    assert not outputs_match(f"[{other}, 2]", f"[{big}, 2]")
    assert not outputs_match(big, "inf")
    assert not outputs_match("1" + "0" * 4299, "1" + "0" * 4298 + "1")
    assert outputs_match(big, big)
    assert outputs_match("+00" + big, big)
    assert not outputs_match("-" + big, big)
    assert outputs_match(f"[-{big}]", f"[-{big}]")
