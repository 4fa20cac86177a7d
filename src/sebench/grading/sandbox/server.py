"""The warm fork server: `python -m sebench.grading.sandbox.server` (started by `SandboxPool`).

A fresh interpreter (never forked from the grader, which holds the expected outputs) imports
NumPy, the library and the stdlib modules solutions commonly use, sets up the isolation layers
and forks its zygote (zygote.py), which forks a child for each job (1-5 ms, instead of ~120 ms
for a fresh interpreter importing NumPy); the child reads its job itself. The server never forks
again: it follows each child's frames, enforces the wall-clock deadline and the output cap, and
answers with one frame; then, before the next child may start, it makes sure the child is gone and
empties the scratch dir (`finish`).

Protocol on stdin/stdout (length-prefixed JSON, see protocol.py): first the grader sends
`{"config", "library": {"root", "package", "submodule"}}`, the server answers `hello`
with its layers; then each job (a job frame, protocol.py: read by its child from the same
stdin) gets one execution frame.
"""

from __future__ import annotations

import os
import signal
import stat
import sys

# Before NumPy is imported anywhere in this process: single-threaded BLAS (forks stay cheap and
# RLIMIT_AS does not trip over per-thread arenas).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import contextlib  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import secrets  # noqa: E402
import select  # noqa: E402
import site  # noqa: E402 - under -S (see isolation.server_command) it only defines functions
import time  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402

from sebench.grading.policy import attribute_refusal  # noqa: E402 - the rule for names
from sebench.grading.sandbox import (  # noqa: E402
    audit,
    child,
    determinism,
    import_guard,
    isolation,
    perturbation,
    protocol,
    stdlib_guard,
    zygote,
)
from sebench.grading.sandbox.config import SandboxConfig  # noqa: E402
from sebench.grading.sandbox.execution import ExecStatus  # noqa: E402

# Imported before any fork: a child may be unable to read the interpreter's folder (uid drop,
# Landlock), and importing an already-imported module needs no file access.
# Never `threading` (nor `queue`, `subprocess`, `logging`, which import it): its fork handler
# runs in every child and touches ~120 pages (copy-on-write faults), 0.6 ms per sample here;
# tests/grading/sandbox/test_server_imports.py keeps it out.
PREIMPORTS = (
    "__future__",  # every module a program may import: their classes' methods are checked
    "keyword",  # (`stdlib_guard.own_instances_only`), which needs them to exist already
    "math",
    "cmath",
    "statistics",
    "itertools",
    "functools",
    "collections",
    "collections.abc",
    "typing",
    "re",
    "json",
    "fractions",
    "decimal",
    "heapq",
    "bisect",
    "random",
    "operator",
    "copy",
    "string",
    "dataclasses",
    "datetime",
    "time",
    "numbers",
    "enum",
    "types",
    "array",
    "struct",
    "textwrap",
    "warnings",
    "contextlib",
    "abc",
    "io",
    "calendar",
    "_strptime",
    "unicodedata",
    "pprint",
    "weakref",
    "sys",
    "os",
)


# NumPy-form tasks may use NumPy's submodules: loaded here once rather than in every child.
# Not `numpy.random`, which imports `threading` (a fork handler: see test_server_imports); a
# solution that uses it imports it in its own child.
NUMPY_PREIMPORTS = ("numpy", "numpy.linalg", "numpy.fft", "numpy.polynomial")


def preimport(extra: tuple[str, ...] = ()) -> None:
    # The builtins `site` adds (`exit`, `quit`, `help`, ...): solutions graded officially have them.
    site.setquit()
    site.setcopyright()
    site.sethelper()
    for name in PREIMPORTS + extra:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


# NumPy functions whose library names `warm_up` calls: the kinds honest answers use most.
WARM_UP_FUNCTIONS = ("mean", "sum", "max", "min", "sqrt", "abs", "sort", "cumsum", "argmax")
WARM_UP_VALUES = ([1.0, 2.5], [1, 2, 3], [[1.0, 2.0], [3.0, 4.0]], [True, False], 2.5, 3)


