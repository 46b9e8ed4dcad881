"""Single-pass leader clustering: each page joins the most similar leader or becomes one.

This is the online procedure for crawl time, and also the first, condensing pass of the batch
algorithms: with a tight threshold it folds near-duplicate pages into one weighted item, so the
seed 003 / seed 004 procedures run over thousands of leaders instead of 10⁵ pages. Candidate
leaders come from the LSH index of their sketches; only the best few by estimated Jaccard are
compared exactly, so the cost per page does not grow with the number of leaders.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from datasketch import MinHash

from pagesim_scrapy.core.cluster.sketch import Sketcher, SketchIndex
from pagesim_scrapy.core.summary import PageSummary

SimilarityFunc = Callable[[PageSummary, PageSummary], float]


@dataclass
class Leader:
    """A leader page and the pages that joined it (counted, not kept)."""

    key: int
    summary: PageSummary
    minhash: MinHash
    weight: int = 1  # pages represented, the leader included
    sim_sum: float = 0.0  # sum of the joined pages' similarity to the leader
    sim_min: float = 1.0  # lowest of them (1.0 while alone)
    scored: int = 0  # pages that joined with a score here (a seeded leader's size has none)

    @property
    def cohesion(self) -> float:
        """Mean similarity of the joined pages to the leader (1.0 while alone)."""
        return self.sim_sum / (self.weight - 1) if self.weight > 1 else 1.0

    @property
    def joined_mean(self) -> float | None:
        """Mean score of the pages that joined here (None before the first)."""
        return self.sim_sum / self.scored if self.scored else None

    def absorb(self, score: float, count: int = 1) -> None:
        self.weight += count
        self.scored += count
        self.sim_sum += score * count
        self.sim_min = min(self.sim_min, score)


@dataclass(frozen=True)
class Assignment:
    key: int | None  # the leader's key; None when full and nothing was similar enough
    score: float  # similarity to that leader (to the best candidate when key is None)
    is_new: bool


class LeaderClustering:
    """Leaders indexed by sketch; ``add(summary)`` assigns a page and returns an Assignment.

    ``max_compare`` bounds exact comparisons per page (the best LSH candidates by estimate);
    with ``early_accept`` the first candidate scoring at least that much is taken without
    looking further (for condensing, where any leader that close will do); ``max_leaders``
    bounds memory: once reached, a page with no leader above the threshold is
    left unassigned (``key=None``) rather than growing the set.

    ``relative`` (0 = off) lowers the bar of a leader that pages have joined to ``relative``
    times their mean score, when that is below ``threshold``: a type whose pages are only
    loosely alike (a wiki's articles) shows it by the scores its pages joined with, and its
    next page is held to that rather than to a bar set for every type of every site. Each
    candidate is then judged by its score over its own bar.

    ``bucket_cap`` bounds each LSH bucket (see :class:`SketchIndex`).

    ``layout_leaders`` (None = off) bounds the leaders of one *layout*: a page scoring at least
    ``layout_bar`` with its best leader but under ``threshold`` becomes a leader of that
    leader's layout while the layout has fewer than ``layout_leaders``, and is folded into that
    leader once it has them. Without it a layout's leaders grow with its pages, and a fixed
    neighbour count per leader then sees only the variants of one layout.
    """

    def __init__(
        self,
        similarity: SimilarityFunc,
        threshold: float,
        *,
        sketcher: Sketcher | None = None,
        lsh_threshold: float = 0.3,
        max_compare: int = 5,
        max_leaders: int | None = None,
        early_accept: float | None = None,
        relative: float = 0.0,
        bucket_cap: int | None = None,
        layout_leaders: int | None = None,
        layout_bar: float = 1.0,
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError("threshold must be within [0, 1]")
        if not 0.0 <= relative <= 1.0:
            raise ValueError("relative must be within [0, 1]")
        if max_compare < 1:
            raise ValueError("max_compare must be >= 1")
        if max_leaders is not None and max_leaders < 1:
            raise ValueError("max_leaders must be >= 1 or None")
        if layout_leaders is not None and layout_leaders < 1:
            raise ValueError("layout_leaders must be >= 1 or None")
        if not 0.0 <= layout_bar <= 1.0:
            raise ValueError("layout_bar must be within [0, 1]")
        self.similarity = similarity
        self.threshold = threshold
        self.sketcher = sketcher or Sketcher()
        self.index = SketchIndex(self.sketcher.num_perm, lsh_threshold, bucket_cap)
        self.max_compare = max_compare
        self.max_leaders = max_leaders
        self.early_accept = early_accept
        self.relative = relative
        self.leaders: dict[int, Leader] = {}
        self.layout_leaders = layout_leaders
        self.layout_bar = layout_bar
        self.layout_of: dict[int, int] = {}  # leader key -> its layout's first leader's key
        self.layout_size: dict[int, int] = {}  # layout -> leaders it has now
        self.layout_folds = 0  # pages folded into a leader because its layout was full
        self.comparisons = 0  # exact similarity computations made, for benchmarks
        self._next_key = 0
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return len(self.leaders)

    @property
    def full(self) -> bool:
        return self.max_leaders is not None and len(self.leaders) >= self.max_leaders

    def bar(self, leader: Leader) -> float:
        """The score a page needs to join ``leader`` (see ``relative``)."""
        if self.relative:
            mean = leader.joined_mean
            if mean is not None:
                return min(self.threshold, self.relative * mean)
        return self.threshold

    def best_leader(self, summary: PageSummary, minhash: MinHash) -> tuple[Leader | None, float]:
        """The best of the best LSH candidates, and its exact similarity: the most similar,
        or with ``relative`` the one whose score is highest over its bar."""
        best: Leader | None = None
        best_score = -1.0
        best_key = -1.0
        for candidate in self.index.candidates(minhash, self.max_compare):
            leader = self.leaders[candidate.key]
            score = self.similarity(summary, leader.summary)
            self.comparisons += 1
            key = score / max(self.bar(leader), 1e-9) if self.relative else score
            if key > best_key:
                best, best_score, best_key = leader, score, key
            if self.early_accept is not None and score >= self.early_accept:
                break
        return best, max(best_score, 0.0)

    def add(self, summary: PageSummary, minhash: MinHash | None = None) -> Assignment:
        if minhash is None:
            minhash = self.sketcher.sketch(summary)
        return self._place(summary, minhash, None)

    def fold(self, leader: Leader) -> Assignment:
        """Add the pages of another clustering's ``leader`` as :meth:`add` adds one page: they
        join this clustering's best leader when the leader page would, else ``leader`` becomes
        a leader here with its pages and their scores (it is not itself changed)."""
        return self._place(leader.summary, leader.minhash, leader)

    def _place(self, summary: PageSummary, minhash: MinHash, pages: Leader | None) -> Assignment:
        """One page (``pages`` None), or another clustering's leader with its pages, into the
        best leader above its bar (or its full layout's), else into a new leader."""
        count = 1 if pages is None else pages.weight
        with self._lock:
            best, score = self.best_leader(summary, minhash)
            if best is not None and score >= self.bar(best):
                best.absorb(score, count)
                if pages is not None:
                    best.sim_min = min(best.sim_min, pages.sim_min)
                return Assignment(best.key, score, False)
            layout = self._layout_near(best, score)
            if layout is not None and self._layout_full(layout):
                assert best is not None
                best.absorb(score, count)
                self.layout_folds += 1
                return Assignment(best.key, score, False)
            if self.full:
                return Assignment(None, score, False)
            leader = self.new_leader(summary, minhash, weight=count)
            if pages is not None:
                leader.sim_sum, leader.sim_min = pages.sim_sum, pages.sim_min
                leader.scored = pages.scored
            self._join_layout(leader.key, layout)
            return Assignment(leader.key, 1.0, True)

    def _layout_near(self, best: Leader | None, score: float) -> int | None:
        """The layout of ``best`` when layouts are bounded and the page is close enough to it."""
        if self.layout_leaders is None or best is None or score < self.layout_bar:
            return None
        return self.layout_of.get(best.key)

    def _layout_full(self, layout: int) -> bool:
        assert self.layout_leaders is not None
        return self.layout_size.get(layout, 0) >= self.layout_leaders

    def _join_layout(self, key: int, layout: int | None) -> None:
        if self.layout_leaders is None:
            return
        layout = key if layout is None else layout
        self.layout_of[key] = layout
        self.layout_size[layout] = self.layout_size.get(layout, 0) + 1

    def new_leader(self, summary: PageSummary, minhash: MinHash, weight: int = 1) -> Leader:
        with self._lock:
            key = self._next_key
            self._next_key += 1
            leader = Leader(key, summary, minhash, weight=weight)
            self.leaders[key] = leader
            self.index.add(key, minhash)
            return leader

    def remove(self, key: int) -> Leader:
        with self._lock:
            leader = self.leaders.pop(key)
            self.index.remove(key)
            layout = self.layout_of.pop(key, None)
            if layout is not None:
                self.layout_size[layout] -= 1
            return leader
