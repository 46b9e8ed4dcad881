"""Seed 004's shared-nearest-neighbour clustering (Jarvis & Patrick, 1973) over a sparse graph.

Every item's neighbourhood is itself plus its ``k`` most similar items at similarity >= t_n
(seed 004: "near neighbours" above a similarity threshold). Clusters start as single items
carrying their item's neighbourhood; two clusters are collapsed into one, whose neighbourhood
is the union of theirs, when they share at least ``k_p`` of the smaller neighbourhood (seed
004 generalises Jarvis-Patrick's k_t shared neighbours to a fraction k_p). Collapsing repeats,
the pair sharing most first, until no pair shares enough. Overlaps are counted in pages (an
item weighs the pages condensed into it). Only clusters that can share enough are compared.
"""

from __future__ import annotations

import heapq
import math
import struct
from collections.abc import Iterable

from pagesim_scrapy.core.cluster.graph import ItemGraph

#: The bands of shares above ``k_p`` whose pairs are looked for one after the other (an
#: order of work only: the collapses are the same with any bands).
LEVELS = (1.0, 0.97, 0.94, 0.91, 0.88)


_DOUBLE = struct.Struct("<d")
_BITS = struct.Struct("<Q")
_TOP = (1 << 64) - 1
_ITEM_MASK = (1 << 32) - 1


def _entry(share: float, a: int, b: int) -> int:
    """A heap entry for the pair (a, b) at ``share`` (>= 0): one int that orders as
    ``(-share, a, b)`` does (a non-negative double's bits order as the double; items below 2**32),
    so the pops of a large heap compare ints, not tuples of a float and two ints."""
    bits: int = _BITS.unpack(_DOUBLE.pack(share))[0]
    return ((_TOP - bits) << 64) | (a << 32) | b


def _decode(entry: int) -> tuple[float, int, int]:
    """The (share, a, b) of a heap entry made by :func:`_entry`."""
    share: float = _DOUBLE.unpack(_BITS.pack(_TOP - (entry >> 64)))[0]
    return share, (entry >> 32) & _ITEM_MASK, entry & _ITEM_MASK


def _top_share(entry: int) -> float:
    """The share of a heap entry made by :func:`_entry`."""
    share: float = _DOUBLE.unpack(_BITS.pack(_TOP - (entry >> 64)))[0]
    return share


def neighbourhoods(graph: ItemGraph, k: int, t_n: float) -> list[set[int]]:
    """Each item with its ``k`` most similar items at similarity >= ``t_n``."""
    out = []
    for i, edges in enumerate(graph.edges):
        near = sorted(
            ((score, j) for j, score in edges.items() if score >= t_n),
            key=lambda pair: (-pair[0], pair[1]),
        )[:k]
        out.append({i, *(j for _, j in near)})
    return out


def shared_nearest_neighbours(
    graph: ItemGraph, k: int, t_n: float, k_p: float, max_iterations: int = 100
) -> list[int]:
    """Cluster index of every item (clusters numbered by their smallest item).

    The pair of clusters sharing the largest part of the smaller neighbourhood collapses first
    (``max_iterations`` is kept for callers of the earlier pass-based form and not used). Taken
    in item order, as before, the outcome depended on the order the pages came in, since a
    neighbourhood grows with every collapse; strongest first depends on it less
    (``benchmarks/site_cluster.py`` prints the shuffled orders' mean).
    """
    del max_iterations
    state = _collapsed(graph, k, t_n, k_p)
    return state.labels()


def collapse_steps(graph: ItemGraph, k: int, t_n: float, k_p: float) -> int:
    """How many items the procedure looked up and pairs it compared on ``graph`` (for the
    benchmarks: a count the shared machine's load does not blur)."""
    return _collapsed(graph, k, t_n, k_p).steps


def _collapsed(graph: ItemGraph, k: int, t_n: float, k_p: float) -> _Collapsing:
    if k < 1:
        raise ValueError("k must be >= 1")
    if not 0.0 < k_p <= 1.0:
        raise ValueError("k_p must be within (0, 1]")
    state = _Collapsing(graph.weights, neighbourhoods(graph, k, t_n), k_p)
    state.run()
    return state


