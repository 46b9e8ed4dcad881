"""The hot path's faster forms give the very values of the forms they replace."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from pagesim_scrapy.core import site
from pagesim_scrapy.core.cutrules import pvariance
from pagesim_scrapy.core.keptscores import KeptScores
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.summary import HAVE_COMPILED_WALK


def _random_features(rng: random.Random) -> frozenset[str]:
    chars = [
        chr(rng.choice([0x41, 0xE9, 0x2000 + rng.randrange(99), 0x100 + rng.randrange(0xFFFFF)]))
        for _ in range(8)
    ]
    features = {a + b for a in chars for b in chars if rng.random() < 0.5}
    if rng.random() < 0.8:
        features.add(rng.choice(chars))
    return frozenset(features)


@pytest.mark.skipif(not HAVE_COMPILED_WALK, reason="the compiled walk is not built")
def test_compiled_packing_is_the_python_packing() -> None:
    rng = random.Random(7)
    for _ in range(500):
        features = _random_features(rng)
        packed = site._pack(features)
        assert packed == site._pack_in_python(features)
        assert hash(packed) == hash(site._pack_in_python(features))
    assert site._pack(frozenset()) == "\x00"


@pytest.mark.skipif(not HAVE_COMPILED_WALK, reason="the compiled walk is not built")
def test_compiled_unpacking_is_the_python_unpacking() -> None:
    rng = random.Random(9)
    for _ in range(500):
        packed = site._pack(_random_features(rng))
        features = site._unpack(packed)
        assert type(features) is frozenset
        assert list(features) == list(site._unpack_in_python(packed))
    assert site._unpack("\x00") == frozenset()


def test_pvariance_is_statistics_pvariance() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        values = [
            rng.choice([rng.random(), round(rng.random(), 2), 0.0, 1.0, rng.random() * 1e-170])
            for _ in range(rng.choice([2, 3, 7, 50]))
        ]
        mean = math.fsum(values) / len(values)
        assert pvariance(values, mean) == statistics.pvariance(values, mean)


def test_just_scored_needs_a_fresh_entry() -> None:
    model = site.SiteModel()
    cache = KeptScores()
    assert cache.just_scored(model, 0) is None
    model.add(frozenset({"a", "ab"}))
    assert cache.just_scored(model, 0) is None  # never scored
    cache.scores(list(model.recent), lambda features: {"x": 0.5}, model.pages)
    assert cache.just_scored(model, 0) == {"x": 0.5}
    assert cache.just_scored(model, 1) is None  # not counted by this decision


def _page(rng: random.Random, kind: str) -> str:
    shared = "".join(f"<div class='c{i}'><span>x</span></div>" for i in range(10))
    own = "".join(
        f"<ul class='{kind}{rng.randrange(9)}'><li class='n{rng.randrange(9)}'>y</li></ul>"
        for _ in range(rng.randint(5, 20))
    )
    return f"<html><body><header>{shared}</header><main class='{kind}'>{own}</main></body></html>"


def test_a_decision_takes_the_scores_its_re_estimate_made() -> None:
    rng = random.Random(5)
    templates = {kind: [_page(rng, kind), _page(rng, kind)] for kind in "ab"}
    taken = SiteAwareClassifier(templates)
    scored = SiteAwareClassifier(templates)
    for _ in range(80):
        features = taken.features(_page(rng, rng.choice("abc")))
        verdict = taken.classify(features, site="s")
        scored.learn(features, site="s")
        assert verdict.scores == scored.scores(features, site="s")


def test_node_pairs_are_the_python_pairs_in_their_order() -> None:
    from operator import add

    from pagesim_scrapy.core.summary import (
        frozen_node_pairs,
        node_pairs,
        parse_html,
        summarize_tree,
    )

    rng = random.Random(11)
    for _ in range(20):
        summary = summarize_tree(parse_html(_page(rng, rng.choice("ab"))))
        for codes in summary.bfs.values():
            parents = summary.parent_bfs
            loop = map(add, map(codes.__getitem__, parents[1:]), codes[1:])
            expected = set(loop)
            assert list(node_pairs(codes, parents)) == list(expected)
            frozen = frozenset(map(add, map(codes.__getitem__, parents[1:]), codes[1:]))
            assert list(frozen_node_pairs(codes, parents)) == list(frozen)
    assert node_pairs("", []) == set()
    assert frozen_node_pairs("a", [-1]) == frozenset()


def test_shared_weights_are_the_intersections_sums() -> None:
    rng = random.Random(13)
    model = site.SiteModel()
    pages = [_random_features(rng) for _ in range(60)]
    for features in pages:
        model.add(features)
    templates = pages[:10]
    members = site.template_members(templates)
    table = model.table()
    for features in pages[10:]:
        total, shared = site.shared_weights(features, templates, members, model.df, table)
        assert total == model.total(features, table)
        assert shared == [model.total(features & page, table) for page in templates]


def test_template_pairs_are_the_intersections_sums() -> None:
    """The template pairs from one compiled pass per template equal the pairwise sums of the
    templates' intersections under the site's weights."""
    from itertools import combinations

    from pagesim_scrapy.core.site import jaccard_of_totals

    rng = random.Random(11)
    classifier = SiteAwareClassifier({kind: [_page(rng, kind), _page(rng, kind)] for kind in "abc"})
    state = classifier._site("s")
    for _ in range(30):
        classifier.learn(_page(rng, rng.choice("abcd")), site="s")
    templates = {label: classifier.template_features(label) for label in classifier.labels}
    flat = [page for pages in templates.values() for page in pages]
    weights = state.model.weights(frozenset().union(*flat))
    totals = [sum(map(weights.__getitem__, page)) for page in flat]
    expected = {
        (i, j): jaccard_of_totals(
            sum(map(weights.__getitem__, flat[i] & flat[j])), totals[i], totals[j]
        )
        for i, j in combinations(range(len(flat)), 2)
    }
    assert any(expected.values())
    assert classifier._template_pairs(state) == expected


def test_young_sites_reuse_the_anchors_sums_and_core_bits_exactly() -> None:
    """The templates' totals the scores take from the anchors' sums, and each core's share
    told from its flags' bits, are the ones summed and counted afresh, on every page."""
    from pagesim_scrapy.core.keptscores import kept_scores

    rng = random.Random(17)
    templates = {kind: [_page(rng, kind), _page(rng, kind)] for kind in "abc"}
    classifier = SiteAwareClassifier(templates)
    for number in range(120):
        site_name = f"s{number % 4}"
        classifier.classify(_page(rng, rng.choice("abcd")), site=site_name)
        state = classifier._site(site_name)
        model = state.model
        assert state.totals_pages == model.pages  # young: summed on every page
        for pages in state.template_totals.values():
            expected = [model.total(page, state.totals_table) for page, _ in pages]
            assert [total for _, total in pages] == expected
        sample = list(classifier._sample(state))
        cache = kept_scores(model, classifier.rescore_limits, classifier._shared_features)
        for info in state.labels.values():
            if info.core and sample:
                assert info.core_share == cache.core_holders(info.core, sample) / len(sample)


