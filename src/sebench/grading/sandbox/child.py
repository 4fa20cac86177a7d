"""What runs in a forked child: confine, run the untrusted code, report each case as a frame.

Everything the harness needs after the untrusted code has started is bound to locals first
(functions, classes, the frame encoder), because that code may patch `builtins` or any module.
Results travel only on the result pipe, never on stdout (which is /dev/null here), so text the
code prints cannot pose as a result. Each frame carries the job's nonce and the server checks
their order; the child always ends with `os._exit`, never by returning into the zygote's code.

The untrusted code shares the harness's process. The nonce is held only by the sender closure,
inside the run that `prepare` makes in the zygote and that the child hands to `deque` without
ever binding it to a local: while the code runs, no frame's locals (the zygote's included) hold
the sender, the nonce or the message that carried it. The call counts live in the audit hook
(audit.py), which the harness arms just before the code runs: from then on frames, `gc`, tracing
and raw memory are refused, so neither the stack nor the heap can be searched for any of it.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import os
import random
import struct
import sys
import time
import types
from _json import encode_basestring_ascii
from collections import deque
from collections.abc import Iterator
from typing import NoReturn

from sebench.grading.sandbox import audit, determinism, isolation, protocol, stores

EXIT_ISOLATION_FAILED = 97
# How a child ends without running a job (before any untrusted code exists): the grader closed
# the job pipe; the job was malformed (read whole: the next child reads the next one); the
# stream cannot be followed any more (a job announced over the cap).
EXIT_NO_JOB, EXIT_BAD_JOB, EXIT_STREAM_BROKEN = 94, 95, 96
MAX_ERROR_MESSAGE = 2000


def _make_encoder():
    """A JSON encoder for the harness's own frames, immune to later patching of any module."""
    esc, pack, int_repr, float_repr = (
        encode_basestring_ascii,
        struct.Struct(">I").pack,
        int.__repr__,
        float.__repr__,
    )
    join, items, exact_type, length = ",".join, dict.items, type, len
    str_t, int_t, float_t, bool_t, none_t, list_t, dict_t = (
        str,
        int,
        float,
        bool,
        type(None),
        list,
        dict,
    )

    def value(v):
        kind = exact_type(v)
        if kind is str_t:
            return esc(v)
        if kind is bool_t:
            return "true" if v else "false"
        if kind is int_t:
            return int_repr(v)
        if kind is float_t:
            return float_repr(v)
        if kind is none_t:
            return "null"
        if kind is list_t:
            return "[" + join([value(x) for x in v]) + "]"
        if kind is dict_t:
            return "{" + join([esc(k) + ":" + value(x) for k, x in items(v)]) + "}"
        raise TypeError("unsupported frame value")

    def encode(message: dict, nonce: str) -> bytes:
        # The nonce goes into the bytes only: the message dict (which the generator that made
        # it may still reference) never holds it.
        rest = value(message)[1:]
        body = ("{" + esc("nonce") + ":" + esc(nonce) + ("," if rest != "}" else "") + rest).encode(
            "ascii"
        )
        return pack(length(body)) + body

    return encode


# Made once in the server, before any fork: every child shares it (no work after the fork).
_ENCODE = _make_encoder()


def _sender(nonce: str, result_fd: int):
    """The only holder of the nonce: a function writing one frame per message."""
    encode, write = _ENCODE, os.write

    def send(message: dict) -> None:
        data = encode(message, nonce)
        while data:
            data = data[write(result_fd, data) :]

    return send


def prepare(
    nonce: str,
    job_fd: int,
    result_fd: int,
    plan: isolation.ChildPlan,
    controls: audit.Controls,
    limits_budget: int,
) -> Iterator[None]:
    """A child's whole run, made in the zygote just before the fork: sending every frame of it
    is what `run` does in the child. The child reads its job from `job_fd` once confined (the
    zygote never holds job data). `controls` drive the audit hook (the call counts, the
    perturbation, the refusals). Only the job's first `cases` inputs run; all of them travel, so
    that a shorter run's memory is laid out as the full run's up to its end (a program must not
    tell the runs apart by `id()`).

    Binding the harness's locals here rather than in the child saves ~45 page copies per child
    (a page the zygote writes costs a trap of ~1 us, one the child writes a copy of ~5 us).
    """
    messages = _messages(job_fd, plan, controls, limits_budget)
    next(messages)  # up to the first statement that belongs in the child
    return map(_sender(nonce, result_fd), messages)