class _Collapsing:
    """The clusters of the shared-nearest-neighbour procedure as they collapse.

    Keeping the shared weight of every pair of neighbourhoods with an item in common grew
    faster than the leaders: a layout's hub items are held by hundreds of neighbourhoods.
    Instead, a pair can share a part ``bar`` of the lighter neighbourhood only if the heavier
    one holds an item of the lighter one's *prefix* at ``bar``: its items in a fixed order,
    rarest first, up to just more weight than it may leave unshared (the prefix filter of
    set-similarity joins); hubs come last and rarely reach a prefix. A heap entry is an upper
    bound of its pair's share, checked when popped: a collapse pushes only the pairs whose
    share it may have raised (holders of the items it added, none when it added no item), and
    a pair whose share fell goes back when its entry comes up (see :meth:`requeue`). The
    collapses, and their order, are those of counting every pair.

    A layout's leaders share most neighbours, so nearly every pair of them passes ``k_p``:
    the pairs one cluster finds at once stay in a sorted list of its own and only the
    strongest is in the heap (its cluster's best partner); the next comes in when it pops,
    skipping the pairs whose cluster has gone. The heap then holds about one entry per
    cluster instead of every pair, and pops in the same order (a merge of sorted lists).
    """

    def __init__(self, weights: list[int], hoods: list[set[int]], k_p: float) -> None:
        n = len(hoods)
        self.weights = weights
        self.hoods = hoods
        self.k_p = k_p
        self.mass = [sum(weights[x] for x in hood) for hood in hoods]
        self.parent = list(range(n))
        # holders[x]: clusters whose neighbourhood contains item x
        self.holders: list[set[int]] = [set() for _ in range(n)]
        for c, hood in enumerate(hoods):
            for x in hood:
                self.holders[x].add(c)
        # the fixed item order of the prefixes: fewest holders first
        order = sorted(range(n), key=lambda x: (len(self.holders[x]), x))
        self.rank = [0] * n
        for position, x in enumerate(order):
            self.rank[x] = position
        # entries ordered as (-share, first, second) (see _entry): an upper bound of the
        # pair's share while both exist
        self.heap: list[int] = []
        # the rest of a found list (strongest last), under the entry of its head in the heap
        self.tails: dict[int, list[int]] = {}
        self.steps = 0  # items looked up and pairs compared, for benchmarks

    def least_shared(self, mass: int, bar: float | None = None) -> int:
        """The least shared weight whose share of ``mass`` reaches ``bar`` (``k_p`` unless
        given), as the share is computed: one float division."""
        bar = self.k_p if bar is None else bar
        need = max(1, math.ceil(bar * mass))
        while need > 1 and (need - 1) / mass >= bar:
            need -= 1
        while need / mass < bar:
            need += 1
        return need

    def prefix(self, c: int, bar: float) -> list[int]:
        """c's rarest items until they weigh more than c may leave unshared at ``bar``."""
        mass = self.mass[c]
        room = mass - self.least_shared(mass, bar)
        weights, taken = self.weights, 0
        prefix = []
        for x in sorted(self.hoods[c], key=self.rank.__getitem__):
            prefix.append(x)
            taken += weights[x]
            if taken > room:
                break
        return prefix

    def share(self, a: int, b: int) -> float:
        """The part of the lighter neighbourhood that a and b share."""
        shared = sum(map(self.weights.__getitem__, self.hoods[a] & self.hoods[b]))
        self.steps += 1
        return shared / min(self.mass[a], self.mass[b])

    def push_partners(self, a: int, partners: Iterable[int]) -> None:
        found = []
        for b in partners:
            share = self.share(a, b)
            if share >= self.k_p:
                found.append(_entry(share, min(a, b), max(a, b)))
        self.push_found(found)

    def push_found(self, found: list[int]) -> None:
        """Put the strongest of ``found`` in the heap, the rest in its tail."""
        if found:
            found.sort(reverse=True)
            self.push_next(found)

    def push_next(self, tail: list[int]) -> None:
        """Push the strongest entry of ``tail`` whose clusters both exist (a cluster never
        comes back, so the others would be dropped when popped) and keep the rest under it."""
        parent = self.parent
        while tail:
            entry = tail.pop()
            a, b = (entry >> 32) & _ITEM_MASK, entry & _ITEM_MASK
            if parent[a] == a and parent[b] == b:
                heapq.heappush(self.heap, entry)
                if tail:
                    waiting = self.tails.get(entry)
                    if waiting is not None:  # the same pair at the same share, found twice
                        tail = sorted(waiting + tail, reverse=True)
                    self.tails[entry] = tail
                return

    def run(self) -> None:
        """Collapse pairs, strongest first, with the pairs found one band of shares at a time:
        the pairs at or above ``bar`` are all in the heap while it pops, so its top is the
        strongest pair of all, and a band's pairs are looked for only among the clusters left
        when the band's turn comes."""
        upper = math.inf
        for bar in [level for level in LEVELS if level > self.k_p] + [self.k_p]:
            self.push_band(bar, upper)
            self.collapse_down_to(bar)
            upper = bar

    def push_band(self, bar: float, upper: float) -> None:
        """Push every pair of clusters whose share lies in [bar, upper), each found from its
        lighter side's prefix at ``bar``."""
        parent = self.parent
        for a in range(len(self.hoods)):
            if parent[a] == a:
                self.push_found(self.band_pairs(a, bar, upper))

    def band_pairs(self, a: int, bar: float, upper: float) -> list[int]:
        """Entries of a's pairs with heavier clusters whose share lies in [bar, upper).

        a is the lighter side, so every share is of a's mass: computed here in one expression
        per partner rather than by :meth:`share` (the same value; most of the SNN's time is
        this loop over a layout's leaders).
        """
        mass, hoods, weight = self.mass, self.hoods, self.weights.__getitem__
        lighter = (mass[a], a)
        found: set[int] = set()
        for x in self.prefix(a, bar):
            found |= self.holders[x]
        heavier = [b for b in found if (mass[b], b) > lighter]
        self.steps += 1 + len(heavier)
        hood, own = hoods[a], mass[a]
        pairs = []
        for b in heavier:
            share = sum(map(weight, hood & hoods[b])) / own
            if bar <= share < upper:
                pairs.append(_entry(share, a, b) if a < b else _entry(share, b, a))
        return pairs

    def collapse_down_to(self, bar: float) -> None:
        parent, heap = self.parent, self.heap
        tails = self.tails
        while heap and _top_share(heap[0]) >= bar:
            entry = heapq.heappop(heap)
            tail = tails.pop(entry, None)
            if tail is not None:
                self.push_next(tail)
            recorded, a, b = _decode(entry)
            if parent[a] != a or parent[b] != b:
                continue
            share = self.share(a, b)
            if share != recorded:
                self.requeue(a, b, share, recorded)
                continue
            added = self.collapse(a, b)
            if added:
                self.push_partners(a, self.holders_of(a, added))

    def requeue(self, a: int, b: int, share: float, recorded: float) -> None:
        """Put back a pair whose share fell since its entry was pushed, at its share now.

        A collapse that makes a heavier leaves the clusters holding none of the items it
        gained with a smaller share of a (a larger denominator, the same shared weight): their
        entries are upper bounds, so the top entry, when its share is current, is still the
        strongest pair, and each is corrected when it comes up instead of every heavier
        candidate of a being looked up again after every collapse (which grew with the square
        of a layout's leaders). A share that rose has an entry of its own (see
        :meth:`holders_of`).
        """
        if self.k_p <= share < recorded:
            heapq.heappush(self.heap, _entry(share, a, b))

    def holders_of(self, a: int, added: list[int]) -> set[int]:
        """The clusters holding an item a gained: the only ones whose share with a can have
        risen."""
        changed: set[int] = set()
        for x in added:
            changed |= self.holders[x]
        changed.discard(a)
        return changed

    def collapse(self, a: int, b: int) -> list[int]:
        """Collapse cluster b into a: a's neighbourhood becomes the union of both. Returns the
        items a gained (none: every pair's share is as it was)."""
        self.parent[b] = a
        holders, weights = self.holders, self.weights
        hood_a, hood_b = self.hoods[a], self.hoods[b]
        added = [x for x in hood_b if x not in hood_a]
        for x in hood_b:
            holders[x].discard(b)
        for x in added:
            holders[x].add(a)
            self.mass[a] += weights[x]
        hood_a.update(added)
        self.hoods[b] = set()
        return added

    def root(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def labels(self) -> list[int]:
        groups: dict[int, list[int]] = {}
        for i in range(len(self.hoods)):
            groups.setdefault(self.root(i), []).append(i)
        labels = [0] * len(self.hoods)
        for items in groups.values():
            first = min(items)
            for item in items:
                labels[item] = first
        return labels
