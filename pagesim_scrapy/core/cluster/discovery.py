"""Crawl-time page-type discovery: assign each fetched page to a discovered type, online.

The leader procedure (see :mod:`~pagesim_scrapy.core.cluster.leader`) with bounded memory: only
the representative of each type is kept (its summary, MinHash signature, optionally its HTML and
a few example URLs), at most ``max_clusters`` of them. A page joins the most similar
representative among its best LSH candidates if the similarity reaches ``threshold``, else it
founds a new type ``cluster-N``; when ``max_clusters`` types exist, such a page is left
unassigned (label None) instead. Representatives persist to JSON, so a later crawl continues
with the same labels and a person can promote them to ``PAGESIM_TEMPLATES``.

With method ``site`` (the crawl's default) discovery runs batch ``cluster``'s procedure one
page at a time instead (:mod:`~pagesim_scrapy.core.cluster.sitetypes`): pages fold into leaders
of near-duplicates, each leader is in a type, and a site's leaders are regrouped by the batch
grouping step as the site grows, so the types saved at close are the ones ``cluster`` finds on
the same pages. At most ``max_clusters`` types and LEADERS_PER_TYPE leaders per type are kept.

A page's label is *settled* once SETTLE_AFTER regroupings of its site in a row have left the
page's leader in its type and that type holds more than one page (:attr:`Discovered.settled`):
before that, it is the type one comparison gave the page, which the next regrouping may merge
or split. A caller
that must give labels that last (the labels the crawl ends with) holds an unsettled page and
asks :meth:`OnlineDiscovery.label_now` for its label once :meth:`OnlineDiscovery.settled` says
so, as the second look does for verdicts.

Thread-safe: the sketch of a page is made outside the lock; one lock then serialises the few
exact comparisons and the update, so concurrent callers always agree on the types.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pagesim_scrapy.core.cluster.leader import Leader, LeaderClustering, SimilarityFunc
from pagesim_scrapy.core.cluster.persist import (
    Representative,
    RepresentativesError,
    parse_representatives,
    read_representatives,
    templates_snippet,
    write_representatives,
)
from pagesim_scrapy.core.cluster.pipeline import (
    DEFAULT_METHOD,
    SITE_METHOD,
    ClusterOptions,
    condensing_pass,
    measure_function,
    method_thresholds,
)
from pagesim_scrapy.core.cluster.sitetypes import Regrouping, SiteTypes
from pagesim_scrapy.core.cluster.sketch import Sketcher
from pagesim_scrapy.core.site import Features, SiteModel, site_similarity, structural_features
from pagesim_scrapy.core.summary import DEFAULT_OPTIONS, PageSummary, SummaryOptions

logger = logging.getLogger(__name__)

#: A page at least this similar to a representative joins it without further comparisons.
NEAR_DUPLICATE = 0.9

#: With method ``site``: representatives compared exactly per page, and sites kept at most.
SITE_MAX_COMPARE = 20
MAX_SITES = 1000
#: With method ``site``, a feature counts as on at least this many pages of the site: online, a
#: site has few pages at first, most features are on one page only and would weigh nothing, so
#: every early page would look like the first. On real sites in shuffled order it raised the
#: online ARI (``benchmarks/site_cluster.py`` prints the figures for the default).
DF_FLOOR = 2
#: With method ``site``, a type that pages have joined is joined by a page scoring at least this
#: share of their mean score, when that is below ``threshold`` (``LeaderClustering``'s
#: ``relative``): a loosely alike type, such as a wiki's articles, is no longer cut into one
#: type per early page. A range of values helped every distinct-template site of the shared
#: data in shuffled order; the default is its middle, and the leave-one-site-out choice is
#: printed by ``benchmarks/site_cluster.py``.
SITE_CLOSENESS = 0.7
#: With method ``site``, a site is young below this many pages: a new leader joins a type only
#: as close as ``closeness`` times the type's own scores, and a regrouping during the crawl
#: merges types only as close as that, under the weights pages are assigned by (see
#: :class:`~pagesim_scrapy.core.cluster.sitetypes.SiteTypes`). The weights of a site's first
#: pages make its types look alike, and a page labelled by a wrong merge keeps its label; on
#: an older site the batch rules hold. Chosen leave-one-site-out over the visible sites, the
#: Stack Overflow set included, by the ARI of the labels a crawl gives holding each page until
#: its type is settled (``benchmarks/site_cluster.py --orders N --with-so --loso``): smaller
#: values tie on most sites, and the Stack Overflow test pages need this one; forums and API
#: docs, whose pages of one type are loosely alike, lose a little, and 0 turns it off.
YOUNG_SITE_PAGES = 16
#: With method ``site``: the regroupings in a row that must leave a page's leader in its type
#: before the page's type is settled (:attr:`Discovered.settled`; ``SiteTypes.settled``); only
#: a crawl that holds pages for their type asks. Chosen by the held labels' ARI alone
#: (``benchmarks/site_cluster.py --orders N --with-so --loso``), every fold takes the grid's
#: largest value: each more regrouping moves the held labels toward the types the crawl ends
#: with, which is holding every page to the end, and that measure does not see the wait. Kept
#: at one because more lowered a site whose labels as first settled beat its ended types.
SETTLE_AFTER = 1
#: With method ``site``: leaders of near-duplicate pages kept at most, per type allowed (a
#: memory bound: each keeps its summary and features; past it, pages count into their nearest).
LEADERS_PER_TYPE = 5


@dataclass
class _TypeInfo:
    label: str
    source: str | None
    title: str | None
    #: the representative's HTML, UTF-8 and zlib-compressed (:func:`_pack`): kept as text, a
    #: page with one character beyond Latin-1 takes 2 or 4 bytes per character, and hundreds of
    #: representatives add up; packed, a fraction of the page's size
    html: bytes | None
    examples: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Discovered:
    """A page's discovered type (:meth:`OnlineDiscovery.discover`)."""

    label: str | None  # "cluster-N", or None when the types are full
    score: float  # similarity to its representative
    is_new: bool  # the page founded the type
    #: the leader the page is in (method ``site``): ask :meth:`OnlineDiscovery.label_now`
    leader: int | None = None
    #: a regrouping left the page's leader in its type: the label is the one the types found
    settled: bool = True


