"""`sebench report` on run folders graded for real: the numbers, the files, the escaping."""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from html import unescape
from pathlib import Path

import pytest

from sebench.data.sources import load
from sebench.errors import SebenchError
from sebench.provenance import provenance
from sebench.reports.report import write_report
from sebench.reports.runs import load_run, read_training_log
from sebench.reports.tables import (
    compare_functions,
    failures,
    function_matrix,
    paper_table,
    verdict_breakdown,
)
from tests.cli.cli_run import sebench
from tests.reports.conftest import HOSTILE


def _summary(run_dir: Path, name: str) -> dict:
    return json.loads((run_dir / "arms" / name / "summary.json").read_text())


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory, run_dir, second_run_dir) -> Path:
    out = tmp_path_factory.mktemp("report")
    write_report([run_dir, second_run_dir], out)
    return out


def test_paper_table_cell_is_mean_and_spread_of_the_seeds_summaries(run_dir):
    rows = {row.regime: row for row in paper_table(load_run(run_dir))}
    seeds = [_summary(run_dir, f"with-docs-{s}")["mean_accuracy_over_samples"] for s in (0, 1)]
    cell = rows["with-docs"].cells["single"]
    assert cell.values == seeds
    assert cell.mean == pytest.approx(statistics.fmean(seeds))
    assert cell.spread == pytest.approx(statistics.stdev(seeds))
    assert cell.expected == 89.6
    assert rows["with-docs"].bound and not rows["closed-rl"].bound


def test_pending_and_failed_arms_show_as_such(run_dir):
    rows = {row.regime: row for row in paper_table(load_run(run_dir))}
    assert rows["closed-rl"].cells["multiple"].waiting == ("pending",)
    assert rows["open-rl"].cells["single"].waiting == ("failed",)
    assert rows["open-rl"].cells["single"].mean is None


def test_regimes_follow_the_papers_order(run_dir):
    assert [row.regime for row in paper_table(load_run(run_dir))] == [
        "with-docs",
        "open-sft",
        "open-rl",
        "closed-rl",
    ]


def test_verdicts_per_regime_add_up_the_arms_summaries(run_dir):
    breakdown = verdict_breakdown(load_run(run_dir))
    expected = {}
    for seed in (0, 1):
        for kind, count in _summary(run_dir, f"closed-rl-{seed}")["verdicts"].items():
            expected[kind] = expected.get(kind, 0) + count
    assert {k: v for k, v in breakdown["closed-rl"].items() if v} == {
        k: v for k, v in expected.items() if v
    }


def test_heatmap_has_every_graded_function_with_its_pooled_accuracy(run_dir):
    run = load_run(run_dir)
    matrix = function_matrix(run)
    graded = {
        name
        for arm in run.arms
        for row in arm.results
        for name in row.get("functions", [])
        if arm.usable
    }
    assert set(matrix.functions) == graded
    name = matrix.functions[0]
    blocks = [_summary(run_dir, f"with-docs-{s}")["per_function"].get(name) for s in (0, 1)]
    correct = sum(b["correct"] for b in blocks if b)
    samples = sum(b["samples"] for b in blocks if b)
    assert matrix.accuracy(name, "with-docs") == pytest.approx(correct / samples)


def test_comparison_gives_each_functions_change(run_dir, second_run_dir):
    before, after = load_run(run_dir), load_run(second_run_dir)
    a, b = function_matrix(before), function_matrix(after)

    def pooled(matrix, name):  # noqa: ANN001, ANN202
        cells = [matrix.cells.get((name, r), (0, 0)) for r in a.regimes]
        return sum(c for c, _ in cells) / sum(n for _, n in cells)

    changes = compare_functions(before, after)
    assert {c.function for c in changes} == set(a.functions) | set(b.functions)
    for change in changes:
        assert change.delta == pytest.approx(
            pooled(b, change.function) - pooled(a, change.function)
        )
    # the after run answers more tasks right: no function got worse, some got better
    assert all(c.delta >= 0 for c in changes) and any(c.delta > 0 for c in changes)
    assert [abs(c.delta) for c in changes] == sorted((abs(c.delta) for c in changes), reverse=True)


def test_failure_rows_carry_the_task_the_response_and_the_extracted_code(
    run_dir, single_test_dev_path
):
    from sebench.data.sources import load

    queries = {t.task_id: t.query for t in load("single_test", single_test_dev_path)}
    rows, total = failures([load_run(run_dir)])
    assert len(rows) == total
    assert rows and all(row["verdict"] != "correct" for row in rows)
    hostile = [row for row in rows if row["response"] == HOSTILE]
    assert hostile
    assert "alert(3)" in hostile[0]["code"] and "alert(1)" not in hostile[0]["code"]
    assert hostile[0]["prompt"] == queries[hostile[0]["task"]]
    assert all(row["functions"] for row in rows)


def test_capped_failures_keep_an_equal_share_of_every_arm(run_dir, monkeypatch):
    from sebench.reports import tables

    run = load_run(run_dir)
    graded = [arm for arm in run.arms if arm.results]
    monkeypatch.setattr(tables, "MAX_FAILURES", 2 * len(graded))
    rows, total = failures([run])
    assert total > len(rows) == 2 * len(graded)
    assert sorted(Counter(row["arm"] for row in rows).values()) == [2] * len(graded)


