"""The fill's feature numbers come from integer codes read off packed pages in one batch: the
codes name the same features, and a batch numbers pages as one page at a time does."""

from __future__ import annotations

import random

import numpy as np

from pagesim_scrapy.core.clusterfill import CandidatePool, NumberedPool, feature_numbers
from pagesim_scrapy.core.poolnumbers import (
    PoolNumbers,
    code_names,
    feature_code,
    packed_codes,
    page_codes,
)
from pagesim_scrapy.core.site import SiteModel, pack_features, unpack_features

# a surrogate, NUL, the top code point and a start label among the features
_ODD = frozenset({"\ud800\x00", "\x00\U0010ffff", "ab", "\U0010ffff\ud8ff", "\x05"})


def _pages(rng: random.Random, count: int) -> list[frozenset[str]]:
    chars = [chr(c) for c in (0, 1, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF)]
    chars += [chr(0x100 + rng.randrange(3000)) for _ in range(20)]
    pages = []
    for _ in range(count):
        features = {rng.choice(chars) + rng.choice(chars) for _ in range(rng.randrange(0, 40))}
        if rng.random() < 0.7:
            features.add(rng.choice(chars[1:]))
        pages.append(frozenset(features))
    return pages


def numbered(numbers: PoolNumbers) -> dict[str, int]:
    """Each feature's number in ``numbers`` (its names are in number order)."""
    return dict(zip(numbers.names, range(len(numbers.names))))


def test_codes_name_the_features_they_stand_for() -> None:
    codes = page_codes(pack_features(_ODD))
    assert sorted(code_names(codes)) == sorted(_ODD)
    assert sorted(codes.tolist()) == sorted(map(feature_code, _ODD))
    assert sorted(page_codes(_ODD).tolist()) == sorted(codes.tolist())


def test_a_batch_of_packed_pages_gives_each_pages_codes() -> None:
    rng = random.Random(1)
    packed = [pack_features(page) for page in [*_pages(rng, 30), frozenset(), _ODD]]
    codes, sizes = packed_codes(packed)
    assert sizes.sum() == len(codes)
    for page, mine in zip(packed, np.split(codes, np.cumsum(sizes)[:-1])):
        assert sorted(mine.tolist()) == sorted(page_codes(page).tolist())
        assert frozenset(code_names(mine)) == unpack_features(page)


def test_numbers_given_in_batches_are_one_numbering() -> None:
    rng = random.Random(2)
    pages = [pack_features(page) for page in _pages(rng, 60)] + [_ODD]
    numbers = PoolNumbers()
    numbers.of_all(pages[:25])
    numbers.of_all(pages[20:])
    number = numbered(numbers)
    assert len(number) == len(numbers.names) == len(set(numbers.names))
    for page in pages:
        features = page if isinstance(page, frozenset) else unpack_features(page)
        assert numbers.of(page).tolist() == sorted(number[f] for f in features)
        found = numbers.lookup(page_codes(features))
        assert found.tolist() == [number[f] for f in features]
    assert numbers.lookup(np.array([feature_code("zz")], dtype=np.uint64)).tolist() == [-1]


def test_odd_characters_score_as_the_candidate_pool() -> None:
    rng = random.Random(3)
    pages = [*_pages(rng, 40), _ODD]
    model = SiteModel(max_features=100_000, keep_pages=0)
    for page in pages:
        model.add(page, keep=False)
    numbers = PoolNumbers()
    NumberedPool(numbers, model, [pack_features(p) for p in pages[20:]])
    sample = [*pages[:30], _ODD]
    pool = NumberedPool(numbers, model, [pack_features(p) for p in sample])
    reference = CandidatePool(feature_numbers(sample), model, sample)
    for page in pages + _pages(rng, 5):
        assert pool.similarities(page)[0].tobytes() == reference.similarities(page).tobytes()
    assert pool.number == {f: n for f, n in numbered(numbers).items() if n < len(pool.sampled)}
