"""Scripted generator and solver answers for the model-written task pipeline, served by
`ChatServer` on 127.0.0.1.

The generator is asked twice per function (`per_function=2`); each function has a script of two
answers, served in order of arrival (the two requests differ only in their seed). Solvers find the
task by its query in the NumPy-form prompt and answer with that task's reference, except where
`WRONG_FOR` says a solver model answers wrongly.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from typing import Any

from tests.helpers.chat_server import Reply

INPUTS = [f"values=[{i}.5, {i - 2}.0, 3.25, {2 * i}.0]" for i in range(6)]


def answer(query: str, reference: str, inputs=INPUTS, outputs=None, wrap: bool = True) -> str:
    body = json.dumps(
        {
            "query": query,
            "signature": "def solve(values):",
            "reference": reference,
            "test_inputs": list(inputs),
            "outputs": outputs if outputs is not None else ["0"] * len(inputs),
        },
        indent=1,
    )
    return f"Here is the task.\n```json\n{body}\n```" if wrap else body


MEAN_QUERY = "Return the average of the readings in `values`."
MEAN = (
    "import numpy as np\n\n"
    "def solve(values):\n"
    "    data = np.array(values)\n"
    "    return float(np.mean(data))\n"
)
# the same program with a docstring and its own names changed: a near-duplicate
MEAN_RENAMED = (
    "import numpy as np\n\n"
    "def solve(values):\n"
    '    """Average."""\n'
    "    arr = np.array(values)\n"
    "    return float(np.mean(arr))\n"
)
MEDIAN_QUERY = "Return the median of the readings in `values`."
MEDIAN = "import numpy as np\n\ndef solve(values):\n    return float(np.median(np.array(values)))\n"
MEDIAN_ABS_QUERY = "Return the median of the absolute readings in `values`."
MEDIAN_ABS = (
    "import numpy as np\n\n"
    "def solve(values):\n"
    "    magnitudes = [abs(v) for v in values]\n"
    "    return float(np.median(np.array(magnitudes)))\n"
)
# keeps state between calls: its result depends on the order of the test inputs
CUMSUM_STATEFUL = (
    "import numpy as np\n\n"
    "def solve(values, seen=[]):\n"
    "    seen.append(1)\n"
    "    return (np.cumsum(np.array(values)) + len(seen)).tolist()\n"
)
SUM_TIMED = (
    "import time\nimport numpy as np\n\n"
    "def solve(values):\n"
    "    return float(np.sum(np.array(values))) + 0 * time.time()\n"
)
SORT_RANDOM = (
    "import numpy as np\n\n"
    "def solve(values):\n"
    "    return np.sort(np.array(values) + np.random.rand()).tolist()\n"
)

MAX = "import numpy as np\n\ndef solve(values):\n    return float(np.max(np.array(values)))\n"

MIN_QUERY = "Return the smallest reading in `values`."
MIN = "import numpy as np\n\ndef solve(values):\n    return float(np.min(np.array(values)))\n"
# the same task again: other words, and a program padded with no-ops far past the edit distance
# at which programs are near-duplicates (a red team's way to keep one task four times)
MIN_AGAIN_QUERY = "The least of the readings in `values`, please."
MIN_PADDED = MIN.replace("    return", "    pass\n" * 8 + "    return")

MULTI_QUERY = "Total of the running sums of the absolute readings in `values`."
MULTI = (
    "import numpy as np\n\n"
    "def solve(values):\n"
    "    return float(np.sum(np.cumsum(np.abs(np.array(values)))))\n"
)

GENERATOR_SCRIPT: dict[str, list[str]] = {
    # kept (its claimed outputs, all "0", are wrong and ignored), then a renamed duplicate
    "mean": [answer(MEAN_QUERY, MEAN), answer("Average of `values`, please.", MEAN_RENAMED)],
    # kept by every solver / failed by solver-b
    "median": [answer(MEDIAN_QUERY, MEDIAN), answer(MEDIAN_ABS_QUERY, MEDIAN_ABS)],
    "cumsum": [answer("Running totals of `values`, shifted.", CUMSUM_STATEFUL)] * 2,
    "sum": [answer("Total of `values`.", SUM_TIMED)] * 2,
    "sort": [answer("Sort `values` after a jitter.", SORT_RANDOM)] * 2,
    # kept, then the same cases again
    "min": [answer(MIN_QUERY, MIN), answer(MIN_AGAIN_QUERY, MIN_PADDED)],
    # no JSON at all / too few test inputs
    "max": [
        "I would ask for the largest reading, but here is no JSON.",
        answer("Largest of `values`.", MAX, inputs=INPUTS[:3]),
    ],
}
QUERIES = {
    MEAN_QUERY: MEAN,
    "Average of `values`, please.": MEAN_RENAMED,
    MEDIAN_QUERY: MEDIAN,
    MEDIAN_ABS_QUERY: MEDIAN_ABS,
    MULTI_QUERY: MULTI,
    MIN_QUERY: MIN,
    MIN_AGAIN_QUERY: MIN_PADDED,
}
WRONG_FOR = {("solver-b", MEDIAN_ABS_QUERY)}
WRONG = "```python\nimport numpy as np\n\ndef solve(values):\n    return -1.0\n```"


class TaskWriterScript:
    """The server's script: generator answers by function, solver answers by query."""

    def __init__(self) -> None:
        self.served: Counter[str] = Counter()
        self.solver_requests: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any], attempt: int) -> Reply:
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("You write programming tasks") and "combines all of" in prompt:
            return Reply(answer(MULTI_QUERY, MULTI))
        if prompt.startswith("You write programming tasks"):
            name = re.search(r"### np\.(\S+)", prompt).group(1)
            with self._lock:
                index = self.served[name] % len(GENERATOR_SCRIPT[name])
                self.served[name] += 1
            return Reply(GENERATOR_SCRIPT[name][index])
        model = body["model"]
        with self._lock:
            self.solver_requests[model] += 1
        for query, code in QUERIES.items():
            if query in prompt:
                if (model, query) in WRONG_FOR:
                    return Reply(WRONG)
                return Reply(f"Using NumPy:\n```python\n{code}```")
        return Reply(WRONG)
