"""Kept pages scored again from the site's feature counts (keptscores.SiteCounts): the very
sums of packed_weights, the shared-feature bits of KeptScores.mask, counts in step."""

from __future__ import annotations

import random

import pytest

from pagesim_scrapy.core.keptscores import KeptScores, RescoreLimits, shared_features
from pagesim_scrapy.core.site import SiteModel, pack_features, packed_weights, template_members

counts_compiled = KeptScores().counts is not None
pytestmark = pytest.mark.skipif(not counts_compiled, reason="the C walk is not built")


def _pages(number: int, seed: int = 7) -> list[frozenset[str]]:
    """Pages of one site: chrome every page has, a type's structure, one-off features."""
    rng = random.Random(seed)
    chrome = [chr(0x100 + i) + chr(0x200 + i) for i in range(40)]
    types = [[chr(0x300 + t) + chr(0x400 + i) for i in range(30)] for t in range(3)]
    pages = []
    for n in range(number):
        own = types[n % 3]
        odd = [chr(0x500 + rng.randrange(60)) + chr(0x600 + rng.randrange(60)) for _ in range(15)]
        start = [chr(0x700 + n % 2)] if n % 5 else []
        pages.append(frozenset(chrome[: 30 + n % 10] + own[: 20 + n % 10] + odd + start))
    return pages


def _templates(pages: list[frozenset[str]]) -> list[frozenset[str]]:
    return [pages[0], pages[3], pages[1], pages[4], pages[2]]


def test_counted_pages_weigh_as_packed_weights() -> None:
    pages = _pages(60)
    templates = _templates(pages)
    members = template_members(templates)
    shared = shared_features({"a": templates[:2], "b": templates[2:4]})
    model = SiteModel()
    cache = KeptScores(RescoreLimits(), shared)
    assert cache.counts is not None
    for page in pages:
        model.add(page)
        packed = model.recent[-1]
        cache.kept(packed, page, model)
        assert cache._pending[packed] == cache.mask(page)  # the same bits from the one pass
        table = model.table()
        for old in list(model.recent)[-8:]:
            expected = packed_weights(old, templates, members, model.df, table)
            got = cache.counts.weights(old, members, len(templates), model.df, table, model.changes)
            assert got == expected
    assert cache.counts.recounts == 0  # told of every page: never read again
    assert 0 < cache.counts.nbytes <= 24 * 4 * len(cache.counts)


def test_changes_not_told_read_the_counts_again() -> None:
    pages = _pages(30, seed=3)
    templates = _templates(pages)
    members = template_members(templates)
    model = SiteModel()
    cache = KeptScores()
    counts = cache.counts
    assert counts is not None
    for page in pages[:20]:
        model.add(page)
        cache.kept(model.recent[-1], page, model)
    model.add(pages[20])  # counted, not told
    model.forget_rare()
    for page in pages[21:]:
        model.add(page)
        cache.kept(model.recent[-1], page, model)
    table = model.table()
    for old in model.recent:
        expected = packed_weights(old, templates, members, model.df, table)
        assert counts.weights(old, members, 5, model.df, table, model.changes) == expected
    assert counts.recounts == 1


def test_pages_never_counted_and_other_templates() -> None:
    pages = _pages(20, seed=5)
    model = SiteModel()
    for page in pages:
        model.add(page)
    counts = KeptScores().counts
    assert counts is not None
    table = model.table()
    for templates in (_templates(pages), pages[5:9]):
        members = template_members(templates)
        for old in model.recent:
            expected = packed_weights(old, templates, members, model.df, table)
            got = counts.weights(old, members, len(templates), model.df, table, model.changes)
            assert got == expected


def test_the_table_is_filled_again_when_it_outgrows_the_model() -> None:
    limits = RescoreLimits(renumber_at=1.0, min_numbers=0)
    model = SiteModel(max_features=100)
    cache = KeptScores(limits)
    counts = cache.counts
    assert counts is not None
    pages = _pages(40, seed=11)
    templates = _templates(pages)
    members = template_members(templates)
    for page in pages:
        model.add(page)
        cache.kept(model.recent[-1], page, model)
        assert len(counts) <= max(len(model.df), 100) + len(page)
    assert counts.refills > 0 and counts.complete
    table = model.table()
    for old in model.recent:
        expected = packed_weights(old, templates, members, model.df, table)
        assert counts.weights(old, members, 5, model.df, table, model.changes) == expected


def test_bad_input_raises() -> None:
    counts = KeptScores().counts
    assert counts is not None
    with pytest.raises(ValueError):
        counts.weights("ab", {}, 1, {}, [0.0], 1)
    with pytest.raises(IndexError):
        counts.weights(pack_features(frozenset({"ab"})), {}, 1, {"ab": 5}, [0.0], 2)
    with pytest.raises(ValueError):
        counts.weights(pack_features(frozenset({"ab"})), {}, 65, {}, [0.0], 3)


def test_one_shared_table_for_every_site() -> None:
    from pagesim_scrapy.core.keptscores import _shared_keys
    from pagesim_scrapy.core.summary import _walk_c as _walk

    shared = ("ab", "c")
    assert _shared_keys(shared) is _shared_keys(tuple(shared))
    with pytest.raises(ValueError):
        _walk.KeptCounts(b"x" * 16, 1)  # not a table shared_keys made
    with pytest.raises(ValueError):
        _walk.shared_keys(("abc",))  # not a feature
