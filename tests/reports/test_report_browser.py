"""The report as a person sees it: opened in headless Chromium (Debian's package, driven by
Playwright), screenshotted, its tables and figures rendered, no console errors, filters working,
and the hostile response shown as text, never run.

Locally the test skips when Chromium or Playwright is missing; CI installs both and sets
SEBENCH_REQUIRE_BROWSER=1, which turns the skip into a failure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sebench.reports.report import write_report
from tests.reports.conftest import HOSTILE

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _unavailable(reason: str) -> None:
    if os.environ.get("SEBENCH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (SEBENCH_REQUIRE_BROWSER=1: CI must run this test)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        _unavailable(f"needs Chromium at {CHROMIUM}: apt-get install -y chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("needs Playwright for Python: pip install 'sebench[dev]'")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def report(tmp_path_factory, run_dir, second_run_dir) -> Path:
    out = tmp_path_factory.mktemp("browser_report")
    return write_report([run_dir, second_run_dir], out).html


@pytest.fixture
def page(browser, report):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.problems = []  # console errors and warnings, script errors, dialogs
    page.on(
        "console",
        lambda m: (
            page.problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning")
            else None
        ),
    )
    page.on("pageerror", lambda e: page.problems.append(f"page error: {e}"))
    page.on("dialog", lambda d: (page.problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.goto(report.as_uri())
    yield page
    page.close()


def _failures(report: Path) -> list[dict]:
    html = report.read_text()
    return json.loads(html.split('id="failure-data">', 1)[1].split("</script>", 1)[0])


def test_page_renders_tables_and_figures_without_console_errors(page, report, tmp_path):
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 50_000  # a real page, not a blank one
    assert page.locator("table.paper-table").count() == 2  # one per run
    assert page.locator("table.paper-table tr").first.is_visible()
    assert page.locator("table.heat td.cell").count() > 0
    figures = page.locator("img.figure")
    assert figures.count() == 6
    widths = figures.evaluate_all("imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
    assert all(w > 100 for w in widths), widths
    # the failure browser's script ran (under the page's CSP, which a hash mismatch would block)
    assert page.locator("#failure-list details").count() > 0
    assert page.problems == []


def test_failure_browser_filters_by_verdict_and_function(page, report):
    rows = _failures(report)
    count = page.locator("#failure-count")
    assert count.inner_text().startswith(f"{len(rows)} of {len(rows)}")

    page.select_option("#filter-verdict", "no_code")
    wanted = [r for r in rows if r["verdict"] == "no_code"]
    shown = page.locator("#failure-list details")
    assert 0 < shown.count() == len(wanted) < len(rows)
    assert set(shown.evaluate_all("ds => ds.map(d => d.dataset.verdict)")) == {"no_code"}
    assert count.inner_text().startswith(f"{len(wanted)} of {len(rows)}")

    function = rows[0]["functions"][0]
    page.select_option("#filter-verdict", "")
    page.select_option("#filter-function", function)
    wanted = [r for r in rows if function in r["functions"]]
    assert shown.count() == len(wanted) < len(rows)
    assert all(function in text for text in shown.locator(".fns").all_inner_texts())
    assert page.problems == []


def test_hostile_response_is_shown_as_text_and_never_runs(page, report):
    hostile = next(r for r in _failures(report) if r["response"] == HOSTILE)
    page.select_option("#filter-run", f"{hostile['run']} | {hostile['arm']}")
    page.select_option("#filter-verdict", hostile["verdict"])
    row = page.locator("#failure-list details", has_text=hostile["task"]).filter(
        has_text=f"#{hostile['sample']}"
    )
    row.locator("summary").click()
    texts = row.locator("pre").all_inner_texts()
    assert HOSTILE.strip() in [t.strip() for t in texts]
    # no element the response spelled out exists: only the figures are images, only ours scripts
    assert page.locator("#failure-list img, #failure-list script").count() == 0
    assert page.locator("script").count() == 2
    assert page.problems == []  # no alert() dialog, no error
