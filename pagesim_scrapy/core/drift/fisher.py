"""Fisher's exact test on a 2x2 table: is a feature's share among two sets of pages different?

The null hypothesis is the random split: the pages of both sides are one population cut in two
at random. Under it the number of holders on one side is hypergeometric, so the test is exact
at any page count, which a small site's first crawls need.
"""

from __future__ import annotations

from math import comb


def fisher_two_sided(held_a: int, n_a: int, held_b: int, n_b: int) -> float:
    """Probability, under a random split, of a table at most as likely as the observed one."""
    total_held = held_a + held_b
    total = n_a + n_b
    if total == 0 or total_held in (0, total):
        return 1.0
    low = max(0, total_held - n_b)
    high = min(total_held, n_a)
    weights = [
        comb(total_held, k) * comb(total - total_held, n_a - k) for k in range(low, high + 1)
    ]
    observed = weights[held_a - low]
    # a small relative tolerance so that ties computed alike count as "as likely"
    extreme = sum(w for w in weights if w <= observed * (1 + 1e-9))
    return min(1.0, extreme / comb(total, n_a))
