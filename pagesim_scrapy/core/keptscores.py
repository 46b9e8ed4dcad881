"""A site's kept pages scored incrementally: each kept page's scores are cached and a page is
re-scored only when the site's weights may have moved its scores, not at every re-estimate.

A site is re-estimated on every page while it is young and then whenever it has grown by a
share; re-scoring every kept page each time made the first pages of a site the most scored
pages of a crawl. Here a re-estimate scores the pages it has not seen, and looks again only at
the cached pages scored before the site last grew by ``min_growth``: a few of the stalest, and
each label's highest-scoring page, are re-scored as probes, and when no probe's score moved by
more than ``tolerance`` the others stand. A page scored before the site grew by ``max_growth``
is re-scored in any case. So once its site is past its young pages, a kept page is re-scored
at most once each time the site grows by ``min_growth``; while the site is young (its weights
still move page by page: a stale score there changed verdicts) the probes alone decide.

Whether a kept page holds a label's core is answered without unpacking it again: each kept
page keeps, as the bits of one integer, which of the features its labels' templates all share
it holds (a core is always a subset of those).

Where the walk is compiled, a kept page is scored again from its packed string through a table
of its site's features keyed by their codes (:class:`SiteCounts`), whose counts are kept in step
with the site model's: the pass that works out a kept page's shared-feature bits also raises its
features' counts, and scoring a page again then makes no string and looks up no dictionary per
feature. The same features with the same counts give the same sums (on the weights' grid every
sum is exact in any order), so the same scores as scoring the packed page.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from operator import add, itemgetter, sub
from typing import Any
from weakref import WeakKeyDictionary

from pagesim_scrapy.core.site import Features, SiteModel, grouped_weights, unpack_features
from pagesim_scrapy.core.summary import _walk_c

__all__ = [
    "DEFAULT_LIMITS",
    "KeptScores",
    "RescoreLimits",
    "SiteCounts",
    "kept_scores",
    "shared_features",
    "template_counts",
]

Scores = dict[str, float]


@dataclass(frozen=True)
class RescoreLimits:
    """When a cached score of a kept page stands (see the module docstring)."""

    #: the largest move of a probe's score, on any label, under which cached scores stand
    tolerance: float = 0.002
    #: the stalest cached pages re-scored at every re-estimate to measure how far scores moved
    #: (each label's highest-scoring page is a probe too)
    probes: int = 8
    #: a score computed when the site had fewer than pages / max_growth pages is recomputed
    max_growth: float = 1.5
    #: and one computed when it had pages / min_growth pages or more stands, however far the
    #: probes moved: a page is re-scored at most once each time the site grows by this factor
    min_growth: float = 1.2
    #: a site's feature table (see SiteCounts) is filled again from the site model's counts
    #: alone once it holds this many times more features (features the model forgot stay in
    #: it until then)
    renumber_at: float = 2.0
    #: and never while it holds fewer features than this
    min_numbers: int = 8192

    def __post_init__(self) -> None:
        if self.tolerance < 0.0 or self.probes < 0 or self.min_growth < 1.0:
            raise ValueError("tolerance and probes must be >= 0, min_growth >= 1")
        if self.max_growth < self.min_growth:
            raise ValueError("max_growth must be >= min_growth")
        if self.renumber_at < 1.0 or self.min_numbers < 0:
            raise ValueError("renumber_at must be >= 1, min_numbers >= 0")


DEFAULT_LIMITS = RescoreLimits()

#: at most this many distinct sets of shared features are remembered (see held_shared)
HELD_MEMO = 1024

#: at most this many pages kept since a site's last re-estimate keep their shared-feature
#: bits in hand (see KeptScores.kept): past its young pages a site grows by a share between
#: re-estimates, and a page whose bits were dropped is unpacked to tell them
PENDING_PAGES = 1024

_compiled_counts: Any = getattr(_walk_c, "KeptCounts", None)


@lru_cache(maxsize=16)
def _shared_keys(shared: tuple[str, ...]) -> bytes:
    """The shared features as the compiled counts read them, made once for every site of a
    classifier (not per site)."""
    table: bytes = _walk_c.shared_keys(shared)
    return table


Weighed = tuple[float, list[float]]


@lru_cache(maxsize=16)
def _as_set(features: tuple[str, ...]) -> frozenset[str]:
    """``features`` as a set, made once (a classifier passes the same tuple every time)."""
    return frozenset(features)


class SiteCounts:
    """A site's features, keyed by their codes, with each one's document count kept in step
    with the site model's ``df`` (compiled: ``_walk.KeptCounts``).

    In step: every page the model counts is counted here too (:meth:`kept`), raising its
    features' counts as ``df``'s were; a change the table was not told of (the model's
    ``changes`` moved by more than that page) has every count read again from ``df`` before
    the next scoring. While the table holds every feature ``df`` holds, a feature new to it
    is new to the site (one page), and counting a page reads ``df`` for none of its features.
    Memory: one 24-byte slot per feature met on the site's pages, at most two thirds of the
    slots used, and filled again with ``df``'s features alone once it holds ``renumber_at`` times
    more features than ``df`` (which the model bounds by its ``max_features``)."""

    def __init__(self, shared: tuple[str, ...], limits: RescoreLimits) -> None:
        self._table = _compiled_counts(_shared_keys(shared), len(shared))
        self._limits = limits
        #: the model's ``changes`` the counts are in step with (-1: read them again)
        self.synced = -1
        #: whether the table holds every feature the model's df holds
        self.complete = False
        #: how many times every count was read again, and the table filled from the model's
        #: df alone, first and when outgrown (for benchmarks)
        self.recounts = 0
        self.refills = 0
        #: the templates' union the compiled table sums (see :meth:`union_sums`)
        self._union: tuple[str, ...] | None = None

    def __len__(self) -> int:
        return len(self._table)

    @property
    def nbytes(self) -> int:
        """The table's memory in bytes."""
        return int(self._table.nbytes)

    def kept(self, packed: str, model: SiteModel) -> int:
        """Count the page ``model`` has just counted and kept (``packed``); the bits of the
        shared features it holds (:meth:`KeptScores.mask`), from the same pass."""
        table, limits, df = self._table, self._limits, model.df
        if not len(table) or len(table) > max(limits.min_numbers, limits.renumber_at * len(df)):
            # every count read at this very change (the page is in them already)
            self.complete = table.refill(df) == len(df)
            self.refills += 1
            mode, in_step = 0, True
        else:
            in_step = self.synced == model.changes - 1
            mode = 2 if in_step and self.complete else int(in_step)
            # not told of every change: df may hold features the table does not
            self.complete = mode == 2
        bits: int = table.count(packed, df, mode)
        self.synced = model.changes if in_step else -1
        return bits

    def weights(
        self,
        packed: str,
        members: dict[str, int],
        count: int,
        df: dict[str, int],
        table: list[float],
        changes: int,
    ) -> Weighed:
        """:func:`~pagesim_scrapy.core.site.packed_weights` of ``packed`` (``count``
        templates, ``members`` their template_members) on a model whose counts are ``df``
        after ``changes`` changes: the same sums."""
        self._sync(df, changes)
        weighed: Weighed = self._table.weights(packed, members, df, table, count)
        return weighed

    def weigher(
        self,
        members: dict[str, int],
        count: int,
        df: dict[str, int],
        table: list[float],
        changes: int,
    ) -> Callable[[str], Weighed]:
        """:meth:`weights` of any page, ``df`` not changing meanwhile: in step once."""
        self._sync(df, changes)
        weights = self._table.weights

        def weigh(packed: str) -> Weighed:
            weighed: Weighed = weights(packed, members, df, table, count)
            return weighed

        return weigh

    def many_weigher(
        self,
        members: dict[str, int],
        count: int,
        df: dict[str, int],
        table: list[float],
        changes: int,
        totals: list[float],
    ) -> Callable[[list[str]], list[list[float]]]:
        """For a list of pages, each one's :func:`~pagesim_scrapy.core.site.jaccards` of its
        :meth:`weights` against the templates' ``totals``, in one compiled call (the same
        floats), ``df`` not changing meanwhile: in step once."""
        self._sync(df, changes)
        weights_many = self._table.weights_many

        def weigh_many(pages: list[str]) -> list[list[float]]:
            values: list[list[float]] = weights_many(pages, members, df, table, count, totals)
            return values

        return weigh_many

    def union_sums(
        self,
        union: tuple[str, ...],
        bits: tuple[int, ...],
        groups: int,
        df: dict[str, int],
        table: list[float],
        changes: int,
    ) -> list[float]:
        """The summed weight of ``union``'s features in each of ``groups`` groups (``bits``:
        each feature's groups), on a model whose counts are ``df`` after ``changes`` changes:
        the sums :meth:`weights` gives of the same features. The table keeps the union's
        counts in step as it counts pages, so the sums read no table slot per feature."""
        if self._union is not union:
            self._table.set_union(union, bits)
            self._union = union
        self._sync(df, changes)
        sums: list[float] = self._table.union_weights(df, table, groups)[1]
        return sums

    def light(self, df: dict[str, int], table: list[float], changes: int) -> int:
        """The bits of the shared features that weigh nothing (``table[df[feature]] <= 0``)
        on a model whose counts are ``df`` after ``changes`` changes."""
        self._sync(df, changes)
        bits: int = self._table.light(df, table)
        return bits

    def _sync(self, df: dict[str, int], changes: int) -> None:
        """Every count read again from ``df`` when the table was not told of every change."""
        if changes != self.synced:
            if len(self._table):
                # as many features counted as df holds: the table holds every one of them
                self.complete = self._table.recount(df) == len(df)
                self.recounts += 1
            self.synced = changes


