"""The reward service over real HTTP on 127.0.0.1: many concurrent clients, malformed requests,
a full queue, and a clean stop on SIGTERM. The verdicts are checked against `sebench eval`'s on
the same responses."""

from __future__ import annotations

import http.client
import json
import random
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest

from sebench.grading.runner import EvalConfig, evaluate
from sebench.grading.sandbox.config import SandboxConfig
from sebench.grading.verdicts import Verdict, VerdictKind
from sebench.integrations.labels import TaskLabels, task_label
from sebench.integrations.reward_server import RewardHTTPServer, running
from sebench.integrations.reward_service import RewardService
from sebench.integrations.scores import LOG_KEYS
from sebench.jsonl import read_jsonl, write_jsonl
from tests.integrations.conftest import END, PROMPT, slow_response

CLIENTS, REQUESTS_EACH, BATCH = 8, 3, 5
DEADLINE_S = 180  # the whole load, on a loaded 2-core machine


def call(url: str, method: str, path: str, body: bytes | None = None, length: bool = True):
    """(status, headers, decoded JSON) of one request on a fresh connection."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    try:
        connection.putrequest(method, path)
        if body is not None:
            connection.putheader("Content-Type", "application/json")
            if length:
                connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        reply = connection.getresponse()
        return reply.status, dict(reply.getheaders()), json.loads(reply.read())
    finally:
        connection.close()


def post(url: str, payload: object) -> tuple[int, dict, dict]:
    return call(url, "POST", "/get_reward", json.dumps(payload).encode())


def batch(pairs, label_of) -> dict:
    return {
        "query": [PROMPT + response + END for _, response in pairs],
        "prompts": [PROMPT] * len(pairs),
        "labels": [label_of(task, i) for i, (task, _) in enumerate(pairs)],
    }


@contextmanager
def serving(grader, tasks, reading_at_once: int = 8, **service_options):
    service = RewardService(grader, **service_options)
    with running(service, TaskLabels(tasks), reading_at_once=reading_at_once) as server:
        yield server, service


@pytest.fixture(scope="module")
def tasks(dev_tasks):
    return {t.task_id: t for t in dev_tasks}


@pytest.fixture(scope="module")
def eval_verdicts(response_pool, single_test_dev_path, official_library, tmp_path_factory):
    """`sebench eval`'s verdict for each (task, response) of the pool, by pool index."""
    folder = tmp_path_factory.mktemp("eval")
    rows = [
        {"task_id": task.task_id, "response": response, "sample": index}
        for index, (task, response) in enumerate(response_pool)
    ]
    write_jsonl(folder / "responses.jsonl", rows)
    config = EvalConfig(data=(str(single_test_dev_path),), sandbox=SandboxConfig(workers=2))
    evaluate(
        folder / "responses.jsonl",
        folder / "results.jsonl",
        folder / "summary.json",
        library=official_library,
        config=config,
    )
    found = {row["sample"]: row["verdict"] for row in read_jsonl(folder / "results.jsonl")}
    assert len(found) == len(response_pool)
    return [found[i] for i in range(len(response_pool))]


def test_concurrent_clients_get_every_answer_in_order_with_the_verdicts_of_eval(
    grader, tasks, response_pool, eval_verdicts
):
    assert "correct" in eval_verdicts and len(set(eval_verdicts)) >= 4  # the pool is varied
    answers: dict[tuple[int, int], tuple[list[int], int, dict]] = {}

    def client(number: int) -> None:
        rng = random.Random(number)
        for request in range(REQUESTS_EACH):
            picked = [rng.randrange(len(response_pool)) for _ in range(BATCH)]
            # labels alternate between the task id and the whole task row
            payload = batch(
                [response_pool[i] for i in picked],
                lambda task, i: task.task_id if i % 2 else task_label(task),
            )
            status, _, body = post(url, payload)
            answers[number, request] = (picked, status, body)

    with serving(grader, tasks) as (server, service):
        url = server.url
        threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(max(1.0, DEADLINE_S - (time.monotonic() - started)))
        assert not any(t.is_alive() for t in threads), "clients still waiting after the deadline"
        health = service.health()

    assert len(answers) == CLIENTS * REQUESTS_EACH
    for picked, status, body in answers.values():
        assert status == 200, body
        expected = [eval_verdicts[i] for i in picked]
        assert body["verdicts"] == expected  # in request order, as `sebench eval` grades them
        assert body["rewards"] == [1.0 if v == "correct" else 0.0 for v in expected]
        assert body["scores"] == body["rewards"]
        assert set(body["extra_logs"]) == set(LOG_KEYS)
        assert all(len(column) == BATCH for column in body["extra_logs"].values())
        assert body["extra_logs"]["verdict/correct"] == body["rewards"]
    assert health["requests"] == CLIENTS * REQUESTS_EACH and health["admitted"] == 0
    assert health["samples"] == CLIENTS * REQUESTS_EACH * BATCH


