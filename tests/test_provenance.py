"""Every output records the versions of sebench and of each runtime dependency it declares."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from sebench.provenance import package_versions

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _declared_runtime_packages() -> set[str]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    requirements = list(project["dependencies"])
    for extra, items in project["optional-dependencies"].items():
        if extra not in ("dev", "all"):  # test tools and the alias of every extra
            requirements += items
    return {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower() for r in requirements}


def test_every_installed_runtime_dependency_is_recorded() -> None:
    versions = package_versions()
    assert versions["sebench"] == metadata.version("sebench")
    for name in sorted(_declared_runtime_packages()):
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # an extra not installed here is not recorded either
        assert versions.get(name) == installed, name
