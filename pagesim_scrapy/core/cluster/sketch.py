"""MinHash sketches of a page's structure, for finding candidate pairs without comparing all pairs.

A page is reduced to the set of its *tag-path shingles*: for every node, the last ``size`` steps
of its root-to-node path, each step labelled under a node relation of seed 002 (default RPSA:
tag plus class and id of div and span, volatile values normalised by the summary). Two steps
(parent, child) are enough to tell one page type's layout from another's, and unlike whole paths
they survive a changed wrapper high up the tree. The Jaccard index of two such sets is estimated
from MinHash signatures (datasketch); an LSH index over the signatures returns the pages likely
to be above a Jaccard threshold in time independent of the number of pages indexed.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
from datasketch import MinHash, MinHashLSH

from pagesim_scrapy.core.summary import RELATIONS, PageSummary

_MASK32 = 0xFFFFFFFF
_MIX = 0x9E3779B1  # Knuth's multiplicative constant: spreads a step's code before adding the next


def path_shingles(summary: PageSummary, size: int = 2, relation: str = "rpsa") -> set[int]:
    """The page's tag-path shingles (the last ``size`` steps of every node's path) as 32-bit ints.

    The root's shorter paths are kept as they are, so a one-node page still has one shingle.
    """
    return {int(value) for value in shingle_array(summary, size, relation)}


def shingle_array(summary: PageSummary, size: int = 2, relation: str = "rpsa") -> np.ndarray:
    """:func:`path_shingles` as a sorted numpy array of distinct values (computed vectorised)."""
    if size < 1:
        raise ValueError("shingle size must be >= 1")
    if relation not in RELATIONS:
        raise ValueError(f"unknown node relation {relation!r}; choose from {RELATIONS}")
    sequence = summary.sequence(relation, "bfs")
    if not sequence:
        return np.zeros(0, dtype=np.uint64)
    # Node codes are single characters; lone surrogates among them are valid code points here.
    codes = np.frombuffer(sequence.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(
        np.uint64
    )
    parents = np.asarray(summary.parent_bfs, dtype=np.int64)
    parents[0] = 0  # BFS: node 0 is the root and the only parentless node
    current = codes
    mix, mask = np.uint64(_MIX), np.uint64(_MASK32)
    for _ in range(size - 1):
        # fold the code of one more ancestor into every node's value (the root keeps its own);
        # uint64 products wrap modulo 2**64, which leaves the low 32 bits exact
        step = (current[parents] * mix + codes) & mask
        step[0] = current[0]
        current = step
    return np.unique(current)


class Sketcher:
    """Builds MinHash signatures of pages with one shared set of permutations (built once)."""

    def __init__(
        self, num_perm: int = 128, seed: int = 1, shingle_size: int = 2, relation: str = "rpsa"
    ) -> None:
        if num_perm < 8:
            raise ValueError("num_perm must be >= 8")
        if relation not in RELATIONS:
            raise ValueError(f"unknown node relation {relation!r}; choose from {RELATIONS}")
        if shingle_size < 1:
            raise ValueError("shingle_size must be >= 1")
        self.num_perm = num_perm
        self.seed = seed
        self.shingle_size = shingle_size
        self.relation = relation
        self._prototype = MinHash(num_perm=num_perm, seed=seed, hashfunc=int)

    def shingles(self, summary: PageSummary) -> set[int]:
        return path_shingles(summary, self.shingle_size, self.relation)

    def sketch(self, summary: PageSummary) -> MinHash:
        """The MinHash signature of the page's tag-path shingles."""
        proto = self._prototype
        minhash = MinHash(
            num_perm=self.num_perm,
            seed=self.seed,
            hashfunc=int,
            permutations=proto.permutations,
            scheme=proto.scheme,
        )
        shingles = shingle_array(summary, self.shingle_size, self.relation)
        if len(shingles):
            minhash.update_batch(shingles.tolist())
        return minhash

    def describe(self) -> dict[str, Any]:
        return {
            "num_perm": self.num_perm,
            "seed": self.seed,
            "shingle_size": self.shingle_size,
            "relation": self.relation,
        }