def run(box: list[Iterator[None]]) -> NoReturn:
    """The whole life of a child after `fork()`: `box` holds what `prepare` made.

    The run, and the sender in it, exist only as an argument of `deque` (on the C stack),
    never as a local of any frame.
    """
    exit_now = os._exit
    deque(box.pop(), 0)
    exit_now(0)  # not reached: _messages ends the process itself


def _messages(
    job_fd: int,
    plan: isolation.ChildPlan,
    controls: audit.Controls,
    limits_budget: int,
):
    """Confine, run the untrusted code, and yield each frame to send; ends with `os._exit`.
    Its first step (up to the first `yield`) runs in the zygote: see `prepare`."""
    # --- bound before any untrusted code exists in this process ---
    perf, exit_now = time.perf_counter, os._exit
    arm, reset_counts, call_counts = controls.arm, controls.reset, controls.counts
    del controls
    compile_, exec_, eval_, str_, join = compile, exec, eval, str, "".join
    type_, isinstance_, len_, enumerate_ = type, isinstance, len, enumerate
    memory_error, exception, base_exception = MemoryError, Exception, BaseException
    utf8_length, max_message = str.encode, MAX_ERROR_MESSAGE
    reseed, module_type, modules = random.seed, types.ModuleType, sys.modules
    fix_coins = determinism.apply
    no_collections = gc.disable
    store_name, store_guard = stores.GUARD, stores.guard
    yield None  # in the zygote; the fork follows, and the rest runs in the child
    t_start = perf()

    def describe(exc: BaseException) -> tuple[str, str]:
        name = type_(exc).__name__
        try:
            text = str_(exc)
            text = join([text])[:max_message]
        except base_exception:
            text = "<message unavailable>"
        return join([name]) if isinstance_(name, str_) else "?", text

    try:
        isolation.enter_child(plan)  # ends in the scratch dir, also HOME and TMPDIR
        failure = None
    except BaseException as exc:  # never run untrusted code with fewer layers than reported
        failure = f"{type(exc).__name__}: {exc}"
    if failure is not None:
        # its job read all the same: left in the pipe, the next child would run it and answer
        # the next request with it (the failure below is what is reported)
        with contextlib.suppress(BaseException):
            protocol.JobReader(job_fd).read()
        try:
            yield {"kind": "isolation_failed", "error": failure}
        finally:
            exit_now(EXIT_ISOLATION_FAILED)
    t_isolated = perf()
    # The job: one frame from the grader, read here (the grader writes it when it has one: a
    # child may wait here long), then the pipe is closed before any untrusted code exists.
    try:
        job = protocol.JobReader(job_fd).read()
    except protocol.FrameTooLarge:
        exit_now(EXIT_STREAM_BROKEN)
    except protocol.ProtocolError:
        exit_now(EXIT_BAD_JOB)
    os.close(job_fd)
    if job is None:
        exit_now(EXIT_NO_JOB)
    code, entry, inputs, perturbation, cases, evidence = job
    del job
    t_job = perf()
    # The times as text of one width: a float's shortest form takes 15 to 18 characters, so the
    # frame's size, made and freed on this heap before the program runs, followed the clock,
    # and the program's objects lay elsewhere in some runs (`id()`: a coin, measured by
    # `test_every_run_reads_the_same_clock_and_entropy_whatever_the_worker_and_the_moment`).
    yield {
        "kind": "start",
        "t_start": f"{t_start:{protocol.TIME_FORMAT}}",
        "t_isolated": f"{t_isolated:{protocol.TIME_FORMAT}}",
        "t_job": f"{t_job:{protocol.TIME_FORMAT}}",
        "cases": cases,
    }

    # The program's globals are the `__main__` module's, as under `python`: what the standard
    # library runs on its behalf in the module of the program's classes (the methods
    # `dataclasses` writes) then sees the program's names, not the fork server's.
    main = module_type("__main__")
    namespace = main.__dict__
    namespace["__builtins__"] = builtins
    # what the program's subscript stores write through (stores.py: the code was rewritten so)
    namespace[store_name] = store_guard
    modules["__main__"] = main
    # `random` reseeds itself from the OS in every fork; the same seed in every run makes its
    # draws no coin a program can toss to answer its perturbed rerun differently, and the
    # clock and the other entropy are fixed likewise (determinism.py)
    reseed(0)
    fix_coins()
    # No collection while the program runs: one runs the program's finalizers at whatever
    # allocation starts it, NumPy's C code included, which holds borrowed pointers there (an
    # object `+` loop: a finalizer freed a list mid-concatenation and forged objects in it,
    # then read the mapping; a red team's, OC). A program cannot import `gc` to turn them on.
    no_collections()
    # from here on the hook refuses introspection, counts real library calls, and perturbs
    # and counts as the library's work only the calls of the `evidence` functions
    arm(perturbation, evidence)
    compiled = False
    try:
        # `dont_inherit`: this file's `from __future__ import annotations` must not apply to
        # the program (its annotations are evaluated, as under `python`). Compiled here, in
        # the child, not in the zygote before the fork: the zygote would fault on as many
        # pages as the child saves (measured, issue 12).
        program = compile_(code, audit.PROGRAM_FILE, "exec", dont_inherit=True)
        compiled = True
        exec_(program, namespace)
        setup_error = aborted = None
    except exception as exc:
        setup_error, aborted = exc, None
    except base_exception as exc:  # SystemExit, KeyboardInterrupt: the program ended itself
        setup_error, aborted = None, exc
    del code
    if aborted is not None:
        yield {"kind": "abort", "error_type": describe(aborted)[0]}
        exit_now(0)
    if setup_error is not None:
        error_type, message = describe(setup_error)
        if compiled and error_type == "SyntaxError":
            # raised while it ran (`raise SyntaxError`, or a class of its own so named), not
            # by compiling it: a run-time error, which its name alone made `syntax_error`
            # (officially `without_zwc`, not `exe_error`; a red team's, NP)
            error_type = "SyntaxError (raised)"
        yield {
            "kind": "setup_error",
            "error_type": error_type,
            "error_message": message,
            "memory": isinstance_(setup_error, memory_error),
        }
        yield {"kind": "done", "t_end": perf()}
        exit_now(0)

    budget = limits_budget
    for index, text in enumerate_(inputs):
        if index == cases:
            break
        printed = error_type = message = None
        memory = over = False
        reset_counts()
        try:
            result = eval_(entry + "(" + text + ")", namespace)
            printed = join([str_(result)])
            del result
            # read after printing: a result's own `__str__` may call the library too (a red
            # team called 40 functions there, after the counts were read, uncounted)
            counts = call_counts()
            size = len_(utf8_length(printed, "utf-8", "surrogatepass"))
            if size > budget:
                printed, over = printed[: budget if budget > 0 else 0], True
            budget -= size
        except exception as exc:
            error_type, message = describe(exc)
            memory = isinstance_(exc, memory_error)
            del exc
            counts = call_counts()
        except base_exception as exc:
            yield {"kind": "abort", "error_type": describe(exc)[0], "case": index}
            exit_now(0)
        yield {
            "kind": "case",
            "index": index,
            "printed": printed,
            "error_type": error_type,
            "error_message": message,
            "library_calls": counts[0],
            "non_constructor_calls": counts[1],
            "official_failures": counts[2],
            "computed_results": counts[3],
            "library_functions": counts[4],
            "submodule_functions": counts[5],
            "memory": memory,
            "output_limit": over,
        }
        if memory or over:
            break
    yield {"kind": "done", "t_end": perf()}
    exit_now(0)
