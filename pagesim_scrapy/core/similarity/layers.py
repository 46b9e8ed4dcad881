"""Seed 000 (Kang): layered breadth-first comparison of two DOM trees from ``<body>``.

Level i (i = 1..D) holds the elements i steps below ``<body>``. The paper compares the tags at
each position j of a level (up to the longer level's length T_i); a differing position counts
alpha = 2 when either tag is TABLE, TR, TD, DIV or SPAN ("amplification"), else 1, and every
position counts the same way into the level's total. With level weight W_i = (D - i + 1) / D:

    P_i = (E_k / E_j) / D * W_i        S = 1 - sum_i P_i

(E_k: weighted changed positions, E_j: weighted positions; levels empty in both pages add 0.)
As published S cannot fall below 1 - (D + 1) / (2 D); ``normalise=True`` divides by the largest
possible sum so that S spans [0, 1].

``align="lcs"`` is our variant: positions are matched by an LCS alignment of the two levels, so
one inserted element no longer shifts every later position into a mismatch; unmatched elements
count alpha each, and the level's total counts every element of both levels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rapidfuzz.distance import LCSseq

from pagesim_scrapy.core.summary import PageSummary, code_char

AMPLIFIED_TAGS: frozenset[str] = frozenset({"table", "tr", "td", "div", "span"})
_AMPLIFIED_CODES = frozenset(code_char(tag) for tag in AMPLIFIED_TAGS)


def _positional_change(level1: str, level2: str, amplification: float) -> tuple[float, float]:
    changed = 0.0
    total = 0.0
    amplified = _AMPLIFIED_CODES
    n1 = len(level1)
    for j in range(max(n1, len(level2))):
        tag1 = level1[j] if j < n1 else ""
        tag2 = level2[j] if j < len(level2) else ""
        weight = amplification if (tag1 in amplified or tag2 in amplified) else 1.0
        total += weight
        if tag1 != tag2:
            changed += weight
    return changed, total


def _aligned_change(level1: str, level2: str, amplification: float) -> tuple[float, float]:
    """Weighted unmatched elements of an LCS alignment, averaged over the two directions: an
    LCS may be reached by several alignments that leave different elements unmatched (an
    amplified ``div`` rather than a ``p``), and which one ``editops`` picks depends on the
    argument order; the mean of both directions is symmetric."""
    forward, total = _one_way_change(level1, level2, amplification)
    backward, _ = _one_way_change(level2, level1, amplification)
    return (forward + backward) / 2.0, total


def _one_way_change(level1: str, level2: str, amplification: float) -> tuple[float, float]:
    amplified = _AMPLIFIED_CODES

    def weight(code: str) -> float:
        return amplification if code in amplified else 1.0

    total = sum(weight(c) for c in level1) + sum(weight(c) for c in level2)
    changed = 0.0
    for op in LCSseq.editops(level1, level2):
        if op.tag == "delete":
            changed += weight(level1[op.src_pos])
        elif op.tag == "insert":
            changed += weight(level2[op.dest_pos])
    return changed, total


def check_layers_params(params: Mapping[str, Any]) -> None:
    """ValueError naming the parameter: ``depth`` an integer >= 1, ``amplification`` a finite
    number > 0 (0 would make a level of amplified tags weigh nothing: a division by zero)."""
    depth = params.get("depth", 8)
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"layers: depth must be an integer >= 1, not {depth!r}")
    amplification = params.get("amplification", 2.0)
    if (
        isinstance(amplification, bool)
        or not isinstance(amplification, (int, float))
        or not math.isfinite(amplification)
        or amplification <= 0
    ):
        raise ValueError(f"layers: amplification must be a number > 0, not {amplification!r}")


def layers_similarity(
    a: PageSummary,
    b: PageSummary,
    *,
    depth: int = 8,
    amplification: float = 2.0,
    align: str = "position",
    normalise: bool = False,
) -> float:
    check_layers_params({"depth": depth, "amplification": amplification})
    if align == "position":
        change = _positional_change
    elif align == "lcs":
        change = _aligned_change
    else:
        raise ValueError(f"unknown align {align!r}; choose 'position' or 'lcs'")
    penalty = 0.0
    for i in range(1, depth + 1):
        level1 = a.level(i, "rsn")
        level2 = b.level(i, "rsn")
        if not level1 and not level2:
            continue
        changed, total = change(level1, level2, amplification)
        weight = (depth - i + 1) / depth
        penalty += (changed / total) / depth * weight
    if normalise:
        penalty /= (depth + 1) / (2 * depth)
    return min(1.0, max(0.0, 1.0 - penalty))
