"""Page types of a crawl's sites, kept as batch ``cluster`` finds them, one page at a time.

Each page is folded into a *leader* of near-duplicates (batch ``cluster``'s condensing pass,
with its threshold) and every leader belongs to a page type. A page unlike every leader founds
a leader of its own, in the type of its most similar leader if that is alike enough, else in a
new type. Each time a site's pages have grown by half, the site's leaders are regrouped by the batch
grouping step (:mod:`~pagesim_scrapy.core.cluster.grouping`) under the site's current weights:
types the grouping joins are merged, a type it splits is split. So the types converge on what
batch ``cluster`` finds on the same pages, and the regroupings cost, summed over a crawl, a
bounded number of comparisons per leader (a geometric series).

A type keeps its id through a regrouping when most of its pages stay together: each group
takes the type holding most of its pages that no larger claim has taken; the rest are new.

A page's type is *settled* once ``settle_after`` regroupings in a row have left its leader in
the type it had and the type holds more than one page (a saved type's leader always is): a page
that founds a leader was put in a type by one comparison, before the grouping step judged it
among its site's other leaders; a leader a regrouping moved may move again, and so may one a
single regrouping of a young site left in place; and a type of one page is where a young
site's grouping leaves a page it cannot place yet, which a later regrouping merges. A crawl
that labels a page only once its type is settled (:meth:`SiteTypes.settled`) gives the labels
the regroupings find, not the first guesses.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from datasketch import MinHash

from pagesim_scrapy.core.cluster.closeness import cluster_means
from pagesim_scrapy.core.cluster.graph import ItemGraph
from pagesim_scrapy.core.cluster.grouping import GroupingParams, group_leaders
from pagesim_scrapy.core.cluster.leader import Leader, LeaderClustering
from pagesim_scrapy.core.summary import PageSummary

#: A site's leaders are first regrouped when it has this many pages: before that, the site's
#: weights say little about which structure is its chrome.
FIRST_REGROUP = 8
#: ... then each time its pages have grown by this factor: often enough that the labels given
#: in the crawl follow the types found so far, rarely enough that the regroupings of a crawl
#: cost a bounded number of comparisons per leader (2 left the labels of a site's first
#: hundred pages behind the types; ``benchmarks/site_cluster.py --agreement``).
REGROUP_GROWTH = 1.5


class _Mean:
    """A running mean of scores."""

    __slots__ = ("count", "total")

    def __init__(self) -> None:
        self.total = 0.0
        self.count = 0

    def __bool__(self) -> bool:
        return self.count > 0

    def add(self, score: float) -> None:
        self.total += score
        self.count += 1

    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0


@dataclass(frozen=True)
class TypeAssignment:
    type_id: int | None  # None: the types are full and the page is like none of them
    score: float  # similarity to the leader the page joined or was compared with best
    new_type: bool
    leader: int | None = None  # the leader the page joined or founded
    new_leader: bool = False


@dataclass
class Regrouping:
    """What a regrouping changed: types that now have no leader, and types it made."""

    removed: list[int] = field(default_factory=list)
    created: list[int] = field(default_factory=list)


class SiteTypes:
    """Leaders of near-duplicate pages, each in a page type; see the module docstring.

    ``join``: the similarity a new leader needs to its most similar leader to be in that
    leader's type before the next regrouping (the grouping's near-neighbour threshold: the two
    would be near neighbours in the batch graph). While a site has fewer than ``young_pages``
    pages, ``closeness`` (0: off) raises the bar of a type not from a saved file to
    ``closeness`` times the scores its leaders joined it with (the site's, for a type none has
    joined yet; 1 before any on the site), and a regrouping merges two types only as close as
    that (:meth:`_kept_apart`): a young site's weights inflate the scores between its types, so
    an absolute bar let the first page of one type join another, and the labels already given
    could not follow them apart.
    ``settle_after``: the regroupings in a row that must leave a leader in its type before
    its type is settled (:meth:`settled`).
    ``condenser``: an empty condensing pass of batch ``cluster`` (None: none); the final
    regrouping folds the site's leaders into it before grouping (:meth:`_batch_groups`).
    Not thread-safe: the caller holds its lock.
    """

    def __init__(
        self,
        leaders: LeaderClustering,
        join: float,
        params: GroupingParams,
        max_types: int,
        closeness: float = 0.0,
        young_pages: int = 0,
        settle_after: int = 1,
        condenser: Callable[[], LeaderClustering] | None = None,
    ) -> None:
        if settle_after < 1:
            raise ValueError("settle_after must be >= 1")
        self.leaders = leaders
        self.condenser = condenser
        self.settle_after = settle_after
        self.join = join
        self.closeness = closeness
        self.young_pages = young_pages
        #: the score each leader joined its type with; the mean of them per site
        self._join_score: dict[int, float] = {}
        self._site_joined: dict[str | None, _Mean] = {}
        self.params = params
        self.max_types = max_types
        self.type_of: dict[int, int] = {}  # leader key -> type id
        self.members: dict[int, set[int]] = {}  # type id -> leader keys
        self.founder: dict[int, int] = {}  # type id -> the leader that stands for it
        self.site_of: dict[int, str | None] = {}  # leader key -> its site (None: every site)
        self.site_pages: Counter[str | None] = Counter()
        self._regrouped_at: dict[str | None, int] = {}
        #: per leader, the regroupings in a row of its site that left it in its type
        self._kept: Counter[int] = Counter()
        self._next_type = 0

    def __len__(self) -> int:
        return len(self.members)

    @property
    def full(self) -> bool:
        return len(self.members) >= self.max_types

    def weight(self, type_id: int) -> int:
        """Pages of a type."""
        return sum(self.leaders.leaders[key].weight for key in self.members[type_id])

    def representative(self, type_id: int) -> Leader:
        """The founder while it is in the type, else the type's heaviest leader."""
        founder = self.founder[type_id]
        if self.type_of.get(founder) != type_id:
            founder = self.founder[type_id] = self._heaviest(self.members[type_id])
        return self.leaders.leaders[founder]

    def assign(self, summary: PageSummary, minhash: MinHash, site: str | None) -> TypeAssignment:
        """The page's type: of the leader it folds into, else of its most similar leader if
        alike enough, else a new type (None when the types are full)."""
        self.site_pages[site] += 1
        best, score = self.leaders.best_leader(summary, minhash)
        if best is not None and score >= self.leaders.threshold:
            best.absorb(score)
            return TypeAssignment(self.type_of[best.key], score, False, best.key)
        joins = best is not None and score >= self.join_bar(self.type_of[best.key], site)
        if joins and best is not None and self.leaders.full:
            best.absorb(score)  # no room for a leader: the page counts into its nearest
            return TypeAssignment(self.type_of[best.key], score, False, best.key)
        if self.leaders.full or (not joins and self.full):
            return TypeAssignment(None, score, False)
        leader = self.leaders.new_leader(summary, minhash)
        self.site_of[leader.key] = site
        if joins and best is not None:
            type_id = self.type_of[best.key]
            self._move(leader.key, type_id)
            self._join_score[leader.key] = score
            self._site_joined.setdefault(site, _Mean()).add(score)
            return TypeAssignment(type_id, score, False, leader.key, True)
        return TypeAssignment(self.new_type(leader.key), 1.0, True, leader.key, True)

    def join_bar(self, type_id: int, site: str | None) -> float:
        """The score a new leader of ``site`` needs to be in type ``type_id`` (see
        ``closeness``)."""
        if not self.closeness or not self.young(site) or self._seeded(type_id):
            return self.join
        scale = self.scale(type_id)
        if scale is None:
            scale = self._site_scale(site)
        return max(self.join, self.closeness * scale)

    def _site_scale(self, site: str | None) -> float:
        """The mean score the site's leaders joined their types with (1 before any joined)."""
        joined = self._site_joined.get(site)
        return joined.mean() if joined else 1.0

    def _seeded(self, type_id: int) -> bool:
        """Whether the type came from a saved file: a past crawl found it on many pages."""
        return any(self.site_of.get(key, "") is None for key in self.members[type_id])

    def young(self, site: str | None) -> bool:
        """Whether the site has fewer pages than ``young_pages``."""
        return self.site_pages[site] < self.young_pages

    def scale(self, type_id: int) -> float | None:
        """How alike a type's pages are: the mean score its leaders joined it with (None
        before the first; near-duplicates folded into a leader say nothing of it)."""
        scores = [self._join_score.get(key) for key in self.members[type_id]]
        known = [score for score in scores if score is not None]
        return sum(known) / len(known) if known else None

    def settled(self, leader: int) -> bool:
        """Whether the last ``settle_after`` regroupings left the leader in its type, a type of
        more than one page (a saved type's leader always counts)."""
        if self.site_of.get(leader, "") is None:
            return True
        kept = self._kept[leader] >= self.settle_after
        return kept and self.weight(self.type_of[leader]) > 1

    def seed(self, summary: PageSummary, minhash: MinHash, weight: int) -> int:
        """A known type (from a saved file) with one leader that stands for every site."""
        leader = self.leaders.new_leader(summary, minhash, weight=weight)
        self.site_of[leader.key] = None
        return self.new_type(leader.key)

    def new_type(self, leader: int) -> int:
        type_id = self._next_type
        self._next_type += 1
        self.members[type_id] = set()
        self.founder[type_id] = leader
        self._move(leader, type_id)
        return type_id

    def due(self, site: str | None) -> bool:
        """Whether the site's pages have grown enough since its last regrouping."""
        pages = self.site_pages[site]
        return pages >= max(FIRST_REGROUP, REGROUP_GROWTH * self._regrouped_at.get(site, 0))

    def regroup(
        self,
        site: str | None,
        use_model: Callable[[str | None], None] | None = None,
        final: bool = True,
    ) -> Regrouping:
        """Regroup the site's leaders by the batch grouping step (``use_model(site)`` is
        called first, so the similarity weighs by that site's model).

        ``final`` False (a regrouping during the crawl) on a young site: two types are merged
        only where they are as close as ``closeness`` requires of a new leader (see
        :meth:`_kept_apart`), and no lone page is attached (mid-crawl, a lone page is as often
        the first page of a type not seen twice yet). The final regrouping is batch ``cluster``'s:
        with a ``condenser``, its condensing pass and grouping step over the site's leaders
        (:meth:`_batch_groups`).
        """
        self._regrouped_at[site] = self.site_pages[site]
        keys = sorted(key for key, owner in self.site_of.items() if owner == site)
        if len(keys) < 2:
            self._kept.update(keys)
            return Regrouping()
        if use_model is not None:
            use_model(site)
        if final and self.condenser is not None:
            groups = self._batch_groups(keys, self.condenser())
        else:
            groups = self._crawl_groups(keys, site, final)
        before = [self.type_of[key] for key in keys]
        change = self._relabel(keys, groups)
        self._confirm(keys, before)
        return change

    def _crawl_groups(self, keys: list[int], site: str | None, final: bool) -> list[int]:
        """A group per leader of ``keys``: the grouping step over the leaders as they are."""
        leaders = [self.leaders.leaders[key] for key in keys]
        params = self.params if final else dataclasses.replace(self.params, lone=0.0)
        grouping = group_leaders(leaders, self.leaders.similarity, self.leaders.index, params)
        groups = grouping.groups
        if not final and self.closeness and self.young(site):
            groups = self._kept_apart(keys, grouping.graph, groups, site)
        return groups

    def _batch_groups(self, keys: list[int], condenser: LeaderClustering) -> list[int]:
        """A group per leader of ``keys``, as batch ``cluster`` groups the site's pages: the
        leaders, in the order they were founded, folded into ``condenser`` under the
        similarity in force now (a crawl's leaders were condensed under the weights of the
        site's first pages, which keep near-duplicates apart that the site's weights join),
        then the grouping step over what it kept."""
        folded = []
        for key in keys:
            found = condenser.fold(self.leaders.leaders[key]).key
            assert found is not None  # the batch pass keeps a leader for every page
            folded.append(found)
        kept = sorted(condenser.leaders.values(), key=lambda leader: leader.key)
        grouping = group_leaders(kept, condenser.similarity, condenser.index, self.params)
        group_of = {leader.key: group for leader, group in zip(kept, grouping.groups)}
        return [group_of[key] for key in folded]

    def _confirm(self, keys: list[int], before: list[int]) -> None:
        """Leaders a regrouping left in their type count one more regrouping in a row; those
        it moved start again."""
        for key, type_id in zip(keys, before):
            if self.type_of[key] == type_id:
                self._kept[key] += 1
            else:
                self._kept.pop(key, None)

    def _kept_apart(
        self, keys: list[int], graph: ItemGraph, groups: list[int], site: str | None
    ) -> list[int]:
        """``groups`` with the types a group would join kept apart unless the mean similarity
        between their pages reaches ``closeness`` times the looser one's within (the site's
        join scale where neither has pages to measure it by, as for a new leader)."""
        types = [self.type_of[key] for key in keys]
        within, between = cluster_means(graph, types)
        default = self._site_scale(site)
        parent = {type_id: type_id for type_id in types}

        def find(type_id: int) -> int:
            while parent[type_id] != type_id:
                type_id = parent[type_id]
            return type_id

        together = _pairs_in_groups(types, groups)
        for a, b in sorted(together):
            mean = between.get((a, b))
            own = [m for m in (within.get(a), within.get(b)) if m is not None]
            bar = min(own) if own else default
            if mean is not None and mean >= self.closeness * bar:
                parent[find(b)] = find(a)
        split: dict[tuple[int, int], int] = {}
        return [
            split.setdefault((group, find(type_id)), len(split))
            for group, type_id in zip(groups, types)
        ]

    def _relabel(self, keys: list[int], groups: list[int]) -> Regrouping:
        by_group: dict[int, list[int]] = {}
        for key, group in zip(keys, groups):
            by_group.setdefault(group, []).append(key)
        before = set(self.members)
        taken = self._claims(by_group)
        out = Regrouping()
        for group, members in sorted(by_group.items()):
            chosen = taken.get(group)
            if chosen is None and self.full:  # no room for a split: stay together
                chosen = self.type_of[self._heaviest(members)]
            if chosen is None:
                chosen = self.new_type(self._heaviest(members))
                out.created.append(chosen)
            for key in members:
                self._move(key, chosen)
        for type_id in sorted(before):
            if not self.members[type_id]:
                del self.members[type_id]
                del self.founder[type_id]
                out.removed.append(type_id)
        return out

    def _claims(self, by_group: dict[int, list[int]]) -> dict[int, int]:
        """Group -> the type it keeps: largest claims (pages of a type in a group) first."""
        claims = []
        for group, members in by_group.items():
            held: Counter[int] = Counter()
            for key in members:
                held[self.type_of[key]] += self.leaders.leaders[key].weight
            claims += [(-weight, group, type_id) for type_id, weight in held.items()]
        taken: dict[int, int] = {}
        used: set[int] = set()
        for _, group, type_id in sorted(claims):
            if group not in taken and type_id not in used:
                taken[group] = type_id
                used.add(type_id)
        return taken

    def _heaviest(self, keys: set[int] | list[int]) -> int:
        return max(keys, key=lambda key: (self.leaders.leaders[key].weight, -key))

    def _move(self, key: int, type_id: int) -> None:
        old = self.type_of.get(key)
        if old is not None:
            self.members[old].discard(key)
        self.type_of[key] = type_id
        self.members[type_id].add(key)


def _pairs_in_groups(types: list[int], groups: list[int]) -> set[tuple[int, int]]:
    """Pairs of distinct types that have leaders in one group."""
    by_group: dict[int, set[int]] = {}
    for type_id, group in zip(types, groups):
        by_group.setdefault(group, set()).add(type_id)
    return {(a, b) for found in by_group.values() for a in found for b in found if a < b}
