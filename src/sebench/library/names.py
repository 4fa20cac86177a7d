"""Fresh library names in the official style, deterministic per seed.

Names are 5-7 lowercase letters alternating consonant/vowel from a consonant (`kocito`,
`quvohe`), drawn from a SHA-256 stream of the seed so that a seed gives the same names on every
machine and Python version. Excluded: NumPy attributes, Python keywords and builtins, and the
official names. The official names are not shipped: only a 12-bit hash of each is, which rules
out every official name (and about 7% of all other names) without revealing which they are.
"""

from __future__ import annotations

import builtins
import hashlib
import keyword
import re

from sebench.library.catalog import ALL
from sebench.library.table import NameTable, make_entry

CONSONANTS = "bcdfghjklmnpqrstvwxyz"
VOWELS = "aeiou"
STYLE = re.compile(r"^(?:[bcdfghjklmnpqrstvwxyz][aeiou]){2,3}[bcdfghjklmnpqrstvwxyz]?$")

# 12-bit hashes of the 278 official names (see `_official_hash`).
_OFFICIAL_HASHES = frozenset(
    (
        5,
        30,
        31,
        58,
        66,
        85,
        88,
        114,
        131,
        147,
        159,
        202,
        227,
        238,
        239,
        256,
        276,
        306,
        314,
        315,
        319,
        328,
        331,
        332,
        341,
        342,
        361,
        377,
        387,
        392,
        399,
        411,
        420,
        455,
        466,
        467,
        470,
        476,
        487,
        503,
        515,
        520,
        526,
        542,
        553,
        566,
        573,
        587,
        624,
        625,
        651,
        682,
        693,
        698,
        709,
        749,
        755,
        769,
        813,
        822,
        832,
        836,
        853,
        866,
        869,
        919,
        932,
        980,
        1008,
        1015,
        1027,
        1029,
        1054,
        1055,
        1074,
        1081,
        1097,
        1102,
        1121,
        1125,
        1152,
        1156,
        1160,
        1209,
        1218,
        1245,
        1260,
        1276,
        1298,
        1308,
        1322,
        1327,
        1339,
        1348,
        1372,
        1387,
        1415,
        1416,
        1449,
        1459,
        1550,
        1593,
        1596,
        1632,
        1637,
        1656,
        1661,
        1700,
        1728,
        1730,
        1738,
        1748,
        1759,
        1766,
        1774,
        1781,
        1799,
        1801,
        1819,
        1821,
        1828,
        1848,
        1876,
        1879,
        1897,
        1905,
        1907,
        1928,
        1960,
        1962,
        1967,
        2002,
        2013,
        2016,
        2027,
        2044,
        2052,
        2063,
        2090,
        2103,
        2120,
        2193,
        2223,
        2225,
        2226,
        2231,
        2243,
        2265,
        2266,
        2267,
        2270,
        2281,
        2298,
        2306,
        2308,
        2334,
        2357,
        2368,
        2381,
        2393,
        2403,
        2421,
        2444,
        2446,
        2464,
        2470,
        2474,
        2500,
        2502,
        2515,
        2516,
        2518,
        2524,
        2575,
        2606,
        2609,
        2630,
        2639,
        2648,
        2652,
        2657,
        2687,
        2689,
        2693,
        2701,
        2712,
        2719,
        2734,
        2735,
        2755,
        2776,
        2807,
        2837,
        2848,
        2869,
        2893,
        2902,
        2904,
        2909,
        2921,
        2924,
        2942,
        2960,
        2979,
        2981,
        2982,
        2998,
        3009,
        3042,
        3046,
        3057,
        3058,
        3060,
        3071,
        3123,
        3158,
        3184,
        3201,
        3238,
        3263,
        3290,
        3301,
        3326,
        3357,
        3374,
        3400,
        3436,
        3453,
        3457,
        3473,
        3480,
        3518,
        3526,
        3539,
        3558,
        3571,
        3581,
        3587,
        3592,
        3595,
        3597,
        3605,
        3622,
        3628,
        3643,
        3668,
        3709,
        3753,
        3775,
        3785,
        3795,
        3814,
        3844,
        3875,
        3877,
        3891,
        3905,
        3929,
        3955,
        3977,
        3990,
        3995,
        4002,
        4015,
        4020,
        4032,
        4033,
        4034,
        4048,
        4062,
        4085,
    )
)

# Style-matching attributes of NumPy 2.4 and Python, fixed here so that the names a seed gives do
# not depend on the installed versions (the installed ones are excluded too, see `_reserved`).
_RESERVED = frozenset(
    (
        "delete",
        "divide",
        "generic",
        "maximum",
        "minimum",
        "newaxis",
        "power",
        "ravel",
        "resize",
        "savez",
        "super",
        "zeros",
    )
)


def is_library_style(name: str) -> bool:
    return 5 <= len(name) <= 7 and STYLE.match(name) is not None


def _official_hash(name: str) -> int:
    digest = hashlib.sha256(("sebench-official-name:" + name).encode()).digest()
    return int.from_bytes(digest[:2], "big") >> 4


def may_be_official(name: str) -> bool:
    """True for every official name (and, by hash collision, some others)."""
    return _official_hash(name) in _OFFICIAL_HASHES


def _reserved() -> frozenset[str]:
    import numpy

    return (
        _RESERVED
        | frozenset(dir(numpy))
        | frozenset(dir(numpy.linalg))
        | frozenset(dir(builtins))
        | frozenset(keyword.kwlist)
        | frozenset(keyword.softkwlist)
    )


def _stream(seed: int):
    counter = 0
    while True:
        yield from hashlib.sha256(f"sebench-names:{seed}:{counter}".encode()).digest()
        counter += 1


def _draw(stream, n: int) -> int:
    # rejection sampling keeps the choice uniform
    limit = 256 - 256 % n
    while True:
        byte = next(stream)
        if byte < limit:
            return byte % n


def _candidate(stream) -> str:
    length = 5 + _draw(stream, 3)
    return "".join(
        CONSONANTS[_draw(stream, len(CONSONANTS))]
        if i % 2 == 0
        else VOWELS[_draw(stream, len(VOWELS))]
        for i in range(length)
    )


def generate_table(seed: int, package: str = "zwc", submodule: str = "rfx") -> NameTable:
    """A fresh table for the 278 functions; the same seed always gives the same table."""
    stream = _stream(seed)
    taken = set(_reserved()) | {package, submodule}
    entries = []
    for numpy_name in ALL:
        while True:
            name = _candidate(stream)
            if name not in taken and not may_be_official(name):
                break
        taken.add(name)
        entries.append(make_entry(numpy_name, name))
    return NameTable(package=package, submodule=submodule, entries=tuple(entries))
