"""Length-prefixed JSON frames: the only format that crosses a process boundary here.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON (an object).
Never pickle: unpickling what an untrusted process sends runs its code. Readers enforce a size
cap before buffering, so a hostile writer cannot make the reader allocate without bound.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time

HEADER = struct.Struct(">I")


class ProtocolError(Exception):
    """A malformed, oversized or truncated frame."""


class FrameTooLarge(ProtocolError):
    """The peer sent more bytes than the reader's cap allows."""


class FrameTimeout(ProtocolError):
    """No complete frame before the deadline."""


def encode(message: dict) -> bytes:
    # ASCII only: every str encodes, lone surrogates (which a child's result may hold, and which
    # UTF-8 refuses) included; they travel as JSON escapes and decode back to the same str.
    body = json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return HEADER.pack(len(body)) + body


def write_frame(fd: int, message: dict) -> None:
    write_all(fd, encode(message))


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class FrameDecoder:
    """Incremental decoder: feed raw bytes, get whole frames.

    `max_total` caps all bytes ever fed (a child's whole result stream), `max_frame` one frame.
    """

    def __init__(self, max_total: int | None = None, max_frame: int | None = None) -> None:
        self._buffer = bytearray()
        self.total = 0
        self.max_total = max_total
        self.max_frame = max_frame

    def feed(self, data: bytes) -> list[dict]:
        self.total += len(data)
        if self.max_total is not None and self.total > self.max_total:
            raise FrameTooLarge(f"more than {self.max_total} bytes")
        self._buffer += data
        frames = []
        while len(self._buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buffer)
            if self.max_frame is not None and length > self.max_frame:
                raise FrameTooLarge(f"frame of {length} bytes")
            if len(self._buffer) < HEADER.size + length:
                break
            body = bytes(self._buffer[HEADER.size : HEADER.size + length])
            del self._buffer[: HEADER.size + length]
            try:
                message = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                raise ProtocolError(f"frame is not UTF-8 JSON: {exc}") from None
            if not isinstance(message, dict):
                raise ProtocolError("frame is not a JSON object")
            frames.append(message)
        return frames

    @property
    def pending(self) -> int:
        """Bytes of an unfinished frame (non-zero at EOF means the writer stopped mid-frame)."""
        return len(self._buffer)


class FrameReader:
    """Blocking frame reader on a file descriptor with an optional deadline (monotonic)."""

    def __init__(self, fd: int, max_frame: int | None = None) -> None:
        self.fd = fd
        self.max_frame = max_frame
        self._decoder = FrameDecoder(max_frame=max_frame)
        self._ready: list[dict] = []

    def read(self, deadline: float | None = None) -> dict | None:
        """The next frame, or None at a clean end of stream."""
        while not self._ready:
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise FrameTimeout("no frame before the deadline")
                readable, _, _ = select.select([self.fd], [], [], remaining)
                if not readable:
                    continue
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                if self._decoder.pending:
                    raise ProtocolError("stream ended inside a frame")
                return None
            self._ready.extend(self._decoder.feed(chunk))
        return self._ready.pop(0)
