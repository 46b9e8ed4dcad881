"""The re-estimate's cheaper steps give what the steps they replaced gave, float for float."""

from __future__ import annotations

import math
import random
from itertools import combinations, repeat

from pagesim_scrapy.core.cutrules import gap_and_below_sorted, gap_width
from pagesim_scrapy.core.keptscores import KeptScores, RescoreLimits
from pagesim_scrapy.core.site import pack_features
from pagesim_scrapy.core.siteaware import SiteAwareClassifier


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("qwrtyp") for _ in range(2))


def _page(rng: random.Random, kind: str) -> str:
    shared = "".join(f"<div class='c{i}'><span>x</span></div>" for i in range(10))
    own = "".join(
        f"<ul class='{kind}{_word(rng)}'><li class='n{_word(rng)}'>y</li></ul>"
        for _ in range(rng.randint(5, 30))
    )
    return f"<html><body><header>{shared}</header><main class='{kind}'>{own}</main></body></html>"


def _features(rng: random.Random, size: int) -> frozenset[str]:
    return frozenset(f"{rng.choice('abcdef')}{rng.choice('ghijkl')}" for _ in range(size))


def test_the_mask_is_the_sum_of_the_held_bits() -> None:
    rng = random.Random(5)
    shared = tuple(sorted(_features(rng, 20)))
    cache = KeptScores(shared=shared)
    bits = {feature: 1 << i for i, feature in enumerate(shared)}
    for _ in range(200):
        features = _features(rng, rng.randrange(0, 40))
        assert cache.mask(features) == sum(map(bits.get, features, repeat(0)))


def test_kept_bits_and_packed_scoring_give_the_unpacked_entries() -> None:
    """A page kept with its features in hand is scored from its packed form with its bits
    from kept(); a page kept without them is unpacked: the same entries either way."""
    rng = random.Random(7)
    shared = tuple(sorted(_features(rng, 12)))
    pages = [_features(rng, rng.randrange(1, 30)) for _ in range(40)]
    packed = [pack_features(page) for page in pages]

    def score(features: frozenset[str]) -> dict[str, float]:
        return {"a": len(features & set(shared)) / (len(features) or 1)}

    def rescore(key: str) -> dict[str, float]:
        return score(pages[packed.index(key)])

    told, untold = KeptScores(shared=shared), KeptScores(shared=shared)
    for key, page in zip(packed[::2], pages[::2]):
        told.kept(key, page)
    assert told.scores(packed, score, 40, rescore=rescore) == untold.scores(packed, score, 40)
    for key in packed:
        assert told._entries[key].shared == untold._entries[key].shared
    assert told.scored == untold.scored == len(set(packed))


def test_probes_take_each_labels_first_highest_page() -> None:
    cache = KeptScores(RescoreLimits(probes=1))
    values = [0.3, 0.9, 0.9, 0.1, 0.5]
    packed = [pack_features(frozenset({f"p{i}"})) for i in range(len(values))]
    cache.scores(packed, lambda f: {"a": values[int(next(iter(f))[1])], "b": 0.2}, 5)
    cached = sorted(packed, key=lambda key: cache._entries[key].scored_at)
    expected = dict.fromkeys(cached[:1])
    for label in ("a", "b"):
        expected.setdefault(max(cached, key=lambda key: cache._entries[key].scores[label]))
    assert cache._probes(cached) == expected


def test_gap_and_below_are_the_scores_next_to_the_cut() -> None:
    rng = random.Random(9)
    for _ in range(2000):
        scores = [rng.choice([0.0, 0.25, 0.5, rng.random()]) for _ in range(rng.randrange(0, 9))]
        cut = rng.choice([None, 0.0, 0.25, 0.5, rng.random(), 1.5])
        gap, below = gap_and_below_sorted(sorted(scores), cut)
        assert gap == (0.0 if cut is None else gap_width(scores, cut))
        assert below == max(filter((cut or 0.0).__gt__, scores), default=0.0)


def test_one_pass_anchors_equal_the_intersections_sums() -> None:
    rng = random.Random(11)
    classifier = SiteAwareClassifier({kind: [_page(rng, kind), _page(rng, kind)] for kind in "abc"})
    assert classifier._anchor_members is not None
    state = classifier._site("s")
    for _ in range(30):
        classifier.learn(_page(rng, rng.choice("abcd")), site="s")
    flat = [page for label in classifier.labels for page in classifier.template_features(label)]
    weights = state.model.weights(frozenset().union(*flat))
    totals = [sum(map(weights.__getitem__, page)) for page in flat]
    pairs = classifier._template_pairs(state)
    for i, j in combinations(range(len(flat)), 2):
        both = sum(map(weights.__getitem__, flat[i] & flat[j]))
        union = totals[i] + totals[j] - both
        assert pairs[i, j] == (min(1.0, both / union) if both > 0.0 and union > 0.0 else 0.0)
    assert state.anchor_totals[3] == totals


def test_mean_scores_are_the_mean_of_each_labels_templates() -> None:
    rng = random.Random(13)
    templates = {kind: [_page(rng, kind), _page(rng, kind)] for kind in "ab"}
    classifier = SiteAwareClassifier(templates, aggregate="mean")
    for _ in range(12):
        page = _page(rng, rng.choice("abc"))
        each = classifier.template_scores(page, site="s")
        expected = {label: math.fsum(values) / len(values) for label, values in each.items()}
        assert classifier.scores(page, site="s") == expected
        classifier.learn(page, site="s")