def test_compiled_jaccards_are_jaccard_of_totals() -> None:
    from pagesim_scrapy.core.site import jaccard_of_totals, jaccards

    rng = random.Random(19)
    grid = [0.0, 1.0, 2.5, rng.random(), 1e-300]
    for _ in range(3000):
        n = rng.randrange(0, 12)
        shared = [rng.choice([*grid, rng.random() * 50]) for _ in range(n)]
        totals = [rng.choice([*grid, rng.random() * 50]) for _ in range(n)]
        total = rng.choice([*grid, rng.random() * 50, -1.0])
        expected = [jaccard_of_totals(s, total, t) for s, t in zip(shared, totals)]
        assert jaccards(shared, total, totals) == expected


def test_young_sites_share_their_weight_tables() -> None:
    first, second = site.SiteModel(), site.SiteModel()
    for number in range(150):
        features = frozenset({"a", "ab", f"x{number % 7}"})
        first.add(features)
        second.add(features)
        table = first.table()
        assert table == site._weight_table(first._table_pages, len(table), first.ramp_pages)
        assert (second.table() is table) == (first.pages < 100)


@pytest.mark.skipif(not HAVE_COMPILED_WALK, reason="the compiled walk is not built")
def test_a_packed_page_weighs_what_its_features_weigh() -> None:
    """A kept page scored from its packed string gives the sums of its unpacked features."""
    rng = random.Random(11)
    templates = [_random_features(rng) for _ in range(6)]
    members = site.template_members(templates)
    pages = [_random_features(rng) for _ in range(300)]
    model = site.SiteModel()
    for page in templates + pages:
        model.add(page, keep=False)
    table = model.table()
    for page in pages:
        packed = site.pack_features(page)
        expected = site.shared_weights(page, templates, members, model.df, table)
        assert site.packed_weights(packed, templates, members, model.df, table) == expected
    with pytest.raises(ValueError):
        site.packed_weights("ab", templates, members, model.df, table)


@pytest.mark.skipif(not HAVE_COMPILED_WALK, reason="the compiled walk is not built")
def test_compiled_weight_table_is_the_python_table() -> None:
    """The compiled table gives the very floats of the Python loop (a log and a round per
    entry), small sites, ramps and long crawls alike."""
    rng = random.Random(23)
    sizes = [*range(0, 400), *rng.sample(range(400, 60_000), 40)]
    for pages in sizes:
        for ramp in (2, 3, 8, 30):
            size = int(pages * 1.01) + 2
            full = min(ramp, max(3, pages // site.RAMP_SITE_SHARE))
            table = site._weight_table(pages, size, ramp)
            expected = site._weight_table_in_python(pages, size, full)
            assert [w.hex() for w in table] == [w.hex() for w in expected]
    for size in range(4):
        assert site._weight_table(5, size, 8) == site._weight_table_in_python(5, size, 3)


def test_template_totals_are_each_templates_sum() -> None:
    """The templates' totals from one pass over all their features are each template's own
    sum, on a young site and past it."""
    rng = random.Random(29)
    templates = {kind: [_page(rng, kind), _page(rng, kind)] for kind in "abc"}
    classifier = SiteAwareClassifier(templates)
    state = classifier._site("s")
    summed = 0
    for _ in range(260):
        classifier.classify(_page(rng, rng.choice("abcd")), site="s")
        model = state.model
        totals = classifier._template_totals(state)
        if state.totals_pages != model.pages:  # summed pages ago, under the counts then
            continue
        summed += model.pages > 100
        for pages in totals.values():
            expected = [model.total(page, state.totals_table) for page, _ in pages]
            assert [total for _, total in pages] == expected
    assert summed > 10
