"""The one place every library function call passes (trusted code only): `call`; and where the
library reports what the official library would have failed on: `official_failure` (when a hook
asks for that trial: `official_trial_wanted`).

Each call is announced as an audit event (`sys.audit`) before it runs. Used on its own, the
package has no hook for it, and announcing costs next to nothing and changes nothing. The
grader's sandbox installs a hook (`sebench.grading.sandbox.audit`) that counts the calls it can
trace to this function called from the library's own wrappers, and, in a perturbed run, answers
with a function that nudges the result (given the call's arguments too). The counts and the
mode live only in that hook, which no Python code can name: this module holds nothing worth
forging or reading.
"""

from sys import audit as _audit

EVENT = "sebench.library_call"
OFFICIAL_FAILURE = "sebench.official_failure"
OFFICIAL_TRIAL = "sebench.official_trial"


def call(target, is_constructor, args, kwargs):
    """`target(*args, **kwargs)`, announced; the result as the grader's hook leaves it."""
    answer = [is_constructor, None]  # the hook may put a function in answer[1]
    _audit(EVENT, answer, target, args, kwargs)
    result = target(*args, **kwargs)
    change = answer[1]
    return result if change is None else change(result, args, kwargs)


def _failure_reporter(audit, event):
    # `audit` and the event name held in a closure, not read from this module's globals: a
    # program that rebinds `_audit` here silences its own call counts (which only hurts it), and
    # must not silence these reports (which would help it)
    def official_failure(what):
        """Announce that the official library would have raised here (`what` says why); this
        one goes on. The grader's hook records it when library code raised it; the `official`
        rules make the case `exe_error` (docs/grading.md, "Strict and official rules")."""
        audit(event, what)

    return official_failure


def _trial_asker(audit, event):
    def official_trial_wanted():
        """Whether a hook asks the library to try a call the way the official library would
        make it (a second NumPy call, on copies). The grader's hook does, to report what the
        official library would have failed on; used on its own, nothing asks, and library
        calls with arrays nested in their arguments cost one NumPy call, not two."""
        asked = [False]
        audit(event, asked)
        return asked[0] is True

    return official_trial_wanted


official_failure = _failure_reporter(_audit, OFFICIAL_FAILURE)
official_trial_wanted = _trial_asker(_audit, OFFICIAL_TRIAL)