#: How the LSH index weighs a missed similar pair against a needless candidate when datasketch
#: chooses its bands: missing a similar pair costs more.
LSH_WEIGHTS = (0.3, 0.7)


@functools.lru_cache(maxsize=16)
def _bands(num_perm: int, threshold: float) -> tuple[tuple[int, int], ...]:
    index = MinHashLSH(threshold=threshold, num_perm=num_perm, weights=LSH_WEIGHTS)
    return tuple((int(start), int(end)) for start, end in index.hashranges)


def lsh_bands(num_perm: int = 128, threshold: float = 0.3) -> list[tuple[int, int]]:
    """The (start, end) signature ranges :class:`SketchIndex` bands by: two pages are each
    other's candidates exactly when one band of their signatures is equal."""
    return list(_bands(num_perm, threshold))


def band_keys(minhash: MinHash, bands: list[tuple[int, int]]) -> list[bytes]:
    """One key per band (its number and hash values): pages sharing a key are candidates, so
    a batch job finds candidate pairs by grouping pages on these keys."""
    values = minhash.hashvalues
    return [
        number.to_bytes(2, "big") + values[start:end].tobytes()
        for number, (start, end) in enumerate(bands)
    ]


@dataclass(frozen=True)
class Candidate:
    key: int
    estimate: float  # estimated Jaccard of the two shingle sets


