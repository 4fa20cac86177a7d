"""Self-play end to end: the tiny random model through the command, and a scripted model (a real
chat-completions server on 127.0.0.1) whose tasks and answers are kept, so that the tiny
checkpoint really trains on them; resume after an interruption; Closed-RL for one round."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from sebench.data.rows import official_row
from sebench.data.translate import to_library
from sebench.errors import SebenchError
from sebench.jsonl import read_jsonl, write_jsonl
from sebench.reports.selfplay_table import write_selfplay_report
from sebench.rollout.backend import SamplingConfig
from sebench.rollout.openai_compat import OpenAICompatBackend, OpenAIConfig
from sebench.training.grpo import GRPOSettings
from sebench.training.selfplay import Method, SelfPlayConfig, run_selfplay
from sebench.training.selfplay_folder import CONFIG_FILE, ROUND_FILE, round_dir
from sebench.training.sft import SFTTrainingConfig, load_model
from sebench.training.sft_pipeline import SFTDataConfig
from sebench.training.task_writing import ModelTasksConfig
from tests.cli.cli_run import sebench
from tests.helpers.chat_server import ChatServer, Reply
from tests.helpers.task_writer_server import QUERIES, WRONG, TaskWriterScript

SHORT = SamplingConfig(temperature=0.6, max_new_tokens=16)
TEST_TASKS = 4


# tiny-model tests: one PyTorch thread (tests/training/conftest.py)
pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def test_file(task_set, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("selfplay-test") / "single_test_selfplay.jsonl"
    write_jsonl(path, [official_row(task) for task in task_set.test[:TEST_TASKS]])
    return path


class SelfPlayScript(TaskWriterScript):
    """The model under training, scripted: it writes and solves NumPy-form tasks as the task
    writer's script does, and answers a library prompt (open or closed book) of a task it wrote
    with the library translation of that task's reference; anything else wrongly."""

    def __init__(self, table) -> None:  # noqa: ANN001
        super().__init__()
        self.table = table

    def __call__(self, body, attempt) -> Reply:  # noqa: ANN001
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("You write programming tasks") or "calls NumPy functions" in prompt:
            return super().__call__(body, attempt)
        for query, code in QUERIES.items():
            if query in prompt:
                return Reply(f"```python\n{to_library(code, self.table).code}```")
        return Reply(WRONG)


def _served(server: ChatServer):
    """Each round's checkpoint behind the scripted server, named by its path."""

    def backend_for(checkpoint: Path) -> OpenAICompatBackend:
        config = OpenAIConfig(model=str(checkpoint), base_urls=(server.url,), max_retries=0)
        return OpenAICompatBackend(config)

    return backend_for


def _config(**changes) -> SelfPlayConfig:
    tiny = {
        "rounds": 1,
        "writing": ModelTasksConfig(
            functions=("mean", "median"), generator_sampling=SHORT, solver_sampling=SHORT
        ),
        "solving": SFTDataConfig(samples=2, sampling=SHORT),
        "sft": SFTTrainingConfig(max_steps=2, batch_size=2, warmup_steps=0, bf16=False),
        "eval_sampling": SHORT,
    }
    return SelfPlayConfig(**{**tiny, **changes})


def _writer_requests(server: ChatServer) -> int:
    return sum(
        body["messages"][-1]["content"].startswith("You write programming tasks")
        for body in server.requests
    )


def _weights(folder: Path) -> dict[str, torch.Tensor]:
    model, _ = load_model(folder)
    return {name: tensor.clone() for name, tensor in model.state_dict().items()}


def test_own_tasks_and_answers_are_kept_and_each_round_trains_a_checkpoint(
    tmp_path, seeded_lib, tiny_model, test_file
) -> None:
    out = tmp_path / "run"
    with ChatServer(SelfPlayScript(seeded_lib.table)) as server:
        result = run_selfplay(
            seeded_lib, tiny_model, test_file, out, _config(rounds=2),
            backend_for=_served(server),
        )  # fmt: skip
    rows = {row.round: row for row in result.rows}
    assert sorted(rows) == [0, 1, 2]
    for index in (1, 2):
        row = rows[index]
        assert row.trained and row.note.startswith("Closed-SFT, 2 steps on 4 answers")
        assert (row.tasks_kept, row.tasks_requested) == (2, 2)
        assert (row.answers_kept, row.answers_sampled) == (4, 4)  # 2 tasks x 2 samples
        assert row.model == str(round_dir(out, index) / "model")
        assert (round_dir(out, index) / "model" / "config.json").is_file()
        assert row.samples == TEST_TASKS and row.accuracy == 0.0  # the script fails the test
    # round 1 trained the base weights, round 2 trained round 1's: each changed them
    base = _weights(tiny_model)
    first = _weights(round_dir(out, 1) / "model")
    second = _weights(round_dir(out, 2) / "model")
    changed = [name for name in base if not torch.equal(base[name], first[name])]
    assert changed and any(not torch.equal(first[n], second[n]) for n in changed)
    # the answers trained on are the model's own, under their closed-book prompt
    kept = read_jsonl(round_dir(out, 1) / "sft.jsonl")
    assert {row["model"] for row in kept} == {str(tiny_model)}
    record = json.loads((round_dir(out, 2) / ROUND_FILE).read_text())
    assert record["model_in"] == str(round_dir(out, 1) / "model")
    assert record["settings"]["config"]["method"] == "sft"
    assert list(record["stages"]) == ["tasks", "solutions", "train", "eval"]