def test_report_writes_html_markdown_and_the_figures_it_links(report_dir):
    html = (report_dir / "report.html").read_text()
    markdown = (report_dir / "report.md").read_text()
    assert "The paper's table" in html and "before vs after" in html
    assert html.count('src="data:image/png;base64,') == 6  # verdicts, pass@k, training x 2 runs
    assert "| with-docs (bound) |" in markdown
    linked = re.findall(r"\]\((figures/[^)]+\.png)\)", markdown)
    assert linked and all((report_dir / path).is_file() for path in linked)
    assert "89.6" in markdown and "pending" in markdown and "failed" in markdown


def test_html_fetches_nothing(report_dir):
    html = (report_dir / "report.html").read_text()
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    assert "<link" not in html and "@import" not in html
    policy = unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)[1])
    assert policy.startswith("default-src 'none'")  # the CSP forbids any fetch a bug might add


def test_hostile_response_cannot_inject_markup(report_dir):
    html = (report_dir / "report.html").read_text()
    # the page's own two scripts (data, browser) and no other; the hostile text only escaped
    assert len(re.findall(r"<script", html, re.IGNORECASE)) == 2
    assert "<img src=x" not in html and "</script><script>alert" not in html
    data = html.split('id="failure-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data and ">" not in data
    decoded = json.loads(data)
    assert any(row["response"] == HOSTILE for row in decoded)


def test_missing_arm_files_are_noted_and_the_report_still_written(tmp_path, run_dir):
    manifest = json.loads((run_dir / "manifest.json").read_text())
    for arm in manifest["arms"]:
        arm["results"] = str((run_dir / arm["results"]).resolve()) if arm["results"] else None
        arm["summary"] = (
            "gone/summary.json"
            if arm["regime"] == "open-sft"
            else (str((run_dir / arm["summary"]).resolve()) if arm["summary"] else None)
        )
        arm["train_dir"] = None
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    run = load_run(tmp_path)
    broken = next(arm for arm in run.arms if arm.regime == "open-sft")
    assert broken.problems == ["summary gone/summary.json: no such file"]
    write_report([tmp_path], tmp_path / "out")
    assert "summary gone/summary.json: no such file" in (tmp_path / "out/report.html").read_text()


def test_a_folder_without_manifest_is_a_user_error_exit_2(tmp_path):
    with pytest.raises(SebenchError, match="manifest.json: no such file"):
        load_run(tmp_path)
    done = sebench("report", tmp_path, "--out", tmp_path / "out")
    assert done.returncode == 2
    assert "manifest.json: no such file" in done.stderr


def test_report_command_writes_both_files(tmp_path, run_dir):
    done = sebench("report", run_dir, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "report.html").is_file()
    assert (tmp_path / "out" / "report.md").is_file()


def test_sft_losses_are_read_from_the_run_record(tmp_path):
    record = provenance(None, stage="sft", losses=[2.0, 1.5, 1.2])
    (tmp_path / "sebench_sft.json").write_text(json.dumps(record))
    log = read_training_log(tmp_path)
    assert log is not None and log.kind == "sft"
    assert log.steps == [1, 2, 3] and log.loss == [2.0, 1.5, 1.2]


def test_grpo_log_gives_loss_reward_and_zero_spread(run_dir):
    log = read_training_log(run_dir / "train" / "closed-rl-0")
    assert log is not None and log.kind == "grpo"
    assert log.steps == list(range(1, 13))
    assert all(v is not None for v in log.loss + log.reward + log.zero_spread)


def test_relative_paths_in_the_summary_resolve_against_the_run_folder(
    tmp_path, monkeypatch, single_test_dev_path, official_library
):
    from sebench.grading.runner import EvalConfig, evaluate
    from sebench.grading.sandbox import SandboxConfig

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "dev.jsonl").write_bytes(single_test_dev_path.read_bytes())
    task_id = load("single_test", single_test_dev_path)[0].task_id
    (tmp_path / "responses.jsonl").write_text(json.dumps({"task_id": task_id, "response": HOSTILE}))
    monkeypatch.chdir(tmp_path)  # graded from inside the run folder, with relative paths
    evaluate(
        "responses.jsonl",
        "results.jsonl",
        "summary.json",
        library=official_library,
        config=EvalConfig(sandbox=SandboxConfig(workers=1), data=("single_test=data/dev.jsonl",)),
    )
    arm = {"regime": "no-docs", "seed": 0, "split": "single", "train_dir": None}
    arm |= {"results": "results.jsonl", "summary": "summary.json", "status": "done"}
    (tmp_path / "manifest.json").write_text(json.dumps({"schema": 1, "arms": [arm]}))
    monkeypatch.chdir(tmp_path.parent)
    rows, _ = failures([load_run(tmp_path)])
    assert rows[0]["response"] == HOSTILE and rows[0]["prompt"]


def test_a_run_with_nothing_finished_still_reports_the_papers_numbers(tmp_path):
    arms = [{"regime": "memory", "seed": s, "split": "single", "status": "pending"} for s in (0, 1)]
    manifest = {"schema": 1, "name": "fresh", "model": "m", "arms": arms}
    manifest["expected"] = {"memory": {"single": 47.1, "multiple": 15.5}}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    files = write_report([tmp_path], tmp_path / "out")
    markdown = files.markdown.read_text()
    assert "| memory | pending | 47.1 | – | 15.5 |" in markdown
    assert "No finished arms." in files.html.read_text()
    assert files.figures == []
