"""The site's clusters name the pages a batch left with none (core.clusterfill, issue 32)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pagesim_scrapy.core.clusterfill import (
    ClusteredTypes,
    fill_from_neighbours,
    fill_from_types,
    nearest_pages,
    site_types,
)
from pagesim_scrapy.core.site import SiteModel
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.sitepolicy import DEFAULT_POLICY, SitePolicy
from pagesim_scrapy.core.summary import summarize
from pagesim_scrapy.core.verdict import Verdict


def _verdict(label: str | None, **scores: float) -> Verdict:
    return Verdict(label=label, score=max(scores.values()), scores=scores, method="site", margin=0)


def _types(covered: float) -> ClusteredTypes:
    # pages 0 and 1 in cluster 0 (examples of a and b), page 2 in cluster 1 (no example)
    return ClusteredTypes([0, 0, 1], {0: frozenset({"a", "b"})}, covered)


def test_a_page_left_with_none_takes_its_clusters_label_it_scores_highest() -> None:
    verdicts = [_verdict(None, a=0.2, b=0.5), _verdict("a", a=0.9, b=0.1), _verdict(None, a=0.4)]
    filled = fill_from_types(verdicts, _types(0.96), 0.95, frozenset())
    assert [v.label for v in filled] == ["b", "a", None]
    assert filled[0].scores == verdicts[0].scores


def test_nothing_is_filled_when_the_examples_do_not_cover_the_site() -> None:
    verdicts = [_verdict(None, a=0.2, b=0.5), _verdict(None, a=0.9, b=0.1)]
    assert fill_from_types(verdicts, _types(0.9), 0.95, frozenset()) == verdicts


def test_a_label_with_a_fixed_threshold_is_never_filled() -> None:
    verdicts = [_verdict(None, a=0.2, b=0.5)]
    assert fill_from_types(verdicts, _types(1.0), 0.95, frozenset({"b"}))[0].label == "a"


def _page(kind: str, n: int) -> bytes:
    if kind == "product":
        body = f"<div class='product'><h1>P{n}</h1><span class='price'>{n}</span>" + (
            "<ul class='specs'>" + "<li>spec</li>" * (3 + n % 3) + "</ul></div>"
        )
    else:
        body = "<div class='listing'>" + "<article><a href='x'>item</a></article>" * (5 + n % 4)
        body += "</div>"
    nav = "<nav><a href='/'>home</a><a href='/c'>shop</a></nav>"
    return f"<html><body>{nav}<main>{body}</main><footer>f</footer></body></html>".encode()


def test_the_examples_and_pages_are_clustered_as_one_site() -> None:
    products = [summarize(_page("product", n)) for n in range(8)]
    listings = [summarize(_page("listing", n)) for n in range(8)]
    types = site_types(products[1:] + listings[1:], {"p": products[:1], "l": listings[:1]})
    assert types.covered == 1.0
    assert {types.labels_of(i) for i in range(7)} == {frozenset({"p"})}
    assert {types.labels_of(i) for i in range(7, 14)} == {frozenset({"l"})}


def test_the_policy_switch_turns_the_filling_off() -> None:
    pages = [summarize(_page("product", n)) for n in range(2, 10)]
    pages += [summarize(_page("listing", n)) for n in range(2, 10)]
    templates = {"p": [_page("product", 0)], "l": [_page("listing", 0)]}
    off = replace(DEFAULT_POLICY, site_types_cover=2.0)
    alone = SiteAwareClassifier(templates, policy=off).classify_all(pages)
    batch = SiteAwareClassifier(templates).classify_all(pages)
    for before, after in zip(alone, batch):
        assert after.label == before.label or before.label is None


def test_the_cover_share_is_checked() -> None:
    with pytest.raises(ValueError, match="site_types_cover"):
        SitePolicy(site_types_cover=-0.1)


def test_a_page_left_with_none_takes_the_label_its_chain_of_nearest_pages_ends_in() -> None:
    # 0 and 1 are examples; 2 -> 0, 3 -> 2 -> 0, 4 and 5 nearest each other, 6 -> a fixed label
    labels = ["a", "b", None, None, None, None, None]
    nearest = {2: 0, 3: 2, 4: 5, 5: 4, 6: 1}
    assert fill_from_neighbours(labels, nearest, frozenset({"b"})) == [
        "a",
        "b",
        "a",
        "a",
        None,
        None,
        None,
    ]


def test_nearest_pages_weighs_features_by_the_site() -> None:
    model = SiteModel(max_features=1000, keep_pages=0)
    pages = [frozenset({"x", "p", "q"}), frozenset({"x", "p", "q", "r"}), frozenset({"x", "s"})]
    for page in pages:
        model.add(page, keep=False)
    assert nearest_pages(pages, model, [0, 2]) == [1, 0]


def test_past_the_limit_the_examples_and_a_stride_of_the_pages_are_compared() -> None:
    model = SiteModel(max_features=1000, keep_pages=0)
    example = frozenset({"a", "b", "c"})
    pages = [example] + [frozenset({"a", f"n{n}"}) for n in range(40)] + [frozenset({"a", "b"})]
    for page in pages:
        model.add(page, keep=False)
    # the example (index 0) is always a candidate, though the stride skips most pages
    assert nearest_pages(pages, model, [41], always=1, limit=5) == [0]
    # a page left alone among the candidates is its own nearest
    assert nearest_pages([example], model, [0]) == [0]


def test_the_neighbour_fill_gives_pages_left_with_none_their_kind() -> None:
    pages = [summarize(_page("product", n)) for n in range(2, 10)]
    pages += [summarize(_page("listing", n)) for n in range(2, 10)]
    templates = {"p": [_page("product", 0)], "l": [_page("listing", 0)]}
    without = replace(DEFAULT_POLICY, site_neighbour_cover=2.0)
    alone = SiteAwareClassifier(templates, policy=without).classify_all(pages)
    batch = SiteAwareClassifier(templates).classify_all(pages)
    for before, after in zip(alone, batch):
        assert after.label == before.label or before.label is None
    kinds = ["p"] * 8 + ["l"] * 8
    assert all(v.label in (None, kind) for v, kind in zip(batch, kinds))
