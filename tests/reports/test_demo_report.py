"""The demo report: JSON, Markdown and the bar chart, from a hand-made result (no model)."""

from __future__ import annotations

import json

import pytest

from sebench.reports.demo_table import demo_markdown, verdict_summary, write_demo_report
from sebench.training.demo import DemoConfig, DemoResult, Evaluation, TrainingRun


def _evaluation(key: str, label: str, model: str, docs: bool, correct: int) -> Evaluation:
    verdicts = {"correct": correct, "wrong_answer": 2, "runtime_error": 24 - correct - 2}
    return Evaluation(
        key=key,
        label=label,
        model=model,
        docs_at_test=docs,
        correct=correct,
        total=24,
        verdicts={k: v for k, v in verdicts.items() if v},
        per_function={"mean": (correct // 6, 4)},
        seconds=7.5,
    )


@pytest.fixture
def result() -> DemoResult:
    return DemoResult(
        evaluations=[
            _evaluation("base", "base model, no docs", "base", False, 0),
            _evaluation("open_no_docs", "open-SFT, no docs", "open-SFT", False, 0),
            _evaluation("closed_no_docs", "closed-SFT, no docs", "closed-SFT", False, 21),
            _evaluation("open_docs", "open-SFT, docs at test", "open-SFT", True, 22),
        ],
        trainings=[
            TrainingRun("closed", 65.0, 40, 320, 53_000_000, 1.6, 0.001, (1.6, 0.001)),
            TrainingRun("open", 95.0, 40, 320, 53_000_000, 0.47, 0.001, (0.47, 0.001)),
        ],
        wall_seconds=190.4,
        config=DemoConfig(),
        library={"package": "zwc", "functions": {"mean": "zwc.kocito"}, "constructor": "zwc.yitaf"},
        model="/cache/SmolLM2-135M-Instruct",
    )


def test_markdown_has_one_row_per_evaluation_with_accuracy_and_counts(result):
    text = demo_markdown(result)
    assert "| closed-SFT, no docs | **87.5%** | 21/24 |" in text
    assert "| open-SFT, no docs | **0.0%** | 0/24 |" in text
    assert "Total wall time: 190 s." in text
    assert "- [x] closed-SFT without docs >= 75%" in text


def test_failed_threshold_is_an_unticked_box(result):
    result.evaluations[2] = _evaluation(
        "closed_no_docs", "closed-SFT, no docs", "closed-SFT", False, 12
    )
    text = demo_markdown(result)
    assert "- [ ] closed-SFT without docs >= 75%" in text
    assert result.paradox_shown is False


def test_verdict_summary_lists_failures_most_frequent_first():
    assert (
        verdict_summary({"correct": 3, "no_code": 1, "wrong_answer": 5})
        == "wrong_answer 5, no_code 1"
    )
    assert verdict_summary({"correct": 4}) == "-"


def test_report_files_are_written_and_the_json_round_trips(result, tmp_path):
    files = write_demo_report(result, tmp_path)
    data = json.loads(files["json"].read_text())
    assert data["paradox_shown"] is True
    assert [e["accuracy"] for e in data["evaluations"]] == [0.0, 0.0, 0.875, round(22 / 24, 4)]
    assert data["trainings"][0]["arm"] == "closed"
    assert files["markdown"].read_text().startswith("# The Open-Book Paradox")


def test_chart_is_a_png(result, tmp_path):
    files = write_demo_report(result, tmp_path)
    assert files["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert files["chart"].stat().st_size > 10_000
