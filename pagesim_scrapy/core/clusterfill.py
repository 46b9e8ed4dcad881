"""The site's types in a batch: its pages clustered, each cluster named by the examples it holds.

The pages of a site fall into its page types whether or not anyone named them: the batch
``cluster`` procedure (method ``site``) groups the site's pages with the labels' examples, a
cluster that holds examples is a configured type, the rest are discovered types. When the
examples' clusters hold nearly all of the site (the labels describe it), a page the decision
left with "none of these" takes the label of its cluster: its examples' type, by structure,
even where the label's own cut split the type. When they do not, a cluster is as likely to
mix a configured type with one nobody configured, and the verdicts stay as they are.

Clusters are coarse where the examples cover less of the site: there, with several labels, a
page still left with none takes the label of its most similar page of the site (under the
site's weights; the examples included) when that page has one, and so on along the chain of
nearest pages (:func:`fill_from_neighbours`). A page of a type nobody configured is nearest a
page of its own type, which has no label, so it keeps none.

A crawl has no clusters and decides page by page: :class:`KeptNeighbours` is the same chain
over the labels' examples and a bounded sample of the site's kept pages, and a page left with
none looks up its most similar sampled page there (one vectorised pass, as in
:func:`nearest_pages`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import repeat
from operator import itemgetter
from typing import Any

import numpy as np

from pagesim_scrapy.core.poolnumbers import (
    RENUMBER_AT as RENUMBER_AT,  # the old import path of the constant
)
from pagesim_scrapy.core.poolnumbers import (
    PoolNumbers,
    code_names,
    lookup_codes,
    page_codes,
)
from pagesim_scrapy.core.site import Features, SiteModel
from pagesim_scrapy.core.summary import PageSummary, _walk_c
from pagesim_scrapy.core.verdict import Verdict


@dataclass(frozen=True)
class ClusteredTypes:
    """The cluster of every page given, the labels whose examples each cluster holds, and the
    share of the site (examples included) in clusters that hold an example."""

    clusters: list[int]
    named: dict[int, frozenset[str]]
    covered: float

    def labels_of(self, page: int) -> frozenset[str]:
        """The labels whose examples share a cluster with page ``page``."""
        return self.named.get(self.clusters[page], frozenset())


def site_types(
    pages: Sequence[PageSummary], examples: Mapping[str, Sequence[PageSummary]]
) -> ClusteredTypes:
    """Cluster the examples and ``pages`` as one site (examples first) and name the clusters."""
    from pagesim_scrapy.core.cluster import cluster_pages
    from pagesim_scrapy.core.sitepolicy import SITE_METHOD

    labelled = [(label, page) for label, chosen in examples.items() for page in chosen]
    result = cluster_pages([page for _, page in labelled] + list(pages), method=SITE_METHOD)
    of_examples = result.assignments[: len(labelled)]
    named: dict[int, set[str]] = {}
    for (label, _), cluster in zip(labelled, of_examples):
        named.setdefault(cluster, set()).add(label)
    covered = sum(c in named for c in result.assignments) / len(result.assignments)
    frozen = {cluster: frozenset(labels) for cluster, labels in named.items()}
    return ClusteredTypes(result.assignments[len(labelled) :], frozen, covered)


def fill_from_types(
    verdicts: Sequence[Verdict], types: ClusteredTypes, cover: float, fixed: frozenset[str]
) -> list[Verdict]:
    """``verdicts`` with each page left with none given its cluster's label (the one of the
    cluster's labels it scores highest), when the examples' clusters hold at least ``cover``
    of the site; labels in ``fixed`` (a user's own threshold) are never given this way."""
    if types.covered < cover:
        return list(verdicts)
    out = []
    for index, verdict in enumerate(verdicts):
        labels = sorted(types.labels_of(index) - fixed)
        if verdict.label is not None or not labels:
            out.append(verdict)
            continue
        label = max(labels, key=lambda name: verdict.scores.get(name, 0.0))
        out.append(replace(verdict, label=label))
    return out


#: At most this many pages of a site are compared with the pages left with none (the
#: examples always; beyond it, an even stride over the rest), so that the fill's cost on a
#: large batch grows with the pages left, not with their product with the site.
NEIGHBOUR_CANDIDATES = 5000


def nearest_pages(
    features: Sequence[Features],
    model: SiteModel,
    which: Sequence[int],
    always: int = 0,
    limit: int = NEIGHBOUR_CANDIDATES,
    pool: CandidatePool | None = None,
) -> list[int]:
    """For each page index in ``which``, the index of its most similar other page of
    ``features`` under ``model``'s weights (the first on a tie; itself with no other page).
    The first ``always`` pages are always candidates; past ``limit`` pages the rest are
    sampled at an even stride. ``pool``: the pool of every page of ``features``, when the
    caller has built it already (within ``limit``), so it is not built twice."""
    candidates = _candidates(len(features), always, limit)
    if pool is None or len(candidates) != len(features):
        pool = CandidatePool(feature_numbers(features), model, [features[j] for j in candidates])
    index = np.asarray(candidates, dtype=np.int64)
    out = []
    for i in which:
        scores = pool.similarities(features[i])
        scores[index == i] = -1.0
        if len(scores) == 0 or scores.max() < 0.0:
            out.append(i)
            continue
        out.append(int(index[int(np.argmax(scores))]))
    return out


def feature_numbers(pages: Sequence[Features]) -> dict[str, int]:
    """Each feature of ``pages`` numbered in the order first met (a pool's columns)."""
    number: dict[str, int] = {}
    for page in pages:
        for feature in page:
            number.setdefault(feature, len(number))
    return number


class CandidatePool:
    """Pages compared with one page at a time, their feature numbers in one flat array.

    One page's weighted overlaps with every candidate are one gather and one segmented sum:
    the weights lie on a fixed binary grid, so the sums are the ones
    :func:`~pagesim_scrapy.core.site.site_similarity` gives, in any order."""

    def __init__(
        self, number: dict[str, int], model: SiteModel, candidates: Sequence[Features]
    ) -> None:
        self.number = number
        self.model = model
        weight = model.weights(number)
        self.weights = np.fromiter((weight[f] for f in number), dtype=np.float64, count=len(number))
        arrays = [np.fromiter((number[f] for f in page), dtype=np.int64) for page in candidates]
        sizes = np.fromiter((len(array) for array in arrays), dtype=np.int64, count=len(arrays))
        self.flat = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
        self.starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        self.sizes = sizes
        self.totals = _segment_sums(self.weights[self.flat], self.starts, sizes)

    def similarities(self, page: Features) -> np.ndarray:
        """The page's site-weighted similarity to every candidate; a feature no candidate
        holds weighs in the page's own total only (at its weight on the site now)."""
        number = self.number
        own = np.zeros(len(number), dtype=np.float64)
        known = [number[f] for f in page if f in number]
        mine = np.fromiter(known, dtype=np.int64, count=len(known))
        own[mine] = self.weights[mine]
        shared = _segment_sums(own[self.flat], self.starts, self.sizes)
        total = float(own.sum())
        if len(known) < len(page):
            total += sum(self.model.weights([f for f in page if f not in number]).values())
        union = total + self.totals - shared
        scores = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
        np.minimum(scores, 1.0, out=scores)
        return scores


def _candidates(count: int, always: int, limit: int) -> list[int]:
    """The pages compared: all of them up to ``limit``, else the first ``always`` and an
    even stride over the rest."""
    if count <= limit:
        return list(range(count))
    rest = range(always, count)
    step = max(1, len(rest) // max(1, limit - always))
    return list(range(always)) + list(rest[::step])


def _segment_sums(values: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The sum of each segment of ``values``, each summed on its own (empty ones 0)."""
    out = np.zeros(len(sizes), dtype=np.float64)
    filled = sizes > 0
    if filled.any():
        out[filled] = np.add.reduceat(values, starts[filled])
    return out


def fill_from_neighbours(
    labels: Sequence[str | None], nearest: Mapping[int, int], fixed: frozenset[str]
) -> list[str | None]:
    """``labels`` with each page left with none (a key of ``nearest``: page -> its most
    similar page) given the label its chain of nearest pages ends in: a page with a label, or
    none when the chain closes on pages without one. Labels in ``fixed`` are never given."""
    out = list(labels)
    for start in nearest:
        if out[start] is not None:
            continue
        chain, page = [start], nearest[start]
        while out[page] is None and page in nearest and page not in chain:
            chain.append(page)
            page = nearest[page]
        label = out[page]
        if label is not None and label not in fixed:
            for member in chain:
                out[member] = label
    return out


#: In a crawl, at most this many of a site's pages (its labels' examples always, then its
#: kept pages at an even stride) are compared with a page left with none: the fill's cost per
#: page stays flat however long the crawl.
CRAWL_NEIGHBOUR_CANDIDATES = 300


@dataclass(frozen=True)
class NeighbourFill:
    """Why a crawl's page left with none got a label: its most similar page of the site
    (``score``) has it, or leads to it along the chain of nearest pages (``steps`` pages)."""

    label: str
    score: float
    steps: int

    def as_meta(self) -> dict[str, object]:
        return {"by": "neighbours", "score": round(self.score, 6), "steps": self.steps}


class KeptNeighbours:
    """A site's pages as a crawl fills from them: the labels' examples and a bounded sample of
    its kept pages, each with the label its chain of nearest pages ends in (the batch's
    :func:`fill_from_neighbours` over the sample), and the share of the kept pages that chain
    to a label: how much of the site the labels describe, as the examples' clusters' share
    does in a batch.

    ``kept``: the kept pages' features, or their packed strings (numbered without unpacking);
    ``numbers``: the site's numbering from the build before, so that only the pages new to
    the sample are numbered (any numbering gives the same sums)."""

    def __init__(
        self,
        examples: Sequence[tuple[str, Features]],
        kept: Sequence[Features | str],
        label_of: Callable[[Any], str | None],
        model: SiteModel,
        fixed: frozenset[str],
        limit: int = CRAWL_NEIGHBOUR_CANDIDATES,
        numbers: PoolNumbers | None = None,
    ) -> None:
        offset = len(examples)
        pages: list[Features | str] = [page for _, page in examples]
        pages += kept
        chosen = _candidates(len(pages), offset, limit)
        self.pages = [pages[j] for j in chosen]
        labels = [label for label, _ in examples] + [label_of(page) for page in self.pages[offset:]]
        self.pool = NumberedPool(PoolNumbers() if numbers is None else numbers, model, self.pages)
        # every page's nearest other page of the sample at once (the batch's nearest_pages
        # compares them all with each other too: the sample is within its limit)
        closest, self._closest_score = self.pool.nearest()
        given: list[str | None] = list(labels)
        nearest = {n: int(closest[n]) for n, label in enumerate(given) if label is None}
        self.labels = fill_from_neighbours(given, nearest, fixed)
        self._given = given
        self.steps = [_steps(n, given, nearest) for n in range(len(given))]
        sampled = len(chosen) - offset
        named = sum(label is not None for label in self.labels[offset:])
        self.covered = named / sampled if sampled > 0 else 0.0
        #: the kept pages sampled
        self.sampled = sampled
        self._spread: dict[str, float] = {}

    def fill(self, page: Features) -> NeighbourFill | None:
        """The label of ``page``'s most similar other page of the sample's chain (None when
        that page has none); the page itself, if sampled, is not its own neighbour."""
        scores, itself = self.pool.similarities(page)
        if itself is not None:
            scores[itself] = -1.0
        if len(scores) == 0 or scores.max() < 0.0:
            return None
        best = int(np.argmax(scores))
        label = self.labels[best]
        if label is None or scores[best] < self.spread(label):
            return None
        return NeighbourFill(label, float(scores[best]), 1 + self.steps[best])

    def spread(self, label: str) -> float:
        """The loosest link inside ``label``'s own pages of the sample (its examples and the
        kept pages it was decided for, not those its chains filled): the least similarity of
        one of them to its most similar other page. A page further from its neighbour than
        that is not of the label's kind however its chain runs (a type of one page nobody
        configured, a shop's cart or login page, is nearest some page but far from all)."""
        found = self._spread.get(label)
        if found is None:
            members = [n for n, given in enumerate(self._given) if given == label]
            found = min((float(self._closest_score[n]) for n in members), default=0.0)
            self._spread[label] = found
        return found


def _weights_of(features: Sequence[str], model: SiteModel) -> np.ndarray:
    """``model.weights`` of ``features`` as an array in their order (no dict on the way)."""
    table = model.table()
    if _compiled_weights is not None:
        return np.frombuffer(_compiled_weights(features, model.df, table), dtype=np.float64)
    weights = map(table.__getitem__, map(model.df.get, features, repeat(0)))
    return np.fromiter(weights, dtype=np.float64, count=len(features))


def _packed_features(packed: str) -> list[str]:
    """A packed page's features (see :func:`~pagesim_scrapy.core.site.pack_features`), as
    ``unpack_features`` gives them, in a list: numbering them needs no set."""
    pairs = [packed[i : i + 2] for i in range(1, len(packed), 2)]
    return pairs if packed[:1] == "\x00" else [packed[0], *pairs]


#: the compiled all-pairs sums and weights (None where the walk is not compiled)
_pool_shared: Any = getattr(_walk_c, "pool_shared", None)
_compiled_weights: Any = getattr(_walk_c, "weights_of", None)


class NumberedPool:
    """The sampled pages' feature numbers in one flat array (a site's :class:`PoolNumbers`),
    weighted as :class:`CandidatePool` weighs its pages, so the same similarities."""

    def __init__(
        self, numbers: PoolNumbers, model: SiteModel, pages: Sequence[Features | str]
    ) -> None:
        self.model = model
        arrays = numbers.of_all(pages)
        #: the numbering the arrays are in (a later build may start another one or add to it)
        self._codes, self._slots = numbers.codes, numbers.slots
        sizes = np.fromiter(map(len, arrays), dtype=np.int64, count=len(arrays))
        self.flat = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
        self.starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        self.sizes = sizes
        names = numbers.names
        #: the numbers the sample's pages hold (the others weigh at the site's weights now)
        self.sampled = np.zeros(len(names), dtype=bool)
        self.sampled[self.flat] = True
        present = np.flatnonzero(self.sampled)
        self.weights = np.zeros(len(names), dtype=np.float64)
        if len(present):
            held = itemgetter(*present.tolist())(names) if len(present) > 1 else [names[present[0]]]
            self.weights[present] = _weights_of(held, model)
        self.totals = _segment_sums(self.weights[self.flat], self.starts, sizes)
        numbers.keep_only(pages, len(present))

    @property
    def number(self) -> dict[str, int]:
        """Each feature's number in the numbering the arrays are in (built on demand)."""
        names = code_names(self._codes)
        return dict(zip(names, self._slots.tolist()))

    def nearest(self) -> tuple[np.ndarray, np.ndarray]:
        """Each page's most similar other page (the first on a tie; itself alone) and that
        similarity (0.0 alone), as :meth:`similarities` scores them."""
        count = len(self.sizes)
        if count < 2:
            return np.arange(count), np.zeros(count)
        shared = self._all_shared().reshape(count, count)
        union = (self.totals[:, None] + self.totals[None, :]) - shared
        scores = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
        np.minimum(scores, 1.0, out=scores)
        np.fill_diagonal(scores, -1.0)
        return np.argmax(scores, axis=1), scores.max(axis=1)

    def _all_shared(self) -> np.ndarray:
        """The weight every two pages share, row by row."""
        if _pool_shared is not None:
            return np.frombuffer(
                _pool_shared(self.flat, self.starts, self.sizes, self.weights), dtype=np.float64
            )
        rows = []
        for start, size in zip(self.starts, self.sizes):
            own = np.zeros(len(self.weights), dtype=np.float64)
            mine = self.flat[start : start + size]
            own[mine] = self.weights[mine]
            rows.append(_segment_sums(own[self.flat], self.starts, self.sizes))
        return np.concatenate(rows) if rows else np.zeros(0)

    def similarities(self, page: Features) -> tuple[np.ndarray, int | None]:
        """The page's site-weighted similarity to every page (a feature no page holds weighs
        in the page's own total only, at its weight on the site now), and the last page equal
        to it (None when none is)."""
        ids = lookup_codes(self._codes, self._slots, page_codes(page))
        known = (ids >= 0) & (ids < len(self.sampled))  # numbered by a later build: not sampled
        known[known] = self.sampled[ids[known]]
        mine = ids[known]
        own = np.zeros(len(self.weights), dtype=np.float64)
        own[mine] = self.weights[mine]
        shared = _segment_sums(own[self.flat], self.starts, self.sizes)
        total = float(own.sum())
        if len(mine) < len(page):
            rest = [feature for feature, held in zip(page, known) if not held]
            total += sum(self.model.weights(rest).values())
        union = total + self.totals - shared
        scores = np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)
        np.minimum(scores, 1.0, out=scores)
        return scores, self._equal(mine) if len(mine) == len(page) else None

    def _equal(self, numbers: np.ndarray) -> int | None:
        """The last page whose features are those of ``numbers``."""
        ordered = np.sort(numbers)
        for n in np.flatnonzero(self.sizes == len(ordered))[::-1]:
            start = self.starts[n]
            if np.array_equal(self.flat[start : start + len(ordered)], ordered):
                return int(n)
        return None


def _steps(start: int, labels: Sequence[str | None], nearest: Mapping[int, int]) -> int:
    """How many pages the chain from ``start`` passes before a page with a label."""
    steps, page, seen = 0, start, {start}
    while labels[page] is None and page in nearest and nearest[page] not in seen:
        page = nearest[page]
        seen.add(page)
        steps += 1
    return steps
