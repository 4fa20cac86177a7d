"""Lint: the official docs' known leaks are found and counted; fresh docs leak nothing."""

from __future__ import annotations

from sebench.library.library import Library
from sebench.library.lint import LintRule, lint_docs


def test_official_docs_counts(official_library: Library, official_api_doc_path) -> None:
    report = lint_docs(
        official_library.table, official_library.docs(), official_api_doc=official_api_doc_path
    )
    counts = report.counts()
    assert report.docs_checked == 278
    assert counts["numpy-mention"] == 2  # 'numpystr' twice
    assert counts["np-prefix"] == 1  # `>>> np.yozoce(...)`
    assert counts["other-library"] == 23  # SciPy cross-references
    assert counts["official-name"] == 0
    assert counts["array-repr"] > 700  # examples print array(...), the library ZWCArray(...)
    # the spec: 90 referenced names do not exist (zwc.nan, zwc.pi, zwc.float64, ...)
    unknown = report.distinct(LintRule.UNKNOWN_REFERENCE)
    assert len(unknown) == 90 and "zwc.pi" in unknown and "zwc.float64" in unknown


def test_fresh_docs_leak_no_numpy_and_no_official_name(
    seeded_library: Library, api_doc_path
) -> None:
    exact = lint_docs(seeded_library.table, seeded_library.docs(), official_api_doc=api_doc_path)
    hashed = lint_docs(seeded_library.table, seeded_library.docs())
    for report in (exact, hashed):
        assert report.leaks == 0, report.findings[:5]


def test_lint_finds_a_planted_leak_and_an_unknown_name(
    seeded_library: Library, api_doc_path
) -> None:
    rows = seeded_library.docs()[:1]
    rows[0] = {
        **rows[0],
        "rewritten_doc": "Like np.mean in NumPy; see zwc.kocito and zwc.nosuchname; ``cumsum``.",
    }
    report = lint_docs(seeded_library.table, rows, official_api_doc=api_doc_path)
    counts = report.counts()
    assert counts["np-prefix"] == 1 and counts["numpy-mention"] == 1
    assert counts["official-name"] == 1 and counts["numpy-name"] == 1
    assert "zwc.nosuchname" in report.distinct(LintRule.UNKNOWN_REFERENCE)