def test_an_interrupted_run_resumes_at_its_unfinished_stage(
    tmp_path, seeded_lib, tiny_model, test_file
) -> None:
    out = tmp_path / "run"

    def stop_in_training(event) -> None:  # noqa: ANN001
        if event.stage == "train":
            raise KeyboardInterrupt  # as Ctrl-C or a kill lands during training

    with ChatServer(SelfPlayScript(seeded_lib.table)) as server:
        with pytest.raises(KeyboardInterrupt):
            run_selfplay(
                seeded_lib, tiny_model, test_file, out, _config(),
                backend_for=_served(server), on_progress=stop_in_training,
            )  # fmt: skip
        stages = json.loads((round_dir(out, 1) / ROUND_FILE).read_text())["stages"]
        assert list(stages) == ["tasks", "solutions"]
        assert not (round_dir(out, 1) / "model").exists()
        written, requests = _writer_requests(server), len(server.requests)
        sft_data = (round_dir(out, 1) / "sft.jsonl").read_text()
        tasks_summary = (round_dir(out, 1) / "tasks.summary.json").read_text()

        result = run_selfplay(
            seeded_lib, tiny_model, test_file, out, _config(), backend_for=_served(server)
        )
        assert _writer_requests(server) == written  # no task written again
        # and no answer sampled again: the only new requests are the test answers of round 1
        assert len(server.requests) - requests == TEST_TASKS
        assert (round_dir(out, 1) / "sft.jsonl").read_text() == sft_data
        # the finished stages did not even run again (a rerun of a stage rewrites its summary)
        assert (round_dir(out, 1) / "tasks.summary.json").read_text() == tasks_summary
        assert result.resumed == ["round 0", "round 1: tasks, solutions"]
        assert result.rows[1].trained and (round_dir(out, 1) / "model" / "config.json").is_file()

        # a finished run is never redone
        again = run_selfplay(
            seeded_lib, tiny_model, test_file, out, _config(), backend_for=_served(server)
        )
        assert len(server.requests) - requests == TEST_TASKS
    assert again.resumed == ["round 0", "round 1"]
    assert again.rows == result.rows


def test_other_settings_are_refused_unless_forced_and_more_rounds_continue(
    tmp_path, seeded_lib, tiny_model, test_file
) -> None:
    out = tmp_path / "run"
    run_selfplay(seeded_lib, tiny_model, test_file, out, _config(rounds=0))
    responses = (round_dir(out, 0) / "eval" / "responses.jsonl").read_text()
    with pytest.raises(SebenchError, match=r"other settings \(changed: config\.eval_samples\)"):
        run_selfplay(seeded_lib, tiny_model, test_file, out, _config(rounds=0, eval_samples=2))
    forced = run_selfplay(
        seeded_lib, tiny_model, test_file, out, _config(rounds=0, eval_samples=2), force=True
    )
    assert forced.resumed == ["round 0"]  # finished: kept, not redone
    assert (round_dir(out, 0) / "eval" / "responses.jsonl").read_text() == responses
    assert json.loads((out / CONFIG_FILE).read_text())["config"]["eval_samples"] == 2
    # more rounds are not other settings: the run goes on (the random model keeps nothing)
    more = run_selfplay(seeded_lib, tiny_model, test_file, out, _config(rounds=1, eval_samples=2))
    assert [row.round for row in more.rows] == [0, 1]
    assert not more.rows[1].trained and more.rows[1].note.startswith("not trained: no task kept")
    assert more.rows[1].accuracy == more.rows[0].accuracy


