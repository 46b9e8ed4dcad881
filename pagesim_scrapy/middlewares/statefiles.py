"""The state files a crawl continues from: the site models, the discovered page types and the
looks the layout-change alarm compares with.

Both live in the project's data dir (``.scrapy/``) unless a setting names a file. A file that
cannot be used is moved aside with one ERROR and the crawl starts afresh; it is written anew
at close.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy.utils.project import data_path

from pagesim_scrapy.core.decide import site_classifier
from pagesim_scrapy.core.drift import DriftBaseline, baseline_text, parse_baseline
from pagesim_scrapy.core.sitefile import MAX_SITES as SITE_MODELS_MAX_SITES
from pagesim_scrapy.core.sitefile import parse_site_models, site_models_text
from pagesim_scrapy.core.statefile import (
    CorruptStateError,
    read_state,
    remove_stale_temp_files,
    write_atomic,
)
from pagesim_scrapy.middlewares.meta import LOGGER_NAME

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from pagesim_scrapy.core.cluster import OnlineDiscovery
    from pagesim_scrapy.core.decide import Classifier
    from pagesim_scrapy.core.site import SavedSite
    from pagesim_scrapy.core.summary import SummaryOptions
    from pagesim_scrapy.settings import PageSimConfig

logger = logging.getLogger(LOGGER_NAME)

_T = TypeVar("_T")

#: Where discovered page types are kept when PAGESIM_DISCOVERY_FILE is not set (in the
#: project's data dir, ``.scrapy/``).
DEFAULT_DISCOVERY_FILE = "pagesim/discovery.json"
DEFAULT_SITE_MODELS_FILE = "pagesim/sites.json"
DEFAULT_DRIFT_FILE = "pagesim/drift.json"


class StateFiles:
    """Load the state files when pagesim starts and save them at close."""

    def __init__(
        self, stats: StatsCollector, options: SummaryOptions, crawler: Crawler | None = None
    ) -> None:
        self.stats = stats
        self.options = options
        self.crawler = crawler
        self.discovery_path: Path | None = None
        #: where the site models are saved at close (None: not saved)
        self.site_models_path: Path | None = None
        #: where the drift looks are saved at close (None: not saved)
        self.drift_path: Path | None = None

    # -- discovered page types ---------------------------------------------------------------

    def start_discovery(self, config: PageSimConfig) -> OnlineDiscovery:
        """The online discovery, continuing from the saved types when there are some.

        The discovery summarises with the classifier's options, so one summary per response
        serves both. An unreadable file is logged and replaced at close.
        """
        path = Path(config.discovery_file or data_path(DEFAULT_DISCOVERY_FILE))
        self.discovery_path = path
        arguments: dict[str, Any] = {
            "method": config.discovery_method,
            "method_params": None,
            "threshold": config.discovery_threshold,
            "closeness": config.discovery_closeness,
            "max_clusters": config.discovery_max_clusters,
            "options": self.options,
        }
        discovery: OnlineDiscovery | None = self.load_discovery(path, arguments)
        if discovery is not None:
            logger.info(
                "pagesim: continuing page-type discovery with %d types from %s",
                len(discovery),
                path,
            )
            return discovery
        from pagesim_scrapy.core.cluster import OnlineDiscovery

        return OnlineDiscovery(**arguments)

    def load_discovery(self, path: Path, arguments: dict[str, Any]) -> OnlineDiscovery | None:
        """The saved discovery, or None (see :meth:`read`)."""
        # the clustering (datasketch, numpy) loads only where discovery is on
        from pagesim_scrapy.core.cluster import OnlineDiscovery

        return self.read(
            path,
            lambda text: OnlineDiscovery.from_json(text, name=str(path), **arguments),
            "discovered page types",
        )

    def save_discovery(self, discovery: OnlineDiscovery) -> None:
        if self.discovery_path is None:
            return
        try:
            discovery.save(self.discovery_path)
        except OSError as exc:
            logger.error(
                "pagesim: cannot save the discovered page types to %s: %s",
                self.discovery_path,
                exc,
            )
        else:
            logger.info("pagesim: discovered page types saved to %s", self.discovery_path)

    # -- site models -------------------------------------------------------------------------

    def load_site_models(self, config: PageSimConfig, classifier: Classifier | None) -> None:
        """Start the sites from what the last crawl learned about them (method ``site``, no
        fleet: a fleet keeps its site models in Redis). A file that cannot be used is moved
        aside with one ERROR and the crawl learns its sites afresh; one summarised with other
        options is ignored with an INFO line and replaced at close."""
        sites = site_classifier(classifier)
        if sites is None or not config.site_models_save or config.state_url is not None:
            return
        path = Path(config.site_models_file or data_path(DEFAULT_SITE_MODELS_FILE))
        self.site_models_path = path
        saved = self.read(path, site_models_parser(self.options, path), "site models")
        if not saved:
            return
        # this spider's pages without a host (file://) were saved under its name; other
        # spiders' stay under theirs, which no page's site matches, and are saved back as read
        # (an entry without a name, from an older file, is every spider's: left out)
        own = self.hostless_name()
        saved = [
            replace(site, site="") if site.site == own else site for site in saved if site.site
        ]
        if not saved:
            return
        sites.adopt_saved(saved)
        self.stats.set_value("pagesim/site_models/loaded", len(saved))
        logger.info(
            "pagesim: starting %d site(s) from the site models saved in %s", len(saved), path
        )

    def save_site_models(self, classifier: Classifier | None) -> None:
        """Save the site models where they were loaded from (when they were)."""
        sites = site_classifier(classifier)
        path = self.site_models_path
        if sites is None or path is None:
            return
        own = self.hostless_name()
        exported = [
            replace(site, site=own) if not site.site else site for site in sites.export_sites()
        ]
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, site_models_text(exported, self.options))
        except OSError as exc:
            logger.error("pagesim: cannot save the site models to %s: %s", path, exc)
            self.stats.inc_value("pagesim/state/save_errors")
            return
        count = min(len(exported), SITE_MODELS_MAX_SITES)
        self.stats.set_value("pagesim/site_models/saved", count)
        logger.info("pagesim: site models of %d site(s) saved to %s", count, path)

    # -- drift looks -------------------------------------------------------------------------

    def load_drift_baseline(self, config: PageSimConfig) -> DriftBaseline | None:
        """The looks the last crawl saved, or None (a first crawl; a file that cannot be used
        is moved aside with one ERROR; one summarised with other options is ignored)."""
        path = Path(config.drift_file or data_path(DEFAULT_DRIFT_FILE))
        self.drift_path = path
        return self.read(path, lambda text: parse_baseline(text, self.options), "drift looks")

    def save_drift_baseline(self, baseline: DriftBaseline) -> Path | None:
        """Save the looks for the next crawl; where, or None when they could not be saved."""
        path = self.drift_path
        if path is None:
            return None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, baseline_text(baseline, self.options))
        except OSError as exc:
            logger.error("pagesim: cannot save the drift looks to %s: %s", path, exc)
            self.stats.inc_value("pagesim/state/save_errors")
            return None
        return path

    def hostless_name(self) -> str:
        """The name this spider's pages without a host are saved under: file:// pages of one
        spider and of another (the demo shop, a snapshot of a blog) are not one site."""
        spider = getattr(self.crawler, "spider", None) if self.crawler is not None else None
        return f"(pages without a host: {getattr(spider, 'name', None) or 'spider'})"

    # -- reading -----------------------------------------------------------------------------

    def read(self, path: Path, parse: Callable[[str], _T], what: str) -> _T | None:
        """A state file saved by an earlier crawl, parsed; None when there is none or it cannot
        be used: then one ERROR names the file and the reason, a corrupt file is moved aside to
        ``<name>.corrupt`` and counted in ``pagesim/state/corrupt``, and the crawl starts
        afresh. Stale temporary files of interrupted saves are removed first."""
        removed = remove_stale_temp_files(path.parent, lambda name: name == path.name)
        if removed:
            logger.info(
                "pagesim: removed %d stale temporary %s file(s) left by an interrupted save in %s",
                len(removed),
                what,
                path.parent,
            )
            self.stats.inc_value("pagesim/state/stale_temp_removed", len(removed))
        try:
            return read_state(path, parse)
        except CorruptStateError as exc:
            logger.error(
                "pagesim: cannot use the %s, starting afresh (the file is written anew at "
                "close): %s",
                what,
                exc,
            )
            self.stats.inc_value("pagesim/state/corrupt")
        except OSError as exc:
            logger.error("pagesim: cannot read the %s in %s, starting afresh: %s", what, path, exc)
            self.stats.inc_value("pagesim/state/unreadable")
        return None


def site_models_parser(options: SummaryOptions, path: Path) -> Callable[[str], list[SavedSite]]:
    """The parser of a site models file: no sites when they were summarised with other
    options (with an INFO line)."""

    def parse(text: str) -> list[SavedSite]:
        sites = parse_site_models(text, options)
        if sites is None:
            logger.info(
                "pagesim: the site models in %s were learned with other summary options "
                "(PAGESIM_MAX_NODES, PAGESIM_MAX_DEPTH...); learning the sites afresh",
                path,
            )
            return []
        return sites

    return parse