def _one_by_one(score: Callable[[str], Scores]) -> Callable[[list[str]], list[Scores]]:
    """A scorer of lists of pages that scores each page with ``score``."""

    def each(keys: list[str]) -> list[Scores]:
        return list(map(score, keys))

    return each


@dataclass
class _Entry:
    scores: Scores
    scored_at: int  # the site's page count when the scores were computed
    shared: int  # bit i: the page holds the i-th feature the templates of a label all share
    rescored: int = 0  # how many times the page was scored again
    changes: int = -1  # the site model's count of changes then (-1: not told)


class KeptScores:
    """The cached scores of one site's kept pages (packed features -> scores)."""

    def __init__(
        self, limits: RescoreLimits = DEFAULT_LIMITS, shared: tuple[str, ...] = ()
    ) -> None:
        self.limits = limits
        #: the features some label's templates all share, in bit order
        self.shared = shared
        self._bits = {feature: 1 << i for i, feature in enumerate(shared)}
        #: the site's feature counts for scoring kept pages again (None: not compiled)
        self.counts = SiteCounts(shared, limits) if _compiled_counts is not None else None
        self._shared_set = frozenset(shared)
        self._bits_of: dict[Features, list[int]] = {}
        self._held: dict[int, Features] = {}  # bits -> the shared features they stand for
        self._entries: dict[str, _Entry] = {}
        #: pages scored and re-scored since this cache was made (for benchmarks)
        self.scored = 0
        self.rescored = 0
        self.most_rescored = 0  # of one page
        self._changes = -1  # the site model's changes in the scores() call under way
        #: the shared-feature bits of the pages kept since the last scores() call, by packed
        #: form (at most PENDING_PAGES, the latest): such a page is scored from its packed
        #: form and never unpacked
        self._pending: OrderedDict[str, int] = OrderedDict()

    def scores(
        self,
        packed: list[str],
        score: Callable[[Features], Scores],
        pages: int,
        *,
        exact: bool = False,
        young: bool = False,
        stale_ok: bool = False,
        rescore: Callable[[str], Scores] | None = None,
        rescore_many: Callable[[list[str]], list[Scores]] | None = None,
        changes: int = -1,
    ) -> list[Scores]:
        """The scores of every page of ``packed`` (oldest first) on a site of ``pages``
        pages; ``score`` scores one page's features, ``rescore`` (default: ``score`` of the
        unpacked page) a cached page given packed; ``exact`` re-scores every page; on a
        ``young`` site every cached page may be re-scored (its weights move page by page);
        with ``stale_ok`` (the caller's cuts cannot read the scores yet) only the pages not
        seen are scored and every cached score stands; ``rescore_many``, where given, scores
        a list of cached pages as ``rescore`` scores each. ``changes``: the site model's count
        of changes (see :meth:`current`)."""
        self._changes = changes
        live = set(packed)
        entries = self._entries
        if not live.issuperset(entries):  # pages the site no longer keeps: forgotten
            entries = {key: entry for key, entry in entries.items() if key in live}
            self._entries = entries
        for key in packed:  # in order: which pages are probes must not depend on a set's
            if key not in entries:
                entries[key] = self._first_entry(key, score, rescore, pages)
        self._pending.clear()
        if stale_ok and not exact:
            return [entries[key].scores for key in packed]
        recent = pages if young else pages / self.limits.min_growth
        cached = [
            key
            for key, entry in entries.items()
            if entry.scored_at != pages and (exact or entry.scored_at < recent)
        ]
        if cached:
            again = rescore or (lambda key: score(unpack_features(key)))
            self._refresh_stale(cached, rescore_many or _one_by_one(again), pages, exact)
        return [entries[key].scores for key in packed]

    def _first_entry(
        self,
        key: str,
        score: Callable[[Features], Scores],
        rescore: Callable[[str], Scores] | None,
        pages: int,
    ) -> _Entry:
        """A page not scored before, scored from its packed form when ``rescore`` is given
        (the same sums as from its features, without unpacking it) and its bits taken from
        :meth:`kept` when they were kept."""
        bits = self._pending.get(key)
        if bits is None or rescore is None:
            features = unpack_features(key)
            bits = self.mask(features) if bits is None else bits
            new = score(features) if rescore is None else rescore(key)
        else:
            new = rescore(key)
        self.scored += 1
        return _Entry(new, pages, bits, changes=self._changes)

    def _refresh_stale(
        self,
        cached: list[str],
        score_many: Callable[[list[str]], list[Scores]],
        pages: int,
        exact: bool,
    ) -> None:
        """Re-score the probes, the pages scored long ago, and every page when a probe
        moved (or when ``exact``): the probes in one call, then the others in one."""
        entries = self._entries
        limits = self.limits
        cached.sort(key=lambda key: entries[key].scored_at)
        probes = self._probes(cached)
        moved = exact
        for key, new in zip(probes, score_many(list(probes))):
            moved = self._rescore(key, new, pages) > limits.tolerance or moved
        oldest = pages / limits.max_growth
        again = [
            key
            for key in cached
            if key not in probes and (moved or entries[key].scored_at < oldest)
        ]
        if again:
            for key, new in zip(again, score_many(again)):
                self._rescore(key, new, pages)

    def _probes(self, cached: list[str]) -> dict[str, None]:
        """The pages whose moves decide whether the other cached scores stand (in order): the
        stalest, and each label's highest-scoring page. The oldest pages alone are often of
        other types, whose scores the new pages' features leave alone, while the scores of a
        type's own pages moved far enough to move its cut."""
        entries = self._entries
        probes = dict.fromkeys(cached[: self.limits.probes])
        if not cached or not self.limits.probes:
            return probes
        scored = [entries[key].scores for key in cached]
        for label in scored[0]:
            # the first page of the highest score, as max() with a key gives it
            values = list(map(itemgetter(label), scored))
            probes.setdefault(cached[values.index(max(values))])
        return probes

    def _rescore(self, key: str, new: Scores, pages: int) -> float:
        """Give a cached page its scores computed again (``new``); how far they moved."""
        entry = self._entries[key]
        old = entry.scores
        moved = max(map(abs, map(sub, map(new.__getitem__, old), old.values())), default=0.0)
        entry.scores, entry.scored_at, entry.changes = new, pages, self._changes
        entry.rescored += 1
        self.rescored += 1
        self.most_rescored = max(self.most_rescored, entry.rescored)
        return moved

    def kept(self, packed: str, features: Features, model: SiteModel | None = None) -> None:
        """Remember which shared features a page just kept (``packed``) holds, until the next
        scoring: told from its features in hand, the page need not be unpacked there. With
        the ``model`` that has just counted it, the same pass counts it into :attr:`counts`."""
        pending = self._pending
        if len(pending) >= PENDING_PAGES:
            pending.popitem(last=False)
        counts = self.counts
        if counts is None or model is None:
            pending[packed] = self.mask(features)
        else:
            pending[packed] = counts.kept(packed, model)

    def weigh_again(
        self, key: str, members: dict[str, int], count: int, df: dict[str, int], table: list[float]
    ) -> Weighed | None:
        """:func:`~pagesim_scrapy.core.site.packed_weights` of kept page ``key`` (the same
        sums) from :attr:`counts`, within a :meth:`scores` call told the model's ``changes``
        (``df`` and ``table``: the model's now); None where not compiled, past 64 templates,
        or not told."""
        counts = self.counts
        if counts is None or count > 64 or self._changes < 0:
            return None
        return counts.weights(key, members, count, df, table, self._changes)

    def weigher(
        self,
        members: dict[str, int],
        count: int,
        df: dict[str, int],
        table: list[float],
        changes: int,
    ) -> Callable[[str], Weighed] | None:
        """:meth:`weigh_again` for the kept pages of one :meth:`scores` call to be told the
        model's ``changes``, the counts brought in step once (nothing counts a page in
        between); None where :meth:`weigh_again` gives none."""
        counts = self.counts
        if counts is None or count > 64 or changes < 0:
            return None
        return counts.weigher(members, count, df, table, changes)

    def many_weigher(
        self,
        members: dict[str, int],
        count: int,
        df: dict[str, int],
        table: list[float],
        changes: int,
        totals: list[float],
    ) -> Callable[[list[str]], list[list[float]]] | None:
        """:meth:`weigher` for a list of pages at once, each page's weights made its
        similarity to each template (``totals``: the templates' totals), in one compiled
        call; None where :meth:`weigher` gives none."""
        counts = self.counts
        if counts is None or count > 64 or changes < 0:
            return None
        return counts.many_weigher(members, count, df, table, changes, totals)

    def weigh_packed(
        self,
        packed: str,
        members: dict[str, int],
        groups: int,
        df: dict[str, int],
        table: list[float],
        changes: int,
        singles: tuple[str, ...] = (),
    ) -> list[float] | None:
        """The summed weight of the features of ``packed`` (and of the one-code features
        ``singles``) in each of ``groups`` groups (``members``: feature -> its groups' bits)
        from :attr:`counts`, on a model of counts ``df`` after ``changes`` changes: the sums
        :func:`~pagesim_scrapy.core.site.grouped_weights` gives. None where not compiled or
        past 64 groups."""
        counts = self.counts
        if counts is None or groups > 64:
            return None
        sums = counts.weights(packed, members, groups, df, table, changes)[1]
        if singles:
            # read from df, which the counts are in step with after the call above: one
            # pass for them all (exact on the weights' grid: the sums in any order)
            alone = grouped_weights(_as_set(singles), members, groups, df, table)
            sums = list(map(add, sums, alone))
        return sums

    def weigh_union(
        self,
        union: tuple[str, ...],
        bits: tuple[int, ...],
        groups: int,
        df: dict[str, int],
        table: list[float],
        changes: int,
    ) -> list[float] | None:
        """:meth:`weigh_packed` of the templates' ``union`` (each feature's groups in
        ``bits``), from :attr:`counts`: the same sums. None where not compiled or past 64
        groups."""
        counts = self.counts
        if counts is None or groups > 64:
            return None
        return counts.union_sums(union, bits, groups, df, table, changes)

    def light_bits(self, model: SiteModel) -> int | None:
        """The bits of the shared features that weigh nothing on ``model``'s site now, from
        :attr:`counts` (None where not compiled): a label's core leaves them out."""
        if self.counts is None:
            return None
        return self.counts.light(model.df, model.table(), model.changes)

    def just_scored(self, model: SiteModel, pages_before: int) -> Scores | None:
        """The scores of the page ``model`` has just counted and kept (its page count was
        ``pages_before``), when a re-estimate has scored it since, under the weights it has
        now; else None. A decision that re-estimated its site on its own page takes them
        instead of scoring the page again: the same sums, so the same floats."""
        if model.pages <= pages_before or not model.recent:
            return None
        entry = self._entries.get(model.recent[-1])
        if entry is None or entry.scored_at != model.pages:
            return None
        return dict(entry.scores)

    def current(self, key: str, model: SiteModel) -> Scores | None:
        """The cached scores of kept page ``key`` when they were computed with ``model``'s
        counts as they are now (no page counted since), else None: the very scores scoring
        the page again would give."""
        entry = self._entries.get(key)
        if entry is None or entry.changes < 0 or entry.changes != model.changes:
            return None
        return entry.scores if entry.scored_at == model.pages else None

    def held_shared(self, key: str) -> Features:
        """The shared features kept page ``key`` holds, from its bits: all that a label's
        core check reads of a page (a core is a subset of them), without unpacking it."""
        bits = self._entries[key].shared
        held = self._held.get(bits)
        if held is None:
            if len(self._held) >= HELD_MEMO:
                self._held.clear()
            held = self._held[bits] = frozenset(
                feature for feature, bit in self._bits.items() if bits & bit
            )
        return held

    def mask(self, features: Features) -> int:
        """The bits of the shared features that ``features`` holds."""
        # the set intersection walks the smaller side in C; an int sum is the same in any order
        return sum(map(self._bits.__getitem__, self._shared_set.intersection(features)))

    def core_holders(self, core: Features, packed: Iterable[str]) -> int:
        """How many of ``packed`` (pages these scores were asked for) hold every feature of
        ``core``, a subset of the shared features."""
        return self.holders(self.mask(core), packed)

    def holders(self, need: int, packed: Iterable[str]) -> int:
        """How many of ``packed`` (pages these scores were asked for) hold every shared
        feature whose bit ``need`` has."""
        entries = self._entries
        return sum(entries[key].shared & need == need for key in packed)

    def held_bits(self, packed: Iterable[str]) -> Counter[int]:
        """How many of ``packed`` (pages these scores were asked for) hold each set of shared
        features (as bits): every label's core count reads these few sets instead of every
        page (:meth:`holders_in`)."""
        entries = self._entries
        return Counter(entries[key].shared for key in packed)

    @staticmethod
    def holders_in(need: int, held: Counter[int]) -> int:
        """:meth:`holders` from :meth:`held_bits`: the same count."""
        return sum(count for bits, count in held.items() if bits & need == need)

    def bits_of(self, features: Features) -> list[int]:
        """The bit of each of ``features`` (shared features), in their order: a label's core
        is a subset of its shared features, told by a flag per feature."""
        memo = self._bits_of
        bits = memo.get(features)
        if bits is None:
            bits = memo[features] = list(map(self._bits.__getitem__, features))
        return bits


