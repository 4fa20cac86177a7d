"""The library engine: name tables, building importable packages, their docs and lint.

- `table`: `Entry`, `NameTable` (NumPy name <-> library name)
- `official`: `load_official_table` (from the official api_doc.jsonl)
- `names`: `generate_table` (fresh names from a seed)
- `build`: `build_library` (package + docs + metadata on disk)
- `library`: `Library` (a built library)
- `cache`: `official_library`, `seeded_library` (built once, reused)
- `docs`, `lint`: API docs and what they leak
- `runtime/`: the code copied into every built package (ZWCArray, wrapping, call counters)
"""

from sebench.library.build import build_library
from sebench.library.cache import official_library, seeded_library
from sebench.library.library import Library
from sebench.library.names import generate_table
from sebench.library.official import load_official_table
from sebench.library.table import Entry, NameTable

__all__ = [
    "Entry",
    "Library",
    "NameTable",
    "build_library",
    "generate_table",
    "load_official_table",
    "official_library",
    "seeded_library",
]
