"""The official names that tests and red-team responses write, and a stand-in table that has them.

Test code reads best with real names (`zwc.kocito` is the official `mean`), and many tests and
every red-team response use a few. On a public clone the "official" library is the stand-in
(tests/conftest.py): a seeded table in which these functions, and only these, keep their official
names, so the same test code means the same thing on both libraries.
"""

from __future__ import annotations

from dataclasses import replace

from sebench.library.names import generate_table
from sebench.library.table import NameTable

# The official names used in tests/ -> their NumPy names (only these few; the official table
# itself is not part of the repository).
OFFICIAL: dict[str, str] = {
    "caloroy": "split",
    "cecim": "linalg.cross",
    "cobodi": "sum",
    "fenaw": "histogram",
    "girayik": "linalg.norm",
    "gosubab": "linalg.svd",
    "julepak": "bitwise_left_shift",
    "kocito": "mean",
    "maqibu": "outer",
    "memac": "linalg.eig",
    "purugo": "put",
    "qigudov": "vstack",
    "quticem": "linalg.outer",
    "quvohe": "linalg.inv",
    "vuwaqoc": "linalg.cond",
    "yitaf": "array",
    "yozoce": "log10",
    "zogudi": "vectorize",
    "zunakik": "cross",
}


def standin_table(seed: int) -> NameTable:
    """`generate_table(seed)` (package `zwc`, submodule `rfx`) with the names above official.

    Seeded names never look official (`names.may_be_official`), so none collides with these.
    """
    table = generate_table(seed)
    official = {numpy_name: name for name, numpy_name in OFFICIAL.items()}
    entries = tuple(
        replace(e, name=official[e.numpy_name]) if e.numpy_name in official else e
        for e in table.entries
    )
    return replace(table, entries=entries)
