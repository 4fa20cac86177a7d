"""The formats that cross a process boundary here: length-prefixed JSON frames, and jobs.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON (an object).
Never pickle: unpickling what an untrusted process sends runs its code. Readers enforce a size
cap before buffering, so a hostile writer cannot make the reader allocate without bound.

A job (grader -> zygote, trusted both ends) is a frame of text fields instead of JSON: its code,
its entry point, its mode (a `Perturbation`: "", "values", "rows") and one argument text per
case, each field UTF-8
with lone surrogates passed through. Decoding it writes half as many pages as `json.loads` does, and in the zygote each page
written is a trap (its pages are shared with the last child it forked): 0.05 ms per job here.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from collections.abc import Iterator, Sequence

from sebench.grading.sandbox.perturbation import Perturbation

HEADER = struct.Struct(">I")
JOB_HEADER = struct.Struct(">II")  # bytes after the header, number of fields
MAX_JOB_BYTES = 64 << 20


# A fork server's exit status when it ended after a reply without starting the next job (its
# clean-up failed): the pool sends that job to a new server (server.py, pool.py).
EXIT_NEXT_JOB_NOT_STARTED = 3


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

    `max_total` caps the bytes of a child's whole result stream, `max_frame` one frame. The cap
    is read again before each frame, so that a caller may raise it between two frames fed
    together (`frames`): the server does, once the start frame says how many cases follow.
    Checked per read instead, a start frame and a large first case read at once (the server
    had read late: under load) exceeded the start's cap, and an honest result was
    `output_limit`.
    """

    def __init__(self, max_total: int | None = None, max_frame: int | None = None) -> None:
        self._buffer = bytearray()
        self.total = 0  # bytes of the whole frames taken so far
        self.max_total = max_total
        self.max_frame = max_frame

    def feed(self, data: bytes) -> list[dict]:
        return list(self.frames(data))

    def frames(self, data: bytes) -> Iterator[dict]:
        """The whole frames `data` completes, one at a time (raising as `feed` does)."""
        self._buffer += data  # one read at a time: the checks below bound what stays
        while len(self._buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buffer)
            if self.max_frame is not None and length > self.max_frame:
                raise FrameTooLarge(f"frame of {length} bytes")
            self._check_total(HEADER.size + length)
            if len(self._buffer) < HEADER.size + length:
                break
            body = bytes(self._buffer[HEADER.size : HEADER.size + length])
            del self._buffer[: HEADER.size + length]
            self.total += HEADER.size + length
            try:
                message = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                raise ProtocolError(f"frame is not UTF-8 JSON: {exc}") from None
            except RecursionError:  # `[[[[...`: a red team's frame took its server down
                raise ProtocolError("frame nests too deep") from None
            if not isinstance(message, dict):
                raise ProtocolError("frame is not a JSON object")
            yield message
        self._check_total(len(self._buffer))

    def _check_total(self, more: int) -> None:
        if self.max_total is not None and self.total + more > self.max_total:
            raise FrameTooLarge(f"more than {self.max_total} bytes")

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


# The mode and the case count travel as text of one width whatever their value: a child decodes
# its job on its own heap, and a field that took another size in one run than in another would
# lay out the program's objects otherwise (a program must not tell its runs apart by `id()`).
_MODE_TEXT = {mode: f"mode:{mode.value}".ljust(12, "-") for mode in Perturbation}
_MODES = {text: mode for mode, text in _MODE_TEXT.items()}
_COUNT_DIGITS = 6
# The child's start frame carries its times as text of one width, for the same reason
# (child.py): `TIME_WIDTH` characters, nanosecond digits, whatever `perf_counter()` reads.
TIME_WIDTH = 24
TIME_FORMAT = f"0{TIME_WIDTH}.9f"


def encode_job(
    code: str,
    entry_point: str,
    inputs: Sequence[str],
    perturbation: Perturbation = Perturbation.NONE,
    cases: int | None = None,
    evidence: Sequence[str] = (),
) -> bytes:
    """A job frame: `code`, `entry_point`, the mode, how many cases to run (`cases`, None: all),
    the library functions whose results count as the library's work (`evidence`, names within
    the package: `kocito`, `rfx.quvohe`; none: every function's), then each case's argument
    text. TypeError when a field is not text (a caller's bug: nothing is written)."""
    mode = _MODE_TEXT[Perturbation(perturbation)]
    count = f"{len(inputs) if cases is None else cases:0{_COUNT_DIGITS}d}"
    if any(not all(part.isidentifier() for part in name.split(".")) for name in evidence):
        raise ValueError(f"evidence names must be dotted identifiers: {list(evidence)[:5]}")
    fields = [
        str.encode(text, "utf-8", "surrogatepass")
        for text in (code, entry_point, mode, count, ",".join(evidence), *inputs)
    ]
    body = struct.pack(f">{len(fields)}I", *map(len, fields)) + b"".join(fields)
    if len(body) > MAX_JOB_BYTES:
        raise ValueError(f"job of {len(body)} bytes, over {MAX_JOB_BYTES}")
    return JOB_HEADER.pack(len(body), len(fields)) + body


class JobReader:
    """Blocking reader of job frames on a file descriptor (the zygote's end of the job pipe)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = b""

    def read(self) -> tuple[str, str, list[str], Perturbation, int, tuple[str, ...]] | None:
        """The next job as (code, entry point, argument texts, perturbation, how many cases to
        run, the evidence functions' names); None at the end of the stream
        (a job cut short by it included: nobody waits for its result).

        A malformed job raises ProtocolError once it has been read whole, so the next one is
        read from its start; FrameTooLarge means the stream cannot be followed any further."""
        if not self._fill(JOB_HEADER.size):
            return None
        size, count = JOB_HEADER.unpack_from(self._buffer)
        if size > MAX_JOB_BYTES:
            raise FrameTooLarge(f"job of {size} bytes")
        end = JOB_HEADER.size + size
        if not self._fill(end):
            return None
        body, self._buffer = self._buffer[JOB_HEADER.size : end], self._buffer[end:]
        lengths_size = 4 * count
        if count < 5 or lengths_size > size:
            raise ProtocolError(
                "a job has a code, an entry point, a mode, a case count and evidence names"
            )
        lengths = struct.unpack_from(f">{count}I", body)
        if lengths_size + sum(lengths) != size:
            raise ProtocolError("job fields do not add up to its size")
        fields, start = [], lengths_size
        try:
            for length in lengths:
                fields.append(body[start : start + length].decode("utf-8", "surrogatepass"))
                start += length
        except UnicodeDecodeError:
            raise ProtocolError("job field is not UTF-8") from None
        mode = _MODES.get(fields[2])
        if mode is None:
            raise ProtocolError(f"unknown job mode {fields[2][:20]!r}")
        inputs = fields[5:]
        count = fields[3]
        if not (len(count) == _COUNT_DIGITS and count.isdigit() and int(count) <= len(inputs)):
            raise ProtocolError(f"bad case count {count[:20]!r}")
        evidence = tuple(fields[4].split(",")) if fields[4] else ()
        return fields[0], fields[1], inputs, mode, int(count), evidence

    def _fill(self, size: int) -> bool:
        """Read until the buffer holds `size` bytes, not one more (what follows is the next
        reader's); False if the stream ends first."""
        while len(self._buffer) < size:
            chunk = os.read(self.fd, size - len(self._buffer))
            if not chunk:
                self._buffer = b""
                return False
            self._buffer += chunk
        return True