class SketchIndex:
    """An LSH index of signatures plus a signature matrix to rank the hits by estimated Jaccard.

    LSH (banding, the bands datasketch chooses for ``threshold``) returns keys whose Jaccard
    with the query is likely above ``threshold``; the matrix then orders those hits so that
    callers can compare exactly with the few best only. The band tables are kept here as sets
    so that a query unites its buckets in C: among many leaders of one layout every query hits
    most of them, and a Python step per hit made the queries grow faster than the pages.
    ``bucket_cap`` bounds a bucket to the first keys that reach it (a sample of that band's
    look): the leaders of one layout all share some buckets, and without a bound every query
    of that layout met every one of them, so the work per page grew with the pages.
    Thread-safe: a lock guards every change and query.
    """

    def __init__(
        self, num_perm: int = 128, threshold: float = 0.3, bucket_cap: int | None = None
    ) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError("the LSH threshold must be within (0, 1)")
        if bucket_cap is not None and bucket_cap < 1:
            raise ValueError("bucket_cap must be >= 1 or None")
        self.num_perm = num_perm
        self.threshold = threshold
        #: the most keys one band's bucket holds (None: no bound); see :meth:`add`
        self.bucket_cap = bucket_cap
        self._bands = lsh_bands(num_perm, threshold)
        self._tables: list[dict[bytes, set[int]]] = [{} for _ in self._bands]
        self._rows: dict[int, int] = {}
        self._keys: list[int] = []
        #: each key's row at the key's position (-1: not indexed), while every key is a small
        #: non-negative int (the clusterings' sequential keys): hits become rows in one gather
        self._row_of: np.ndarray | None = np.full(16, -1, dtype=np.int64)
        self._matrix: np.ndarray | None = None  # one row of hash values per key
        self._lock = threading.RLock()
        #: queries made and the hits they found in all (for benchmarks: what grows with the
        #: pages)
        self.queries = 0
        self.hit_count = 0

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def _buckets(self, values: np.ndarray) -> list[bytes]:
        # slices of the bytes of the whole signature: the same keys as each band's tobytes()
        raw, width = values.tobytes(), values.dtype.itemsize
        return [raw[start * width : end * width] for start, end in self._bands]

    def add(self, key: int, minhash: MinHash) -> None:
        with self._lock:
            if key in self._rows:
                raise KeyError(f"key {key} is already indexed")
            values = minhash.hashvalues
            if len(values) != self.num_perm:
                raise ValueError(f"signature has {len(values)} values, the index {self.num_perm}")
            row = len(self._keys)
            if self._matrix is None:
                self._matrix = np.zeros((16, self.num_perm), dtype=values.dtype)
            elif row >= self._matrix.shape[0]:
                grown = np.zeros((2 * row, self.num_perm), dtype=self._matrix.dtype)
                grown[:row] = self._matrix[:row]
                self._matrix = grown
            self._matrix[row] = values
            self._rows[key] = row
            self._keys.append(key)
            self._place(key, row)
            cap = self.bucket_cap
            for table, bucket in zip(self._tables, self._buckets(values)):
                keys = table.setdefault(bucket, set())
                if cap is None or len(keys) < cap:
                    keys.add(key)

    def remove(self, key: int) -> None:
        """Drop a key (its matrix row is reused by the last row, so memory stays bounded)."""
        with self._lock:
            row = self._rows.pop(key)
            assert self._matrix is not None
            for table, bucket in zip(self._tables, self._buckets(self._matrix[row])):
                keys = table.get(bucket)
                if keys is None:
                    continue
                keys.discard(key)
                if not keys:
                    del table[bucket]
            last = len(self._keys) - 1
            if row != last:
                moved = self._keys[last]
                self._matrix[row] = self._matrix[last]
                self._keys[row] = moved
                self._rows[moved] = row
                self._place(moved, row)
            self._place(key, -1)
            self._keys.pop()

    def _place(self, key: int, row: int) -> None:
        """Record ``key``'s row in the array ``_row_of`` (given up for keys it cannot hold)."""
        row_of = self._row_of
        if row_of is None:
            return
        if key < 0 or (key >= len(row_of) and key >= 4 * len(self._keys) + 1024):
            self._row_of = None  # a key far out of range: look rows up in the dict instead
            return
        if key >= len(row_of):
            grown = np.full(max(2 * len(row_of), key + 1), -1, dtype=np.int64)
            grown[: len(row_of)] = row_of
            self._row_of = row_of = grown
        row_of[key] = row

    def estimates(self, minhash: MinHash, keys: list[int]) -> list[float]:
        """Estimated Jaccard of the query with each of ``keys`` (all must be indexed)."""
        with self._lock:
            rows = [self._rows[key] for key in keys]
            if not rows or self._matrix is None:
                return []
            equal = self._matrix[rows] == minhash.hashvalues
            return [float(v) for v in equal.mean(axis=1)]

    def hits(self, minhash: MinHash) -> set[int]:
        """The indexed keys sharing at least one band with the query."""
        with self._lock:
            empty: set[int] = set()
            found = empty.union(
                *[
                    table.get(bucket, empty)
                    for table, bucket in zip(self._tables, self._buckets(minhash.hashvalues))
                ]
            )
            self.queries += 1
            self.hit_count += len(found)
            return found

    def largest_bucket(self) -> int:
        """The most keys sharing one band's bucket (for benchmarks)."""
        with self._lock:
            return max((len(keys) for table in self._tables for keys in table.values()), default=0)

    def candidates(self, minhash: MinHash, limit: int | None = None) -> list[Candidate]:
        """Indexed keys that collide with the query, best estimate first, at most ``limit``.

        The hits are ranked in numpy and only the best ``limit`` become Python objects.
        """
        with self._lock:
            hits = self.hits(minhash)
            if not hits or self._matrix is None:
                return []
            count = len(hits)
            keys = np.fromiter(hits, dtype=np.int64, count=count)
            if self._row_of is not None:
                rows = self._row_of[keys]
            else:
                rows = np.fromiter(map(self._rows.__getitem__, hits), dtype=np.int64, count=count)
            equal = np.count_nonzero(self._matrix[rows] == minhash.hashvalues, axis=1)
        # best estimate first, ties by key (a stable order, whatever the set's iteration order)
        order = np.lexsort((keys, -equal))
        if limit is not None:
            order = order[:limit]
        estimates = (equal[order] / float(self.num_perm)).tolist()
        return [Candidate(key, estimate) for key, estimate in zip(keys[order].tolist(), estimates)]
