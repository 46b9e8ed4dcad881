"""The anchors' sums read from the site's feature counts (KeptScores.weigh_packed and the
classifier's _anchor_sums): the very sums grouped_weights gives, on every re-estimate."""

from __future__ import annotations

import random

import pytest

from pagesim_scrapy.core.keptscores import KeptScores, RescoreLimits, shared_features
from pagesim_scrapy.core.site import SiteModel, grouped_weights, pack_features, template_members
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from tests.test_rest8_reestimate import _page
from tests.test_rest9_counts import _pages, _templates

counts_compiled = KeptScores().counts is not None
pytestmark = pytest.mark.skipif(not counts_compiled, reason="the C walk is not built")


def test_weigh_packed_sums_as_grouped_weights() -> None:
    pages = _pages(50, seed=5)
    templates = _templates(pages)
    members = template_members(templates)
    union = frozenset().union(*templates)
    starts = sorted(f for f in union if len(f) == 1)
    cache = KeptScores(RescoreLimits(), shared_features({"a": templates[:2]}))
    model = SiteModel()
    packed = pack_features(union.difference(starts[1:]))
    for page in pages:
        model.add(page)
        cache.kept(model.recent[-1], page, model)
        table = model.table()
        got = cache.weigh_packed(
            packed, members, len(templates), model.df, table, model.changes, tuple(starts[1:])
        )
        assert got == grouped_weights(union, members, len(templates), model.df, table)
    assert cache.weigh_packed(packed, members, 65, model.df, table, model.changes) is None


def test_classifier_anchor_sums_equal_the_dictionary_pass() -> None:
    rng = random.Random(11)
    templates = {kind: [_page(rng, kind), _page(rng, kind)] for kind in "ab"}
    templates["c"] = [_page(rng, "c")]
    pages = [_page(rng, rng.choice("abcd")) for _ in range(60)]
    classifier = SiteAwareClassifier(templates)
    seen = 0
    original = classifier._anchor_sums

    def checked(state, members, groups):  # type: ignore[no-untyped-def]
        nonlocal seen
        got = original(state, members, groups)
        model = state.model
        expected = grouped_weights(
            classifier._template_union, members, groups, model.df, model.table()
        )
        assert got == expected
        seen += 1
        return got

    classifier._anchor_sums = checked  # type: ignore[method-assign]
    verdicts = [classifier.classify(page, site="s") for page in pages]
    assert seen > 10
    plain = SiteAwareClassifier(templates)
    plain._anchor_sums = lambda state, members, groups: grouped_weights(  # type: ignore[method-assign]
        plain._template_union, members, groups, state.model.df, state.model.table()
    )
    assert [plain.classify(page, site="s") for page in pages] == verdicts


def test_light_bits_are_the_shared_features_weighing_nothing() -> None:
    pages = _pages(40, seed=2)
    templates = _templates(pages)
    shared = shared_features({"a": templates[:2], "b": templates[2:4]})
    cache = KeptScores(RescoreLimits(), shared)
    model = SiteModel()
    for number, page in enumerate(pages):
        model.add(page)
        if number % 3:  # changes the table is not told of: read again
            cache.kept(model.recent[-1], page, model)
        table = model.table()
        light = frozenset(f for f in shared if table[model.df.get(f, 0)] <= 0.0)
        assert cache.light_bits(model) == cache.mask(light)
