"""One decision per page: its verdict, its discovered type, its content, and what the crawl
does with it (pass, drop or hold), without a framework.

A crawl layer (the Scrapy downloader middleware, another crawler, a notebook) summarises a
page and asks :class:`PageDecider`; the answer is a :class:`Decision` whose
:meth:`~Decision.as_meta` is the verdict a Scrapy callback reads as
``response.meta["pagesim"]``. The layer only translates it: meta, flags, stats, log lines, and
turning a page away or holding it. What kind of classifier is running (the site-aware one
learns sites, which can be saved, shared and looked at again) is asked through
:func:`site_classifier`, here in the core.

The offline callers decide through the same step: ``classify`` over a folder and a Spark job's
site with :meth:`PageDecider.decide_all` (the pages given are the site), ``explain`` and the
Spark job's pairwise measures with :meth:`PageDecider.decide_scores`; they print
:meth:`Decision.verdict_meta`, the verdict without the crawl's keys.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pagesim_scrapy.core.protocols import PageClassifier
from pagesim_scrapy.core.siteaware import SiteAwareClassifier

if TYPE_CHECKING:
    from pagesim_scrapy.core.cluster import OnlineDiscovery
    from pagesim_scrapy.core.content import ContentScorer
    from pagesim_scrapy.core.secondlook import SecondLook
    from pagesim_scrapy.core.summary import PageSummary
    from pagesim_scrapy.core.verdict import Verdict

#: A classifier built by :func:`~pagesim_scrapy.core.classify.build_classifier`.
Classifier = PageClassifier

#: What the crawl does with a page: let it through, turn it away, or hold it until its
#: site's cut (or, discovering, its type) has settled (it comes back through the second look).
PASS = "pass"
DROP = "drop"
HOLD = "hold"

#: How a page got its discovered type (``Decision.discovered``): carried over from its first
#: decision, joined to a known type, or founding a new one ("" without discovery).
CARRIED = "carried"
JOINED = "joined"
FOUNDED = "founded"


def site_classifier(classifier: object) -> SiteAwareClassifier | None:
    """``classifier`` when it learns per site (its site models can be saved, shared with a
    fleet and looked at again), else None: the one place that tells the kinds apart."""
    return classifier if isinstance(classifier, SiteAwareClassifier) else None


def explore_selected(url: str, fraction: float) -> bool:
    """Whether a dropped page is let through to explore: a stable hash of the URL decides."""
    if fraction <= 0.0:
        return False
    if fraction >= 1.0:
        return True
    return zlib.crc32(url.encode("utf-8", "surrogatepass")) < fraction * 4294967296.0


@dataclass(frozen=True)
class Decision:
    """What was decided for one page; :meth:`as_meta` is the verdict a crawl publishes.

    The classifier's fields (``margin`` to ``core``) are part of the verdict only when a
    classifier decided (``classified``); ``cluster`` and ``cluster_score`` only with discovery
    (``discovered``); ``main_text``, ``relevance``, ``held``, ``off_topic`` and ``explored``
    only when set.
    """

    label: str | None
    score: float
    scores: Mapping[str, float]
    method: str | None
    margin: float | None = None
    runner_up: str | None = None
    threshold: float | None = None
    threshold_source: str | None = None
    confidence: float | None = None
    core: bool = False
    #: why a page left with none got its label from its neighbours (a crawl's fill)
    filled: Mapping[str, Any] | None = None
    classified: bool = False
    cluster: str | None = None
    cluster_score: float | None = None
    discovered: str = ""
    #: held until its discovered type is settled (``PAGESIM_DISCOVERY_HOLD``), under its leader
    held_for_type: bool = False
    leader: int | None = field(default=None, compare=False)
    target: bool = False
    held: bool = False
    #: held from a spider that gets every verdict: due again whatever its new verdict
    owed: bool = False
    main_text: str | None = None
    relevance: float | None = None
    off_topic: bool = False
    explored: bool = False
    action: str = PASS
    #: to be recorded for the second look (under the crawl's own key for the page)
    record: bool = False
    #: decided again by the second look (already counted into its site)
    again: bool = False
    site: str | None = None
    features: Any = field(default=None, repr=False, compare=False)

    def verdict_meta(self) -> dict[str, Any]:
        """The classifier's verdict alone (label to ``core``), as the offline commands print
        it: no crawl keys (``target``, ``held`` ...), which mean nothing outside a crawl."""
        meta: dict[str, Any] = {
            "label": self.label,
            "score": self.score,
            "scores": dict(self.scores),
            "method": self.method,
        }
        if self.classified:
            meta.update(
                margin=self.margin,
                runner_up=self.runner_up,
                threshold=self.threshold,
                threshold_source=self.threshold_source,
                confidence=self.confidence,
                core=self.core,
            )
        if self.filled is not None:
            meta["filled"] = dict(self.filled)
        return meta

    def as_meta(self) -> dict[str, Any]:
        """The verdict as ``response.meta["pagesim"]`` holds it: the same keys, in the same
        order, under the same conditions as ever (exports and users read them)."""
        meta = self.verdict_meta()
        if self.discovered:
            meta.update(cluster=self.cluster, cluster_score=self.cluster_score)
        if self.held:
            meta["held"] = True
        meta["target"] = self.target
        if self.main_text is not None:
            meta["main_text"] = self.main_text
        if self.relevance is not None:
            meta["relevance"] = self.relevance
        if self.off_topic:
            meta["off_topic"] = True
        if self.explored:
            meta["explored"] = True
        return meta


@dataclass
class _Verdict:
    """The classifying step's outcome, before the crawl's modes are applied."""

    fields: dict[str, Any]
    features: Any = None
    unsettled: bool = False


class PageDecider:
    """Decide pages for a crawl: classify, discover, score content, then pass, drop or hold.

    ``drop``: pages of no target label are turned away (else tagged). ``defer``: the spider
    gets every page with its verdict (tag mode without item filtering), so an unsettled
    verdict either way waits for the second look. ``hold``: a young site's verdicts that may
    not last are held for the second look (with a ``second_look`` only). ``explore``: the
    share of dropped pages let through, chosen by URL. ``on_site_settled(site)`` is called
    when a site with pages waiting for the second look has just left its young pages.
    :meth:`hold_types` holds, when discovering without a classifier, the pages whose
    discovered type is not settled yet.
    """

    def __init__(
        self,
        classifier: Classifier | None,
        *,
        discovery: OnlineDiscovery | None = None,
        content: ContentScorer | None = None,
        second_look: SecondLook[Any] | None = None,
        targets: frozenset[str] = frozenset(),
        drop: bool = False,
        defer: bool = False,
        hold: bool = False,
        explore: float = 0.0,
        relevance_threshold: float | None = None,
        relevance_min_pages: int = 0,
        on_site_settled: Callable[[str | None], object] | None = None,
    ) -> None:
        self.classifier = classifier
        self.discovery = discovery
        self.content = content
        self.second_look = second_look
        self.targets = targets
        self.drop = drop
        self.defer = defer
        self.hold = hold
        self.explore = explore
        self.relevance_threshold = relevance_threshold
        self.relevance_min_pages = relevance_min_pages
        self.on_site_settled = on_site_settled
        #: pages given a relevance so far (the threshold applies from relevance_min_pages on)
        self.relevance_scored = 0
        #: hold pages whose discovered type is not settled (see hold_types)
        self.on_types_settled: Callable[[str | None], object] | None = None
        # the site-aware classifier's features go with the decision (the drift watch reads
        # them: one feature pass per page); the second look also needs its settled verdicts
        self._sites = site_classifier(classifier)
        self._looks_again = self._sites if second_look is not None else None

    def decide(
        self,
        summary: PageSummary,
        *,
        site: str | None,
        url: str,
        root: Any = None,
        html: str | bytes | None = None,
        again: bool = False,
        first: Mapping[str, Any] | None = None,
    ) -> Decision:
        """Decide one page (``root``: its parsed tree, for its content; ``html``: its text, kept
        with a new discovered type). ``again``: decided again by the second look, ``first``
        the label, score and cluster of its first decision."""
        verdict = self._classify(summary, site, again)
        fields = verdict.fields
        fields.update(self._discover(summary, site, url, html, first if again else None))
        self._notice_settled(site, again)
        self._notice_types_settled(site, again)
        target = self._is_target(fields["label"])
        held = fields.get("held_for_type", False) or (verdict.unsettled and self._holds(target))
        if held:
            target = False
        if target and self.content is not None:
            fields.update(self._score_content(root))
            target = not fields.get("off_topic", False)
        # a page of no target label is recorded for the second look where it would be lost
        # (an off-topic page keeps its label either way)
        lost = (
            self._looks_again is not None
            and not again
            and not target
            and not fields.get("off_topic", False)
        )
        action, record, explored = self._act(url, target, held, lost)
        return Decision(
            **fields,
            target=target,
            held=held,
            owed=held and (self.defer or fields.get("held_for_type", False)),
            explored=explored,
            action=action,
            record=record,
            again=again,
            site=site,
            features=verdict.features,
        )

    def hold_types(
        self, second_look: SecondLook[Any], on_settled: Callable[[str | None], object]
    ) -> bool:
        """Hold pages whose discovered type is not settled in ``second_look`` (discovery
        without a classifier only: the type is then the label the spider routes by);
        ``on_settled(site)`` is called after each decision on a site with pages held, to
        take those whose type has settled since. Whether holding is on."""
        if self.classifier is not None or self.discovery is None:
            return False
        self.second_look = second_look
        self.on_types_settled = on_settled
        return True

    def decide_all(self, pages: Iterable[Any], *, site: str | None = None) -> list[Decision]:
        """Batch form for offline callers (``classify`` over a folder, a Spark job's site):
        the pages given are the site, learned together, then each decided, exactly as the
        classifier's ``classify_all`` does. ``pages``: summaries, or a site method's
        features. Classification only: no discovery, content, holding or exploring."""
        classifier = self._classifier()
        return [self._offline(v, site) for v in classifier.classify_all(pages, site=site)]

    def decide_scores(
        self,
        scores: Mapping[str, float],
        *,
        site: str | None = None,
        features: Any = None,
    ) -> Decision:
        """A page's decision from its per-label ``scores`` computed elsewhere (a Spark
        worker, an explanation), with the thresholds as they stand: learns nothing.
        ``features``: the page's structural features, which the site method's core rule
        reads."""
        sites = site_classifier(self.classifier)
        if sites is not None:
            verdict = sites.decide(scores, site=site, features=features)
        else:
            verdict = self._classifier().decide(scores, site=site)
        return self._offline(verdict, site)

    def describe(self, site: str | None = None) -> dict[str, Any]:
        """The classifier's labels, template counts and thresholds on ``site``, for logs."""
        return self._classifier().describe(site)

    def _classifier(self) -> Classifier:
        if self.classifier is None:
            raise ValueError("this decider has no classifier to decide pages offline")
        return self.classifier

    def _offline(self, verdict: Verdict, site: str | None) -> Decision:
        """An offline decision: the verdict, whether its label is a target, pass or drop."""
        fields = _verdict_fields(verdict.as_dict())
        target = self._is_target(fields["label"])
        action = PASS if target or not self.drop else DROP
        return Decision(**fields, target=target, action=action, site=site)

    def _classify(self, summary: PageSummary, site: str | None, again: bool) -> _Verdict:
        sites = self._sites
        if sites is not None:
            # a page decided again is already counted into its site
            features = sites.features(summary)
            decided = sites.classify(features, site=site, learn=not again)
            decided, filled = sites.fill_from_kept(decided, features, site)
            unsettled = False
            if self._looks_again is not None and self.hold and not again:
                # tag mode: the spider sees the verdict either way, so either way it waits
                settles = sites.settled if self.defer else sites.holds
                unsettled = not settles(decided, site)
            fields = _verdict_fields(decided.as_dict())
            if filled is not None:
                fields["filled"] = filled.as_meta()
            return _Verdict(fields, features, unsettled)
        if self.classifier is not None:
            decided = self.classifier.classify(summary, site=site)
            return _Verdict(_verdict_fields(decided.as_dict()))
        return _Verdict({"label": None, "score": 0.0, "scores": {}, "method": None})

    def _discover(
        self,
        summary: PageSummary,
        site: str | None,
        url: str,
        html: str | bytes | None,
        first: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        """The page's discovered type: assigned (and learned) once, carried over after."""
        discovery = self.discovery
        if discovery is None:
            return {}
        if first is not None:
            cluster, cluster_score = first.get("cluster"), first.get("cluster_score")
            found: dict[str, Any] = {"discovered": CARRIED}
        else:
            page = discovery.discover(summary, source=url, html=html, site=site)
            cluster, cluster_score = page.label, page.score
            found = {"discovered": FOUNDED if page.is_new else JOINED}
            if not page.settled and self._holds_type():
                found.update(held_for_type=True, leader=page.leader)
        found.update(cluster=cluster, cluster_score=cluster_score)
        if self.classifier is None:  # discovery only: the discovered type is the label
            found.update(
                label=cluster,
                score=cluster_score,
                scores={cluster: cluster_score} if cluster is not None else {},
                method=discovery.method,
            )
        return found

    def _holds_type(self) -> bool:
        """Whether a page of an unsettled discovered type is held: with :meth:`hold_types`,
        while the second look has room to record it."""
        second_look = self.second_look
        return (
            self.on_types_settled is not None and second_look is not None and second_look.has_room()
        )

    def _notice_types_settled(self, site: str | None, again: bool) -> None:
        """After each decision on a site with pages held for their type: those whose type
        has settled since get their label now, not when the crawl runs dry."""
        second_look = self.second_look
        if self.on_types_settled is None or second_look is None or again:
            return
        if second_look.types_wait_on(site):
            self.on_types_settled(site)

    def _notice_settled(self, site: str | None, again: bool) -> None:
        """A site just past its young pages has a settled cut: its pages turned away or held
        get their look now, not when the crawl runs dry (a long crawl may not for hours, and
        a held page's links wait with it)."""
        second_look, sites = self.second_look, self._looks_again
        if second_look is None or sites is None or again or self.on_site_settled is None:
            return
        if second_look.waits_on(site) and not sites.is_young(site):
            self.on_site_settled(site)

    def _is_target(self, label: str | None) -> bool:
        if self.classifier is not None or self.targets:
            return label is not None and label in self.targets
        return label is not None  # discovery only, no targets: every discovered type

    def _holds(self, target: bool) -> bool:
        """Whether a page on an unsettled verdict is held: a target page (or in tag mode any
        page), while the second look has room to record it (a held page not recorded would
        be lost); its content is scored (and learned) when it comes back, once."""
        second_look = self.second_look
        return (target or self.defer) and second_look is not None and second_look.has_room()

    def _score_content(self, root: Any) -> dict[str, Any]:
        """A target page's main text and relevance; off-topic under the relevance threshold,
        once enough pages have been scored (the first pages' document frequencies give a flat
        idf)."""
        assert self.content is not None
        relevance, main_text = self.content.score(root)
        if self.content.query is None or relevance is None:
            return {"main_text": main_text}
        self.relevance_scored += 1
        threshold = self.relevance_threshold
        off_topic = (
            threshold is not None
            and relevance < threshold
            and self.relevance_scored >= self.relevance_min_pages
        )
        return {"main_text": main_text, "relevance": relevance, "off_topic": off_topic}

    def _act(self, url: str, target: bool, held: bool, lost: bool) -> tuple[str, bool, bool]:
        """(action, record for the second look, explored). A page ``lost`` is recorded where
        it is: its items dropped by the filter (tag mode), or the page itself (drop, not
        explored); a held page always is."""
        if held and (self.drop or self.defer or self.on_types_settled is not None):
            return HOLD, True, False
        if target or not self.drop:
            # the spider gets the page now; in tag mode without filtering that is final
            return PASS, lost and not self.defer, False
        if explore_selected(url, self.explore):
            return PASS, False, True
        return DROP, lost, False


def _verdict_fields(verdict: Mapping[str, Any]) -> dict[str, Any]:
    """A classifier verdict's ``as_dict()`` as :class:`Decision` fields."""
    return {**verdict, "classified": True}


__all__ = [
    "CARRIED",
    "DROP",
    "FOUNDED",
    "HOLD",
    "JOINED",
    "PASS",
    "Classifier",
    "Decision",
    "PageDecider",
    "explore_selected",
    "site_classifier",
]