MALFORMED = [
    (b"{not json", 400, "not valid JSON"),
    (b"[1, 2]", 400, "must be a JSON object"),
    (json.dumps({"query": ["a"], "prompts": ["a"]}).encode(), 400, "'labels' is missing"),
    (json.dumps({"query": "a", "prompts": ["a"], "labels": ["x"]}).encode(), 400, "a list"),
    (
        json.dumps({"query": ["Pa", "Pb"], "prompts": ["P"], "labels": ["x", "y"]}).encode(),
        400,
        "differ in length: query 2, prompts 1, labels 2",
    ),
    (
        json.dumps({"query": ["P ok"], "prompts": ["P"], "labels": ["no-such-task"]}).encode(),
        400,
        "labels[0]: unknown task id 'no-such-task'",
    ),
    (
        json.dumps({"query": ["other text"], "prompts": ["P"], "labels": ["x"]}).encode(),
        400,
        "query[0] does not contain prompts[0]",
    ),
    (
        json.dumps({"query": ["P ok"], "prompts": ["P"], "labels": ['{"query": 1}']}).encode(),
        400,
        "labels[0]: a malformed task row",
    ),
    (json.dumps({"query": [5], "prompts": ["P"], "labels": ["x"]}).encode(), 400, "query[0]"),
]


def test_malformed_requests_get_a_4xx_with_a_reason_and_the_service_lives_on(
    grader, tasks, shift_task
):
    with serving(grader, tasks) as (server, _):
        for body, status, reason in MALFORMED:
            got, _, answer = call(server.url, "POST", "/get_reward", body)
            assert (got, reason in answer["error"]) == (status, True), (body, answer)
        got, _, answer = call(server.url, "POST", "/get_reward", b"{}", length=False)
        assert got == 411 and "Content-Length" in answer["error"]
        # a red team's two 500s: JSON nested past Python's recursion limit, and a task row
        # whose text is no valid Unicode (a lone surrogate, which JSON escapes can hold)
        deep = b"[" * 200_000 + b"]" * 200_000
        got, _, answer = call(server.url, "POST", "/get_reward", deep)
        assert got == 400 and "nested too deeply" in answer["error"], answer
        row = json.loads(task_label(shift_task))
        row["query"] += "\ud800"
        del row["task_id"]  # the row is its own task: its id is made from its text
        status, _, answer = post(
            server.url, batch([(shift_task, "no code")], lambda t, i: json.dumps(row))
        )
        assert status == 400 and "not valid Unicode" in answer["error"], answer
        assert call(server.url, "GET", "/nowhere")[0] == 404
        assert call(server.url, "POST", "/health", b"{}")[0] == 404
        # still serving: a good request after all the bad ones
        status, _, answer = post(
            server.url, batch([(shift_task, "no code")], lambda t, i: t.task_id)
        )
        assert status == 200 and answer["verdicts"] == ["no_code"]
        assert call(server.url, "GET", "/health")[2]["status"] == "ok"


