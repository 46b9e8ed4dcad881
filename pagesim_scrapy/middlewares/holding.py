"""Held pages, replays and the second look's requests: the Scrapy side of
:mod:`pagesim_scrapy.core.secondlook`.

A page turned away or held is recorded under its request; when its site's cut settles, or the
crawl runs dry, the pages due are requested again. A held page's response is kept in memory
(within :data:`HELD_RESPONSES_MAX_BYTES`) and replayed instead of being downloaded twice.
A page held for its discovered type (``PAGESIM_DISCOVERY_HOLD``) goes the same way, due once
its type is settled, with the label of that type.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.exceptions import IgnoreRequest
from scrapy.http import TextResponse

from pagesim_scrapy.core.decide import HOLD
from pagesim_scrapy.middlewares.meta import (
    FIRST_VERDICT_META_KEY,
    FLAG_PREFIX,
    LOGGER_NAME,
    META_KEY,
    OWED,
    REPLAY_META_KEY,
    SECOND_LOOK_META_KEY,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector

    from pagesim_scrapy.core.cluster import OnlineDiscovery
    from pagesim_scrapy.core.decide import Decision
    from pagesim_scrapy.core.secondlook import SecondLook

logger = logging.getLogger(LOGGER_NAME)

#: Held pages' responses kept at most, in body bytes (past it, a held page that passes on the
#: second look is downloaded again)
HELD_RESPONSES_MAX_BYTES = 64 * 2**20

#: The first verdict's keys a page requested again carries (see FIRST_VERDICT_META_KEY).
_FIRST_VERDICT_KEYS = ("label", "score", "cluster", "cluster_score")


def let_go_of_parse(response: Response) -> None:
    """Free the parsed tree and the decoded text of a response that will not reach the spider
    (a held page: its replay is a copy that parses again, if it passes; a dropped page).

    The exception that turns the page away refers, through its traceback's frames, to this
    response; such a cycle waits for Python's cyclic collector, which a crawl with a large
    long-lived state runs rarely, so each held page kept its lxml tree alive long after it was
    held (issue 32: a held crawl's peak RSS far above its held bodies). The response still
    works for whoever kept it (a ``response_received`` handler): ``response.text`` and
    ``response.selector`` decode and parse again on demand. Scrapy gives a request's errback
    only the exception (``IgnoreRequest`` carries no response), so nothing else reads it."""
    if isinstance(response, TextResponse):
        response._cached_selector = None
        response._cached_ubody = None


class HeldForSecondLook(IgnoreRequest):
    """A page held back until its site's cut has settled (the site past its young pages, or
    the crawl dry), when it reaches the spider with a settled verdict
    (``PAGESIM_HOLD_UNSETTLED``): a request's errback gets this first, and the page later, so
    an errback can tell it from a page that is lost."""


class HeldPages:
    """The pages recorded for the second look, the held pages' responses, and the requests
    that bring the pages due back (``second_look`` is set once pagesim has started)."""

    def __init__(self, stats: StatsCollector, crawler: Crawler | None = None) -> None:
        self.stats = stats
        self.crawler = crawler
        self.second_look: SecondLook[Request] | None = None
        #: the discovery whose pages are held until their type is settled, if any
        self.discovery: OnlineDiscovery | None = None
        #: the spider gets every page with its verdict (tag mode without item filtering)
        self.defer = False
        #: the responses of held pages (by id of their request), and those due again (by the
        #: token in their new request's meta), up to HELD_RESPONSES_MAX_BYTES
        self._held_responses: dict[int, Response] = {}
        self._replays: dict[int, Response] = {}
        self._held_bytes = 0
        self.requested_again = 0
        #: tokens of the kept responses of pages held for their discovered type
        self._type_replays: set[int] = set()

    # -- recording ---------------------------------------------------------------------------

    def record(self, request: Request, response: Response, decision: Decision) -> None:
        """Record a page for the second look; a held page's response is kept only then."""
        assert self.second_look is not None
        if decision.action == HOLD:
            let_go_of_parse(response)
        if decision.held_for_type:
            if self.second_look.hold_for_type(request, decision.site, decision.leader):
                self._keep(request, response)
            return
        recorded = self.second_look.record(
            request, decision.features, decision.site, held=decision.held, owed=decision.owed
        )
        if not recorded:
            return
        self.stats.inc_value("pagesim/second_look/recorded")
        if decision.held:
            self._keep(request, response)

    def _keep(self, request: Request, response: Response) -> None:
        """Keep a held page's response to replay it if it passes on the second look: the page
        is not downloaded twice. Without the label flag and the content encoding (its body is
        decoded already), within HELD_RESPONSES_MAX_BYTES."""
        size = len(response.body)
        if self._held_bytes + size > HELD_RESPONSES_MAX_BYTES:
            return
        headers = response.headers.copy()
        headers.pop(b"Content-Encoding", None)
        flags = [flag for flag in response.flags if not flag.startswith(FLAG_PREFIX)]
        self._held_responses[id(request)] = response.replace(headers=headers, flags=flags)
        self._held_bytes += size

    def replay(self, request: Request) -> Response | None:
        """A held page due again, from memory (None: download it)."""
        token = request.meta.get(REPLAY_META_KEY)
        if token is None:
            return None
        stored = self._replays.pop(token, None)
        if stored is None:
            return None
        self._held_bytes -= len(stored.body)
        if token in self._type_replays:
            self._type_replays.discard(token)
            self.stats.inc_value("pagesim/discovery/replayed")
        else:
            self.stats.inc_value("pagesim/second_look/replayed")
        return stored.replace(request=request)

    # -- looking again -----------------------------------------------------------------------

    def site_settled(self, site: str | None) -> None:
        """A site just past its young pages: its pages get their look now."""
        assert self.second_look is not None
        self.look_again(partial(self.second_look.due_on, site), f"{site}'s cut settled")

    def crawl_ran_dry(self) -> bool:
        """Look at every page recorded; whether any was requested again (then the crawl
        must not close yet)."""
        second_look = self.second_look
        if second_look is None:
            return False
        requested = self.types_settled(None, dry=True) if second_look.types_waiting() else 0
        if len(second_look):
            requested += self.look_again(second_look.due, "the crawl ran dry")
        return bool(requested)

    def types_settled(self, site: str | None, dry: bool = False) -> int:
        """Request again the held pages whose discovered type is settled now: on ``site``
        (after a decision there), or every one (``dry``: the crawl ran dry, its types
        regrouped first, so they are the ones it ends with). The number requested."""
        second_look, discovery = self.second_look, self.discovery
        engine = self.crawler.engine if self.crawler is not None else None
        if second_look is None or discovery is None or engine is None:
            return 0
        try:
            if dry:
                discovery.regroup()
                due = second_look.types_due(discovery.label_now)
            else:
                due = second_look.types_due_on(site, discovery.settled, discovery.label_now)
        except Exception:  # a bug here must not keep the crawl from closing
            logger.warning("pagesim: the held pages' types could not be settled", exc_info=True)
            return 0
        if not due:
            return 0
        logger.debug(
            "pagesim: %d pages held until their discovered type settled are given to the "
            "spider (%s)",
            len(due),
            "the crawl ran dry" if dry else f"{site}'s types regrouped",
        )
        labels = {id(request): settled.label for request, settled in due}
        requested = self._request_again(due, labels)
        self.stats.inc_value("pagesim/discovery/held_due", requested)
        return requested

    def look_again(self, look: Callable[[], list[tuple[Request, Any]]], why: str) -> int:
        """Take a second look (``look``: ``due`` or ``due_on``) and request the pages due
        again, a held page's from the response kept in memory; the number requested."""
        second_look = self.second_look
        engine = self.crawler.engine if self.crawler is not None else None
        if second_look is None or engine is None:
            return 0
        looked_before, passed_before = second_look.looked, second_look.passed
        try:
            due = look()
        except Exception:  # a bug here must not keep the crawl from closing
            logger.warning("pagesim: the second look failed", exc_info=True)
            return 0
        looked = second_look.looked - looked_before
        self.stats.inc_value("pagesim/second_look/looked", looked)
        self._log_look(why, looked, second_look.passed - passed_before, len(due))
        requested = self._request_again(due)
        self.stats.inc_value("pagesim/second_look/requested", requested)
        return requested

    def _request_again(
        self, due: list[tuple[Request, Any]], labels: dict[int, str | None] | None = None
    ) -> int:
        """Request the pages due again (``labels``: the settled discovered type of pages
        held for it, by request id); the number requested."""
        engine = self.crawler.engine if self.crawler is not None else None
        assert engine is not None
        owed, replays = self._sort_looked(due)
        requested = 0
        for request, _ in due:
            key = id(request)
            again = self._again(request, key in owed, replays.get(key))
            if labels is not None:
                self._relabel(again, labels[key])
            try:
                engine.crawl(again)
            except Exception:  # the engine is closing: the rest cannot be requested
                logger.warning("pagesim: cannot request %s again", request.url, exc_info=True)
                break
            requested += 1
        self.requested_again += requested
        return requested

    def _relabel(self, request: Request, label: str | None) -> None:
        """A page held for its discovered type comes back with the type settled for it."""
        first = request.meta.get(FIRST_VERDICT_META_KEY)
        if first is not None:
            first["cluster"] = label
        token = request.meta.get(REPLAY_META_KEY)
        if token is not None:
            self._type_replays.add(token)

    def _log_look(self, why: str, looked: int, passed: int, due: int) -> None:
        if self.defer:
            logger.info(
                "pagesim: second look (%s) at %d pages held while their site's cut settled: "
                "%d now pass under the sites' cuts; all are given to the spider with their "
                "verdicts now",
                why,
                looked,
                passed,
            )
        else:
            logger.info(
                "pagesim: second look (%s) at %d pages turned away: "
                "%d now pass under the sites' cuts and are requested again",
                why,
                looked,
                due,
            )

    def _sort_looked(self, due: list[tuple[Request, Any]]) -> tuple[set[int], dict[int, Response]]:
        """The pages the look took, forgotten: the ids of those owed, and the held responses
        of the pages due (the others' are let go)."""
        assert self.second_look is not None
        due_ids = {id(request) for request, _ in due}
        owed: set[int] = set()
        replays: dict[int, Response] = {}
        looked_at, self.second_look.last_looked = self.second_look.last_looked, []
        for request, was_owed in looked_at:
            key = id(request)
            if was_owed:
                owed.add(key)
            stored = self._held_responses.pop(key, None)
            if stored is not None and key in due_ids:
                replays[key] = stored
            elif stored is not None:
                self._held_bytes -= len(stored.body)
        return owed, replays

    def _again(self, request: Request, owed: bool, stored: Response | None) -> Request:
        """The request of a page due again: marked for its second look, with its first
        verdict, and the token of its kept response."""
        meta = {key: value for key, value in request.meta.items() if key != META_KEY}
        meta[SECOND_LOOK_META_KEY] = OWED if owed else True
        first = request.meta.get(META_KEY)
        if first is not None:
            meta[FIRST_VERDICT_META_KEY] = {key: first.get(key) for key in _FIRST_VERDICT_KEYS}
        if stored is not None:  # the token: the stored response's id, unique while kept
            self._replays[id(stored)] = stored
            meta[REPLAY_META_KEY] = id(stored)
        return request.replace(meta=meta, dont_filter=True)

    # -- closing -----------------------------------------------------------------------------

    def close(self, reason: str) -> None:
        """Count the pages the second look could not record, those turned away that it never
        looked at, and those held that never reached the spider (the crawl closed before it
        ran dry)."""
        if self.second_look is None:
            return
        if self.second_look.over:
            self.stats.set_value("pagesim/second_look/not_recorded", self.second_look.over)
        waiting = self.second_look.waiting_held()
        self._count_not_looked(len(self.second_look) - waiting, reason)
        types_waiting = self.second_look.types_waiting()
        if types_waiting:
            self.stats.set_value("pagesim/discovery/held_undelivered", types_waiting)
            logger.warning(
                "pagesim: %d pages held until their discovered type settled never reached "
                "the spider: the crawl closed (%s) before it ran dry",
                types_waiting,
                reason,
            )
        if waiting:
            self.stats.set_value("pagesim/second_look/held_undelivered", waiting)
            logger.warning(
                "pagesim: %d pages held for the second look never reached the spider: the "
                "crawl closed (%s) before it ran dry. Set PAGESIM_HOLD_UNSETTLED = False for "
                "crawls that are stopped early",
                waiting,
                reason,
            )

    def _count_not_looked(self, count: int, reason: str) -> None:
        """Pages turned away and recorded for the second look that never got it: a
        CLOSESPIDER_* limit or a shutdown ended the crawl before their site settled or the
        crawl ran dry, so some target pages among them may be lost."""
        if not count:
            return
        self.stats.set_value("pagesim/second_look/not_looked", count)
        logger.warning(
            "pagesim: %d pages turned away and recorded for the second look were never looked "
            "at again: the crawl closed (%s) before their site's cut settled or the crawl ran "
            "dry, so some target pages among them may be lost",
            count,
            reason,
        )
