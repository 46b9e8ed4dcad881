"""The batch site similarity and the LSH index give the same answers on their fast paths."""

from __future__ import annotations

import pickle
import random

import numpy as np
from datasketch import MinHash

from pagesim_scrapy.core.cluster.sitesim import BatchSiteSimilarity
from pagesim_scrapy.core.cluster.sketch import SketchIndex
from pagesim_scrapy.core.summary import summarize

PAGES = [
    "<html><body><div class='a'><p>x</p><p>y</p></div><span>z</span></body></html>",
    "<html><body><div class='a'><p>x</p></div><ul><li>1</li><li>2</li></ul></body></html>",
    "<html><body><table><tr><td>1</td></tr></table><div class='b'><p>q</p></div></body></html>",
    "<html><body><div class='a'><p>x</p><p>y</p></div><span>z</span><b>!</b></body></html>",
    "<html><body><section><h1>t</h1><p>p</p></section></body></html>",
]


def _by_intersection(batch: BatchSiteSimilarity, a: int, b: int) -> float:
    """The similarity from the sorted intersection of the two pages' feature numbers."""
    fa, fb = batch._features[a], batch._features[b]
    shared = float(batch._weights[np.intersect1d(fa, fb)].sum())
    if shared <= 0.0:
        return 0.0
    union = batch._totals[a] + batch._totals[b] - shared
    return min(1.0, shared / union) if union > 0.0 else 0.0


def test_site_similarity_matches_the_intersection_in_any_call_order() -> None:
    pages = [summarize(html) for html in PAGES]
    batch = BatchSiteSimilarity(pages)
    pairs = [(i, j) for i in range(len(pages)) for j in range(len(pages))]
    random.Random(3).shuffle(pairs)
    for i, j in pairs + sorted(pairs):
        assert batch(pages[i], pages[j]) == _by_intersection(batch, i, j)
    assert batch(pages[0], pages[0]) == 1.0
    copy = pickle.loads(pickle.dumps(batch))
    assert copy._features[1].tolist() == batch._features[1].tolist()


def _minhash(values: list[int]) -> MinHash:
    minhash = MinHash(num_perm=32, seed=1, hashfunc=int)
    minhash.update_batch(values)
    return minhash


def test_index_ranks_the_same_with_sequential_and_scattered_keys() -> None:
    rng = random.Random(5)
    sketches = [_minhash([rng.randrange(40) for _ in range(20)]) for _ in range(30)]
    dense = SketchIndex(32, 0.3)
    scattered = SketchIndex(32, 0.3)
    for number, minhash in enumerate(sketches):
        dense.add(number, minhash)
        scattered.add(10**9 + number, minhash)  # out of the array's range: the dict path
    for number in (3, 0, 29, 11):
        dense.remove(number)
        scattered.remove(10**9 + number)
    dense.add(3, sketches[3])
    scattered.add(10**9 + 3, sketches[3])
    for minhash in sketches:
        got = [(c.key, c.estimate) for c in dense.candidates(minhash, 7)]
        want = [(c.key - 10**9, c.estimate) for c in scattered.candidates(minhash, 7)]
        assert got == want
        assert {c.key for c in dense.candidates(minhash)} == dense.hits(minhash)
        assert not {0, 11, 29} & dense.hits(minhash)
