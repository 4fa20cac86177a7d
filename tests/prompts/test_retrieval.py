"""BM25 ranking on small hand-made collections."""

from __future__ import annotations

from sebench.prompts.retrieval import BM25Index, tokenize


def test_document_sharing_rare_query_terms_ranks_first():
    index = BM25Index(
        [
            "Compute the arithmetic mean along the specified axis.",
            "Return the cumulative sum of the elements along a given axis.",
            "Compute the condition number of a matrix.",
        ]
    )
    assert index.search("what is the condition number of this matrix", 1) == [2]
    assert index.search("running cumulative sum of sales", 1) == [1]


def test_search_returns_k_distinct_positions_best_first():
    index = BM25Index(["alpha beta", "beta gamma", "gamma delta", "delta alpha"])
    ranked = index.search("alpha", 4)
    assert sorted(ranked) == [0, 1, 2, 3]
    assert set(ranked[:2]) == {0, 3}


def test_stop_words_carry_no_weight():
    assert tokenize("Return the values of the array") == []
