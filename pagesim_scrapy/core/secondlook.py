"""A second look at the pages a crawl turned away, once the crawl has nothing else to do.

A crawl decides each page when it arrives, with the site's cut estimated from the pages seen so
far; the first hundred or so pages of a site are decided on a cut that is still moving
(``benchmarks/site_accuracy.py``, "stability"). A page of the type turned away then is lost to
the crawl. When the crawl runs dry, the site models have seen every page the crawl will see,
and their cuts are the best the crawl has: each page turned away is decided again under them
(learning nothing, it is already counted), and the pages that now pass are requested again. A
crawl re-estimates a site's cut only when the site has grown by a quarter; the look first
catches each site up (``SiteAwareClassifier.catch_up``), so its pages are decided on the cut
the whole site gives, as a batch of the same pages is (a crawl's last cut, from most but not
all of a wiki's pages, let its user-talk pages through).

Only the pages a site turned away while young get it: its first ``keep_pages`` pages, the
window its cuts are first estimated from. Later pages were decided on a settled cut, and a look
costs a page's scoring again (not its summary): the bound keeps that cost to a few hundred
pages per site however long the crawl (``benchmarks/bench_crawl.py`` measures no cost).

Only pages turned away get this second look: a page let through has reached the spider, and
nothing done later can take it back. One look each, at the end, not one per re-estimated
cut: looking again at every re-estimation gives a page many chances to pass on a cut that is
still noisy, and one look at the end did better on every real site measured.

A page that passes while its site is young is let through only when its verdict holds
(``SiteAwareClassifier.holds``: the label has a cut of its own, and the page reaches every
threshold the label has had on the site and its templates' anchor); otherwise the crawl layer
holds it: it is turned away and recorded like the pages turned away, and reaches the spider
only if it passes on the second look (``PAGESIM_HOLD_UNSETTLED``). Pages of other types that
an early, low cut let through are then decided on the site's final cut instead. Its cost is
a request again for each held page that passes, and a later delivery; it mostly gains
precision (``benchmarks/site_accuracy.py``, "as a crawl that can look again"). Where the type
is most of the site it costs some recall, as the site's final cut there is below the online
cuts' union.

A crawl whose spider gets every page with its verdict (tag mode without item filtering)
cannot look at a page again once delivered: it holds the pages whose verdict is not settled
either way (``SiteAwareClassifier.settled``) and records them as *owed*: due again whatever
their new verdict, so each reaches the spider once, with the verdict under the site's final
cut (the same benchmark prints the share of the pages held).

A site that grows past its young pages while the crawl goes on has a settled cut then: its
pages get their look at once (``due_on``), not when the whole crawl runs dry.

Discovery holds its pages here too (``PAGESIM_DISCOVERY_HOLD``, no templates): a page whose
discovered type is not settled yet (:attr:`~pagesim_scrapy.core.cluster.Discovered.settled`)
is held under its leader (:meth:`SecondLook.hold_for_type`), and is due, owed, with the label
of the type its leader is in then, once the leader's type is settled (:meth:`types_due_on`,
asked after each decision on its site) or the crawl runs dry (:meth:`types_due`). Its label
then is the one the crawl ends with, not the one a single comparison gave it.

Framework-free: the crawl layer records what it turned away under a key of its own (the
request) and asks for the pages due once it is idle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from pagesim_scrapy.core.site import Features, pack_features, unpack_features
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.verdict import Verdict

K = TypeVar("K")

#: A discovery's answers about a leader (``OnlineDiscovery.settled`` and ``label_now``).
Settled = Callable[[int | None], bool]
LabelNow = Callable[[int | None], str | None]

#: Pages recorded at most: a record is its request and the page's packed features, so the
#: bound keeps the second look's memory small (the figures: docs/benchmarks.md). Past it, pages
#: turned away are not recorded (``SecondLook.over``): the first ones, decided on the youngest
#: cuts, matter most.
MAX_PAGES = 10_000


@dataclass
class _TurnedAway(Generic[K]):
    key: K
    site: str | None
    packed: str
    held: bool = False  # it passed, on a verdict that did not hold yet
    owed: bool = False  # the spider has not had it: due again whatever its new verdict


@dataclass(frozen=True)
class TypeSettled:
    """A page held for its discovered type, now due: ``label`` is the type it is in now."""

    label: str | None


class SecondLook(Generic[K]):
    """The pages a crawl turned away, decided again under the sites' final cuts.

    ``record`` a page when it is turned away; ``due`` once the crawl is idle: the keys of the
    pages that now get one of ``targets`` (any label when ``targets`` is empty), with their
    new verdicts. Every record is looked at once and then forgotten."""

    def __init__(
        self,
        classifier: SiteAwareClassifier | None,
        targets: frozenset[str] = frozenset(),
        max_pages: int = MAX_PAGES,
    ) -> None:
        if max_pages < 0:
            raise ValueError("max_pages must be >= 0")
        self.classifier = classifier
        self.targets = targets
        self.max_pages = max_pages
        self._records: list[_TurnedAway[K]] = []
        self._waiting: Counter[str | None] = Counter()  # records per site
        #: the pages the last look took (due or not; they are forgotten), each with whether
        #: it was owed
        self.last_looked: list[tuple[K, bool]] = []
        #: pages turned away but not recorded: over ``max_pages``; after their site's young
        #: pages (the classifier's ``keep_pages``)
        self.over = 0
        self.settled = 0
        #: pages recorded that had passed, held because their verdict did not hold yet
        self.held = 0
        #: pages looked at again so far, and those that passed
        self.looked = 0
        self.passed = 0
        #: pages held for their discovered type: site -> leader -> keys, oldest first
        self._types_waiting: dict[str | None, dict[int | None, list[K]]] = {}
        self._types_count = 0
        #: pages held for their discovered type so far, and those due again since
        self.types_held = 0
        self.types_due_count = 0

    def __len__(self) -> int:
        return len(self._records)

    def has_room(self) -> bool:
        """Whether another page can be recorded (a page is held only then: a page held but
        not recorded would be lost)."""
        return len(self._records) + self._types_count < self.max_pages

    def record(
        self,
        key: K,
        features: Features,
        site: str | None,
        held: bool = False,
        owed: bool = False,
    ) -> bool:
        """Remember a page turned away while its site is young; False when it is not recorded
        (the site is past its young pages, or the bound is reached). ``held``: it passed, on
        a verdict that does not hold yet (``SiteAwareClassifier.holds``). ``owed``: held from
        a spider that must get every page with its verdict (tag mode), so it is due again
        whatever its new verdict."""
        if self.classifier is None or not self.classifier.is_young(site):
            self.settled += 1
            return False
        if not self.has_room():
            self.over += 1
            return False
        self._records.append(_TurnedAway(key, site, pack_features(features), held or owed, owed))
        self._waiting[site] += 1
        self.held += held or owed
        return True

    def waiting_held(self) -> int:
        """Held pages not looked at yet: lost to the spider if the crawl ends before it runs
        dry (a shutdown, a CLOSESPIDER_* limit)."""
        return sum(record.held for record in self._records)

    def _wanted(self, verdict: Verdict) -> bool:
        label = verdict.label
        return label is not None and (not self.targets or label in self.targets)

    def due(self) -> list[tuple[K, Verdict]]:
        """Decide every recorded page again (learning nothing) and forget them all; returns
        the pages that now pass and the pages owed, oldest first. A site the classifier has
        forgotten since (see ``max_sites``) starts again from its templates: its pages are
        skipped, but for those owed, which are decided as its new pages are."""
        records, self._records = self._records, []
        self._waiting.clear()
        return self._decide(records)

    def waits_on(self, site: str | None) -> bool:
        """Whether ``site`` has pages recorded and not looked at yet (constant time: asked for
        every page a crawl decides)."""
        return self._waiting.get(site, 0) > 0

    def due_on(self, site: str | None) -> list[tuple[K, Verdict]]:
        """:meth:`due` for one site's pages only: once a site is past its young pages its
        cut has settled, and a long crawl need not run dry before its pages get their look."""
        if not self.waits_on(site):
            return []
        mine = [record for record in self._records if record.site == site]
        self._records = [record for record in self._records if record.site != site]
        del self._waiting[site]
        return self._decide(mine)

    def _decide(self, records: list[_TurnedAway[K]]) -> list[tuple[K, Verdict]]:
        self.last_looked = [(record.key, record.owed) for record in records]
        if self.classifier is None:
            return []
        known = set(self.classifier.sites())
        for site in {record.site for record in records} & known:
            self.classifier.catch_up(site)
        out: list[tuple[K, Verdict]] = []
        for record in records:
            if record.site not in known and not record.owed:
                continue
            self.looked += 1
            features = unpack_features(record.packed)
            verdict = self.classifier.classify(features, site=record.site, learn=False)
            wanted = self._wanted(verdict)
            self.passed += wanted
            if wanted or record.owed:
                out.append((record.key, verdict))
        return out

    # -- pages held for their discovered type ------------------------------------------------

    def hold_for_type(self, key: K, site: str | None, leader: int | None) -> bool:
        """Hold a page until its leader's discovered type is settled; False when the bound
        is reached (the page is not held: it would be lost)."""
        if not self.has_room():
            self.over += 1
            return False
        self._types_waiting.setdefault(site, {}).setdefault(leader, []).append(key)
        self._types_count += 1
        self.types_held += 1
        return True

    def types_waiting(self) -> int:
        """Pages held for their discovered type and not due yet."""
        return self._types_count

    def types_wait_on(self, site: str | None) -> bool:
        """Whether ``site`` has pages held for their type (constant time: asked per page)."""
        return site in self._types_waiting

    def types_due_on(
        self, site: str | None, settled: Settled, label_now: LabelNow
    ) -> list[tuple[K, TypeSettled]]:
        """The site's held pages whose leader's type is now ``settled``, each owed with the
        label of that type (``label_now``), oldest leader first; they are forgotten. One
        question per leader, not per page: a site's leaders are few."""
        leaders = self._types_waiting.get(site)
        if not leaders:
            return []
        done = [leader for leader in leaders if settled(leader)]
        due = [(leader, leaders.pop(leader)) for leader in done]
        if not leaders:
            del self._types_waiting[site]
        return self._type_labels(due, label_now)

    def types_due(self, label_now: LabelNow) -> list[tuple[K, TypeSettled]]:
        """Every held page, owed with its leader's label now (the crawl ran dry: its types
        are the ones it ends with)."""
        due = [pair for leaders in self._types_waiting.values() for pair in leaders.items()]
        self._types_waiting.clear()
        return self._type_labels(due, label_now)

    def _type_labels(
        self, due: list[tuple[int | None, list[K]]], label_now: LabelNow
    ) -> list[tuple[K, TypeSettled]]:
        out = [(key, TypeSettled(label_now(leader))) for leader, keys in due for key in keys]
        self._types_count -= len(out)
        self.types_due_count += len(out)
        self.last_looked = [(key, True) for key, _ in out]
        return out
