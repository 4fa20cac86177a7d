"""The fresh-name generator: official style, deterministic, never a reserved or official name."""

from __future__ import annotations

import builtins
import keyword

import numpy as np
import pytest

from sebench.library.catalog import ALL
from sebench.library.names import generate_table, is_library_style, may_be_official
from sebench.library.official import load_official_table


@pytest.fixture(scope="module")
def table7():
    return generate_table(7)


def test_every_name_has_the_official_style(table7) -> None:
    assert all(is_library_style(e.name) for e in table7.entries)
    assert {len(e.name) for e in table7.entries} == {5, 6, 7}


def test_names_are_unique_and_cover_the_278_functions(table7) -> None:
    assert [e.numpy_name for e in table7.entries] == list(ALL)
    assert len({e.name for e in table7.entries}) == 278
    assert len(table7.linalg) == 31 and table7.qualified(table7.linalg[0]).startswith("zwc.rfx.")


def test_same_seed_same_table_other_seed_other_names(table7) -> None:
    assert generate_table(7) == table7
    other = {e.name for e in generate_table(8).entries}
    assert len(other & {e.name for e in table7.entries}) < 10


def test_no_name_is_a_numpy_attribute_keyword_or_builtin() -> None:
    reserved = set(dir(np)) | set(dir(np.linalg)) | set(dir(builtins)) | set(keyword.kwlist)
    for seed in range(5):
        assert not {e.name for e in generate_table(seed).entries} & reserved


def test_no_name_is_an_official_name(official_api_doc_path) -> None:
    official = {e.name for e in load_official_table(official_api_doc_path).entries}
    assert all(may_be_official(name) for name in official)  # the shipped hash covers them all
    for seed in range(20):
        assert not {e.name for e in generate_table(seed).entries} & official


def test_package_and_submodule_names_are_options() -> None:
    table = generate_table(3, package="qex", submodule="lin")
    assert table.constructor.startswith("qex.") and table.numpy_to_library()[
        "linalg.inv"
    ].startswith("qex.lin.")
    assert {e.name for e in table.entries} == {e.name for e in generate_table(3).entries}


def test_the_official_table_is_not_shipped_in_the_source(official_api_doc_path) -> None:
    import re
    from pathlib import Path

    import sebench.library as package

    source = "".join(p.read_text() for p in Path(package.__file__).parent.rglob("*.py"))
    words = set(re.findall(r"[a-z]+", source))
    official = {e.name for e in load_official_table(official_api_doc_path).entries}
    # a few appear as examples in docstrings (kocito, quvohe, yitaf); the table does not
    assert len(official & words) <= 5, sorted(official & words)
