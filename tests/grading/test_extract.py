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