def warm_up(module: ModuleType, package: str) -> None:
    """Run, once, in the server, what nearly every child runs: the constructor, a few library
    functions, the array's operators, and printing arrays and scalars. What NumPy and the
    library set up lazily on first use (printing options, ufunc loops, formatter objects) is
    then made here, before the zygote is forked, instead of in every child, where each page it
    writes is a copy (~2.6 us): a child that prints an array copies ~110 fewer pages, ~60 fewer
    per sample on the benchmark's (measured, issue 12). Inputs that warn nothing; a library
    without its name table (a test's stand-in) is not warmed."""
    try:
        table = importlib.import_module(f"{package}._table")
        name_of = {
            table.TOP_NUMPY[place]: name
            for name, place in zip(table.TOP_NAMES, table.TOP_PLACES, strict=True)
        }
        make = getattr(module, name_of[table.CONSTRUCTOR])
    except (ImportError, AttributeError, KeyError):
        return
    functions = [getattr(module, name_of[n]) for n in WARM_UP_FUNCTIONS if n in name_of]
    operators = (
        lambda a: a,
        lambda a: a + 1,
        lambda a: a * 2.0,
        lambda a: a > 1,
        lambda a: -a,
        list,
    )
    for value in WARM_UP_VALUES:
        array = make(value)
        for step in operators + tuple(functions):
            # what does not apply is skipped (`-` of booleans, `sort` or `list` of a 0-d array)
            with contextlib.suppress(Exception):
                result = step(array)
                str(result)
                repr(result)


def _standard_library(module: str) -> bool:
    """Whether classes of the module so named are the standard library's (or the guard's own,
    which stand in for some of them: `functools.cached_property`, `dataclasses.Field`)."""
    return module.partition(".")[0] in sys.stdlib_module_names or module == stdlib_guard.__name__


def _trusted(module: str, package: str) -> bool:
    """Whether classes of the module so named hold what only trusted code may: NumPy's, the
    library's (`package`), the harness's."""
    return module.partition(".")[0] in ("numpy", package, "sebench")


def _time_text(value: object) -> bool:
    """A start frame's time: `protocol.TIME_FORMAT` text of a number."""
    if type(value) is not str or len(value) != protocol.TIME_WIDTH:
        return False
    try:
        float(value)
    except ValueError:
        return False
    return True


class _NameTable:
    """The built library's name table (`_table.py`) with, per module, NumPy's functions in
    NumPy's order, resolved as the library's loader resolves them (None: this NumPy lacks it).

    Resolved once, in NumPy's order, as the loader lays the library out: what depends on which
    NumPy function a name calls is done in NumPy's order, and the same work is done for every
    name; what is made before the zygote is in every child's memory (`_loader.install`)."""

    def __init__(self, table: ModuleType, resolve: Any) -> None:
        self.table = table
        self.parts = (
            ("", table.TOP_NAMES, table.TOP_PLACES, [resolve(n) for n in table.TOP_NUMPY]),
            (
                f"{table.SUBMODULE}.",
                table.SUB_NAMES,
                table.SUB_PLACES,
                [resolve(n) for n in table.SUB_NUMPY],
            ),
        )

    @classmethod
    def of(cls, package: str) -> _NameTable | None:
        """None for a library without a name table (a test's stand-in)."""
        try:
            table = importlib.import_module(f"{package}._table")
            resolve = importlib.import_module(f"{package}._loader")._resolve
        except (ImportError, AttributeError):
            return None
        return cls(table, resolve)

    def named_targets(self) -> dict[str, frozenset[int]]:
        """Each library function's name within the package (`kocito`, `rfx.quvohe`) -> the id
        of the NumPy function it calls: what a job's evidence names stand for (`audit.install`).
        The same work for every name: a function this NumPy lacks stands for `_ABSENT`, which no
        call reaches."""
        named: dict[str, frozenset[int]] = {}
        for prefix, names, places, targets in self.parts:
            for index, name in enumerate(names):
                target = targets[places[index]]
                named[prefix + name] = frozenset((id(_ABSENT if target is None else target),))
        return named

    def in_numpy_order(self, found: list) -> list:
        """The library's closures' contents, NumPy's functions among them in NumPy's order.

        Found through the library's functions, in the order of their names, the NumPy
        functions come in an order that tells which name calls which, and the work done per
        target after (signatures read, tables built) leaves the memory in the order it is done
        in. Sorted by a rank that exists already: a sort by `id` made a key per target in the
        names' order and freed them in NumPy's, and the floats a program made then sat in those
        keys' places, one NumPy function's at each (a red team's, `correct` with one call)."""
        rank: dict[Any, int] = {}
        for _, _, _, targets in self.parts:  # NumPy's order, made and freed so
            for target in targets:
                if target is not None:
                    rank.setdefault(target, len(rank))
        unranked = -1  # a small int: no new object

        def place(item: object) -> int:
            try:
                return rank.get(item, unranked)
            except TypeError:  # unhashable (a set, a WeakKeyDictionary): never a name's target
                return unranked

        return sorted(found, key=place)


