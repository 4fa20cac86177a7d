from sebench.grading.extract import extract_code


def test_last_python_block_is_the_code():
    response = "```python\nfirst = 1\n```\ntext\n```python\nsecond = 2\n```\n"
    assert extract_code(response) == "second = 2\n"


def test_unlabelled_and_other_language_blocks_are_not_code():
    assert extract_code("```\nx = 1\n```") is None
    assert extract_code("```bash\nls\n```") is None


def test_py_and_python3_labels_count():
    assert extract_code("```py\nx = 1\n```") == "x = 1\n"
    assert extract_code("```Python3\nx = 1\n```") == "x = 1\n"


def test_unclosed_block_is_no_code():
    assert extract_code("```python\nx = 1\n") is None


def test_blank_block_is_no_code():
    assert extract_code("```python\n   \n```") is None
    assert extract_code("") is None


def test_a_fence_after_text_on_the_line_and_text_after_the_label_still_open_a_block():
    assert extract_code("see ```python title='x'\nx = 1\n```") == "x = 1\n"
    assert extract_code("````python\nx = 1\n```") == "x = 1\n"
    assert extract_code("```pythonic\nx = 1\n```") is None


def test_extraction_takes_linear_time_on_hostile_fences():
    import time

    for hostile in ("```py" * 32_000, "`" * 100_000 + " " * 100_000, "```py```py\n" * 20_000):
        started = time.perf_counter()
        extract_code(hostile)
        assert time.perf_counter() - started < 0.5, hostile[:20]


def test_the_line_scan_gives_the_same_blocks_as_the_fence_regex():
    """The scan replaced one regular expression (quadratic on hostile text); random texts made of
    fence pieces must give the same blocks under both."""
    import random
    import re

    from sebench.grading.extract import _python_blocks

    rule = re.compile(r"```[ \t]*(?:python3?|py)\b[^\n]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
    pieces = ["`", "```", "p", "py", "python", "Python3", "3", "t", " ", "\t", "\n", "x", "_", "é"]
    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert _python_blocks(text) == rule.findall(text), repr(text)


def test_extraction_takes_linear_time_on_huge_responses_and_many_blocks():
    """Eight times the input costs about eight times the time (quadratic would be 64): a ratio
    measured side by side, so a loaded machine slows both sides alike."""
    import time

    def cost(text: str) -> float:
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            extract_code(text)
            best = min(best, time.perf_counter() - started)
        return best

    for unit in ("x", "```python\nx = 1\n```\n", "``` py\n"):
        small = unit * (100_000 // len(unit))
        assert cost(small * 8) < 24 * cost(small), unit


def test_the_official_rule_opens_a_block_only_with_python_and_a_newline():
    from sebench.grading.extract import extract_code_official

    assert extract_code_official("```python\nx = 1\n```\n```python\ny = 2\n```") == "y = 2\n"
    for opening in ("```py\n", "```python \n", "```Python\n", "```python3\n", "```\n"):
        assert extract_code_official(f"{opening}x = 1\n```") is None, opening
    assert extract_code_official("```python\nx = 1") is None  # never closed
    assert extract_code_official("```python\nx = 1```") == "x = 1"  # no newline kept
