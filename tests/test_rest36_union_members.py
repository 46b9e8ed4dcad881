"""A kept page scored again from a site's compiled counts once the templates' union is set:
a feature outside the union is given no template bits without reading the members'
dictionary, which holds only union features. The sums must stay those of scoring the packed
page itself, also when the members hold a feature the union lacks (then every slot reads
the dictionary) and when the union is replaced after the members were met."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pagesim_scrapy.core.keptscores import RescoreLimits, SiteCounts, _compiled_counts
from pagesim_scrapy.core.site import Features, SiteModel, pack_features, packed_weights
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from tests.test_rest8_reestimate import _page

pytestmark = pytest.mark.skipif(_compiled_counts is None, reason="the walk is not compiled")


def _hex(weighed: tuple[float, list[float]]) -> list[str]:
    return [weighed[0].hex(), *(value.hex() for value in weighed[1])]


def _site(seed: int) -> tuple[list[Features], list[Features]]:
    """Three templates' features and a site's pages (some of the templates' kinds, some of
    a kind no template has, so most of their features are outside the union)."""
    rng = random.Random(seed)
    featured = SiteAwareClassifier({"a": [_page(rng, "a")]}).features
    templates = [featured(_page(rng, kind)) for kind in "abc"]
    pages = [featured(_page(rng, rng.choice("abcde"))) for _ in range(90)]
    return templates, pages


def _layout(templates: list[Features], extra: str | None = None) -> tuple[Any, Any, Any]:
    union = tuple(sorted(frozenset().union(*templates)))
    bits = tuple(
        sum(1 << i for i, page in enumerate(templates) if feature in page) for feature in union
    )
    members = dict(zip(union, bits))
    if extra is not None:
        members[extra] = 1
    return union, bits, members


def _check(
    templates: list[Features], pages: list[Features], members: dict[str, int], union: Any
) -> int:
    """Count and score every page as a site keeps them; the number of pages whose sums were
    compared with the packed page's own."""
    counts = SiteCounts((), RescoreLimits(min_numbers=0, renumber_at=1.5))
    model = SiteModel(max_features=600)  # forgets features: the table recounts and refills
    checked = 0
    for number, page in enumerate(pages):
        model.add(page)
        packed = pack_features(page)
        if number % 5:  # the others are a change the counts were not told of
            counts.kept(packed, model)
        table = model.table()
        counts.union_sums(union[0], union[1], len(templates), model.df, table, model.changes)
        weigh = counts.weigher(members, len(templates), model.df, table, model.changes)
        for earlier in (packed, pack_features(pages[number // 2])):
            plain = packed_weights(earlier, templates, members, model.df, table)
            assert _hex(weigh(earlier)) == _hex(plain)
            checked += 1
    assert counts.recounts and counts.refills
    return checked


def test_pages_outside_the_union_score_as_their_packed_form() -> None:
    templates, pages = _site(3)
    union, bits, members = _layout(templates)
    assert _check(templates, pages, members, (union, bits)) == 2 * len(pages)


def test_members_beyond_the_union_are_read_for_every_slot() -> None:
    templates, pages = _site(4)
    # a feature some pages hold but no template: its bit must still be read from the members
    # (a node pair: a packed page holds its pairs, and one start label)
    outside = frozenset().union(*pages) - frozenset().union(*templates)
    extra = max((f for f in outside if len(f) == 2), key=lambda f: sum(f in p for p in pages))
    union, bits, members = _layout(templates, extra=extra)
    assert sum(extra in page for page in pages) > 10
    assert _check(templates, pages, members, (union, bits)) == 2 * len(pages)


def test_a_smaller_union_set_after_the_members_were_met() -> None:
    templates, pages = _site(5)
    union, bits, members = _layout(templates)
    counts = SiteCounts((), RescoreLimits())
    model = SiteModel()
    for page in pages[:30]:
        model.add(page)
        counts.kept(pack_features(page), model)
    table = model.table()
    counts.union_sums(union, bits, 3, model.df, table, model.changes)
    weigh = counts.weigher(members, 3, model.df, table, model.changes)
    weigh(pack_features(pages[0]))  # the members met under the whole union
    # a union of the first template alone: the others' features are outside it, yet theirs
    counts.union_sums(union[::3], bits[::3], 3, model.df, table, model.changes)
    weigh = counts.weigher(members, 3, model.df, table, model.changes)
    for page in pages[30:]:
        model.add(page)
        counts.kept(pack_features(page), model)
    table = model.table()
    counts.union_sums(union[::3], bits[::3], 3, model.df, table, model.changes)
    weigh = counts.weigher(members, 3, model.df, table, model.changes)
    for page in pages:
        packed = pack_features(page)
        assert _hex(weigh(packed)) == _hex(
            packed_weights(packed, templates, members, model.df, table)
        )