_ABSENT = object()  # what a library function that this NumPy lacks stands for (`named_targets`)


class Server:
    def __init__(self, config: SandboxConfig, library: dict, jobs: int) -> None:
        self.config = config
        sys.path.insert(0, library["root"])
        package = library["package"]
        importlib.import_module(package)
        importlib.import_module(f"{package}.{library['submodule']}")
        runtime = importlib.import_module(f"{package}._runtime")
        # listed before the mount namespace may hide the library's folder (a root under /tmp)
        library_files = _sources(os.path.dirname(runtime.call.__code__.co_filename))
        numpy = importlib.import_module("numpy")
        clock_refused = determinism.fix_numpy_clock(numpy)
        modules = [sys.modules[package], sys.modules[f"{package}.{library['submodule']}"]]
        functions = [getattr(module, name, None) for module in modules for name in dir(module)]
        targets = audit.closure_contents(functions, frozenset(library_files))
        names = _NameTable.of(package)
        if names is not None:
            targets = names.in_numpy_order(targets)
        named_targets = names.named_targets() if names is not None else {}
        del names
        preimport(NUMPY_PREIMPORTS if config.allow_numpy else ())
        warm_up(sys.modules[package], package)
        self.isolation = isolation.setup_server(
            config, protected=[library["root"]], clock_refused=clock_refused
        )
        sys.path.remove(library["root"])
        # Installed here, once, rather than in each child: the server imports nothing more, and
        # every child inherits the guard without paying for setting it up.
        perturb = perturbation.perturber(numpy)
        guard_introspection = self.isolation.layers["introspection"]
        # NumPy-form tasks' pool: NumPy may be imported; the modules that find live objects
        # stay refused as everywhere
        refused = () if config.allow_numpy else import_guard.REFUSED
        frame_readers = import_guard.install((package,), guard_introspection, refused)
        if guard_introspection:  # part of the introspection layer (`sebench doctor`)
            stdlib_guard.install((type(numpy.clip), numpy.ufunc), attribute_refusal)
            stdlib_guard.safe_containers()
            stdlib_guard.safe_itertools()
            stdlib_guard.safe_holders()
            stdlib_guard.pin_abc_answers(lambda module: _trusted(module, package))
            stdlib_guard.own_instances_only(_standard_library)
        # The hook's controls are held by this frame and the zygote's only: never by a module.
        controls = audit.install(
            call_code=runtime.call.__code__,
            library_files=library_files,
            targets=targets,
            made_at_run_time=(numpy.vectorize,),
            conversions=[getattr(numpy, n) for n in perturbation.CONVERSIONS if hasattr(numpy, n)],
            protected_files=_sources(os.path.dirname(child.__file__)),
            frame_readers=frame_readers,
            perturb=perturb,
            out_positions=perturbation.out_positions(numpy, targets),
            refuse_introspection=guard_introspection,
            named_targets=named_targets,
            stacking=[getattr(numpy, n) for n in perturbation.STACKING if hasattr(numpy, n)],
            shaping=[getattr(numpy, n) for n in perturbation.SHAPED if hasattr(numpy, n)],
        )
        if guard_introspection:  # last: the guards above set names on modules and classes
            # Not NumPy's: the interpreter specializes attribute reads on exact modules only,
            # and NumPy's code reads its modules' names at every step (a sealed NumPy cost 15%
            # of the grader's throughput); no program reaches them (the library's membrane).
            stdlib_guard.seal_modules(sys.modules, skip=("numpy",))
            stdlib_guard.freeze_classes(keep=determinism.WRITTEN_CLASSES)
        # The server's environment (already free of the grader's variables) is the children's.
        os.environ["HOME"] = os.environ["TMPDIR"] = self.isolation.scratch
        _reset_metadata(self.isolation.scratch)  # as every later job finds it
        # Objects that exist now are never collected: a collection in a child would otherwise
        # write to every object's header and copy the whole heap page by page (copy-on-write).
        gc.freeze()
        self.results, results_write = os.pipe()  # every child's frames, one child at a time
        self.zygote = zygote.start(config, self.isolation, controls, jobs, results_write)
        del controls
        os.close(results_write)
        self._child: int | None = None  # the last child, until `finish` is done with it
        self._exit: tuple[int, int] | None = None  # how it ended (si_code, si_status), once known
        self.reap_seconds = 0.0  # how long the last `finish` took
        self._ready()

    def hello(self) -> dict:
        return {
            "kind": "hello",
            "pid": os.getpid(),
            "zygote_pid": self.zygote.pid,
            "layers": self.isolation.layers,
            "details": self.isolation.details,
            "warnings": self.isolation.warnings,
            "uid": self.isolation.uid if self.isolation.layers["uid_drop"] else None,
        }

    def next_reply(self) -> dict | None:
        """Follow the next job the zygote forks a child for, to its reply; None once the grader
        has closed the job pipe."""
        if self._child is not None:  # `finish` not called since the last job: never two
            self.finish()
        kind = self.zygote.next_kind()
        if kind is None:
            raise zygote.ZygoteLost("zygote exited")
        if kind != zygote.FORKED:
            raise zygote.ZygoteLost(f"zygote sent {kind!r}")
        pid, t0 = self.zygote.forked()
        self._child, self._exit = pid, None
        reply = self._collect(pid, self._nonce, t0)
        if reply is None:  # the child found no job: the grader closed the pipe
            self._child = None
        return reply

    def finish(self) -> None:
        """Make sure the last child is gone (killed already), clean up after it, then let the
        zygote fork the next one; the time it took goes with the next job's timings
        (`reaped_before`).

        Called after the reply is sent, and always before the next fork: no process, file or
        stray byte of one job is left when the next job starts. Waiting for the child's exit to
        free its memory (~0.7 ms) thus overlaps the grader's own work instead of delaying the
        reply. (The zygote reaps the zombie as soon as it is told that all is clean.)
        """
        started = time.perf_counter()
        if self._child is not None:
            _kill_group(self._child)  # killed already, unless the job failed in the server itself
            if self._exit is None:
                self._exit = self.zygote.exited()
            self._child = None
        self._clean_up()
        self._ready()
        self.reap_seconds = time.perf_counter() - started

    def close(self) -> None:
        if self._child is not None:
            _kill_group(self._child)
        self.zygote.close()
        self.isolation.close()

    def _ready(self) -> None:
        self._nonce = secrets.token_hex(zygote.NONCE_CHARS // 2)
        self.zygote.send_ready(self._nonce)

    def _collect(self, pid: int, nonce: str, t0: float) -> dict | None:
        """Follow the child forked at `t0` to its reply; None when it found no job. It waits for
        its job first, as long as the grader takes to send one: the deadline starts with its
        start frame, sent once it has read the job."""
        # Bytes an honest child can send: the printed results (JSON may escape one byte to six),
        # each case's error message (same escaping) and the frame around it, start and end;
        # until the start frame tells how many cases there are, the start frame's size.
        per_case = 6 * child.MAX_ERROR_MESSAGE + 1024
        decoder = protocol.FrameDecoder(max_total=16 << 10)
        deadline: float | None = None
        cases: list[dict] = []
        state = {
            "start": None,
            "setup_error": None,
            "setup_message": None,
            "done": None,
            "abort": None,
            "memory": False,
            "output_limit": False,
            "violation": None,
            "isolation_failed": None,
            "over_cap": False,
        }

        def take(chunk: bytes) -> bool:
            """Feed what the child sent; True once nothing more needs reading."""
            try:
                for frame in decoder.frames(chunk):  # the cap raised below applies to the next
                    if not self._accept(frame, nonce, cases, state):
                        break
                    if frame.get("kind") == "start":
                        n_cases = frame["cases"]
                        decoder.max_total = (
                            decoder.total
                            + 6 * self.config.max_output_bytes
                            + n_cases * per_case
                            + (16 << 10)
                        )
            except protocol.FrameTooLarge:
                state["over_cap"] = True
                return True
            except protocol.ProtocolError as exc:
                state["violation"] = str(exc)
                return True
            return bool(
                state["violation"]
                or state["isolation_failed"]
                or state["done"] is not None
                or state["abort"] is not None
            )

        results, reports = self.results, self.zygote.reports
        timed_out = ended = False
        try:
            while not ended:
                if deadline is None and state["start"] is not None:
                    deadline = time.perf_counter() + self.config.timeout_s
                remaining = None if deadline is None else deadline - time.perf_counter()
                if remaining is not None and remaining <= 0:
                    timed_out = True
                    break
                readable, _, _ = select.select([results, reports], [], [], remaining)
                if results in readable:
                    ended = take(os.read(results, 1 << 16))
                if reports in readable and not ended:
                    # The child has exited: what it wrote is all in the pipe already (bounded
                    # by the decoder's cap, should a grandchild go on writing).
                    self._exit = self.zygote.exited()
                    ended = True
                    while select.select([results], [], [], 0)[0]:
                        if take(os.read(results, 1 << 16)):
                            break
        finally:
            # Killed at once, even after "done" (the harness exits right after it anyway):
            # waiting for it to exit by itself only adds a scheduling delay to every job.
            _kill_group(pid)
        t_killed = time.perf_counter()

        start = state["start"]
        if start is None and not timed_out and not state["violation"]:
            without_job, reply = self._no_job()
            if without_job:
                return reply
        # fork and isolation happen before the job arrives (while the grader works); `total` is
        # from the child having its job to its end
        timings = {"reaped_before": self.reap_seconds}
        if start:
            t_start, t_isolated, t_job = (
                float(start[k]) for k in ("t_start", "t_isolated", "t_job")
            )
            timings["total"] = t_killed - t_job
            timings["fork"] = t_start - t0
            timings["isolation"] = t_isolated - t_start
            end = (state["done"] or {}).get("t_end")
            if isinstance(end, float):
                timings["run"] = end - t_job
        status, detail = self._status(state, timed_out, len(cases))
        for case in cases:
            for key in ("kind", "index", "memory", "output_limit", "nonce"):
                case.pop(key, None)
        return {
            "status": status.value,
            "cases": cases,
            "setup_error": state["setup_error"],
            "setup_message": state["setup_message"],
            "detail": detail,
            "timings": timings,
        }

    def _no_job(self) -> tuple[bool, dict | None]:
        """Whether a child that ended before its start frame found no job to run, and the reply
        then: None at the end of the job stream, INFRA_ERROR for a malformed job. A stream that
        cannot be followed any further ends the server."""
        how, code = self._exit if self._exit is not None else (None, None)
        if how != os.CLD_EXITED:
            return False, None
        if code == child.EXIT_NO_JOB:
            return True, None
        if code == child.EXIT_BAD_JOB:
            return True, _infra_error("server error: malformed job")
        if code == child.EXIT_STREAM_BROKEN:
            raise zygote.ZygoteLost("a job over the size cap: the job stream is broken")
        return False, None

    def _accept(self, frame: dict, nonce: str, cases: list[dict], state: dict) -> bool:
        """Check one frame's place in the sequence; False (and a violation) when out of order."""
        kind = frame.get("kind")
        if frame.get("nonce") != nonce:
            state["violation"] = "frame without the job's nonce"
            return False
        if kind == "isolation_failed" and state["start"] is None:
            state["isolation_failed"] = str(frame.get("error"))
            return False
        if state["start"] is None:
            if (
                kind != "start"
                or not all(_time_text(frame.get(k)) for k in ("t_start", "t_isolated", "t_job"))
                or type(frame.get("cases")) is not int
                or frame["cases"] < 0
            ):
                state["violation"] = "first frame is not the harness's start frame"
                return False
            state["start"] = frame
            return True
        n_inputs = state["start"]["cases"]
        ended = state["done"] is not None or state["abort"] is not None
        if ended:
            state["violation"] = "frame after the end of the run"
            return False
        if kind == "setup_error" and not cases and state["setup_error"] is None:
            state["setup_error"] = _text(frame.get("error_type"))
            state["setup_message"] = _text(frame.get("error_message"))
            state["memory"] = frame.get("memory") is True
            return True
        if (
            kind == "case"
            and state["setup_error"] is None
            and frame.get("index") == len(cases)
            and len(cases) < n_inputs
            and _valid_case(frame)
        ):
            cases.append(frame)
            state["memory"] |= frame["memory"] is True
            state["output_limit"] |= frame["output_limit"] is True
            return True
        if kind == "done":
            stopped_early = state["memory"] or state["output_limit"]
            if state["setup_error"] is None and len(cases) != n_inputs and not stopped_early:
                state["violation"] = "run ended before every case was reported"
                return False
            state["done"] = frame
            return True
        if kind == "abort":
            state["abort"] = _text(frame.get("error_type")) or "exit"
            return True
        state["violation"] = f"unexpected frame {kind!r}"
        return False

    def _status(self, state: dict, timed_out: bool, n_cases: int) -> tuple[ExecStatus, str | None]:
        if state["isolation_failed"]:
            return ExecStatus.INFRA_ERROR, f"isolation failed: {state['isolation_failed']}"
        if state["over_cap"] or state["output_limit"]:
            return (
                ExecStatus.OUTPUT_LIMIT,
                f"printed results over {self.config.max_output_bytes} bytes",
            )
        if state["memory"]:
            return ExecStatus.MEMORY, f"MemoryError under a {self.config.memory_mb} MiB budget"
        if state["violation"]:
            return ExecStatus.CRASHED, f"protocol violation: {state['violation']}"
        if timed_out:
            return (
                ExecStatus.TIMEOUT,
                f"wall clock over {self.config.timeout_s} s after {n_cases} case(s)",
            )
        if state["done"] is not None:
            return ExecStatus.OK, None
        if state["abort"] is not None:
            return ExecStatus.CRASHED, f"the program ended itself ({state['abort']})"
        # Only a run that ended without a result needs how the child ended.
        if self._exit is None:
            _kill_group(self._child)
            self._exit = self.zygote.exited()
        how, value = self._exit
        if how in (os.CLD_KILLED, os.CLD_DUMPED):
            cpu_used = _cpu_seconds(self._child)  # a zombie still: its pid is not reused
            if value == signal.SIGXCPU or (
                value == signal.SIGKILL and cpu_used >= self.config.cpu_limit_s
            ):
                return ExecStatus.TIMEOUT, f"CPU time over {self.config.cpu_limit_s} s"
            if state["start"] is None and value == signal.SIGKILL:
                return ExecStatus.CRASHED, "killed before the harness started"
            return ExecStatus.CRASHED, f"killed by {signal_name(value)}"
        code = value if how == os.CLD_EXITED else -1
        if state["start"] is None and code == child.EXIT_ISOLATION_FAILED:
            return ExecStatus.INFRA_ERROR, "the child failed before reporting"
        return ExecStatus.CRASHED, f"exited with code {code} without a complete result"

    def _clean_up(self) -> None:
        """Reap reparented grandchildren, drop what they or the child left in the results pipe,
        remove the IPC objects the child made (without seccomp), and empty the scratch dir for
        the next job."""
        if not self.isolation.layers["seccomp"]:
            _kill_orphans(spare=self.zygote.pid)
            if self.isolation.layers["ipc_namespace"]:  # the namespace is the server's alone
                isolation.remove_ipc_objects()
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid == self.zygote.pid:
                raise zygote.ZygoteLost("zygote exited")
        while select.select([self.results], [], [], 0)[0]:  # every writer is dead now
            os.read(self.results, 1 << 16)
        # A child may have closed its own folder (`chmod 0`): the next one could not enter it,
        # and every later job on this server was `infra_error` (a red team's).
        os.chmod(self.isolation.scratch, 0o700)
        if not _empty(self.isolation.scratch):
            # Nothing of one job may reach the next: this server ends (the pool starts another).
            raise OSError(f"the scratch dir {self.isolation.scratch} could not be emptied")
        _reset_metadata(self.isolation.scratch)


def _reset_metadata(folder: str) -> None:
    """What a job can write on the scratch dir itself, besides its entries: its times and its
    extended attributes, which a red team carried from one job to the next (a mark in the
    folder's mtime: the function it had found, with the `os` the policy refuses). Reset to
    one value: the times to the virtual clock's epoch, no extended attribute."""
    os.utime(folder, (determinism.EPOCH_S, determinism.EPOCH_S))
    with contextlib.suppress(OSError):  # a file system without extended attributes
        for name in os.listxattr(folder):
            os.removexattr(folder, name)


def _empty(folder: str) -> bool:
    """Remove everything inside `folder`, never following a link, at any depth; whether it is
    empty now. Without recursion (`shutil.rmtree` recursed once per level: 1,200 nested
    folders raised RecursionError, which ended the server) and without paths (a red team's
    2,100 nested folders made paths over PATH_MAX, each removal failed, and a file at the
    bottom was read back by later jobs): each folder met is opened by its name in the top
    folder, its entries are renamed up into the top folder, and it is removed, so that every
    call works on names one level down and at most two folders are open at once. Nothing it
    meets can raise."""
    try:
        top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return False
    moved = 0  # names for what is moved up: `~1`, `~2`, ... (a taken one is tried again)
    try:
        while True:
            try:
                names = os.listdir(top)
            except OSError:
                return False
            if not names:
                return True
            progress = False
            for name in names:
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=top)  # anything but a folder, links included
                    progress = True
                    continue
                try:
                    if not stat.S_ISDIR(os.lstat(name, dir_fd=top).st_mode):
                        continue  # not a folder and not removable: reported as not empty
                    # a child may have closed its folders to everyone (`chmod 0`)
                    os.chmod(name, 0o700, dir_fd=top)
                    inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top)
                except OSError:
                    continue
                try:
                    for entry in os.listdir(inner):
                        for _ in range(len(names) + 2):  # more tries than names taken at the top
                            moved += 1
                            try:
                                os.rename(entry, f"~{moved}", src_dir_fd=inner, dst_dir_fd=top)
                                progress = True
                                break
                            except OSError:
                                continue
                except OSError:
                    pass
                finally:
                    os.close(inner)
                with contextlib.suppress(OSError):
                    os.rmdir(name, dir_fd=top)
                    progress = True
            if not progress:
                return False
    finally:
        os.close(top)


