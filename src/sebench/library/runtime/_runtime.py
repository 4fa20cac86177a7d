"""Call counters for the grader (trusted code only): how many library functions ran.

This module holds only integers and two functions, so that reaching it hands out nothing else.
"""

_calls = 0
_non_constructor_calls = 0


def call_counts():
    """(library function calls since the last reset, the same without the array constructor)."""
    return _calls, _non_constructor_calls


def reset_call_counts():
    global _calls, _non_constructor_calls
    _calls = 0
    _non_constructor_calls = 0


def _record(is_constructor):
    global _calls, _non_constructor_calls
    _calls += 1
    if not is_constructor:
        _non_constructor_calls += 1
