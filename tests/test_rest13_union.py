"""The templates' union summed from a site's compiled counts (``KeptCounts.union_weights``):
the counts kept in step as pages are counted, recounted and refilled give the very floats the
per-feature pass gives, so the same anchors and verdicts."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pagesim_scrapy.core.keptscores import RescoreLimits, SiteCounts, _compiled_counts
from pagesim_scrapy.core.site import SiteModel, grouped_weights, pack_features
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from tests.test_rest8_reestimate import _page

pytestmark = pytest.mark.skipif(_compiled_counts is None, reason="the walk is not compiled")


def _hex(values: list[float]) -> list[str]:
    return [value.hex() for value in values]


def _classifier(seed: int) -> tuple[SiteAwareClassifier, list[Any]]:
    rng = random.Random(seed)
    templates = {kind: [_page(rng, kind), _page(rng, kind)] for kind in "abc"}
    templates["d"] = [_page(rng, "d")]
    pages = [_page(rng, rng.choice("abcde")) for _ in range(160)]
    return SiteAwareClassifier(templates), pages


def test_the_anchor_sums_are_the_per_feature_sums() -> None:
    classifier, pages = _classifier(7)
    members = classifier._anchor_members
    assert members is not None
    groups = len(classifier._pair_layout[0]) + len(classifier._pair_layout[3])
    checked = 0
    for number, page in enumerate(pages):
        site = f"s{number % 5}"
        classifier.learn(page, site=site)
        state = classifier._sites[site]
        model = state.model
        cache = classifier._kept_scores(state)
        union, bits = classifier._union_layout
        summed = cache.weigh_union(union, bits, groups, model.df, model.table(), model.changes)
        assert summed is not None
        plain = grouped_weights(
            classifier._template_union, members, groups, model.df, model.table()
        )
        assert _hex(summed) == _hex(plain)
        weight = model.table().__getitem__
        light = frozenset(f for f in cache.shared if weight(model.df.get(f, 0)) <= 0.0)
        assert cache.light_bits(model) == cache.mask(light)  # read through the union's slots
        checked += 1
    assert checked == len(pages)


def test_the_verdicts_are_those_of_the_packed_union() -> None:
    classifier, pages = _classifier(11)
    plain, _ = _classifier(11)
    plain._union_layout  # noqa: B018 - made, then never used: the packed union path
    plain._anchor_sums = _packed_sums.__get__(plain)  # type: ignore[method-assign]
    for number, page in enumerate(pages):
        site = f"s{number % 3}"
        assert classifier.classify(page, site=site) == plain.classify(page, site=site)


def _packed_sums(self: SiteAwareClassifier, state: Any, members: Any, groups: int) -> Any:
    model = state.model
    cache = self._kept_scores(state)
    sums = cache.weigh_packed(
        self._packed_union,
        members,
        groups,
        model.df,
        model.table(),
        model.changes,
        self._union_singles,
    )
    assert sums is not None
    return sums


@pytest.mark.parametrize("renumber", [False, True])
def test_counts_in_step_through_recounts_and_refills(renumber: bool) -> None:
    rng = random.Random(5)
    featured = SiteAwareClassifier({"a": [_page(rng, "a")]}).features
    pages = [featured(_page(rng, rng.choice("abcd"))) for _ in range(120)]
    union_pages = [featured(_page(rng, kind)) for kind in "abc"]
    union = tuple(sorted(frozenset().union(*union_pages)))
    bits = tuple(
        sum(1 << i for i, page in enumerate(union_pages) if feature in page) | rng.choice((0, 8))
        for feature in union
    )
    members = dict(zip(union, bits))
    limits = RescoreLimits(min_numbers=0, renumber_at=1.0 if renumber else 2.0)
    counts = SiteCounts((), limits)
    model = SiteModel(max_features=400)  # forgets features: the table recounts
    for number, page in enumerate(pages):
        model.add(page)
        if number % 7:  # told of this page; the others are a change it was not told of
            counts.kept(pack_features(page), model)
        table = model.table()
        summed = counts.union_sums(union, bits, 4, model.df, table, model.changes)
        plain = grouped_weights(frozenset(union), members, 4, model.df, table)
        assert _hex(summed) == _hex(plain)
    assert counts.recounts and counts.refills


def test_bad_unions_are_refused() -> None:
    counts = SiteCounts((), RescoreLimits())
    table = counts._table
    with pytest.raises(ValueError):
        table.set_union(("ab", "abc"), (1, 1))
    with pytest.raises(ValueError):
        table.set_union(("ab",), (1, 2))
    with pytest.raises(ValueError):
        table.set_union(("ab", "ab"), (1, 2))
    with pytest.raises(OverflowError):
        table.set_union(("ab",), (-1,))
    with pytest.raises(ValueError):
        table.union_weights({}, [0.0], 65)
    table.set_union(("ab",), (1,))
    with pytest.raises(IndexError):
        table.union_weights({"ab": 3}, [0.0], 1)
    table.recount({"ab": 0})  # the slot made from df's 3 read again
    assert table.union_weights({"ab": 0}, [0.5], 1) == (0.5, [0.5])
