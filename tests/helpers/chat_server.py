"""A real HTTP server on 127.0.0.1 speaking OpenAI's /v1/chat/completions, scripted per test.

Stdlib only (`http.server` in a thread). A script decides each reply from the request body and
how many times that same request (prompt + seed) has been seen, so tests can serve normal
answers, errors followed by success, rate limits, answers slower than the client's timeout, and
answers cut off by the token limit. Every request body is recorded.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    # A rollout's burst of requests must queue, not be refused: with socketserver's default
    # backlog of 5, a loaded machine dropped connections (`Connection error` rows, a CI flake).
    request_queue_size = socket.SOMAXCONN


@dataclass
class Reply:
    content: str = ""
    status: int = 200
    finish_reason: str = "stop"
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


Script = Callable[[dict[str, Any], int], Reply]  # (request body, attempt 1, 2, ...) -> reply


def request_key(body: dict[str, Any]) -> str:
    """The same prompt with the same seed is the same request (a retry)."""
    prompt = "\n".join(str(m.get("content")) for m in body.get("messages", []))
    return f"{body.get('seed')}\x00{prompt}"


def echo_answer(body: dict[str, Any], attempt: int) -> Reply:
    """A well-formed answer naming the seed, so tests can tell samples apart."""
    seed = body.get("seed")
    return Reply(content=f"Here it is.\n```python\ndef solve(x):\n    return {seed!r}\n```")


class ChatServer:
    """`models`: the names `GET /v1/models` lists and chat requests accept (any other gets a 404,
    as vLLM answers); None: no model list (`GET` unsupported) and every name accepted."""

    def __init__(self, script: Script = echo_answer, models: tuple[str, ...] | None = None) -> None:
        self.script = script
        self.models = models
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []  # lower-cased request headers
        self.attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                if server.models is None or not self.path.endswith("/models"):
                    self._send(404, {"error": {"message": "not found", "type": "not_found"}})
                    return
                listed = [
                    {"id": name, "object": "model", "owned_by": "test"} for name in server.models
                ]
                self._send(200, {"object": "list", "data": listed})

            def do_POST(self) -> None:
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found", "type": "not_found"}})
                    return
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length))
                if server.models is not None and body.get("model") not in server.models:
                    message = f"The model `{body.get('model')}` does not exist."
                    self._send(404, {"error": {"message": message, "type": "NotFoundError"}})
                    return
                with server._lock:
                    server.requests.append(body)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                    key = request_key(body)
                    server.attempts[key] += 1
                    attempt = server.attempts[key]
                reply = server.script(body, attempt)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status != 200:
                    error = {"message": f"scripted {reply.status}", "type": "server_error"}
                    self._send(reply.status, {"error": error}, reply.headers)
                    return
                words = len(reply.content.split())
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "scripted"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply.content},
                                "finish_reason": reply.finish_reason,
                            }
                        ],
                        "usage": {
                            "prompt_tokens": 11,
                            "completion_tokens": words,
                            "total_tokens": 11 + words,
                        },
                    },
                    reply.headers,
                )

            def _send(
                self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
