"""Seed 004: style similarity as the Jaccard index of the pages' CSS class-name sets."""

from __future__ import annotations

from pagesim_scrapy.core.summary import PageSummary


def jaccard(set1: frozenset[str], set2: frozenset[str]) -> float:
    """|A ∩ B| / |A ∪ B|; 1.0 when both are empty (two class-less pages look alike)."""
    if not set1 and not set2:
        return 1.0
    common = len(set1 & set2)
    return common / (len(set1) + len(set2) - common)


def style_similarity(a: PageSummary, b: PageSummary) -> float:
    return jaccard(a.classes, b.classes)
