"""Kept pages scored incrementally: bounded re-scores, the same verdicts as re-scoring all."""

from __future__ import annotations

import random

import pytest

from pagesim_scrapy.core.keptscores import _BY_MODEL, KeptScores, RescoreLimits, kept_scores
from pagesim_scrapy.core.site import SiteModel, pack_features
from pagesim_scrapy.core.siteaware import SiteAwareClassifier


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("qwrtyp") for _ in range(2))


def _page(rng: random.Random, kind: str, extra: int = 30) -> str:
    shared = "".join(f"<div class='c{i}'><span>x</span></div>" for i in range(10))
    own = "".join(
        f"<ul class='{kind}{_word(rng)}'><li class='n{_word(rng)}'>y</li></ul>"
        for _ in range(rng.randint(5, extra))
    )
    return f"<html><body><header>{shared}</header><main class='{kind}'>{own}</main></body></html>"


def _pages(count: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [_page(rng, rng.choice("ab")) for _ in range(count)]


def test_a_cached_score_stands_until_a_probe_moves() -> None:
    cache = KeptScores(RescoreLimits(tolerance=0.1, probes=1, min_growth=1.0, max_growth=100.0))
    calls: list[frozenset[str]] = []

    def score(features: frozenset[str]) -> dict[str, float]:
        calls.append(features)
        return {"a": 0.5}

    packed = [pack_features(frozenset({"ab", "cd"})), pack_features(frozenset({"ef"}))]
    assert cache.scores(packed, score, 10) == [{"a": 0.5}, {"a": 0.5}]
    assert len(calls) == 2
    cache.scores(packed, score, 11)
    assert len(calls) == 3  # one probe, the other page's score stands
    cache.scores(packed, score, 12, exact=True)
    assert len(calls) == 5


def test_a_moved_probe_rescores_every_cached_page() -> None:
    cache = KeptScores(RescoreLimits(tolerance=0.01, probes=1, min_growth=1.0, max_growth=100.0))
    value = [0.5]
    packed = [pack_features(frozenset({f"a{i}"})) for i in range(4)]
    cache.scores(packed, lambda _: {"a": value[0]}, 10)
    value[0] = 0.7
    assert cache.scores(packed, lambda _: {"a": value[0]}, 11) == [{"a": 0.7}] * 4
    assert cache.rescored == 4


def test_a_labels_top_page_is_a_probe() -> None:
    """The stalest pages can be of another type, whose scores the site's new pages leave
    alone: a label's highest-scoring page is probed too (with the stalest alone, cached
    verdicts differed from re-scoring all on bench_rescores.py's pages)."""
    cache = KeptScores(RescoreLimits(tolerance=0.01, probes=1, min_growth=1.0, max_growth=100.0))
    packed = [pack_features(frozenset({f"a{i}"})) for i in range(4)]
    top = packed[2]
    moved = [False]

    def score(features: frozenset[str]) -> dict[str, float]:
        high = pack_features(features) == top
        return {"a": (0.9 if high else 0.1) - (0.05 if moved[0] and high else 0.0)}

    cache.scores(packed, score, 10)
    moved[0] = True
    assert cache.scores(packed, score, 11)[2] == {"a": 0.85}
    assert cache.rescored == 4  # the top page moved: every cached page was scored again


def test_core_holders_are_told_from_the_shared_features() -> None:
    cache = KeptScores(shared=("ab", "cd"))
    first, second = pack_features(frozenset({"ab", "cd"})), pack_features(frozenset({"cd"}))
    cache.scores([first, second], lambda _: {"a": 0.1}, 5)
    assert cache.core_holders(frozenset({"cd"}), [first, second]) == 2
    assert cache.core_holders(frozenset({"ab", "cd"}), [first, second]) == 1


def test_a_page_that_left_the_kept_pages_is_forgotten() -> None:
    cache = KeptScores()
    first, second = pack_features(frozenset({"ab"})), pack_features(frozenset({"cd"}))
    cache.scores([first, second], lambda _: {"a": 0.1}, 5)
    cache.scores([second], lambda _: {"a": 0.1}, 6)
    assert len(cache._entries) == 1


def test_each_model_has_its_own_cache() -> None:
    one, two = SiteModel(), SiteModel()
    assert kept_scores(one) is kept_scores(one)
    assert kept_scores(one) is not kept_scores(two)


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError):
        RescoreLimits(max_growth=0.5)