def connected_within(address: tuple[str, int], count: int, seconds: float) -> int:
    """How many of `count` connections opened at once complete their handshake in `seconds`
    (one whose SYN the kernel dropped retries only after a second)."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for sock in sockets:
            sock.setblocking(False)
            sock.connect_ex(address)
        pending, connected = list(sockets), 0
        deadline = time.monotonic() + seconds
        while pending and (left := deadline - time.monotonic()) > 0:
            _, writable, _ = select.select([], pending, [], left)
            for sock in writable:
                pending.remove(sock)
                connected += sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
        return connected
    finally:
        for sock in sockets:
            sock.close()


def test_a_burst_of_connections_queues_while_the_accept_thread_is_busy(grader, tasks):
    """An RL engine sends a batch's requests at once; none may be refused because the thread
    that accepts them has not run yet (socketserver's default backlog is 5)."""
    service = RewardService(grader)
    server = RewardHTTPServer(("127.0.0.1", 0), service, TaskLabels(tasks))  # not serving yet
    try:
        assert connected_within(server.server_address, 64, seconds=0.5) == 64
    finally:
        server.server_close()
        service.close()


def test_a_full_queue_answers_503_with_retry_after_then_recovers(grader, tasks, shift_task, names):
    slow = batch([(shift_task, slow_response(names))], lambda t, i: t.task_id)
    quick = batch([(shift_task, "no code")], lambda t, i: t.task_id)
    with serving(grader, tasks, capacity=1) as (server, service):
        first: list = []
        worker = threading.Thread(target=lambda: first.append(post(server.url, slow)))
        worker.start()
        deadline = time.monotonic() + 60
        while service.health()["admitted"] < 1:
            assert time.monotonic() < deadline and worker.is_alive()
            time.sleep(0.01)

        status, headers, answer = post(server.url, quick)
        assert status == 503 and headers["Retry-After"] == "1"
        assert "queue is full" in answer["error"]
        too_large = batch([(shift_task, "a"), (shift_task, "b")], lambda t, i: t.task_id)
        status, _, answer = post(server.url, too_large)
        assert status == 413 and "--capacity" in answer["error"]

        worker.join(60)
        assert first and first[0][0] == 200 and first[0][2]["verdicts"] == ["timeout"]
        status, _, answer = post(server.url, quick)  # room again
        assert status == 200 and answer["verdicts"] == ["no_code"]
        assert service.health()["refused_busy"] == 1


def test_sigterm_answers_the_request_in_flight_then_exits_cleanly(
    official_library, single_test_dev_path, shift_task, names
):
    command = [
        sys.executable, "-m", "sebench.cli.main", "serve-reward",
        "--data", str(single_test_dev_path), "--lib", str(official_library.root),
        "--port", "0", "--workers", "1", "--timeout", "1",
    ]  # fmt: skip
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
        assert "serving rewards on http://" in line, line + process.stderr.read()
        url = line.split(" on ")[1].split(" ")[0]
        assert call(url, "GET", "/health")[2]["status"] == "ok"

        answer: list = []
        slow = batch([(shift_task, slow_response(names))], lambda t, i: t.task_id)
        client = threading.Thread(target=lambda: answer.append(post(url, slow)))
        client.start()
        deadline = time.monotonic() + 60
        while call(url, "GET", "/health")[2]["admitted"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        process.send_signal(signal.SIGTERM)
        client.join(60)
        assert answer and answer[0][0] == 200 and answer[0][2]["verdicts"] == ["timeout"]
        assert process.wait(60) == 0
        rest = process.stderr.read()
        assert "stopped after 1 requests, 1 samples" in rest and "Traceback" not in rest
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_bodies_past_the_reading_limit_are_drained_and_answered_503(grader, tasks, shift_task):
    quick = batch([(shift_task, "no code")], lambda t, i: t.task_id)
    with serving(grader, tasks, reading_at_once=1) as (server, _):
        # a client that sends its headers and a tenth of its body, then waits
        slow = socket.create_connection((server.server_address[0], server.server_address[1]))
        slow.sendall(b"POST /get_reward HTTP/1.0\r\nContent-Length: 100\r\n\r\n" + b"x" * 10)
        deadline = time.monotonic() + 30
        while server.reading_now < 1:
            assert time.monotonic() < deadline
            time.sleep(0.01)

        status, headers, answer = post(server.url, quick)
        assert status == 503 and headers["Retry-After"] == "1"
        assert "being read already" in answer["error"]

        slow.sendall(b"x" * 90)  # the rest: not JSON
        reply = slow.makefile("rb").read()
        slow.close()
        assert reply.startswith(b"HTTP/1.0 400") and b"not valid JSON" in reply
        status, _, answer = post(server.url, quick)
        assert status == 200 and answer["verdicts"] == ["no_code"]


class FailingSandbox:
    """The real grader behind a sandbox that fails `failures` times for each response."""

    def __init__(self, grader, failures: int) -> None:
        self.grader, self.failures, self.seen = grader, failures, {}
        self.workers = grader.workers

    def grade_many(self, items):
        for item in items:
            count = self.seen[item[1]] = self.seen.get(item[1], 0) + 1
            if count <= self.failures:
                yield item, Verdict(VerdictKind.INFRA_ERROR, detail="sandbox died")
            else:
                yield item, self.grader.grade(item[0], item[1])


def test_a_sample_the_grader_fails_twice_is_sent_as_zero_and_flagged_unscored(
    grader, tasks, shift_task
):
    payload = batch([(shift_task, "no code"), (shift_task, "none")], lambda t, i: t.task_id)
    with serving(FailingSandbox(grader, failures=1), tasks) as (server, service):
        status, _, once = post(server.url, payload)  # retried once: graded
    assert status == 200 and once["verdicts"] == ["no_code", "no_code"]
    assert once["extra_logs"]["unscored"] == [0.0, 0.0] and service.health()["retried"] == 2
    with serving(FailingSandbox(grader, failures=2), tasks) as (server, service):
        status, _, twice = post(server.url, payload)
    assert status == 200 and twice["verdicts"] == ["infra_error", "infra_error"]
    assert twice["rewards"] == [0.0, 0.0] and twice["extra_logs"]["unscored"] == [1.0, 1.0]
    assert service.health()["unscored"] == 2


def test_a_requests_client_as_openrlhf_uses_gets_its_rewards(grader, tasks, shift_task):
    """OpenRLHF posts with `requests.post(url, json=..., headers=..., timeout=180)` and reads
    `response.json()[score_key]` after `raise_for_status()` (openrlhf/utils/remote_rm_utils.py)."""
    requests = pytest.importorskip("requests")
    payload = batch([(shift_task, "no code")], lambda t, i: task_label(t))
    with serving(grader, tasks) as (server, _):
        response = requests.post(
            server.url + "/get_reward",
            json=payload,
            headers={"Content-Type": "application/json"},
            timeout=180,
        )
        response.raise_for_status()
        assert response.json()["rewards"] == [0.0]