def test_a_folder_that_is_not_a_checkpoint_is_refused(tmp_path, seeded_lib, test_file) -> None:
    with pytest.raises(SebenchError, match="not a Hugging Face model folder"):
        run_selfplay(seeded_lib, tmp_path, test_file, tmp_path / "run", _config())


def test_closed_rl_trains_one_round_on_the_models_own_tasks(
    tmp_path, seeded_lib, tiny_model, test_file
) -> None:
    out = tmp_path / "run"
    grpo = GRPOSettings(
        prompts_per_step=2,
        generations_per_prompt=2,
        micro_batch_size=4,
        max_steps=1,
        max_completion_length=16,
        save_steps=100,
    )
    with ChatServer(SelfPlayScript(seeded_lib.table)) as server:
        result = run_selfplay(
            seeded_lib, tiny_model, test_file, out, _config(method=Method.RL, grpo=grpo),
            backend_for=_served(server),
        )  # fmt: skip
    row = result.rows[1]
    assert row.trained and row.note == "Closed-RL, 1 steps on 2 tasks"
    assert row.answers_kept is None  # RL samples its own answers while it trains
    assert not (round_dir(out, 1) / "sft.jsonl").exists()
    record = json.loads((round_dir(out, 1) / "model" / "sebench_grpo.json").read_text())
    assert record["mode"] == "closed" and record["tasks"] == 2


def test_the_command_runs_two_rounds_of_the_tiny_model_and_writes_the_table(
    tmp_path, seeded_lib, tiny_model, test_file
) -> None:
    out = tmp_path / "run"
    args = (
        "selfplay", "--model", tiny_model, "--out", out, "--rounds", "2", "--test", test_file,
        "--test-split", "single_test", "--lib", seeded_lib.root, "--functions", "mean,median",
        "--max-new-tokens", "16", "-k", "1", "--steps", "1", "--workers", "1",
    )  # fmt: skip
    done = sebench(*args)
    assert done.returncode == 0, done.stderr
    table = json.loads((out / "selfplay.json").read_text())
    assert [row["round"] for row in table["rows"]] == [0, 1, 2]
    for row in table["rows"][1:]:  # a random model writes no usable task
        assert row["tasks_kept"] == 0 and row["tasks_requested"] == 2
        assert not row["trained"] and row["note"].startswith("not trained: no task kept")
        assert row["accuracy"] == table["rows"][0]["accuracy"]
    assert read_jsonl(round_dir(out, 1) / "tasks.rejects.jsonl")  # with stage and reason
    markdown = (out / "selfplay.md").read_text()
    assert "| 2 |" in markdown and "not trained: no task kept" in markdown
    assert "round 2: no task kept: not trained" in done.stderr
    changed = sebench(*args[:-4], "--steps", "2", "--workers", "1")
    assert changed.returncode == 2
    assert "other settings (changed: config.sft.max_steps)" in " ".join(changed.stderr.split())


def test_a_server_that_does_not_serve_the_rounds_checkpoint_stops_the_run_saying_so(
    tmp_path, seeded_lib, tiny_model, test_file
) -> None:
    with ChatServer(SelfPlayScript(seeded_lib.table), models=("another-model",)) as server:
        with pytest.raises(SebenchError, match=r"round 0 needs the checkpoint .* served"):
            run_selfplay(
                seeded_lib, tiny_model, test_file, tmp_path / "run", _config(),
                backend_for=_served(server),
            )  # fmt: skip
        assert not server.requests  # stopped before asking anything


class NeverSolves(SelfPlayScript):
    """Writes its tasks as before, but every answer to a library prompt is wrong."""

    def __call__(self, body, attempt) -> Reply:  # noqa: ANN001
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("You write programming tasks") or "calls NumPy functions" in prompt:
            return super().__call__(body, attempt)
        return Reply(WRONG)


def test_a_round_that_keeps_no_answer_is_recorded_and_not_trained(
    tmp_path, seeded_lib, tiny_model, test_file
) -> None:
    out = tmp_path / "run"
    with ChatServer(NeverSolves(seeded_lib.table)) as server:
        result = run_selfplay(
            seeded_lib, tiny_model, test_file, out, _config(), backend_for=_served(server)
        )
    row = result.rows[1]
    assert (row.tasks_kept, row.answers_kept, row.answers_sampled) == (2, 0, 4)
    assert not row.trained and row.note.startswith("not trained: no answer kept")
    assert row.model == str(tiny_model) and not (round_dir(out, 1) / "model").exists()
    files = write_selfplay_report(result, chart=False)
    assert (
        "| 1 | **0.0%** | 2/2 | 0/4 | not trained: no answer kept" in files["markdown"].read_text()
    )
