"""Crawl fleets: the Scrapy side of sharing pagesim's learned state between crawl processes.

With ``PAGESIM_STATE_URL`` (or scrapy-redis's ``REDIS_URL``) set, the downloader middleware
starts a :class:`~pagesim_scrapy.core.state.sync.FleetSync` for its site models, discovered
types and relevance counts (:func:`start_fleet_sync`), and the induction pipeline keeps its
wrappers and the records' signature memory in the same Redis (:class:`SharedWrapperStore`),
and the layout-change alarm its drift looks (:class:`SharedDriftLooks`). Without the ``redis``
package, or with a server that cannot be reached, the crawl goes on with its own state after
one ERROR.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pagesim_scrapy.core.drift import DriftBaseline, baseline_text, parse_baseline
from pagesim_scrapy.core.induce.wrapper import Wrapper
from pagesim_scrapy.core.record.signatures import SignatureMemory, memory_text, parse_memory
from pagesim_scrapy.core.state import SharedState, StateUnavailable, open_shared_state
from pagesim_scrapy.core.state.sync import FleetSync
from pagesim_scrapy.core.statefile import StateFormatError
from pagesim_scrapy.settings import DEFAULTS, PageSimConfig, shared_state_url

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from typing_extensions import Self

    from pagesim_scrapy.core.cluster import OnlineDiscovery
    from pagesim_scrapy.core.content import ContentScorer
    from pagesim_scrapy.core.decide import Classifier
    from pagesim_scrapy.core.summary import SummaryOptions

logger = logging.getLogger(__name__)

STATS_PREFIX = "pagesim/state"


def open_state(config: PageSimConfig, stats: StatsCollector) -> SharedState | None:
    """The shared state of ``config`` (None without a URL, or when it cannot be used: then
    one ERROR and the ``pagesim/state/unavailable`` stat)."""
    if config.state_url is None:
        return None
    try:
        return open_shared_state(
            config.state_url, prefix=config.state_prefix, timeout=config.state_timeout
        )
    except ImportError:
        logger.error(
            "pagesim: PAGESIM_STATE_URL/REDIS_URL is set but the redis package is missing "
            '(pip install "pagesim-scrapy[redis]"); this worker keeps its state to itself'
        )
    except ValueError as exc:
        logger.error("pagesim: cannot use the shared state: %s", exc)
    stats.inc_value(f"{STATS_PREFIX}/unavailable")
    return None


def start_fleet_sync(
    config: PageSimConfig,
    stats: StatsCollector,
    *,
    classifier: Classifier | None,
    discovery: OnlineDiscovery | None,
    content: ContentScorer | None,
) -> FleetSync | None:
    """Share the worker's site models, discovered types and relevance counts through the
    configured state; None when no state is configured or it cannot be used."""
    from pagesim_scrapy.core.decide import site_classifier

    state = open_state(config, stats)
    if state is None:
        return None

    def count(name: str, amount: int) -> None:
        stats.inc_value(f"{STATS_PREFIX}/{name}", amount)

    sites = site_classifier(classifier)  # only the site-aware classifier learns sites
    keep_pages = sites.keep_pages if sites is not None else 0
    sync = FleetSync(
        state,
        interval=config.state_sync_interval,
        batch=config.state_sync_pages,
        keep_pages=keep_pages,
        count=count,
    )
    if sites is not None:
        sync.attach_classifier(sites)
    if discovery is not None:
        sync.attach_discovery(discovery)
    if content is not None and content.learn:
        sync.attach_terms(content.df)
    sync.start()
    logger.info(
        "pagesim: sharing learned state with the crawl fleet at %s (prefix %s, sync every "
        "%.1f s or %d pages)",
        state.location,
        config.state_prefix,
        config.state_sync_interval,
        config.state_sync_pages,
    )
    return sync


def stop_fleet_sync(sync: FleetSync, stats: StatsCollector) -> None:
    """Push what is left and record the round trips made."""
    sync.stop()
    stats.set_value(f"{STATS_PREFIX}/round_trips", getattr(sync.state, "round_trips", 0))
    sync.state.close()


class SharedWrapperStore:
    """A wrapper store (``PAGESIM_INDUCTION_STORE``) in the fleet's shared state: every worker
    starts from the fleet's wrapper of a label, and a save over a version another worker
    saved meanwhile pools both with ``Wrapper.merge()``. Chosen automatically when
    ``PAGESIM_STATE_URL`` or ``REDIS_URL`` is set and ``PAGESIM_INDUCTION_STORE`` is left at
    its default."""

    def __init__(self, state: SharedState) -> None:
        self.state = state
        self._versions: dict[str, int] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        url = shared_state_url(settings)
        if url is None:
            raise ValueError("SharedWrapperStore needs PAGESIM_STATE_URL or REDIS_URL")
        state = open_shared_state(
            url,
            prefix=str(settings.get("PAGESIM_STATE_PREFIX") or DEFAULTS["PAGESIM_STATE_PREFIX"]),
            timeout=settings.getfloat("PAGESIM_STATE_TIMEOUT", DEFAULTS["PAGESIM_STATE_TIMEOUT"]),
        )
        return cls(state)

    def load(self, label: str) -> Wrapper | None:
        wrapper, version = self.state.load_wrapper(label)
        self._versions[label] = version
        return wrapper

    def save(self, label: str, wrapper: Wrapper) -> None:
        self._versions[label] = self.state.save_wrapper(
            label, wrapper, self._versions.get(label, 0)
        )

    def load_signatures(self) -> SignatureMemory | None:
        """The fleet's signature memory (None: none saved yet); a stored one that cannot be
        read raises :class:`~pagesim_scrapy.core.statefile.StateFormatError` (the pipeline
        logs it and starts afresh; the next save replaces it)."""
        text = self.state.load_document(SIGNATURES_DOCUMENT)
        return None if text is None else parse_memory(text)

    def save_signatures(self, memory: SignatureMemory) -> None:
        """Add ``memory``'s votes to the fleet's (another worker's save meanwhile is kept: a
        vote is a set of sites, and the union loses none)."""

        def update(stored_text: str | None) -> str:
            return memory_text(pooled_memory(stored_text, memory))

        self.state.update_document(SIGNATURES_DOCUMENT, update)


#: the fleet's signature memory, a document of the shared state
SIGNATURES_DOCUMENT = "signatures"


def pooled_memory(stored_text: str | None, mine: SignatureMemory) -> SignatureMemory:
    """``mine`` with the votes of the stored memory added (an unreadable stored memory is
    replaced by ``mine``)."""
    if stored_text is None:
        return mine
    try:
        pooled = parse_memory(stored_text)
    except StateFormatError:
        return mine
    pooled.min_sites = mine.min_sites
    for page_type, key, name, sites in mine.to_dict()["votes"]:
        for site in sites:
            pooled.learn(site, page_type, {name: [key]})
    return pooled


class SharedDriftLooks:
    """The layout-change alarm's looks in the fleet's shared state: every worker compares its
    pages with the looks the fleet saved, and at close saves the (site, label)s it met (with
    WATCH/MULTI: another worker's save meanwhile is kept). A worker sees only its share of a
    site's pages, so a (site, label) needs its ``min_pages`` on one worker for a verdict."""

    def __init__(self, state: SharedState, options: SummaryOptions) -> None:
        self.state = state
        self.options = options
        self.location = f"the fleet's shared state at {state.location}"

    @classmethod
    def open(
        cls, config: PageSimConfig, stats: StatsCollector, options: SummaryOptions
    ) -> SharedDriftLooks | None:
        state = open_state(config, stats)
        return None if state is None else cls(state, options)

    def load(self) -> DriftBaseline | None:
        """The fleet's looks (None: none saved yet, or they cannot be read: one ERROR)."""
        try:
            text = self.state.load_drift()
            return None if text is None else parse_baseline(text, self.options)
        except (StateUnavailable, ValueError) as exc:  # ValueError: not JSON, wrong form
            logger.error("pagesim: cannot read the fleet's drift looks, starting afresh: %s", exc)
            return None

    def save(
        self,
        mine: DriftBaseline,
        looks: Iterable[tuple[str | None, str]],
        fields: Iterable[tuple[str | None, str]],
    ) -> bool:
        """Save the ``looks`` and ``fields`` (site, label)s of ``mine`` over the fleet's."""
        looks, fields = list(looks), list(fields)

        def update(stored_text: str | None) -> str:
            stored = None
            if stored_text is not None:
                try:
                    stored = parse_baseline(stored_text, self.options)
                except ValueError:
                    stored = None  # unreadable: this worker's looks replace it
            merged = mine if stored is None else stored.overlay(mine, looks, fields)
            return baseline_text(merged, self.options)

        try:
            self.state.update_drift(update)
            return True
        except StateUnavailable as exc:
            logger.error("pagesim: cannot save the drift looks to the fleet's state: %s", exc)
            return False
        finally:
            self.state.close()
