"""BM25 over the library's API doc: the open-book prompt that must find its own docs.

Okapi BM25 (Robertson and Zaragoza, 2009) with the usual k1=1.5, b=0.75, written out here
because it is thirty lines and a dependency for it would be heavier than the code.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

_WORD = re.compile(r"[a-z][a-z0-9]+")
# Words that occur in nearly every task or doc and carry no signal for which function fits.
_STOP_WORDS = (
    "a an and are as at be by for from given has have in is it its of on or that the this to "
    "with which each where will can should return returns you your array arrays function "
    "input output value values"
)
_STOP = frozenset(_STOP_WORDS.split())


def tokenize(text: str) -> list[str]:
    return [word for word in _WORD.findall(text.lower()) if word not in _STOP]


@dataclass
class BM25Index:
    """An index over documents given as text; `search` returns document positions, best first."""

    documents: Sequence[str]
    k1: float = 1.5
    b: float = 0.75
    _terms: list[Counter[str]] = field(init=False, repr=False)
    _lengths: list[int] = field(init=False, repr=False)
    _idf: dict[str, float] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._terms = [Counter(tokenize(doc)) for doc in self.documents]
        self._lengths = [sum(terms.values()) for terms in self._terms]
        count = len(self._terms)
        frequency: Counter[str] = Counter()
        for terms in self._terms:
            frequency.update(terms.keys())
        # The "+1" form of idf keeps every weight positive, even for very common words.
        self._idf = {
            term: math.log(1 + (count - n + 0.5) / (n + 0.5)) for term, n in frequency.items()
        }
        self._average = (sum(self._lengths) / count) if count else 0.0

    def scores(self, query: str) -> list[float]:
        query_terms = set(tokenize(query))
        result = []
        for terms, length in zip(self._terms, self._lengths, strict=True):
            score = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / (self._average or 1.0))
            for term in query_terms:
                tf = terms.get(term)
                if tf:
                    score += self._idf[term] * tf * (self.k1 + 1) / (tf + norm)
            result.append(score)
        return result

    def search(self, query: str, k: int) -> list[int]:
        scores = self.scores(query)
        ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return ranked[:k]