def test_rescores_per_kept_page_are_bounded_and_verdicts_hold() -> None:
    templates = {"a": [_page(random.Random(1), "a")], "b": [_page(random.Random(2), "b")]}
    pages = _pages(400)
    cached = SiteAwareClassifier(templates, keep_pages=100)
    exact = SiteAwareClassifier(templates, keep_pages=100)
    exact.rescore_limits = RescoreLimits(tolerance=0.0, min_growth=1.0, max_growth=1.0)
    labels = [cached.classify(page, site="s").label for page in pages]
    assert labels == [exact.classify(page, site="s").label for page in pages]
    done = kept_scores(cached.site_model("s"), cached.rescore_limits)
    every = kept_scores(exact.site_model("s"), exact.rescore_limits)
    assert done.scored + done.rescored <= every.scored + every.rescored


def test_a_loose_tolerance_bounds_the_rescores() -> None:
    templates = {"a": [_page(random.Random(1), "a")], "b": [_page(random.Random(2), "b")]}
    loose = SiteAwareClassifier(templates, keep_pages=100)
    loose.rescore_limits = RescoreLimits(tolerance=1.0, probes=2, max_growth=2.0)
    for page in _pages(400):
        loose.classify(page, site="s")
    cache = kept_scores(loose.site_model("s"), loose.rescore_limits)
    # a page is re-scored as a probe, or once each time the site doubles
    assert cache.rescored <= 2 * 60 + cache.scored * 6
    assert cache.rescored < cache.scored * 2


def test_a_recent_score_stands_however_far_the_probes_moved() -> None:
    cache = KeptScores(RescoreLimits(tolerance=0.0, probes=1, min_growth=2.0, max_growth=4.0))
    value = [0.5]
    packed = [pack_features(frozenset({f"a{i}"})) for i in range(3)]
    cache.scores(packed, lambda _: {"a": value[0]}, 10)
    value[0] = 0.9
    assert cache.scores(packed, lambda _: {"a": value[0]}, 15) == [{"a": 0.5}] * 3
    assert cache.scores(packed, lambda _: {"a": value[0]}, 21) == [{"a": 0.9}] * 3
    assert cache.most_rescored == 1


def test_a_cut_that_does_not_read_the_scores_is_the_same_for_any_scores() -> None:
    """reads_the_scores false: label_cut gives no cut whatever the scores (so a young site's
    re-estimate may leave its kept pages' cached scores as they are)."""
    from pagesim_scrapy.core.cutrules import LabelOnSite, label_cut, pages_needed, reads_the_scores

    rng = random.Random(5)
    needed = pages_needed(5)
    for cross in (None, 0.4):
        for within in (None, 0.9):
            for count in range(needed + 2):
                info = LabelOnSite(within=within, cross=cross, prior=0.5)
                if reads_the_scores(info, count, needed):
                    continue
                for _ in range(20):
                    info.observed = [rng.random() for _ in range(count)]
                    assert label_cut(info, needed) == (None, "")


def test_a_young_site_with_several_labels_is_not_rescored() -> None:
    templates = {
        "a": [_page(random.Random(1), "a"), _page(random.Random(4), "a")],
        "b": [_page(random.Random(2), "b"), _page(random.Random(5), "b")],
        "c": [_page(random.Random(3), "c"), _page(random.Random(6), "c")],
    }
    classifier = SiteAwareClassifier(templates)
    for page in _pages(20):
        classifier.classify(page, site="s")
    cache = _BY_MODEL[classifier.site_model("s")]  # the classifier's own cache
    assert cache.scored == 20
    assert cache.rescored == 0
    assert classifier.describe("s")["labels"]["a"]["pages_scored"] == 20


def test_held_bits_count_the_holders_of_every_need() -> None:
    """The core counts read from the kept pages' distinct bit sets are the per-page counts."""
    rng = random.Random(31)
    shared = tuple(sorted({f"s{chr(65 + i)}" for i in range(12)}))
    cache = KeptScores(shared=shared)
    model = SiteModel()
    pages = [
        frozenset(
            {f"s{chr(65 + i)}" for i in range(12) if rng.random() < 0.6}
            | {f"p{chr(65 + rng.randrange(50))}"}
        )
        for _ in range(80)
    ]
    for page in pages:
        model.add(page)
    packed = list(model.recent)
    cache.scores(packed, lambda features: {"a": 0.5}, model.pages)
    held = cache.held_bits(packed)
    for _ in range(200):
        core = frozenset(rng.sample(shared, rng.randrange(0, 5)))
        need = cache.mask(core)
        assert cache.holders_in(need, held) == cache.holders(need, packed)
        assert need == sum(1 << shared.index(feature) for feature in core)
