"""Agreement of a clustering with known labels: the adjusted Rand index (Hubert & Arabie, 1985).

ARI counts pairs of items put together or apart by both partitions, corrected for the agreement
two random partitions with the same cluster sizes would reach by chance: 1.0 for identical
partitions (up to renaming), about 0 for unrelated ones, negative when worse than chance.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence


def _pairs(count: int) -> int:
    return count * (count - 1) // 2


def adjusted_rand_index(truth: Sequence[Hashable], predicted: Sequence[Hashable]) -> float:
    """ARI of two labelings of the same items (labels are any hashable values)."""
    if len(truth) != len(predicted):
        raise ValueError("truth and predicted differ in length")
    n = len(truth)
    if n < 2:
        return 1.0
    together_both = sum(_pairs(c) for c in Counter(zip(truth, predicted)).values())
    together_truth = sum(_pairs(c) for c in Counter(truth).values())
    together_pred = sum(_pairs(c) for c in Counter(predicted).values())
    expected = together_truth * together_pred / _pairs(n)
    maximum = (together_truth + together_pred) / 2
    if maximum == expected:  # both partitions trivial (one cluster, or all singletons)
        return 1.0 if together_truth == together_pred else 0.0
    return (together_both - expected) / (maximum - expected)


def purity(truth: Sequence[Hashable], predicted: Sequence[Hashable]) -> float:
    """Share of items whose cluster's most common true label is their own."""
    if len(truth) != len(predicted):
        raise ValueError("truth and predicted differ in length")
    if not truth:
        return 1.0
    by_cluster: dict[Hashable, Counter[Hashable]] = {}
    for t, p in zip(truth, predicted):
        by_cluster.setdefault(p, Counter())[t] += 1
    return sum(c.most_common(1)[0][1] for c in by_cluster.values()) / len(truth)