def _sources(folder: str) -> set[str]:
    """The Python source files under `folder`, named as their code objects name them."""
    return {
        os.path.join(parent, name)
        for parent, _, names in os.walk(folder)
        for name in names
        if name.endswith(".py")
    }


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _valid_case(frame: dict) -> bool:
    return (
        (frame.get("printed") is None or isinstance(frame.get("printed"), str))
        and (frame.get("error_type") is None or isinstance(frame.get("error_type"), str))
        and (frame.get("error_message") is None or isinstance(frame.get("error_message"), str))
        and isinstance(frame.get("library_calls"), int)
        and isinstance(frame.get("non_constructor_calls"), int)
        and isinstance(frame.get("official_failures"), int)
        and isinstance(frame.get("computed_results"), int)
        and isinstance(frame.get("library_functions"), int)
        and isinstance(frame.get("submodule_functions"), int)
        and isinstance(frame.get("memory"), bool)
        and isinstance(frame.get("output_limit"), bool)
    )


def signal_name(number: int) -> str:
    """`SIGSEGV` and the like; a real-time signal, which has no name, by its number (the enum
    raises ValueError for it, which ended the job as `infra_error`)."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _kill_group(pid: int) -> None:
    # The child is still unreaped here (a zombie at worst), so its pid cannot have been reused.
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process used, read from /proc (a zombie's included)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _kill_orphans(spare: int) -> None:
    """Without seccomp a child can fork and `setsid` away from its group. The server is a child
    subreaper, so such processes become its children when their parent dies: kill and reap them,
    again and again, because killing one hands its own children to the server. `spare`: the
    server's own child, the zygote."""
    for _ in range(10_000):  # bounded: RLIMIT_NPROC (after the uid drop) bounds the tree
        orphans = [pid for pid in _children() if pid != spare]
        if not orphans:
            return
        for pid in orphans:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in orphans:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _children() -> list[int]:
    me = os.getpid()
    try:  # direct list (CONFIG_PROC_CHILDREN), else a scan of every process's parent
        with open(f"/proc/{me}/task/{me}/children", "rb") as handle:
            return [int(pid) for pid in handle.read().split()]
    except OSError:
        pass
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            found.append(int(entry))
    return found


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to handle
    isolation.exec_with_fixed_layout()  # first of all: the process starts again
    if argv[1:2] == ["--probe"]:
        return _probe()
    # Frames go to a private copy of stdout; fd 1 then points at stderr so a stray print (a
    # warning, a library message) cannot corrupt the protocol.
    out_fd, in_fd = os.dup(1), os.dup(0)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    reader = protocol.FrameReader(in_fd)
    setup = reader.read()  # the grader sends the first job only after `hello`
    if setup is None:
        return 0
    config = SandboxConfig.from_dict(setup["config"])
    server = Server(config, setup["library"], jobs=in_fd)
    os.close(in_fd)  # from now on, the zygote reads the jobs
    protocol.write_frame(out_fd, server.hello())
    try:
        while True:
            reply = _reply(server)
            if reply is None:
                break
            protocol.write_all(out_fd, reply)
            try:
                server.finish()
            except Exception as exc:  # noqa: BLE001 - whatever it was, this server ends here
                # The zygote forks for the next job only once told that all is clean, so that
                # job, maybe already in the pipe, has not started: the exit status says so, and
                # the pool sends it to a new server instead of failing it. It is another
                # sample's (a red team's reading: a clean-up that failed after its reply made
                # the next sample an `infra_error`).
                print(f"clean-up failed: {type(exc).__name__}: {exc}", file=sys.stderr)
                return protocol.EXIT_NEXT_JOB_NOT_STARTED
    except BrokenPipeError:
        pass
    finally:
        server.close()
    return 0


def _reply(server: Server) -> bytes | None:
    """The encoded reply to the next job. A failure in following it (a bug, or what a child sent
    failing to encode) is that job's INFRA_ERROR: one job never takes the server down. A lost
    zygote does, and the pool starts a new server."""
    try:
        reply = server.next_reply()
        return None if reply is None else protocol.encode(reply)
    except zygote.ZygoteLost:
        raise
    except Exception as exc:
        try:
            detail = f"server error: {type(exc).__name__}: {exc}"
        except Exception:
            detail = f"server error: {type(exc).__name__}"
        return protocol.encode(_infra_error(detail))


def _infra_error(detail: str) -> dict:
    return {
        "status": ExecStatus.INFRA_ERROR.value,
        "cases": [],
        "setup_error": None,
        "detail": detail,
        "timings": {},
    }


def _probe() -> int:
    """Set up every layer as a server would (with a stand-in library) and print them as JSON."""
    preimport()
    clock_refused = determinism.fix_numpy_clock(importlib.import_module("numpy"))
    iso = isolation.setup_server(SandboxConfig(), protected=[], clock_refused=clock_refused)
    report = {"layers": iso.layers, "details": iso.details, "warnings": iso.warnings}
    iso.close()
    sys.stdout.write(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
