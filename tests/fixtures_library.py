"""Session fixtures for built libraries, shared by every area's tests.

`official_library`: the official `zwc` built from the official api_doc (on a public clone, from
the stand-in api_doc in the official format: see tests/conftest.py).
`seeded_library`: a fresh library from seed 1, its docs renamed from that api_doc.
Both are built once per session into a temporary folder; put `library.root` on sys.path (or in
PYTHONPATH of a child) to import the package.
"""

from __future__ import annotations

import pytest

from sebench.library.build import build_library
from sebench.library.library import Library
from sebench.library.names import generate_table
from sebench.library.official import load_official_table


@pytest.fixture(scope="session")
def official_library(tmp_path_factory: pytest.TempPathFactory, api_doc_path) -> Library:
    out = tmp_path_factory.mktemp("official_library")
    return build_library(
        load_official_table(api_doc_path), out, api_doc_path=api_doc_path, origin="official"
    )


@pytest.fixture(scope="session")
def seeded_library(tmp_path_factory: pytest.TempPathFactory, api_doc_path) -> Library:
    out = tmp_path_factory.mktemp("seeded_library")
    return build_library(generate_table(1), out, api_doc_path=api_doc_path, origin="seed", seed=1)
