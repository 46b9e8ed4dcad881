"""The nearest type from the structure that tells the configured types apart."""

from __future__ import annotations

from pagesim_scrapy.core.types_apart import TypesApart


def weigh(features: frozenset[str]) -> float:
    return float(len(features))


def test_structure_every_label_shares_does_not_decide() -> None:
    shared = frozenset(f"s{i}" for i in range(20))
    apart = TypesApart({"post": [shared | {"a1", "a2"}], "note": [shared | {"b1"}]})
    assert apart.shared == shared
    # the page's own content ("c…") is in no example: it only blurs the whole-page scores
    page = frozenset(shared | {"b1"} | {f"c{i}" for i in range(10)})
    telling = apart.scores(page, weigh)
    assert telling["note"] == 1.0 and telling["post"] == 0.0
    # the whole-page scores favour "post" (its example is larger); the telling structure wins
    assert apart.nearest({"post": 0.7, "note": 0.6}, page, weigh) == "note"


def test_ties_go_to_the_scores() -> None:
    apart = TypesApart({"one": [frozenset({"x", "y"})], "two": [frozenset({"x", "z"})]})
    page = frozenset({"x", "q"})  # reaches neither label's telling structure
    assert apart.nearest({"one": 0.2, "two": 0.3}, page, weigh) == "two"
