"""The compiled weight reads shared by every summing pass (one checked read of the weight table,
one add to each group), and the fill's sample labelled with the decision's label alone: the
same floats, the same errors, the same labels as before."""

from __future__ import annotations

import random

import pytest

from pagesim_scrapy.core import site
from pagesim_scrapy.core.site import (
    SiteModel,
    count_features,
    jaccard_of_totals,
    jaccards,
    pack_features,
    shared_weights,
    unpack_features,
)
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.summary import _walk_c
from tests.test_rest8_reestimate import _page

compiled = pytest.mark.skipif(
    getattr(_walk_c, "KeptCounts", None) is None, reason="the C walk is not built"
)


def _classifier(seed: int) -> tuple[SiteAwareClassifier, list[str]]:
    rng = random.Random(seed)
    templates = {kind: [_page(rng, kind), _page(rng, kind)] for kind in "abc"}
    pages = [_page(rng, rng.choice("abcde")) for _ in range(120)]
    return SiteAwareClassifier(templates), pages


@compiled
def test_jaccards_are_jaccard_of_totals_to_the_bit() -> None:
    rng = random.Random(3)
    for _ in range(300):
        n = rng.randrange(0, 70)  # past the 64 templates of the kept pages' sums
        shared = [rng.choice((0.0, -1.0, rng.random() * 5)) for _ in range(n)]
        totals = [rng.choice((0.0, rng.random() * 5)) for _ in range(n)]
        total = rng.choice((0.0, rng.random() * 5))
        expected = [jaccard_of_totals(b, total, o).hex() for b, o in zip(shared, totals)]
        assert [v.hex() for v in _walk_c.jaccards(shared, total, totals)] == expected
        assert [v.hex() for v in jaccards(shared, total, totals)] == expected


@compiled
def test_jaccards_check_their_input() -> None:
    with pytest.raises(ValueError):
        _walk_c.jaccards([0.5], 1.0, [])
    with pytest.raises(TypeError):
        _walk_c.jaccards(["x"], 1.0, [1.0])
    with pytest.raises(TypeError):
        _walk_c.jaccards([0.5], 1.0, ["x"])
    assert _walk_c.jaccards([], 1.0, []) == []


@compiled
def test_every_summing_pass_checks_the_weight_table() -> None:
    classifier, pages = _classifier(5)
    for page in pages[:30]:
        classifier.classify(page, site="s")
    model: SiteModel = classifier.site_model("s")
    feature = max(model.df, key=model.df.__getitem__)
    short = model.table()[:2]  # every count past it
    with pytest.raises(IndexError):
        _walk_c.shared_weights(frozenset((feature,)), {}, model.df, short, 0)
    with pytest.raises(TypeError):  # a weight that is not a float
        _walk_c.shared_weights(frozenset((feature,)), {}, model.df, ["x"] * 100, 0)
    table = _walk_c.KeptCounts(_walk_c.shared_keys((feature,)), 1)
    table.refill(model.df)
    packed = model.recent[-1]
    with pytest.raises(IndexError):
        table.weights(packed, {}, model.df, short, 0)
    with pytest.raises(TypeError):
        table.weights(packed, {}, model.df, ["x"] * len(model.table()), 0)
    with pytest.raises(IndexError):
        table.light(model.df, [])
    table.set_union((feature,), (1,))
    with pytest.raises(IndexError):
        table.union_weights(model.df, short, 1)
    with pytest.raises(TypeError):
        table.union_weights(model.df, ["x"] * len(model.table()), 1)


@compiled
def test_the_summing_passes_agree_to_the_bit() -> None:
    classifier, pages = _classifier(8)
    for page in pages:
        classifier.classify(page, site="s")
    model = classifier.site_model("s")
    df, table = model.df, model.table()
    features = sorted(df)
    members = {f: random.Random(i).getrandbits(5) for i, f in enumerate(features)}
    union = tuple(features[:300])
    counts = _walk_c.KeptCounts(_walk_c.shared_keys(union[:3]), 3)
    counts.refill(df)
    counts.set_union(union, tuple(members[f] for f in union))
    total, sums = shared_weights(frozenset(union), [frozenset()] * 5, members, df, table)
    union_total, union_sums = counts.union_weights(df, table, 5)
    assert union_total.hex() == total.hex()
    assert [s.hex() for s in union_sums] == [s.hex() for s in sums]
    for packed in list(model.recent)[-20:]:
        plain = _walk_c.packed_weights(packed, members, df, table, 5)
        assert counts.weights(packed, members, df, table, 5) == plain


def test_the_fill_labels_its_sample_as_the_decision_does() -> None:
    classifier, pages = _classifier(13)
    outcomes: set[tuple[bool, bool]] = set()
    for n, page in enumerate(pages):
        classifier.classify(page, site="s")
        if n % 10:
            continue
        state = classifier._sites["s"]
        for packed in state.model.recent:
            features = unpack_features(packed)
            scores = classifier._scores_of(features, state)
            verdict = classifier.decide(scores, site="s", features=features)
            assert classifier._label_of(scores, "s", features) == verdict.label
            outcomes.add((verdict.label is None, verdict.core))
    assert {(True, False), (False, False)} <= outcomes


@compiled
def test_the_unions_counts_follow_every_change_of_the_slots() -> None:
    rng = random.Random(21)
    codes = [chr(c) for c in range(0x100, 0x100 + 40)]
    pages = [
        frozenset(rng.choice(codes) + rng.choice(codes) for _ in range(rng.randrange(5, 80)))
        for _ in range(150)
    ]
    union = tuple(sorted(frozenset().union(*pages[:3]) | {codes[0] + codes[1]}))
    bits = tuple(rng.getrandbits(3) or 1 for _ in union)
    members = dict(zip(union, bits))
    shared = union[:5]
    counts = _walk_c.KeptCounts(_walk_c.shared_keys(shared), len(shared))
    counts.set_union(union, bits)
    df: dict[str, int] = {}

    def check() -> None:
        table = site._weight_table(len(df) + 3, max(df.values(), default=0) + 2)
        total, sums = shared_weights(frozenset(union), [frozenset()] * 3, members, df, table)
        got_total, got = counts.union_weights(df, table, 3)
        assert (got_total.hex(), [s.hex() for s in got]) == (total.hex(), [s.hex() for s in sums])
        light = sum(1 << i for i, f in enumerate(shared) if table[df.get(f, 0)] <= 0.0)
        assert counts.light(df, table) == light

    for n, page in enumerate(pages):
        count_features(df, page)
        counts.count(pack_features(page), df, 1)  # in step: every held slot raised
        check()
        if n % 37 == 36:  # a change the table was not told of, read again
            for feature in list(df)[:10]:
                df[feature] += 1
            counts.recount(df)
            check()
        if n % 53 == 52:  # emptied and filled again from df alone
            counts.refill(df)
            check()
    counts.set_union(union[::2], bits[::2])  # another union: the old stamps cleared
    union, bits = union[::2], bits[::2]
    members = dict(zip(union, bits))
    check()
