"""The audit hook: where the evidence of library use lives, and what refuses introspection.

The untrusted code shares its process with the harness and the library, so whatever the verdict
depends on must be out of its reach. Python code can reach any object through attributes
(`__closure__`, `__globals__`, `sys.modules`, ...), and the static policy refuses those paths it
can see; what it cannot see must hold nothing of value. Only two places are out of reach of every
attribute path: the stack of the harness (reachable through frames alone) and an audit hook
(`sys.addaudithook`: no Python API lists the hooks; `gc` would find it). So:

- The counts of library calls and the perturbation mode live in this hook's closure. The library
  announces each call (`_runtime.call` raises the audit event `sebench.library_call` with the
  function it is about to call); the hook counts it only when the frame raising it runs
  `_runtime.call`'s own code object, the frame below that runs code from the library's own
  files, and the function is one the library's functions held when the server started (or a
  vectorized function the library made since): the call came through a real library function
  to a real target. A program that calls `_runtime.call` itself, replaces it, or rebinds a cell
  of a library function's closure (`__closure__`, which no audit event covers) counts nothing.
  The hook also keeps which functions the run has called (for the whole run, not per case):
  a run that tries many has searched the library (`Grader.judge`, `MOST_FUNCTIONS`).
- The library also reports where the official library would have raised and it does not
  (`_runtime.official_failure` raises `sebench.official_failure`): the hook counts those that
  `_runtime` raised when called from the library's own files, per case, beside the calls. Only the `official` rules read the
  count, and it can only lower their verdict, so forging one hurts only the forger; it cannot be
  suppressed any more than a call count can be.
- In a perturbed run every counted call's result is nudged (perturbation.py, which also
  leaves a result that equals one of the call's arguments as it is), but for the pure
  conversions (`conversions`: `asarray`, `copy`, ...), which compute nothing: passing a
  plain-Python answer through one must not make it depend on the library.
- The harness's controls (`arm`, `reset`, `counts`) and its frame sender exist only as locals
  of the harness, on the stack below the untrusted code.
- Once armed (in the child, just before the untrusted code runs), the hook refuses what finds
  live objects or rewrites code: frames (`sys._getframe`, `sys._current_frames`, `tb_frame`,
  `gi_frame`, `cr_frame`, `ag_frame`), tracing and profiling hooks, `gc.get_objects` /
  `get_referrers` / `get_referents`, new audit hooks, new functions or code objects built from
  existing code (`function.__new__`, `code.__new__`, `marshal` but for the import system),
  assigning `__code__`, compiling code under the name of a library file or running library or
  sandbox code objects with `exec`, every `ctypes` primitive, `pickle`'s global lookups, and
  opening `/proc` (raw memory). The hook itself calls `sys._getframe` while it checks a library
  call; it lets its own calls through. Signal handlers, which receive the running frame without
  an audit event, are refused by the child's seccomp filter and taken away from Python here.

The refusals are the `introspection` layer (`SandboxConfig.layers`); counting and perturbing
always run, since the verdict needs them. A refused call raises `RuntimeError` (`ValueError`
for `sys._getframe`, which the standard library expects when a frame does not exist, e.g.
`collections.namedtuple` reading its caller's module name; `PermissionError` for `open`).

What it does not stop: reaching module objects through attributes (the static policy refuses
those paths; nothing of the verdict is there), and a program that detects the perturbed run by
checking a library result against a constant it knows (see docs/grading.md).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sebench.grading.sandbox.perturbation import Perturbation, Perturber

LIBRARY_CALL = "sebench.library_call"  # the event `_runtime.call` raises (it names it itself)
OFFICIAL_FAILURE = "sebench.official_failure"  # `_runtime.official_failure`'s
OFFICIAL_TRIAL = "sebench.official_trial"  # `_runtime.official_trial_wanted`'s
MODULE_WRITE = "sebench.module_write"  # a sealed module's (stdlib_guard.seal_modules)

REFUSED_EVENTS = frozenset(
    (
        "sys._current_frames",
        "sys._current_exceptions",
        "sys.settrace",
        "sys.setprofile",
        "sys.addaudithook",
        "sys.monitoring.register_callback",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "pickle.find_class",
    )
)
FRAME_ATTRIBUTES = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))


@dataclass(frozen=True)
class Controls:
    """What the harness holds (as locals) to drive the hook in its child."""

    # the untrusted code starts now, perturbed or not; the calls of the named functions (none
    # named: of every function) are the only ones perturbed and counted as the library's work
    arm: Callable[[Perturbation, tuple[str, ...]], None]
    reset: Callable[[], None]  # counts back to zero (before each case)
    # (library calls, the same without the constructor, the official library's failures, the
    # calls whose result was not one of their arguments: perturbation.py; and, since `arm`, not
    # reset: how many different functions other than the constructor the run has called)
    counts: Callable[[], tuple[int, int, int, int, int, int]]


# The file name the child compiles the program under (child.py).
PROGRAM_FILE = "<response>"


def install(
    call_code: Any,
    library_files: Iterable[str],
    targets: Iterable[Any],
    made_at_run_time: tuple[type, ...],
    conversions: Iterable[Any],
    protected_files: Iterable[str],
    frame_readers: Iterable[Any],
    perturb: Perturber,
    out_positions: dict[int, tuple[int, str, int]],
    refuse_introspection: bool,
    named_targets: dict[str, frozenset[int]] | None = None,
    stacking: Iterable[Any] = (),
    shaping: Iterable[Any] = (),
) -> Controls:
    """Add the hook to this process (the fork server, before its zygote exists).

    `call_code`: the code object of the library's `_runtime.call`; `library_files`: the library
    package's source files; `targets`: what the library's functions may call (`closure_contents`);
    `made_at_run_time`: types of targets the library makes later (NumPy's `vectorize`);
    `conversions`: targets whose results are never perturbed; `protected_files`: source files
    whose code objects user code must not `exec` (the library's and the sandbox's);
    `frame_readers`: code objects of trusted functions that call `sys._getframe` (the import
    guard); `perturb`: nudges one raw result, given the call's arguments and the mode;
    `out_positions`: the targets that can write their result into an argument (`out=`), by id,
    with where that argument stands (perturbation.out_positions); `named_targets`: each library
    function's name within the package (`kocito`, `rfx.quvohe`) -> the ids of its targets, for
    `arm`'s evidence names; `stacking`: targets whose first argument is the pieces they join
    (never handed back as a whole, perturbation.STACKING); `shaping`: targets whose shape is
    their work (perturbation.SHAPED).
    """
    # Everything the hook uses is bound here: the code may rebind this module's globals or any
    # builtin, never these locals.
    event_name, refused_events, frame_attributes = LIBRARY_CALL, REFUSED_EVENTS, FRAME_ATTRIBUTES
    failure_name, trial_name = OFFICIAL_FAILURE, OFFICIAL_TRIAL
    module_write, program_file = MODULE_WRITE, PROGRAM_FILE
    runtime_error, value_error, getattr_, fsdecode = RuntimeError, ValueError, getattr, os.fsdecode
    permission_error = PermissionError
    names_proc = _names_proc
    library = frozenset(library_files)
    kept = list(targets)  # alive, so their ids stay theirs
    target_ids = frozenset(map(id, kept))
    conversion_ids = frozenset(map(id, conversions))
    # how a target's result is judged (perturbation.holds): "pieces", "shape", or "" (absent)
    judged = {id(t): "pieces" for t in stacking} | {id(t): "shape" for t in shaping}
    id_ = id
    made_ids = frozenset(map(id, made_at_run_time))
    protected = frozenset(protected_files) | library
    readers = frozenset(frame_readers)
    nudge_result, written_by, out_positions = perturb.nudge, perturb.written, dict(out_positions)
    getframe, get_ident, realpath = sys._getframe, _thread_ident(), os.path.realpath
    type_, list_, str_, bytes_, len_, set_ = type, list, str, bytes, len, set
    named = dict(named_targets or {})
    # the targets of the functions of the library's submodule (`rfx.quvohe`): a namespace a
    # few calls search through (`Grader.judge`)
    submodule_ids = frozenset().union(*(ids for name, ids in named.items() if "." in name))
    # armed, nudge or None, calls, non-constructor calls, failures, calls that computed
    # something, the evidence targets' ids (None: every target), the ids of the targets (a
    # vectorized function: its type) called so far but the constructor, those of them that
    # are the submodule's
    state: list[Any] = [False, None, 0, 0, 0, 0, None, set_(), set_()]

    def nudger(mode: Perturbation) -> Callable[..., Any]:
        def nudge(
            result: Any,
            args: tuple,
            kwargs: dict,
            written: tuple = (),
            grow: bool = True,
            force: bool = False,
            how: str = "",
        ) -> Any:
            value, computed = nudge_result(result, args, kwargs, mode, written, grow, force, how)
            if computed:
                state[5] += 1
            return value

        return nudge

    # one per mode, made here: the hook only picks one (the unperturbed run's does the same work
    # and keeps the result)
    nudges = {mode: nudger(mode) for mode in Perturbation}
    busy = [0]  # the thread inside the hook's own frame lookups (its events pass)
    gc_enabled, gc_disable, gc_enable = gc.isenabled, gc.disable, gc.enable
    # counted calls announced and not yet judged; whether collections were on before the first
    window: list[int] = [0, 0]

    def enter() -> bool:
        # Collections off first: one started by the frames the lookup makes would run the
        # program's finalizers (a generator's `finally`) inside the window, where every event
        # passes uncounted (a red team's: all 247 functions tried there, `correct`).
        enabled = gc_enabled()
        gc_disable()
        busy[0] = get_ident()
        return enabled

    def leave(enabled: bool) -> None:
        busy[0] = 0
        if enabled:
            gc_enable()

    def refuse(event: str) -> RuntimeError:
        return runtime_error(f"{event} is not available to the graded program")

    def library_call(args: tuple) -> None:
        if len_(args) != 4:
            return
        answer, target, call_args, call_kwargs = args
        # the exact type, by identity: `isinstance` would ask the object's own `__class__`, and
        # `in` its metaclass's `__eq__`
        if id_(target) not in target_ids and id_(type_(target)) not in made_ids:
            return
        enabled = enter()
        try:
            caller = getframe(2)  # 0: this function, 1: the hook, 2: what raised the event
            genuine = caller.f_code is call_code and caller.f_back.f_code.co_filename in library
        finally:
            leave(enabled)
        if not genuine or type_(answer) is not list_ or len_(answer) != 2:
            return
        state[2] += 1
        constructor = answer[0] is True
        if not constructor:
            state[3] += 1
            key = id_(target) if id_(target) in target_ids else id_(type_(target))
            state[7].add(key)
            if key in submodule_ids:
                state[8].add(key)
        evidence = state[6]
        # the task's own functions (`arm`), a `vectorize`d function by its type; the
        # constructor and the conversions (they hand their argument back) only when they are
        # the task's own, and then nudged although they hand it back; with no task functions,
        # every function but those
        handing_back = constructor or id_(target) in conversion_ids
        if evidence is None:
            counted = not handing_back
        else:
            counted = id_(target) in evidence or id_(type_(target)) in evidence
        if counted and state[1] is not None:
            # Collections off from here until the result is judged: one started in between ran
            # a program's generator `finally` that wrote into the call's argument after NumPy
            # read it, so the result no longer equalled the argument it handed back, and a
            # plain answer passed through the task's own function counted as computed (a red
            # team's, `correct`). From here, not from after `written_by`: that runs the call
            # without `out=` and judges its result against the arguments, and a collection
            # timed to fall in between did the same there (`trunc(a, out=b)`; NX, `correct`).
            # Calls nest (a library call in a callback): the outermost window decides. A call
            # that raises is never judged, and collections stay off for the rest of the run,
            # alike in every run.
            if window[0] == 0:
                window[1] = gc_enabled()
                gc_disable()
            window[0] += 1
            nudge, out = state[1], out_positions.get(id_(target))
            how = judged.get(id_(target), "")
            if handing_back:
                extra: tuple = ((), True, True)  # (written, grow, force, how) of `nudge`
            elif out is None:
                extra = ((), True, False, how)
            else:  # it may write into an argument: what that held goes with the nudge
                extra = (written_by(target, call_args, call_kwargs, out, how), False, False, how)

            def judged_with_collections_off(result, args, kwargs):
                try:
                    return nudge(result, args, kwargs, *extra)
                finally:
                    window[0] -= 1
                    if window[0] == 0 and window[1]:
                        gc_enable()

            answer[1] = judged_with_collections_off

    def official_failure() -> None:
        # counted when `_runtime.official_failure` raised it, called from the library's code
        enabled = enter()
        try:
            raiser = getframe(2)  # 0: this function, 1: the hook, 2: what raised the event
            genuine = (
                raiser.f_code.co_filename in library
                and raiser.f_back is not None
                and raiser.f_back.f_code.co_filename in library
            )
        finally:
            leave(enabled)
        if genuine:
            state[4] += 1

    def caller_code() -> Any:
        enabled = enter()
        try:
            return getframe(2).f_code  # 0: this function, 1: the hook, 2: what raised the event
        finally:
            leave(enabled)

    def hook(event: str, args: tuple) -> None:
        if not state[0] or busy[0] == get_ident():
            return
        if event == event_name:
            library_call(args)
            return
        if event == failure_name:
            official_failure()
            return
        if event == trial_name:
            # the library asks whether to try a call the official way: always, in a run. The
            # program may raise this event itself: answering it changes nothing it can use.
            asked = args[0] if len_(args) == 1 else None
            if type_(asked) is list_ and len_(asked) == 1:
                asked[0] = True
            return
        if not refuse_introspection:
            return
        if event == "function.__new__" or event == "code.__new__":
            # the library makes its own functions (a vectorized callable); nothing else may
            if caller_code().co_filename not in library:
                raise refuse(event)
        elif event in refused_events or event[:7] == "ctypes.":
            raise refuse(event)
        elif event == module_write:  # stdlib_guard.seal_modules
            raise refuse(f"rebinding a name of the module {args[0]}")
        elif event == "sys._getframe":
            if caller_code() not in readers:
                raise value_error("call stack is not deep enough")
        elif event == "object.__getattr__":
            if args[1] in frame_attributes:
                raise refuse(f"reading {args[1]}")
        elif event == "object.__setattr__" or event == "object.__delattr__":
            if args[1] == "__code__":
                raise refuse("replacing __code__")
        elif event == "marshal.loads" or event == "marshal.load":
            # the import system reading a .pyc; anyone else could make code objects that claim
            # to come from a library file
            if caller_code().co_filename[:18] != "<frozen importlib.":
                raise refuse(event)
        elif event == "exec":
            if getattr_(args[0], "co_filename", None) in protected:
                raise refuse("running the library's code objects")
        elif event == "compile":
            name = args[1]
            if type_(name) is str_ and (name in protected or name[:8] == "<frozen "):
                raise refuse("compiling under the name of trusted code")
            # `exec`, `eval` and `compile` called by the program itself (the policy refuses the
            # names; two red teams' policy gaps ended in `exec`): the stdlib's own generated code
            # (`dataclasses`, `namedtuple`) is compiled from the stdlib's frames
            if caller_code().co_filename == program_file:
                raise refuse("compiling code from the program (exec, eval, compile)")
        elif event == "open" and type_(args[0]) is not int:
            path = args[0]
            # exact text only: a path object is asked for its path again after this check
            exact = type_(path) is str_ or type_(path) is bytes_
            if not exact or names_proc(fsdecode(path), realpath):
                raise permission_error(13, "opening /proc (or by a path object) is refused here")

    def arm(perturbation: Perturbation, evidence: tuple[str, ...] = ()) -> None:
        # none named: every function is evidence (a task that names no function keeps the rule
        # it had); named, but none of them a function of this library: none is (the grader
        # sends `evidence.UNKNOWN` then: counting every function let a canary on any of them
        # pass a plain answer on a task whose `selected_functions` were misspelled)
        found = frozenset().union(*(named.get(name, frozenset()) for name in evidence))
        state[6] = found if evidence else None
        state[7], state[8] = set_(), set_()
        state[0], state[1] = True, nudges.get(perturbation)

    def reset() -> None:
        state[2] = state[3] = state[4] = state[5] = 0

    def counts() -> tuple[int, int, int, int, int, int]:
        return state[2], state[3], state[4], state[5], len_(state[7]), len_(state[8])

    sys.addaudithook(hook)
    if refuse_introspection:
        _refuse_signal_handlers()
    return Controls(arm, reset, counts)


def closure_contents(functions: Iterable[Any], files: frozenset[str]) -> list[Any]:
    """Everything the closures of `functions` hold, and of the functions they hold in turn when
    their code is in `files` (the library's): the targets its functions call."""
    found: list[Any] = []
    seen: set[int] = set()
    pending = [f for f in functions if getattr(f, "__code__", None) is not None]
    while pending:
        function = pending.pop()
        if id(function) in seen or function.__code__.co_filename not in files:
            continue
        seen.add(id(function))
        for cell in function.__closure__ or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            # a table of targets (a dict, a list) counts as its items
            items = value.values() if type(value) is dict else value
            for item in items if type(value) in (dict, list, tuple) else (value,):
                found.append(item)
                if getattr(item, "__code__", None) is not None:
                    pending.append(item)
    return found


def _refuse_signal_handlers() -> None:
    """A Python signal handler receives the running frame, and installing one raises no audit
    event: where seccomp works the child's filter refuses `rt_sigaction` itself (seccomp.py);
    this takes the Python function away everywhere (nothing in the server or the zygote
    installs a handler after this point)."""
    import _signal
    import signal

    def refused(signalnum: object, handler: object) -> None:
        raise RuntimeError("signal handlers are not available to the graded program")

    _signal.signal = signal.signal = refused


def _names_proc(path: str, realpath: Callable[[str], str]) -> bool:
    # `proc` as any component too: a relative path may be opened from a descriptor of `/`
    return "proc" in path.split("/") or realpath(path)[:6] in ("/proc", "/proc/")


def _thread_ident() -> Callable[[], int]:
    # `_thread`, not `threading`: the fork server must never import threading (server.py)
    import _thread

    return _thread.get_ident
