"""What a library's docs leak, and which names they reference that the library does not have.

Rules (each finding carries the doc, the line and the text):
- `numpy-mention`: the word NumPy anywhere (also inside words such as `numpystr`);
- `np-prefix`: `np.` used as a module prefix;
- `numpy-name`: a NumPy function name used as code (``mean``, `mean(`) that is not also a library
  name or a Python builtin;
- `array-repr`: NumPy's print form `array([...])` (the library prints `ZWCArray([...])`);
- `other-library`: SciPy, whose docs and names point straight back to NumPy;
- `official-name`: an official library name (or the official package/submodule name) in the docs
  of another library;
- `unknown-reference`: `pkg.name` or `pkg.sub.name` that the library does not define.
"""

from __future__ import annotations

import builtins
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from sebench.library.catalog import ALL
from sebench.library.names import is_library_style, may_be_official
from sebench.library.official import read_official_rows
from sebench.library.table import NameTable


class LintRule(Enum):
    NUMPY_MENTION = "numpy-mention"
    NP_PREFIX = "np-prefix"
    NUMPY_NAME = "numpy-name"
    ARRAY_REPR = "array-repr"
    OTHER_LIBRARY = "other-library"
    OFFICIAL_NAME = "official-name"
    UNKNOWN_REFERENCE = "unknown-reference"

    @property
    def is_leak(self) -> bool:
        return self is not LintRule.UNKNOWN_REFERENCE


@dataclass(frozen=True)
class Finding:
    rule: LintRule
    doc: str  # qualified library name of the doc
    line: int  # 1-based line within the doc
    text: str  # the matched text


@dataclass
class LintReport:
    findings: list[Finding] = field(default_factory=list)
    docs_checked: int = 0

    def counts(self) -> dict[str, int]:
        found = Counter(f.rule for f in self.findings)
        return {rule.value: found.get(rule, 0) for rule in LintRule}

    def docs_affected(self) -> dict[str, int]:
        docs: dict[LintRule, set[str]] = {rule: set() for rule in LintRule}
        for f in self.findings:
            docs[f.rule].add(f.doc)
        return {rule.value: len(names) for rule, names in docs.items()}

    def distinct(self, rule: LintRule) -> list[str]:
        return sorted({f.text for f in self.findings if f.rule is rule})

    @property
    def leaks(self) -> int:
        return sum(1 for f in self.findings if f.rule.is_leak)

    def to_dict(self) -> dict[str, Any]:
        return {
            "docs_checked": self.docs_checked,
            "counts": self.counts(),
            "docs_affected": self.docs_affected(),
            "unknown_references": self.distinct(LintRule.UNKNOWN_REFERENCE),
        }


_NUMPY = re.compile(r"numpy", re.IGNORECASE)
_NP = re.compile(r"(?<![\w.])np\.")
_SCIPY = re.compile(r"scipy", re.IGNORECASE)
_ARRAY_REPR = re.compile(r"(?<![\w.])array\(")
_WORD = re.compile(r"(?<![\w])([A-Za-z_]\w*)")


def lint_docs(
    table: NameTable, rows: Iterable[dict[str, Any]], *, official_api_doc: str | Path | None = None
) -> LintReport:
    """Lint the `rewritten_doc` of each row against the library `table`.

    Official names are known exactly from `official_api_doc`; without it, a style-matching word
    used as code is flagged when its hash matches an official name's (see `names.py`).
    """
    lib_names = {e.name for e in table.entries}
    top = {e.name for e in table.top_level}
    sub = {e.name for e in table.linalg}
    builtin_names = set(dir(builtins))
    numpy_names = {n.removeprefix("linalg.") for n in ALL} - lib_names - builtin_names
    official: set[str] | None = None
    if official_api_doc is not None:
        off_package, off_sub, off_rows = read_official_rows(official_api_doc)
        official = {r.entry.name for r in off_rows} | {off_package, off_sub}
    pkg, subm = re.escape(table.package), re.escape(table.submodule)
    reference = re.compile(rf"(?<![\w.]){pkg}\.(?:({subm})\.)?([A-Za-z_]\w*)")
    code_word = re.compile(r"``([A-Za-z_]\w*)``|`([A-Za-z_]\w*)`|(?<![\w.])([A-Za-z_]\w*)\(")

    report = LintReport()
    by_name = {e.numpy_name.removeprefix("linalg."): e for e in table.entries}
    for row in rows:
        report.docs_checked += 1
        entry = next((e for e in table.entries if e.name == row.get("curr_name")), None)
        if entry is None:
            entry = by_name.get(row.get("original_name", ""))
        doc = table.qualified(entry) if entry else str(row.get("curr_name"))
        for number, line in enumerate(str(row.get("rewritten_doc", "")).splitlines(), start=1):

            def add(rule: LintRule, text: str, number: int = number, doc: str = doc) -> None:
                report.findings.append(Finding(rule, doc, number, text))

            for m in _NUMPY.finditer(line):
                add(LintRule.NUMPY_MENTION, m.group(0))
            for m in _NP.finditer(line):
                add(LintRule.NP_PREFIX, m.group(0))
            for m in _SCIPY.finditer(line):
                add(LintRule.OTHER_LIBRARY, m.group(0))
            for m in _ARRAY_REPR.finditer(line):
                add(LintRule.ARRAY_REPR, m.group(0))
            for m in code_word.finditer(line):
                word = m.group(1) or m.group(2) or m.group(3)
                if word in numpy_names and not (word == "array" and m.group(3)):
                    add(LintRule.NUMPY_NAME, word)
            for m in reference.finditer(line):
                in_sub, name = m.group(1), m.group(2)
                known = (
                    (name in sub)
                    if in_sub
                    else (name in top or name in (table.submodule, "ZWCArray"))
                )
                if not known:
                    add(LintRule.UNKNOWN_REFERENCE, m.group(0))
            if official is not None:
                for m in _WORD.finditer(line):
                    if m.group(1) in official and m.group(1) not in lib_names | {
                        table.package,
                        table.submodule,
                    }:
                        add(LintRule.OFFICIAL_NAME, m.group(1))
            else:
                for m in code_word.finditer(line):
                    word = m.group(1) or m.group(2) or m.group(3)
                    if word not in lib_names and is_library_style(word) and may_be_official(word):
                        add(LintRule.OFFICIAL_NAME, word)
    return report
