"""Seed 002 (Deng & He, MFPSDDP): LCS of two traversal sequences over a node relation.

similarity = LCS(seq1, seq2) / ((len1 + len2) / 2). The sequences are strings of node codes
(see :mod:`pagesim_scrapy.core.summary`), so rapidfuzz's bit-parallel LCS does the work.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import process
from rapidfuzz.distance import LCSseq

from pagesim_scrapy.core.summary import PageSummary


def lcs_ratio(seq1: str, seq2: str) -> float:
    """LCS length over the mean length; 1.0 for two empty sequences."""
    total = len(seq1) + len(seq2)
    if total == 0:
        return 1.0
    return 2.0 * LCSseq.similarity(seq1, seq2) / total


def lcs_similarity(
    a: PageSummary, b: PageSummary, *, relation: str = "csr", order: str = "bfs"
) -> float:
    return lcs_ratio(a.sequence(relation, order), b.sequence(relation, order))


def lcs_similarity_many(
    a: PageSummary, others: Sequence[PageSummary], *, relation: str = "csr", order: str = "bfs"
) -> list[float]:
    """:func:`lcs_similarity` of ``a`` to each of ``others`` in one call.

    rapidfuzz then builds ``a``'s bit-parallel pattern once instead of once per pair; node
    codes lie far above the Latin-1 range, where building it is the costly part (one page
    against 10 templates: about half the time of ten separate calls).
    """
    seq = a.sequence(relation, order)
    seqs = [b.sequence(relation, order) for b in others]
    if not seqs:
        return []
    lengths = process.cdist([seq], seqs, scorer=LCSseq.similarity, workers=1)[0].tolist()
    return [
        2.0 * common / (len(seq) + len(other)) if seq or other else 1.0
        for common, other in zip(lengths, seqs)
    ]
