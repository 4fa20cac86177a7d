"""Building libraries: byte-for-byte determinism, the files on disk, a real import and install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sebench.library.build import build_library
from sebench.library.cache import official_library, seeded_library
from sebench.library.docs import SOURCE_NUMPY, SOURCE_OFFICIAL, SOURCE_RENAMED
from sebench.library.library import Library
from sebench.library.names import generate_table


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _run(root: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root, timeout=60
    )


def test_seed_7_twice_is_identical_and_seed_8_differs(tmp_path: Path, api_doc_path) -> None:
    a = build_library(generate_table(7), tmp_path / "a", api_doc_path=api_doc_path, seed=7)
    b = build_library(generate_table(7), tmp_path / "b", api_doc_path=api_doc_path, seed=7)
    c = build_library(generate_table(8), tmp_path / "c", api_doc_path=api_doc_path, seed=8)
    assert _tree(a.root) == _tree(b.root)
    assert _tree(a.root)["zwc/_table.py"] != _tree(c.root)["zwc/_table.py"]


def test_official_build_runs_the_issue_example_in_a_fresh_interpreter(official_library) -> None:
    out = _run(
        official_library.root,
        "import zwc; print(zwc.kocito(zwc.yitaf([1,2,3,4])))\n"
        "try:\n    zwc.yitaf([1,2]).mean()\nexcept AttributeError:\n    print('refused')",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2.5", "refused"]


def test_the_built_package_imports_only_numpy_and_the_stdlib(official_library) -> None:
    out = _run(
        official_library.root,
        "import sys; import zwc; print(any(m.startswith('sebench') for m in sys.modules))",
    )
    assert out.stdout.strip() == "False", out.stderr


def test_built_files_and_docs_follow_the_official_schema(official_library: Library) -> None:
    root = official_library.root
    for name in ("api_doc.jsonl", "API.md", "sebench_library.json", "pyproject.toml"):
        assert (root / name).exists(), name
    rows = official_library.docs()
    assert len(rows) == 278
    assert set(rows[0]) == {
        "original_name",
        "curr_name",
        "docstring",
        "func_mapping",
        "rewritten_doc",
    }
    assert official_library.meta["docs_source"] == SOURCE_OFFICIAL
    assert not (official_library.package_dir / "sebench_library.json").exists()
    assert Library.load(root).table == official_library.table


def test_fresh_docs_are_renamed_consistently(seeded_library: Library, api_doc_path) -> None:
    rows = {row["original_name"]: row for row in seeded_library.docs()}
    table = seeded_library.table
    assert seeded_library.meta["docs_source"] == SOURCE_RENAMED
    mean = rows["mean"]
    assert mean["curr_name"] == table.entry("mean").name
    assert json.loads(mean["func_mapping"])["np.mean"] == table.numpy_to_library()["mean"]
    assert table.entry("mean").name in mean["rewritten_doc"]
    assert "kocito" not in mean["rewritten_doc"]


def test_without_an_api_doc_the_docs_fall_back_to_numpy_docstrings(tmp_path: Path) -> None:
    library = build_library(generate_table(5, package="qex", submodule="lin"), tmp_path / "q")
    assert library.meta["docs_source"] == SOURCE_NUMPY
    assert "generated without the official API doc" in (library.root / "API.md").read_text()
    row = library.doc_for("mean")
    assert row is not None and "numpy" not in row["rewritten_doc"].lower()
    assert row["rewritten_doc"].lstrip().startswith(library.table.entry("mean").name + "(")
    out = _run(
        library.root,
        f"import qex.lin; print(qex.lin.{library.table.entry('linalg.det').name}([[2, 0], [0, 3]]))",
    )
    assert out.returncode == 0 and float(out.stdout) == pytest.approx(6.0), out.stderr


def test_cache_builds_once_and_reuses(tmp_path: Path, monkeypatch, api_doc_path) -> None:
    monkeypatch.setenv("SEBENCH_CACHE", str(tmp_path))
    first = official_library(api_doc_path)
    stamp = (first.root / "sebench_library.json").stat().st_mtime_ns
    again = official_library(api_doc_path)
    assert again.root == first.root and again.root.is_relative_to(tmp_path)
    assert (again.root / "sebench_library.json").stat().st_mtime_ns == stamp
    seeded = seeded_library(2)
    assert seeded.root != first.root and seeded.meta["seed"] == 2


def test_the_library_is_pip_installable(tmp_path: Path, seeded_library: Library) -> None:
    target = tmp_path / "site"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(seeded_library.root),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    name = seeded_library.table.entry("mean").name
    check = _run(target, f"import zwc; print(zwc.{name}([1, 3]))")
    assert check.stdout.strip() == "2.0", check.stderr