def _pack(html: str | None) -> bytes | None:
    return None if html is None else zlib.compress(html.encode("utf-8", "surrogatepass"), 1)


def _unpack(packed: bytes | None) -> str | None:
    return None if packed is None else zlib.decompress(packed).decode("utf-8", "surrogatepass")


class _SiteSimilarity:
    """A discovery's site-weighted similarity as the grouping step reads it: a call for the
    similarity and ``overlap`` for the merge by overlap (what batch ``cluster``'s similarity
    offers too), so that both group the same pages alike."""

    def __init__(self, discovery: OnlineDiscovery) -> None:
        self._discovery = discovery

    def __call__(self, page: PageSummary, leader: PageSummary) -> float:
        return self._discovery._site_similarity(page, leader)

    def overlap(self, a: PageSummary, b: PageSummary) -> float:
        return self._discovery._site_overlap(a, b)


class OnlineDiscovery:
    """Discovers page types one page at a time; see the module docstring.

    ``threshold`` None takes the measured default of ``method`` for the online procedure.
    ``examples`` is how many page sources each type remembers (for the templates snippet);
    ``max_html_bytes`` caps the HTML stored per representative (larger pages keep the summary).
    ``closeness`` (None: SITE_CLOSENESS with method ``site``, else 0 = off) lets a type's bar
    follow the scores its pages joined with (see :class:`LeaderClustering`); with method
    ``site``, also the bar of a young site's types (see ``young_pages`` and YOUNG_SITE_PAGES).
    """

    def __init__(
        self,
        method: str = DEFAULT_METHOD,
        method_params: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        *,
        max_clusters: int = 200,
        max_compare: int = 5,
        lsh_threshold: float = 0.3,
        closeness: float | None = None,
        examples: int = 3,
        max_html_bytes: int = 2_000_000,
        options: SummaryOptions = DEFAULT_OPTIONS,
        young_pages: int = YOUNG_SITE_PAGES,
        settle_after: int = SETTLE_AFTER,
    ) -> None:
        if max_clusters < 1:
            raise ValueError("max_clusters must be >= 1")
        if examples < 1:
            raise ValueError("examples must be >= 1")
        self.method = method
        self.method_params = dict(method_params or {})
        self.threshold = method_thresholds(method)["online"] if threshold is None else threshold
        if closeness is None:
            closeness = SITE_CLOSENESS if method == SITE_METHOD else 0.0
        if not 0.0 <= closeness <= 1.0:
            raise ValueError("closeness must be within [0, 1]")
        self.closeness = closeness
        if young_pages < 0:
            raise ValueError("young_pages must be >= 0")
        self.young_pages = young_pages
        if settle_after < 1:
            raise ValueError("settle_after must be >= 1")
        self.settle_after = settle_after
        self.max_clusters = max_clusters
        self.examples = examples
        self.max_html_bytes = max_html_bytes
        self.options = options
        self.sketcher = Sketcher()
        self._site_aware = method == SITE_METHOD
        similarity: SimilarityFunc
        if self._site_aware:
            if self.method_params:
                raise ValueError("method 'site' takes no parameters")
            similarity = _SiteSimilarity(self)
            # LSH candidates come from whole-page sketches, where a site's chrome dominates:
            # every type of a site is a candidate, so more of them are compared exactly.
            max_compare = max(max_compare, SITE_MAX_COMPARE)
        else:
            similarity = measure_function(method, self.method_params)
        self._sites: OrderedDict[str | None, SiteModel] = OrderedDict()
        self._features: dict[int, Features] = {}  # id(summary) -> features, leaders' and the page's
        self._model: SiteModel | None = None  # the site of the page being assigned
        #: DF_FLOOR while pages are assigned; 0 while a site is regrouped, as batch ``cluster``
        self._floor = DF_FLOOR
        self._types: SiteTypes | None = None
        if self._site_aware:
            self._types = self._site_types(similarity, lsh_threshold, max_compare)
            self._leaders = self._types.leaders
        else:
            self._leaders = LeaderClustering(
                similarity,
                self.threshold,
                sketcher=self.sketcher,
                lsh_threshold=lsh_threshold,
                max_compare=max_compare,
                max_leaders=max_clusters,
                # a near-duplicate of a representative needs no look at the others
                early_accept=max(self.threshold, NEAR_DUPLICATE),
                relative=closeness,
            )
        #: per type: by leader key, or with method ``site`` by type id (see SiteTypes)
        self._info: dict[int, _TypeInfo] = {}
        self._leader_source: dict[int, str] = {}  # method ``site``: each leader's page
        self._next_number = 1
        #: labels reserved for this process by a crawl fleet (see :meth:`reserve_numbers`)
        self._reserved = False
        self.pages = 0
        self.unassigned = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._info)

    def _site_types(
        self, similarity: SimilarityFunc, lsh_threshold: float, max_compare: int
    ) -> SiteTypes:
        """Method ``site``: the batch ``cluster`` procedure, one page at a time (its
        condensing threshold for the leaders, its grouping step for the types)."""
        options = ClusterOptions(method=SITE_METHOD)
        condense = options.resolved()["condense"]
        leaders = LeaderClustering(
            similarity,
            condense,
            sketcher=self.sketcher,
            lsh_threshold=lsh_threshold,
            max_compare=max_compare,
            max_leaders=self.max_clusters * LEADERS_PER_TYPE,
            early_accept=condense,
        )
        # the discovery's closeness is the grouping's merge by relative closeness
        params = dataclasses.replace(options.grouping_params(), closeness=self.closeness)
        return SiteTypes(
            leaders,
            params.t_n,
            params,
            self.max_clusters,
            self.closeness,
            self.young_pages,
            self.settle_after,
            functools.partial(condensing_pass, options, similarity, self.sketcher),
        )

    def _site_similarity(self, page: PageSummary, leader: PageSummary) -> float:
        """Site-weighted similarity under the model of the page being assigned."""
        model = self._model
        if model is None:
            return 0.0
        return site_similarity(
            self._features_of(page), self._features_of(leader), model, self._floor
        )

    def _site_overlap(self, a: PageSummary, b: PageSummary) -> float:
        """The weight two pages share over the smaller one's, under the same model (what the
        grouping's merge by overlap reads, as batch ``cluster`` reads it)."""
        model = self._model
        if model is None:
            return 0.0
        first, second = self._features_of(a), self._features_of(b)
        weights = model.weights(first | second, self._floor)
        smaller = min(sum(map(weights.__getitem__, first)), sum(map(weights.__getitem__, second)))
        if smaller <= 0.0:
            return 0.0
        return min(1.0, sum(map(weights.__getitem__, first & second)) / smaller)

    def _features_of(self, summary: PageSummary) -> Features:
        features = self._features.get(id(summary))
        if features is None:
            features = self._features[id(summary)] = structural_features(summary)
        return features

    def _site_model(self, site: str | None) -> SiteModel:
        model = self._sites.get(site)
        if model is None:
            model = self._sites[site] = SiteModel(keep_pages=0)
            # the known types' representatives are pages of every site, as templates are
            for leader in self._seeded_leaders():
                features = self._features.get(id(leader.summary))
                if features is None:
                    features = self._features[id(leader.summary)] = structural_features(
                        leader.summary
                    )
                model.add(features, keep=False)
            if len(self._sites) > MAX_SITES:
                self._sites.popitem(last=False)
        else:
            self._sites.move_to_end(site)
        return model

    def _seeded_leaders(self) -> list[Leader]:
        """Leaders that stand for every site: all of them, or with method ``site`` those
        of the saved types (the others are pages of one site)."""
        leaders = self._leaders.leaders
        if self._types is None:
            return list(leaders.values())
        site_of = self._types.site_of
        return [leader for key, leader in leaders.items() if site_of.get(key) is None]

    def assign(
        self,
        summary: PageSummary,
        *,
        source: str | None = None,
        html: str | bytes | None = None,
        site: str | None = None,
    ) -> tuple[str | None, float, bool]:
        """(label such as "cluster-3" or None when full, similarity to its representative, is_new).

        ``source`` (the page's URL) and ``html`` are remembered for new representatives;
        ``site`` (the page's host) chooses the site model with method ``site``.
        """
        found = self.discover(summary, source=source, html=html, site=site)
        return found.label, found.score, found.is_new

    def discover(
        self,
        summary: PageSummary,
        *,
        source: str | None = None,
        html: str | bytes | None = None,
        site: str | None = None,
    ) -> Discovered:
        """:meth:`assign`, with the page's leader and whether its label is settled."""
        if summary.options != self.options:
            raise ValueError("the page was summarised with other options than the discovery's")
        source = source if source is not None else summary.source
        minhash = self.sketcher.sketch(summary)  # outside the lock: the costly part
        features = structural_features(summary) if self._site_aware else None
        with self._lock:
            self.pages += 1
            if features is not None:
                # the page counts into its site first; its features are kept while it is compared
                self._model = self._site_model(site)
                self._model.add(features, keep=False)
                self._features[id(summary)] = features
            if self._types is not None:
                return self._assign_site_type(summary, minhash, site, source, html)
            assignment = self._leaders.add(summary, minhash)
            if assignment.key is None:
                self.unassigned += 1
                return Discovered(None, assignment.score, False)
            if assignment.is_new:
                info = self._new_info(source, summary.title, html)
                self._info[assignment.key] = info
                return Discovered(info.label, assignment.score, True)
            info = self._info[assignment.key]
            self._add_example(info, source)
            return Discovered(info.label, assignment.score, False)

    def _assign_site_type(
        self,
        summary: PageSummary,
        minhash: Any,
        site: str | None,
        source: str | None,
        html: str | bytes | None,
    ) -> Discovered:
        """:meth:`discover` with method ``site`` (the lock held, the page counted in its site)."""
        types = self._types
        assert types is not None
        try:
            assignment = types.assign(summary, minhash, site)
        finally:
            self._model = None
        if assignment.new_leader and assignment.leader is not None:
            if source:
                self._leader_source[assignment.leader] = source
        else:
            self._features.pop(id(summary), None)
        if assignment.type_id is None:
            self.unassigned += 1
            return Discovered(None, assignment.score, False)
        if assignment.new_type:
            self._info[assignment.type_id] = self._new_info(source, summary.title, html)
        else:
            self._add_example(self._info[assignment.type_id], source)
        label = self._info[assignment.type_id].label
        if types.due(site):
            self._apply(types.regroup(site, self._use_site_model, final=False))
            if assignment.leader is not None and assignment.leader in types.type_of:
                label = self._info[types.type_of[assignment.leader]].label
        leader = assignment.leader
        settled = leader is None or types.settled(leader)
        return Discovered(label, assignment.score, assignment.new_type, leader, settled)

    def settled(self, leader: int | None) -> bool:
        """Whether the leader's type is settled (see :attr:`Discovered.settled`)."""
        if leader is None or self._types is None:
            return True
        with self._lock:
            return self._types.settled(leader)

    def label_now(self, leader: int | None) -> str | None:
        """The label of the type the leader is in now (None: no such leader)."""
        types = self._types
        if leader is None or types is None:
            return None
        with self._lock:
            type_id = types.type_of.get(leader)
            info = self._info.get(type_id) if type_id is not None else None
            return info.label if info is not None else None

    def _use_site_model(self, site: str | None) -> None:
        """Weigh by the site's model as pages are assigned (DF_FLOOR kept): a regrouping
        during the crawl judges pages as the labels already given were, so the types it
        leaves are the ones those labels name (under batch weights a site's rarer types
        moved away from the labels given; the crawl-time ARI of ``benchmarks/site_cluster.py
        --orders`` says by how much)."""
        self._model = self._sites.get(site)

    def _use_batch_model(self, site: str | None) -> None:
        """Weigh by the site's model as batch ``cluster`` does (no floor), at the site's
        current page count: a crawl's model rebuilds its weights only as the site grows by a
        share, and batch ``cluster`` weighs by the pages it was given."""
        model = self._sites.get(site)
        if model is not None:
            model = SiteModel.from_counts(
                model.pages, model.df, max_features=model.max_features, keep_pages=0
            )
        self._model = model
        self._floor = 0

    def _apply(self, change: Regrouping) -> None:
        """Types a regrouping emptied are dropped; types it made are numbered."""
        self._model = None
        self._floor = DF_FLOOR
        types = self._types
        assert types is not None
        for type_id in change.removed:
            self._info.pop(type_id, None)
        for type_id in change.created:
            leader = types.representative(type_id)
            source = self._leader_source.get(leader.key)
            self._info[type_id] = self._new_info(source, leader.summary.title, None)

    def regroup(self) -> None:
        """Regroup every site's types now (method ``site``; a crawl does it as sites grow)."""
        if self._types is None:
            return
        with self._lock:
            for site in list(self._sites):
                self._apply(self._types.regroup(site, self._use_batch_model))

    def label_of(self, summary: PageSummary, site: str | None = None) -> str | None:
        """The discovered type of a page as things stand, without counting the page."""
        minhash = self.sketcher.sketch(summary)
        features = structural_features(summary) if self._site_aware else None
        with self._lock:
            if features is not None:
                model = self._sites.get(site)
                self._model = model if model is not None else self._site_model(site)
                self._features[id(summary)] = features
            try:
                best, _ = self._leaders.best_leader(summary, minhash)
            finally:
                self._model = None
                if features is not None:
                    self._features.pop(id(summary), None)
            if best is None:
                return None
            key = best.key if self._types is None else self._types.type_of.get(best.key)
            info = self._info.get(key) if key is not None else None
            return info.label if info is not None else None

    def _new_info(
        self, source: str | None, title: str | None, html: str | bytes | None
    ) -> _TypeInfo:
        info = _TypeInfo(
            label=f"cluster-{self._next_number}",
            source=source,
            title=title,
            html=self._keep_html(html),
        )
        self._next_number += 1
        if source:
            info.examples.append(source)
        return info

    def _add_example(self, info: _TypeInfo, source: str | None) -> None:
        if source and len(info.examples) < self.examples and source not in info.examples:
            info.examples.append(source)

    def _keep_html(self, html: str | bytes | None) -> bytes | None:
        if html is None:
            return None
        if len(html) > self.max_html_bytes:
            return None
        if isinstance(html, bytes):
            return _pack(html.decode("utf-8", errors="replace"))
        return _pack(html)

    def representatives(self) -> list[Representative]:
        """The discovered types in label order."""
        return list(self._representatives())

    def _representatives(self) -> Iterator[Representative]:
        """The discovered types in label order, one at a time: each with its HTML unpacked,
        which for 200 types can take a few hundred MB all together."""
        with self._lock:
            rows = [(*self._type_of_info(key), info) for key, info in self._info.items()]
        rows.sort(key=lambda row: _label_number(row[2].label))
        for summary, size, info in rows:
            yield Representative(
                label=info.label,
                size=size,
                summary=summary,
                source=info.source,
                title=info.title,
                html=_unpack(info.html),
                examples=list(info.examples),
            )

    def _type_of_info(self, key: int) -> tuple[PageSummary, int]:
        """The representative summary and the pages of the type ``_info[key]`` describes."""
        if self._types is None:
            leader = self._leaders.leaders[key]
            return leader.summary, leader.weight
        return self._types.representative(key).summary, self._types.weight(key)

    def counts(self) -> dict[str, int]:
        """Pages per discovered label."""
        with self._lock:
            return {info.label: self._type_of_info(key)[1] for key, info in self._info.items()}

    def settings(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "method_params": self.method_params,
            "threshold": self.threshold,
            "closeness": self.closeness,
            "max_clusters": self.max_clusters,
            "sketch": self.sketcher.describe(),
        }

    def save(self, path: str | Path, include_html: bool = True) -> None:
        """Write the representatives (atomically) so a later run or a person can use them.

        With method ``site`` every site is regrouped first: the file holds the types the
        pages ended in, which batch ``cluster`` would find on them."""
        self.regroup()
        write_representatives(
            path,
            self._representatives(),
            options=self.options,
            settings=self.settings(),
            include_html=include_html,
        )

    @classmethod
    def load(cls, path: str | Path, **kwargs: Any) -> OnlineDiscovery:
        """A discovery seeded with saved representatives; its settings unless overridden.

        Raises :class:`~pagesim_scrapy.core.cluster.persist.RepresentativesError` for a file
        that cannot be used. Also reads the files the batch ``cluster`` command saves.
        """
        options = kwargs.get("options", DEFAULT_OPTIONS)
        reps, settings, _ = read_representatives(path, options)
        return cls._seeded(reps, settings, str(path), kwargs)

    @classmethod
    def from_json(cls, text: str, name: str = "discovery file", **kwargs: Any) -> OnlineDiscovery:
        """:meth:`load` on a file's text (``name`` names it in messages)."""
        options = kwargs.get("options", DEFAULT_OPTIONS)
        reps, settings, _ = parse_representatives(text, options, name=name)
        return cls._seeded(reps, settings, name, kwargs)

    @classmethod
    def _seeded(
        cls,
        reps: list[Representative],
        settings: Mapping[str, Any],
        name: str,
        kwargs: dict[str, Any],
    ) -> OnlineDiscovery:
        for key in ("method", "method_params", "threshold", "closeness", "max_clusters"):
            if key not in kwargs and settings.get(key) is not None:
                kwargs[key] = settings[key]
        try:
            discovery = cls(**kwargs)
        except (TypeError, ValueError, KeyError) as exc:
            raise RepresentativesError(f"{name}: unusable settings: {exc}") from exc
        discovery.add_representatives(reps)
        return discovery

    def add_representatives(self, reps: list[Representative]) -> None:
        """Seed known types (labels kept; new types are numbered after the highest)."""
        with self._lock:
            known = {info.label for info in self._info.values()}
            for rep in reps:
                if rep.label in known:
                    logger.warning("discovery: label %s is already known, skipped", rep.label)
                    continue
                if self._full():
                    logger.warning(
                        "discovery: %d types reached, %d saved ones left out",
                        self.max_clusters,
                        len(reps) - len(self._info),
                    )
                    break
                key = self._seed(rep)
                self._info[key] = _TypeInfo(
                    rep.label, rep.source, rep.title, _pack(rep.html), list(rep.examples)
                )
                known.add(rep.label)
                if not self._reserved:
                    self._next_number = max(self._next_number, _label_number(rep.label) + 1)

    def _full(self) -> bool:
        return self._leaders.full if self._types is None else self._types.full

    def _seed(self, rep: Representative) -> int:
        """A saved type's representative as a leader; the key its ``_TypeInfo`` goes under."""
        minhash = self.sketcher.sketch(rep.summary)
        weight = max(1, rep.size)
        if self._types is not None:
            return self._types.seed(rep.summary, minhash, weight)
        return self._leaders.new_leader(rep.summary, minhash, weight=weight).key

    def reserve_numbers(self, first: int, count: int) -> None:
        """Number this process's new types from ``first`` on (``count`` numbers that a crawl
        fleet reserved for it, so no other worker founds a type under the same label); the
        labels of types added later do not move the numbering."""
        with self._lock:
            if count < self.max_clusters:
                raise ValueError("reserve at least max_clusters numbers")
            self._next_number = first
            self._reserved = True

    def templates_snippet(self, examples: int | None = None) -> str:
        """A ready ``PAGESIM_TEMPLATES = {...}`` with the sources of each discovered type."""
        self.regroup()
        return templates_snippet(self.representatives(), examples or self.examples)

    def describe(self) -> dict[str, Any]:
        return {
            **self.settings(),
            "pages": self.pages,
            "unassigned": self.unassigned,
            "clusters": self.counts(),
        }


def _label_number(label: str) -> int:
    """N of "cluster-N" (0 for labels of another form, which then sort first)."""
    prefix, _, number = label.rpartition("-")
    if prefix and number.isascii() and number.isdigit() and len(number) <= 9:
        return int(number)
    return 0
