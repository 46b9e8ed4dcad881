"""Keep a worker's local models and a fleet's shared state in step, off the hot path.

A page is classified against the worker's local site model, as without a fleet; the page's
features are added to a local delta (a Counter update under the classifier's lock, no I/O).
A background thread pushes the deltas every ``interval`` seconds, or sooner when ``batch``
pages are waiting or a site is seen for the first time, in one Redis pipeline, and then pulls
the fleet's totals of the sites that others changed and swaps them into the local models. So:

* no page waits for Redis; a page is decided on the fleet's counts as they were at most about
  one ``interval`` (plus one round trip) ago, missing at most: each other worker's pages not
  pushed yet (``batch`` pages or ``interval`` seconds' worth), and, on a site of more than 100
  pages, others' pages up to 1 % of the site (a site is pulled again once others pushed 1 % of
  its pages, as the weights are only rebuilt per 1 % of growth anyway): that is the staleness
  bound;
* a worker killed with SIGKILL loses only its own unpushed deltas; everything in Redis was
  written by atomic additions (HINCRBY, INCRBY, LPUSH + LTRIM), so it is always valid;
* when Redis cannot be reached, one ERROR is logged, every failed sync counted, the deltas are
  kept (merged into the next push) and the crawl goes on with its local models; an INFO line
  says when the state is reachable again.

Discovered types are published and pulled at the same pace; label numbers are reserved in
blocks, so two workers never give one label to two types.

A recurring crawl of the fleet meets mostly the same pages again. Counted in full, each page's
one-off features would be on two pages after the second crawl, on eight after the eighth, and
weigh as what a page type shares. So each worker signs in at start (and gives a sign of life
with its syncs); the first worker of a crawl, the one that finds no other at work, multiplies
the fleet's site models by SAVED_SITE_WEIGHT before any page is pushed, as a crawl without a
fleet weighs the site models saved by the last one. Framework-free: no Scrapy import.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pagesim_scrapy.core.content.tfidf import DocumentFrequencies
from pagesim_scrapy.core.site import Features, pack_features, unpack_features
from pagesim_scrapy.core.siteaware import SAVED_SITE_WEIGHT, SiteAwareClassifier
from pagesim_scrapy.core.state import (
    CRAWL_AGING,
    CRAWL_NEW,
    SharedState,
    SiteDelta,
    StateUnavailable,
    TermCounts,
)

if TYPE_CHECKING:
    from pagesim_scrapy.core.cluster.discovery import OnlineDiscovery

logger = logging.getLogger(__name__)

#: A counter callback: (stat name without the ``pagesim/state/`` prefix, amount).
Count = Callable[[str, int], None]


def _no_count(name: str, amount: int) -> None:
    pass


#: A worker not heard from for this long (or ten sync intervals, if longer) has stopped: when
#: no other worker is left, the next one to start begins a new crawl of the fleet.
STALE_AFTER = 120.0

#: How long a worker that joins a crawl waits at most for its first worker to age the site
#: models (a few milliseconds per site).
AGEING_WAIT = 30.0


class FleetSync:
    """Pushes a worker's learned deltas to ``state`` and pulls the fleet's totals back.

    Attach the models to share (:meth:`attach_classifier`, :meth:`attach_terms`,
    :meth:`attach_discovery`), then :meth:`start`; :meth:`stop` pushes what is left.
    ``count`` receives the counters (``syncs``, ``errors``, ``pushed_pages``, ...).
    """

    def __init__(
        self,
        state: SharedState,
        *,
        interval: float = 1.0,
        batch: int = 50,
        keep_pages: int = 300,
        count: Count | None = None,
        stale_after: float | None = None,
    ) -> None:
        if interval <= 0:
            raise ValueError("the sync interval must be > 0")
        if batch < 1:
            raise ValueError("the sync batch must be >= 1")
        self.state = state
        self.interval = interval
        self.batch = batch
        self.keep_pages = keep_pages
        self.count = count or _no_count
        self.classifier: SiteAwareClassifier | None = None
        self.terms: DocumentFrequencies | None = None
        self.discovery: OnlineDiscovery | None = None
        self._lock = threading.Lock()  # guards the pending deltas
        self._sites: dict[str, SiteDelta] = {}
        self._pending_pages = 0
        self._terms = TermCounts()
        self._new_sites: set[str] = set()
        #: per site, the fleet's page count when last adopted (pulled again only when it moved)
        self._fleet_pages: dict[str, int] = {}
        self._published: set[str] = set()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._sync_lock = threading.Lock()  # one sync at a time (the thread, or stop())
        self.reachable = True
        self.syncs = 0
        #: this worker's name in the fleet's crawl (see :meth:`start`)
        self.worker = uuid.uuid4().hex
        if stale_after is None:
            stale_after = max(STALE_AFTER, 10 * interval)
        self.stale_after = stale_after
        self._joined = False
        self._last_sign = 0.0

    # -- what is shared --------------------------------------------------------------------

    def attach_classifier(self, classifier: SiteAwareClassifier) -> None:
        self.classifier = classifier
        classifier.learn_listener = self._site_learned

    def attach_terms(self, terms: DocumentFrequencies) -> None:
        self.terms = terms
        terms.add_listener = self._terms_added

    def attach_discovery(self, discovery: OnlineDiscovery) -> None:
        self.discovery = discovery

    # -- hot path (under the model's own lock; no I/O) -------------------------------------

    def _site_learned(self, site: str | None, features: Features) -> None:
        if site is None:
            return
        with self._lock:
            delta = self._sites.get(site)
            if delta is None:
                delta = self._sites[site] = SiteDelta()
                if site not in self._fleet_pages:
                    self._new_sites.add(site)
                    self._wake.set()  # start from what the fleet knows of the site, soon
            delta.pages += 1
            delta.df.update(features)
            if self.keep_pages:
                delta.kept.append(pack_features(features))
                if len(delta.kept) > self.keep_pages:
                    del delta.kept[0]
            self._pending_pages += 1
            if self._pending_pages >= self.batch:
                self._wake.set()

    def _terms_added(self, terms: set[str]) -> None:
        with self._lock:
            self._terms.documents += 1
            self._terms.df.update(terms)
            self._pending_pages += 1
            if self._pending_pages >= self.batch:
                self._wake.set()

    # -- the sync thread -------------------------------------------------------------------

    def start(self) -> None:
        """Reserve labels for new types and pull the fleet's types and counts (bounded by the
        store's timeout), then sync in a daemon thread."""
        self._first_sync()
        self._thread = threading.Thread(target=self._run, name="pagesim-fleet-sync", daemon=True)
        self._thread.start()

    def join_crawl(self) -> str:
        """Sign this worker in to the fleet's crawl; the first worker of a crawl ages the
        fleet's site models (see the module docstring), a later one waits until that is done.
        Returns what :meth:`SharedState.join_crawl` found."""
        found = self.state.join_crawl(self.worker, self.stale_after)
        self._joined = True
        self._last_sign = time.monotonic()
        if found == CRAWL_NEW:
            aged = self.state.age_sites(SAVED_SITE_WEIGHT)
            if aged:
                self.count("aged_sites", aged)
                logger.info(
                    "pagesim: a new crawl of the fleet: the site models of %d site(s) learned "
                    "by earlier crawls now count %.2f times",
                    aged,
                    SAVED_SITE_WEIGHT,
                )
        elif found == CRAWL_AGING:
            deadline = time.monotonic() + AGEING_WAIT
            while self.state.ageing() and time.monotonic() < deadline:
                time.sleep(0.1)
        return found

    def _sign_of_life(self) -> None:
        if self._joined and time.monotonic() - self._last_sign >= self.stale_after / 4:
            self.state.heartbeat(self.worker)
            self._last_sign = time.monotonic()

    def _first_sync(self) -> None:
        discovery = self.discovery
        try:
            self.join_crawl()
            if discovery is not None:
                first = self.state.reserve_type_numbers(discovery.max_clusters)
                discovery.reserve_numbers(first, discovery.max_clusters)
            self._pull_types()
            self._pull_terms()
        except StateUnavailable as exc:
            self._failed(exc)
        else:
            self._succeeded()

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(self.interval)
            self._wake.clear()
            if self._stopping.is_set():
                break
            self.sync_once()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread, push what is left (one last sync) and sign out of the crawl."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self.sync_once(pull=False)
        if self._joined:
            try:
                self.state.leave_crawl(self.worker)
            except StateUnavailable as exc:
                self._failed(exc)
            self._joined = False

    def sync_once(self, *, pull: bool = True) -> bool:
        """Push the deltas, then pull what the fleet changed; False when the state could not
        be reached (the deltas are kept for the next push)."""
        with self._sync_lock:
            with self._lock:
                sites, self._sites = self._sites, {}
                terms, self._terms = self._terms, TermCounts()
                new_sites, self._new_sites = self._new_sites, set()
                self._pending_pages = 0
            try:
                self.state.push_sites(sites, self.keep_pages)
            except StateUnavailable as exc:
                self._restore(sites, terms, new_sites)
                self._failed(exc)
                return False
            try:
                self.state.push_terms(terms)
            except StateUnavailable as exc:
                self._restore({}, terms, set())
                self._failed(exc)
                return False
            pages = sum(delta.pages for delta in sites.values())
            if pages:
                self.count("pushed_pages", pages)
            for site, delta in sites.items():
                if site in self._fleet_pages:
                    self._fleet_pages[site] += delta.pages
            try:
                if pull:
                    self._pull_sites(new_sites)
                    if terms.documents or self.terms is not None:
                        self._pull_terms()
                self._publish_types()
                if pull:
                    self._pull_types()
                self._sign_of_life()
            except StateUnavailable as exc:
                self._failed(exc)
                return False
            self.syncs += 1
            self.count("syncs", 1)
            self._succeeded()
            return True

    def _restore(self, sites: dict[str, SiteDelta], terms: TermCounts, new: set[str]) -> None:
        """Put deltas that could not be pushed back in front of the newer ones."""
        with self._lock:
            for site, delta in sites.items():
                newer = self._sites.get(site)
                if newer is not None:
                    delta.add(newer, self.keep_pages)
                self._sites[site] = delta
            terms.documents += self._terms.documents
            terms.df.update(self._terms.df)
            self._terms = terms
            self._new_sites |= new

    def _pull_sites(self, new_sites: set[str]) -> None:
        classifier = self.classifier
        if classifier is None:
            return
        local = [site for site in classifier.sites() if isinstance(site, str)]
        fleet_pages = self.state.site_pages(local)
        # a site is pulled when this worker just met it, and again once others pushed 1 % of
        # its pages (at least one): the weights are only rebuilt per 1 % of growth anyway
        changed = []
        for site, pages in fleet_pages.items():
            known = self._fleet_pages.get(site)
            if site in new_sites or known is None or pages - known >= max(1, known // 100):
                changed.append(site)
        if not changed:
            return
        pulled = self.state.pull_sites(changed)
        for site, counts in pulled.items():
            try:
                for packed in counts.kept:
                    unpack_features(packed)
            except ValueError:
                self.count("corrupt", 1)
                logger.error(
                    "pagesim: the kept pages of %s in the shared state are corrupt; "
                    "they are not used",
                    site,
                )
                counts.kept = []
            with classifier.lock, self._lock:
                pending = self._sites.get(site)
                local_part = (
                    (pending.pages, pending.df, list(pending.kept)) if pending is not None else None
                )
                classifier.adopt_site(site, counts.pages, counts.df, counts.kept, local_part)
            self._fleet_pages[site] = counts.pages
        self.count("pulled_sites", len(pulled))

    def _pull_terms(self) -> None:
        terms = self.terms
        if terms is None:
            return
        fleet = self.state.pull_terms()

        def local() -> tuple[int, Counter[str]]:
            with self._lock:
                return self._terms.documents, Counter(self._terms.df)

        terms.adopt(fleet.documents, fleet.df, local)

    def _publish_types(self) -> None:
        discovery = self.discovery
        if discovery is None:
            return
        new = [rep for rep in discovery.representatives() if rep.label not in self._published]
        if not new:
            return
        added = self.state.publish_types(new, discovery.options, discovery.settings())
        self._published.update(rep.label for rep in new)
        if added:
            self.count("types_published", len(added))
        for label in sorted({rep.label for rep in new} - set(added)):
            logger.warning(
                "pagesim: discovered type %s is taken in the shared state by another type; "
                "this worker's one stays local",
                label,
            )
            self.count("type_conflicts", 1)

    def _pull_types(self) -> None:
        discovery = self.discovery
        if discovery is None:
            return
        known = set(discovery.counts())
        reps = self.state.pull_types(discovery.options, known)
        corrupt: list[str] = getattr(self.state, "corrupt_types", [])
        for label in corrupt:
            logger.error("pagesim: discovered type %s in the shared state is corrupt", label)
        if corrupt:
            self.count("corrupt", len(corrupt))
        if reps:
            discovery.add_representatives(reps)
            self._published.update(rep.label for rep in reps)
            self.count("types_pulled", len(reps))

    # -- reachability ----------------------------------------------------------------------

    def _failed(self, exc: Exception) -> None:
        self.count("errors", 1)
        if self.reachable:
            self.reachable = False
            logger.error(
                "pagesim: the shared state at %s cannot be reached; going on with this "
                "worker's local state and retrying every %.1f s: %s",
                self.state.location,
                self.interval,
                exc,
            )

    def _succeeded(self) -> None:
        if not self.reachable:
            self.reachable = True
            logger.info("pagesim: the shared state at %s is reachable again", self.state.location)

    def describe(self) -> dict[str, Any]:
        return {
            "location": self.state.location,
            "interval": self.interval,
            "batch": self.batch,
            "syncs": self.syncs,
            "reachable": self.reachable,
            "at": time.time(),
        }