#: each site model's cached scores (a re-adopted site gets a new model, and so a new cache)
_BY_MODEL: WeakKeyDictionary[SiteModel, KeptScores] = WeakKeyDictionary()


def kept_scores(
    model: SiteModel, limits: RescoreLimits = DEFAULT_LIMITS, shared: tuple[str, ...] = ()
) -> KeptScores:
    """The cached scores of ``model``'s kept pages (made on first use); ``shared``: the
    features some label's templates all share (see :func:`shared_features`)."""
    cache = _BY_MODEL.get(model)
    # the same objects on every call of a classifier: compared by identity first
    if (
        cache is None
        or (cache.limits is not limits and cache.limits != limits)
        or (cache.shared is not shared and cache.shared != shared)
    ):
        cache = _BY_MODEL[model] = KeptScores(limits, shared)
    return cache


def shared_features(templates: Mapping[str, list[Features]]) -> tuple[str, ...]:
    """The features all the templates of a label share, over the labels with two templates
    or more (where a label's core comes from), in one order."""
    shared: set[str] = set()
    for pages in templates.values():
        if len(pages) >= 2:
            shared |= frozenset.intersection(*pages)
    return tuple(sorted(shared))


def template_counts(templates: Mapping[str, list[Features]]) -> dict[int, int]:
    """How many templates have each packed length: a kept page of another length is none of
    them, and need not be unpacked to be told apart."""
    lengths: dict[int, int] = {}
    for pages in templates.values():
        for page in pages:
            size = 1 + 2 * sum(1 for feature in page if len(feature) == 2)
            lengths[size] = lengths.get(size, 0) + 1
    return lengths
