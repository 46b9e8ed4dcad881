"""The crawl fill's pool (clusterfill.NumberedPool, PoolNumbers) gives the very similarities,
nearest pages and fills of the batch's CandidatePool, and the labels it reads from the
kept-score cache are the scores the page has now."""

from __future__ import annotations

import random

import numpy as np
import pytest

from pagesim_scrapy.core import clusterfill
from pagesim_scrapy.core.clusterfill import (
    CandidatePool,
    KeptNeighbours,
    NumberedPool,
    PoolNumbers,
    feature_numbers,
    nearest_pages,
)
from pagesim_scrapy.core.keptscores import KeptScores
from pagesim_scrapy.core.site import SiteModel, pack_features
from pagesim_scrapy.core.summary import HAVE_COMPILED_WALK


def _pages(rng: random.Random, count: int) -> list[frozenset[str]]:
    """Pages of a few kinds (shared chars) with 2-character features and a start label."""
    kinds = [[chr(0x100 + rng.randrange(4000)) for _ in range(9)] for _ in range(4)]
    pages = []
    for _ in range(count):
        chars = rng.choice(kinds) + [chr(0x2000 + rng.randrange(300)) for _ in range(3)]
        features = {a + b for a in chars for b in chars if rng.random() < 0.4}
        features.add(rng.choice(chars))
        pages.append(frozenset(features))
    return pages


def _model(pages: list[frozenset[str]]) -> SiteModel:
    model = SiteModel(max_features=100_000, keep_pages=0)
    for page in pages:
        model.add(page, keep=False)
    return model


def test_the_numbered_pool_scores_as_the_candidate_pool() -> None:
    rng = random.Random(3)
    pages = _pages(rng, 60)
    model = _model(pages)
    numbers = PoolNumbers()
    NumberedPool(numbers, model, [pack_features(p) for p in pages[30:]])  # other numbers first
    pool = NumberedPool(numbers, model, [pack_features(p) for p in pages[:40]])
    reference = CandidatePool(feature_numbers(pages[:40]), model, pages[:40])
    for page in pages[30:] + _pages(rng, 10):
        scores, itself = pool.similarities(page)
        assert scores.tobytes() == reference.similarities(page).tobytes()
        equal = [n for n, other in enumerate(pages[:40]) if other == page]
        assert itself == (equal[-1] if equal else None)


