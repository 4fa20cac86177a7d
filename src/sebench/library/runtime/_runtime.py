"""The one place every library function call passes (trusted code only): `call`; and where the
library reports what the official library would have failed on: `official_failure`.

Each call is announced as an audit event (`sys.audit`) before it runs. Used on its own, the
package has no hook for it, and announcing costs next to nothing and changes nothing. The
grader's sandbox installs a hook (`sebench.grading.sandbox.audit`) that counts the calls it can
trace to this function called from the library's own wrappers, and, in a perturbed run, answers
with a function that nudges the result. The counts and the mode live only in that hook, which no
Python code can name: this module holds nothing worth forging or reading.
"""

from sys import audit as _audit

EVENT = "sebench.library_call"
OFFICIAL_FAILURE = "sebench.official_failure"


def call(target, is_constructor, args, kwargs):
    """`target(*args, **kwargs)`, announced; the result as the grader's hook leaves it."""
    answer = [is_constructor, None]  # the hook may put a function in answer[1]
    _audit(EVENT, answer, target)
    result = target(*args, **kwargs)
    change = answer[1]
    return result if change is None else change(result)


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


official_failure = _failure_reporter(_audit, OFFICIAL_FAILURE)
