"""The reward service over HTTP (standard library only): `POST /get_reward`, `GET /health`.

One thread per connection (`ThreadingHTTPServer`) reads, parses and checks the request, hands
it to the `RewardService` and waits for its rewards. Memory is bounded at both steps: at most
`reading_at_once` bodies are read and parsed at a time (another request's body is read in small
chunks and dropped, then answered 503), and the service bounds the samples admitted (503 past
it). A flood of requests costs a 503 each, never memory. Every refusal is a JSON `{"error": reason}` with a
4xx (malformed body, wrong lengths, unknown task id, too large) or a 503 with Retry-After (queue
full, shutting down); a grader bug on one request is a 500 for that request only.

HTTP/1.0, one request per connection: no idle keep-alive connection can hold a thread, so a
shutdown waits only for requests being graded (`running`), and for a client stalled mid-body at
most the socket timeout.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from sebench.integrations.labels import TaskLabels
from sebench.integrations.openrlhf import RequestError, parse_request, reward_response
from sebench.integrations.reward_service import (
    DEFAULT_MAX_BODY_BYTES,
    Busy,
    RewardService,
    Stopping,
    TooLarge,
)
from sebench.training.rewards import ScoredBatch

REWARD_PATH = "/get_reward"  # the path of OpenRLHF's own serve_rm.py
HEALTH_PATH = "/health"
DEFAULT_READING_AT_ONCE = 8  # bodies in memory before admission: 8 x the body limit at worst
DRAIN_CHUNK = 64 * 1024  # a refused body is read (so the client sees the answer) and dropped
SOCKET_TIMEOUT_S = 120  # a client that stops sending mid-body frees its thread after this

log = logging.getLogger("sebench.reward_server")


class RewardHTTPServer(ThreadingHTTPServer):
    # Handler threads are joined on close, so a request being graded is answered before exit.
    daemon_threads = False
    # socketserver's default listen backlog is 5: in a burst of connections (an RL engine sends
    # a batch's requests at once), those past it before the accept thread runs have their SYN
    # dropped, and a client without retries fails (seen with the tests' chat server, the same
    # stdlib class, on a loaded machine: 2 of 24 requests, in 1 run of 12-25). The kernel caps
    # the number at net.core.somaxconn.
    request_queue_size = socket.SOMAXCONN

    def __init__(
        self,
        address: tuple[str, int],
        service: RewardService,
        labels: TaskLabels,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        reading_at_once: int = DEFAULT_READING_AT_ONCE,
    ) -> None:
        self.service = service
        self.labels = labels
        self.max_body_bytes = max_body_bytes
        self.reading_at_once = reading_at_once
        self.reading = threading.BoundedSemaphore(reading_at_once)
        self._count_lock = threading.Lock()
        self.reading_now = 0  # requests between their headers and their admission
        super().__init__(address, _Handler)

    def count_reading(self, step: int) -> None:
        with self._count_lock:
            self.reading_now += step

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


class _Handler(BaseHTTPRequestHandler):
    server: RewardHTTPServer
    timeout = SOCKET_TIMEOUT_S

    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        if self.path != HEALTH_PATH:
            self._reply(404, {"error": f"no such path {self.path!r}: GET {HEALTH_PATH}"})
            return
        self._reply(200, self.server.service.health())

    def do_POST(self) -> None:  # noqa: N802
        if self.path != REWARD_PATH:
            self._reply(404, {"error": f"no such path {self.path!r}: POST {REWARD_PATH}"})
            return
        try:
            scored = self._admit().result()
        except _Refused as refused:
            self._reply(refused.status, {"error": refused.reason})
        except RequestError as exc:
            self._reply(400, {"error": str(exc)})
        except UnicodeEncodeError as exc:  # a task row's text with a lone surrogate (completions
            # are graded whatever they hold): the request's data, not the service, is at fault
            self._reply(400, {"error": f"text that is not valid Unicode: {exc.reason}"})
        except TooLarge as exc:
            self._reply(413, {"error": str(exc)})
        except (Busy, Stopping) as exc:
            self._reply(503, {"error": str(exc)}, retry_after=Busy.retry_after_s)
        except Exception as exc:  # a grader bug fails this request, never the service
            log.exception("request failed")
            self._reply(500, {"error": f"internal error: {type(exc).__name__}: {exc}"})
        else:
            self._reply(200, reward_response(scored))

    def _admit(self) -> Future[ScoredBatch]:
        """Read, parse and queue the request while holding one of the reading slots."""
        server = self.server
        if not server.reading.acquire(blocking=False):
            self._drain()
            raise Busy(f"{server.reading_at_once} requests are being read already; retry")
        server.count_reading(+1)
        try:
            request = parse_request(self._body(), server.labels)
            return server.service.submit(request)
        finally:
            server.count_reading(-1)
            server.reading.release()

    def _drain(self) -> None:
        try:
            left = min(int(self.headers.get("Content-Length", 0)), self.server.max_body_bytes)
        except ValueError:
            return
        while left > 0:
            chunk = self.rfile.read(min(DRAIN_CHUNK, left))
            if not chunk:
                return
            left -= len(chunk)

    def _body(self) -> Any:
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            raise _Refused(411, "a Content-Length header is required")
        try:
            length = int(length_text)
        except ValueError:
            raise _Refused(400, f"Content-Length is not a number: {length_text!r}") from None
        if length < 0 or length > self.server.max_body_bytes:
            raise _Refused(
                413, f"a body of {length} bytes; the limit is {self.server.max_body_bytes}"
            )
        raw = self.rfile.read(length)
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise _Refused(400, f"the body is not valid JSON: {exc}") from None
        except RecursionError:  # valid JSON nested deeper than Python parses (a red team's)
            raise _Refused(400, "the body is nested too deeply to parse") from None

    def _reply(self, status: int, payload: dict, retry_after: int | None = None) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if retry_after is not None:
                self.send_header("Retry-After", str(retry_after))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client went away; its rewards are lost to it, not to the service
            log.info("client %s left before its answer", self.client_address)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's signature
        log.info("%s %s", self.address_string(), format % args)


class _Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


@contextmanager
def running(
    service: RewardService,
    labels: TaskLabels,
    host: str = "127.0.0.1",
    port: int = 0,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    reading_at_once: int = DEFAULT_READING_AT_ONCE,
) -> Iterator[RewardHTTPServer]:
    """Serve until the block ends, then shut down in order: stop accepting, let the service
    finish the batches it admitted (answering them), join the handler threads."""
    server = RewardHTTPServer((host, port), service, labels, max_body_bytes, reading_at_once)
    thread = threading.Thread(target=server.serve_forever, name="reward-http", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        service.close()
        server.server_close()
        thread.join()