@pytest.mark.parametrize("compiled", [True, False])
def test_every_pages_nearest_is_the_batchs(compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if compiled and not HAVE_COMPILED_WALK:
        pytest.skip("the compiled walk is not built")
    if not compiled:
        monkeypatch.setattr(clusterfill, "_pool_shared", None)
    rng = random.Random(5)
    pages = _pages(rng, 50)
    pages.append(pages[7])  # a page met twice
    model = _model(pages)
    closest, score = NumberedPool(PoolNumbers(), model, pages).nearest()
    assert list(closest) == nearest_pages(pages, model, range(len(pages)))
    reference = CandidatePool(feature_numbers(pages), model, pages)
    for n, page in enumerate(pages):
        row = reference.similarities(page)
        row[n] = -1.0
        assert score[n] == row.max()


def test_kept_pages_packed_or_not_give_the_same_fill() -> None:
    rng = random.Random(11)
    pages = _pages(rng, 80)
    model = _model(pages)
    examples = [("a", pages[0]), ("b", pages[1])]
    kept = pages[2:]
    labels = {page: rng.choice(["a", "b", None, None, None]) for page in kept}
    by_packed = {pack_features(page): labels[page] for page in kept}
    plain = KeptNeighbours(examples, kept, labels.__getitem__, model, frozenset(), limit=40)
    numbers = PoolNumbers()
    packed = [pack_features(page) for page in kept]
    KeptNeighbours(examples, packed[:30], by_packed.__getitem__, model, frozenset(), 40, numbers)
    again = KeptNeighbours(examples, packed, by_packed.__getitem__, model, frozenset(), 40, numbers)
    assert again.labels == plain.labels and again.steps == plain.steps
    assert again.covered == plain.covered
    for page in _pages(rng, 20) + kept[:10]:
        assert again.fill(page) == plain.fill(page)


def test_numbers_start_again_once_most_belong_to_pages_gone() -> None:
    rng = random.Random(2)
    pages = [pack_features(page) for page in _pages(rng, 40)]
    numbers = PoolNumbers()
    first = numbers.of(pages[0])
    assert list(first) == sorted(first) and numbers.of(pages[0]) is first
    numbers.keep_only(pages[:1], len(first))
    assert numbers.names and numbers.of(pages[0]) is first
    numbers.of(pages[1])
    numbers.keep_only(pages[1:2], 1)  # many more numbers than the sample uses
    assert numbers.names == []
    assert np.array_equal(numbers.of(pages[0]), np.sort(numbers.of(pages[0])))


def test_cached_scores_are_current_only_under_the_same_counts() -> None:
    rng = random.Random(4)
    pages = _pages(rng, 5)
    model = _model(pages)
    cache = KeptScores()
    packed = [pack_features(page) for page in pages]
    cache.scores(packed, lambda page: {"a": len(page)}, model.pages, changes=model.changes)
    assert cache.current(packed[0], model) == {"a": len(pages[0])}
    assert KeptScores().current(packed[0], model) is None
    model.add(pages[0], keep=False)
    assert cache.current(packed[0], model) is None
    cache.scores(packed, lambda page: {"a": 0}, model.pages, exact=True)  # changes not told
    assert cache.current(packed[1], model) is None


def test_a_kept_pages_label_from_its_shared_bits_is_its_label() -> None:
    from pagesim_scrapy.core.site import unpack_features
    from pagesim_scrapy.core.siteaware import SiteAwareClassifier
    from pagesim_scrapy.core.summary import summarize
    from tests.test_clusterfill import _page

    templates = {
        "p": [_page("product", 0), _page("product", 1)],
        "l": [_page("listing", 0), _page("listing", 1)],
    }
    clf = SiteAwareClassifier(templates)
    for n in range(2, 30):
        clf.classify(summarize(_page("product" if n % 3 else "listing", n)))
    state = clf._site(None)
    assert any(info.core for info in state.labels.values())
    cache = clf._kept_scores(state)
    checked = 0
    for packed in clf._sample(state):
        page = unpack_features(packed)
        assert cache.held_shared(packed) == page & frozenset(cache.shared)
        scores = clf._scores_of(page, state)
        whole = clf.decide(scores, features=page)
        assert clf.decide(scores, features=cache.held_shared(packed)) == whole
        checked += 1
    assert checked > 20


def test_compiled_weights_are_the_models_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(8)
    pages = _pages(rng, 30)
    model = _model(pages)
    features = [*sorted(frozenset().union(*pages)), "\x01\x02"]  # one the site never met
    expected = list(model.weights(features).values())
    assert clusterfill._weights_of(features, model).tolist() == expected
    monkeypatch.setattr(clusterfill, "_compiled_weights", None)
    assert clusterfill._weights_of(features, model).tolist() == expected


def test_a_pool_scores_the_same_after_its_numbers_start_again_or_grow() -> None:
    rng = random.Random(9)
    pages = _pages(rng, 40)
    model = _model(pages)
    numbers = PoolNumbers()
    pool = NumberedPool(numbers, model, [pack_features(p) for p in pages[:10]])
    before = [pool.similarities(page)[0].tobytes() for page in pages]
    numbers.keep_only([], 1)  # starts again
    NumberedPool(numbers, model, [pack_features(p) for p in pages[20:]])  # numbers more
    assert [pool.similarities(page)[0].tobytes() for page in pages] == before
    grown = PoolNumbers()
    pool = NumberedPool(grown, model, [pack_features(p) for p in pages[:10]])
    NumberedPool(grown, model, [pack_features(p) for p in pages[10:]])
    assert [pool.similarities(page)[0].tobytes() for page in pages] == before
