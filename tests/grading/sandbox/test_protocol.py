"""Frames: round trip, size caps, truncation and garbage are errors, never silent."""

from __future__ import annotations

import os
import struct
import time

import pytest

from sebench.grading.sandbox import protocol
from sebench.grading.sandbox.perturbation import Perturbation


def test_frames_round_trip_through_a_pipe():
    read, write = os.pipe()
    messages = [{"a": 1, "text": "héllo\n#"}, {"nested": [1, 2.5, None, True]}]
    for message in messages:
        protocol.write_frame(write, message)
    os.close(write)
    reader = protocol.FrameReader(read)
    assert [reader.read(), reader.read(), reader.read()] == [*messages, None]
    os.close(read)


def test_decoder_splits_frames_fed_byte_by_byte():
    data = protocol.encode({"x": 1}) + protocol.encode({"y": 2})
    decoder = protocol.FrameDecoder()
    frames = []
    for byte in data:
        frames += decoder.feed(bytes([byte]))
    assert frames == [{"x": 1}, {"y": 2}]
    assert decoder.pending == 0


def test_stream_over_the_cap_is_refused():
    decoder = protocol.FrameDecoder(max_total=100)
    with pytest.raises(protocol.FrameTooLarge):
        decoder.feed(protocol.encode({"big": "x" * 200}))


def test_announced_frame_over_the_cap_is_refused_before_buffering():
    decoder = protocol.FrameDecoder(max_frame=1000)
    with pytest.raises(protocol.FrameTooLarge):
        decoder.feed(b"\x7f\xff\xff\xff")


def test_non_json_frame_is_a_protocol_error():
    decoder = protocol.FrameDecoder()
    with pytest.raises(protocol.ProtocolError):
        decoder.feed(b"\x00\x00\x00\x03abc")


def test_json_that_is_not_an_object_is_a_protocol_error():
    decoder = protocol.FrameDecoder()
    with pytest.raises(protocol.ProtocolError):
        decoder.feed(b"\x00\x00\x00\x02[]")


def test_stream_ending_inside_a_frame_is_a_protocol_error():
    read, write = os.pipe()
    os.write(write, protocol.encode({"x": 1})[:-2])
    os.close(write)
    with pytest.raises(protocol.ProtocolError):
        protocol.FrameReader(read).read()
    os.close(read)


def test_reader_honours_the_deadline():
    read, write = os.pipe()
    started = time.monotonic()
    with pytest.raises(protocol.FrameTimeout):
        protocol.FrameReader(read).read(deadline=time.monotonic() + 0.2)
    assert time.monotonic() - started < 1.0
    os.close(read)
    os.close(write)


def job_pipe(*frames: bytes) -> protocol.JobReader:
    read, write = os.pipe()
    os.write(write, b"".join(frames))
    os.close(write)
    return protocol.JobReader(read)


def test_jobs_round_trip_with_any_text():
    code = "def solve(x):\n    return '\u00e9 \u4e2d \ud800'\n"  # a lone surrogate passes
    reader = job_pipe(
        protocol.encode_job(code, "solve", ["x=1", "x='\udc80'"]),
        protocol.encode_job("pass", "f", []),
    )
    assert reader.read() == (code, "solve", ["x=1", "x='\udc80'"], Perturbation.NONE, 2, ())
    assert reader.read() == ("pass", "f", [], Perturbation.NONE, 0, ())
    assert reader.read() is None


@pytest.mark.parametrize("perturbation", list(Perturbation))
def test_the_perturbation_travels_with_the_job(perturbation):
    reader = job_pipe(protocol.encode_job("pass", "f", ["1", "2"], perturbation, 1))
    assert reader.read() == ("pass", "f", ["1", "2"], perturbation, 1, ())


def test_the_evidence_names_travel_with_the_job():
    frame = protocol.encode_job("pass", "f", ["1"], evidence=("kocito", "rfx.quvohe"))
    assert job_pipe(frame).read() == (
        "pass",
        "f",
        ["1"],
        Perturbation.NONE,
        1,
        ("kocito", "rfx.quvohe"),
    )
    with pytest.raises(ValueError, match="dotted identifiers"):
        protocol.encode_job("pass", "f", [], evidence=("a,b",))


def test_a_malformed_job_is_refused_and_the_next_one_read():
    code = b"pass"
    only_code = struct.pack(">I", len(code)) + code
    not_utf8 = struct.pack(">IIIII", 1, 1, 0, 1, 0) + b"\xff" + b"f" + b"0"
    not_adding_up = struct.pack(">IIIII", 4, 1, 5, 1, 0) + b"passf0"
    unknown_mode = struct.pack(">IIIII", 4, 1, 1, 1, 0) + b"passfx0"
    mode = protocol.encode_job("pass", "f", [])[protocol.JOB_HEADER.size + 20 + 5 :][:12]
    more_cases_than_inputs = struct.pack(">IIIII", 4, 1, 12, 6, 0) + b"passf" + mode + b"000001"
    reader = job_pipe(
        protocol.JOB_HEADER.pack(len(only_code), 1) + only_code,
        protocol.JOB_HEADER.pack(len(not_utf8), 5) + not_utf8,
        protocol.JOB_HEADER.pack(len(not_adding_up), 5) + not_adding_up,
        protocol.JOB_HEADER.pack(len(unknown_mode), 5) + unknown_mode,
        protocol.JOB_HEADER.pack(len(more_cases_than_inputs), 5) + more_cases_than_inputs,
        protocol.encode_job("pass", "f", ["1"]),
    )
    reasons = ("an entry point, a mode", "not UTF-8", "do not add up", "mode", "case count")
    for reason in reasons:
        with pytest.raises(protocol.ProtocolError, match=reason):
            reader.read()
    assert reader.read() == ("pass", "f", ["1"], Perturbation.NONE, 1, ())


def test_a_job_cut_short_by_the_end_of_the_stream_is_the_end():
    frame = protocol.encode_job("pass", "f", ["1"])
    assert job_pipe(frame[:-2]).read() is None


def test_a_job_announced_over_the_cap_breaks_the_stream():
    header = protocol.JOB_HEADER.pack(protocol.MAX_JOB_BYTES + 1, 2)
    with pytest.raises(protocol.FrameTooLarge):
        job_pipe(header).read()
    with pytest.raises(TypeError):
        protocol.encode_job("pass", "f", [1])
