"""Site-aware page-type decisions: scores weighted by the site's own pages, cuts from its own
score distribution.

For every site (a host in a crawl; the folder given to ``classify``) a :class:`SiteModel` counts
the structural features of the pages met so far, so the site's chrome weighs nothing and the
similarity of a page to a label's templates is the weighted Jaccard of what is left
(:mod:`pagesim_scrapy.core.site`). Decisions come from the same site:

* **nearest type**: a page's label is the label whose templates it is most similar to under
  the site's weights;
* **its own cut per label**, as if it were the only label: on a real site a label's scores over
  the site's pages split into the label's own pages near the top and the rest of the site
  crowded below. A page must be nearest a label and pass that label's cut, so pages of the
  types nobody configured get "none of these". The cut rules, each a named function, are in
  :mod:`~pagesim_scrapy.core.cutrules`; before a label has the pages its cut needs, its prior
  (anchored on its templates' likeness) decides.
* **the type's core**: a page the cut turns away is still given the label when it holds every
  node pair that all of the label's templates share and that weighs on the site
  (:func:`~pagesim_scrapy.core.cutrules.holds_the_core`).
* **re-estimated as the site is learned**: the features of the site's last ``keep_pages`` pages
  are kept and re-scored on every page of a young site, then whenever the site has grown by a
  share, so early pages do not fix the weights or the cut.

Every constant of these decisions is a field of the classifier's
:class:`~pagesim_scrapy.core.sitepolicy.SitePolicy`.

A verdict given while a site is young (its first ``keep_pages`` pages) may not last: ``holds``
says whether it clears every threshold its label has had on the site so far and its templates'
anchor, so a crawl that can look at a page again later (:mod:`~pagesim_scrapy.core.secondlook`)
holds the rest until the site is learned.

Nothing here needs labelled pages beyond the templates. Memory per site is bounded by the site
model's limits; at most ``max_sites`` sites are kept, and at most ``max_kept_pages`` kept pages
over all sites (least recently seen sites forgotten first).
"""

from __future__ import annotations

import math
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import combinations, compress, repeat
from operator import add, itemgetter
from typing import Any

from pagesim_scrapy.core.clusterfill import (
    KeptNeighbours,
    NeighbourFill,
    PoolNumbers,
    fill_from_neighbours,
    fill_from_types,
    nearest_pages,
    site_types,
)
from pagesim_scrapy.core.confidence import confidence_features, verdict_confidence
from pagesim_scrapy.core.cutrules import (
    CUT_RULES,
    LabelOnSite,
    anchored_cut,
    early_cut,
    edge_of_a_dominant_type,
    gap_and_below_sorted,
    gap_width,
    holds_the_core,
    keeps_a_small_top,
    label_cut,
    lowest_cut,
    otsu_cut,
    own_cut,
    own_cut_and_rule,
    pages_needed,
    raised_to_the_floor,
    reaches_every_threshold,
    reads_the_scores,
    separation,
    sits_in_a_continuum,
    threshold_of,
    widest_gap_cut,
)
from pagesim_scrapy.core.keptscores import (
    DEFAULT_LIMITS,
    KeptScores,
    RescoreLimits,
    kept_scores,
    shared_features,
    template_counts,
)
from pagesim_scrapy.core.site import (
    Features,
    SavedSite,
    SiteModel,
    grouped_weights,
    jaccards,
    pack_features,
    packed_weights,
    shared_weights,
    structural_features,
    template_members,
    unpack_features,
)
from pagesim_scrapy.core.sitepolicy import DEFAULT_POLICY, SITE_METHOD, SitePolicy
from pagesim_scrapy.core.summary import DEFAULT_OPTIONS, PageSummary, SummaryOptions, summarize
from pagesim_scrapy.core.verdict import AGGREGATES, Verdict, given_thresholds

__all__ = [
    "CUT_RULES",
    "SITE_METHOD",
    "SiteAwareClassifier",
    "SitePolicy",
    "confidence_features",
    "gap_width",
    "holds_the_core",
    "otsu_cut",
    "own_cut",
    "own_cut_and_rule",
    "separation",
    "verdict_confidence",
    "widest_gap_cut",
]

# Read-only aliases of the shipped policy's fields, for code that imported them from here.
# Assigning to them changes nothing: pass a SitePolicy instead.
EARLY_PAGES = DEFAULT_POLICY.early_pages
CUT_FLOOR_PERCENTILE = DEFAULT_POLICY.cut_floor_percentile
NARROW_GAP = DEFAULT_POLICY.narrow_gap
ANCHOR_FLOOR = DEFAULT_POLICY.anchor_floor
COVERING_SHARE = DEFAULT_POLICY.covering_share
WIDE_GAP = DEFAULT_POLICY.wide_gap
NEAREST_FLOOR = DEFAULT_POLICY.nearest_floor
EARLY_CUT_SHARE = DEFAULT_POLICY.early_cut_share
EARLY_CUT_GROUP = DEFAULT_POLICY.early_cut_group
EARLY_CUT_PAGES = DEFAULT_POLICY.early_cut_pages
REFRESH_GROWTH = DEFAULT_POLICY.refresh_growth
SAVED_SITE_WEIGHT = DEFAULT_POLICY.saved_site_weight
DOMINANT_SHARE = DEFAULT_POLICY.dominant_share
DOMINANT_WITHIN = DEFAULT_POLICY.dominant_within
CONFIDENCE_WEIGHTS = DEFAULT_POLICY.confidence_weights

# The older private names of the cut rules.
_LabelOnSite = LabelOnSite
_a_small_top = keeps_a_small_top
_in_a_continuum = sits_in_a_continuum
_edge_of_a_type_that_is_most_of_the_site = edge_of_a_dominant_type
_own_cut_anchored = anchored_cut
_above_the_floor = raised_to_the_floor
_early_cut = early_cut


#: at most this many kept pages' template forms are remembered (see ``_template_form``)
TEMPLATE_FORM_MEMO = 4096


@dataclass
class _Site:
    model: SiteModel
    labels: dict[str, LabelOnSite]
    refreshed_at: int = -1
    # per label: (features, weighted total) of each template under the current weights
    template_totals: dict[str, list[tuple[Features, float]]] = field(default_factory=dict)
    flat_totals: list[float] = field(default_factory=list)  # the same, in one list
    totals_table: list[float] | None = None  # the weight table the totals were computed with
    totals_pages: int = -1  # and the site's page count then (a refresh scores many pages)
    # the templates' totals the anchors summed, with the (model, table, page count) they were
    # summed under: the scores then take them instead of summing them again
    anchor_totals: tuple[Any, list[float] | None, int, list[float]] = (None, None, -1, [])
    # share of the kept pages that are nearest a label and pass its own cut: how much of the
    # site the labels describe
    coverage: float = 0.0


class SiteAwareClassifier:
    """Labels -> template pages, decided per site; the same interface as ``TemplateClassifier``.

    ``threshold`` is ``"auto"`` (per site, see the module docstring), a number or a
    ``{label: number}`` dict (missing labels auto). ``policy`` holds every constant of the
    decision; ``prior_weight``, ``min_pages`` and the size bounds, when given, override its
    fields (``self.policy`` is the result).
    """

    method = SITE_METHOD
    #: when a kept page's cached scores stand at a re-estimate (see keptscores)
    rescore_limits: RescoreLimits = DEFAULT_LIMITS

    def __init__(
        self,
        templates: Mapping[str, Iterable[Any]],
        *,
        threshold: float | str | Mapping[str, float] = "auto",
        aggregate: str = "max",
        summary_options: SummaryOptions = DEFAULT_OPTIONS,
        prior_weight: float | None = None,
        min_pages: int | None = None,
        keep_pages: int | None = None,
        max_sites: int | None = None,
        max_kept_pages: int | None = None,
        max_features: int | None = None,
        policy: SitePolicy | None = None,
    ) -> None:
        if aggregate not in AGGREGATES:
            raise ValueError(f"aggregate must be one of {AGGREGATES}, not {aggregate!r}")
        overrides: dict[str, Any] = {
            "prior_weight": prior_weight,
            "min_pages": min_pages,
            "keep_pages": keep_pages,
            "max_sites": max_sites,
            "max_kept_pages": max_kept_pages,
            "max_features": max_features,
        }
        policy = DEFAULT_POLICY if policy is None else policy
        given = {name: value for name, value in overrides.items() if value is not None}
        self.policy: SitePolicy = replace(policy, **given) if given else policy
        self.aggregate = aggregate
        self.summary_options = summary_options
        self.prior_weight = self.policy.prior_weight
        self.min_pages = self.policy.min_pages
        self.keep_pages = self.policy.keep_pages
        self.max_sites = self.policy.max_sites
        self.max_kept_pages = self.policy.max_kept_pages
        self._kept_total = 0
        self.max_features = self.policy.max_features
        self.params: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._templates: dict[str, list[Features]] = {}
        self.template_summaries: dict[str, list[PageSummary]] = {}
        for label, pages in templates.items():
            summaries = [summarize(page, summary_options) for page in pages]
            if not summaries:
                raise ValueError(f"label {label!r} has no template page")
            self.template_summaries[label] = summaries
            self._templates[label] = [structural_features(s) for s in summaries]
        if not self._templates:
            raise ValueError("no templates given")
        self._given = given_thresholds(threshold, self._templates)
        flat = [page for pages in self._templates.values() for page in pages]
        #: which templates hold each feature, for scoring a page against all of them at once
        self._template_members = template_members(flat)
        #: the features each label's templates share, for the kept pages' core check
        self._shared_features = shared_features(self._templates)
        #: per label, its core when all its shared features weigh, the core's bits, and the
        #: shared features that number the bits (see :meth:`_core_of`)
        self._whole_cores: dict[str, tuple[Features, int, tuple[str, ...]]] = {}
        #: sites adopted from saved state, by site
        self._adopted: dict[str | None, SavedSite] = {}
        self._sites: OrderedDict[str | None, _Site] = OrderedDict()
        #: sites an earlier crawl saved, adopted at this crawl's first page of each
        self._pending: dict[str | None, SavedSite] = {}
        self._saved_weight = self.policy.saved_site_weight
        #: called with (site, features) for every page counted into a site, under the
        #: classifier's lock (a crawl fleet records its deltas there: keep it cheap)
        self.learn_listener: Callable[[str | None, Features], None] | None = None

    @property
    def lock(self) -> threading.RLock:
        """The lock every read and update of the site models takes."""
        return self._lock

    @property
    def labels(self) -> list[str]:
        return list(self._templates)

    # -- sites -----------------------------------------------------------------------------

    def _site(self, site: str | None) -> _Site:
        state = self._sites.get(site)
        if state is not None:
            self._sites.move_to_end(site)
            return state
        saved = self._pending.pop(site, None)
        if saved is not None:
            past = saved.scaled(self._saved_weight)
            self.adopt_site(site, past.pages, past.df, past.kept)  # makes the state below first
            return self._sites[site]
        model = self._new_model()
        # The templates are pages of the site too: they seed the document frequencies.
        for features in self._templates.values():
            for page in features:
                model.add(page, keep=False)
        state = _Site(model, {label: LabelOnSite() for label in self._templates})
        self._sites[site] = state
        self._evict()
        return state

    def _new_model(self) -> SiteModel:
        """An empty site model with the policy's bounds and weight ramp."""
        policy = self.policy
        return SiteModel(
            max_features=self.max_features,
            keep_pages=self.keep_pages,
            ramp_pages=policy.ramp_pages,
        )

    def template_features(self, label: str) -> list[Features]:
        """The structural features of ``label``'s templates (for explanations)."""
        return list(self._templates[label])

    def _evict(self) -> None:
        """Forget the least recently seen sites beyond ``max_sites``, or while all sites
        together keep more than ``max_kept_pages`` pages (the most recent site stays)."""
        while len(self._sites) > 1 and (
            len(self._sites) > self.max_sites or self._kept_total > self.max_kept_pages
        ):
            _, state = self._sites.popitem(last=False)
            self._kept_total -= len(state.model.recent)

    def _add(self, state: _Site, features: Features, site: str | None = None) -> None:
        """Count a page into its site, keeping the kept-pages total and its bound. A page the
        site has counted already (the same page under another URL) is not counted again; met
        again in the very form of a template, it is counted in that form instead (see
        :meth:`_met_as_a_template`)."""
        before = len(state.model.recent)
        if not state.model.add_once(features):
            self._met_as_a_template(state, features)
            return
        if self.learn_listener is not None:
            self.learn_listener(site, features)
        if state.model.recent:  # its features in hand for the re-estimate that scores it
            self._kept_scores(state).kept(state.model.recent[-1], features, state.model)
        self._kept_total += len(state.model.recent) - before
        if self._kept_total > self.max_kept_pages:
            self._evict()

    def _met_as_a_template(self, state: _Site, features: Features) -> None:
        """A page met again that is one of the templates replaces the copy of it the site
        counted first (a near-identical view: sorted, with a notice): the cuts leave the
        templates out of their sample by their form, and a near copy of a template, scoring
        near 1.0 among the site's pages, set a cut that kept the label to the templates.
        Not in a crawl fleet, whose counts are the sum of what each process pushed."""
        if self.learn_listener is not None:
            return
        if any(features == page for pages in self._templates.values() for page in pages):
            state.model.recount(features)

    def adopt_site(
        self,
        site: str | None,
        pages: int,
        df: Mapping[str, int],
        kept: list[str],
        local: tuple[int, Mapping[str, int], list[str]] | None = None,
    ) -> None:
        """Replace a site's counts with what a whole crawl fleet learned (``pages``, feature
        document frequencies ``df``, the packed kept pages, oldest first) plus ``local``, this
        process's pages not pushed yet (same three parts). The templates seed the counts as
        for a new site; the labels' cuts are re-estimated as the site grows, as usual."""
        model = self._new_model()
        for features in self._templates.values():
            for page in features:
                model.add(page, keep=False)
        counts = model.df
        for feature, n in df.items():
            counts[feature] = counts.get(feature, 0) + n
        model.pages += pages
        model.recent.extend(kept)
        with self._lock:
            if local is not None:
                local_pages, local_df, local_kept = local
                model.pages += local_pages
                for feature, n in local_df.items():
                    counts[feature] = counts.get(feature, 0) + n
                model.recent.extend(local_kept)
            if len(counts) > self.max_features:
                model.forget_rare()
            state = self._sites.get(site)
            if state is None:
                state = self._site(site)
            self._kept_total += len(model.recent) - len(state.model.recent)
            model.met = state.model.met  # the pages this process met stay met
            state.model = model
            state.totals_table = None
            # re-estimated at the next decision when the site grew as much as a local
            # refresh would wait for (a late worker's first adoption, typically)
            if self._due(state, model.pages) or state.refreshed_at > model.pages:
                state.refreshed_at = -1
            if self._kept_total > self.max_kept_pages:
                self._evict()

    def export_sites(self) -> list[SavedSite]:
        """Every site's counts with the templates' own counts taken out, and its kept pages:
        what a later crawl adopts (:meth:`adopt_saved`) to start from what this one learned."""
        seeds: dict[str, int] = {}
        for template_pages in self._templates.values():
            for page in template_pages:
                for feature in page:
                    seeds[feature] = seeds.get(feature, 0) + 1
        seeded = sum(map(len, self._templates.values()))
        adopted = self._adopted
        out = []
        with self._lock:
            for site, state in self._sites.items():
                model = state.model
                own_pages = model.pages - seeded
                if own_pages <= 0:
                    continue
                df: dict[str, int] = {}
                for feature, n in model.df.items():
                    own: int = n - seeds.get(feature, 0)
                    if own > 0:
                        df[feature] = min(own, own_pages)
                exported = SavedSite(site, own_pages, df, list(model.recent))
                saved = adopted.get(site)
                if saved is not None:  # pages met again are counted once
                    exported = exported.merged_again(saved, self._saved_weight)
                out.append(exported)
            out.extend(self._pending.values())
        return out

    def adopt_saved(self, sites: Iterable[SavedSite], weight: float | None = None) -> int:
        """Start each of ``sites`` from what an earlier crawl learned, at this crawl's first
        page of the site: its counts times ``weight`` (default the policy's
        ``saved_site_weight``), this crawl's templates added, its cuts re-estimated then.
        Sites this crawl does not meet are exported again unchanged. Returns how many sites
        are waiting."""
        if weight is None:
            weight = self.policy.saved_site_weight
        if not 0.0 < weight <= 1.0:
            raise ValueError("weight must be within (0, 1]")
        with self._lock:
            # kept unscaled to count the pages met again once at export
            self._adopted = dict(self._adopted)
            for saved in sites:
                if saved.site not in self._sites:
                    self._pending[saved.site] = saved
                    self._adopted[saved.site] = saved
            self._saved_weight = weight
            return len(self._pending)

    def site_model(self, site: str | None = None) -> SiteModel:
        with self._lock:
            return self._site(site).model

    def _template_totals(self, state: _Site) -> dict[str, list[tuple[Features, float]]]:
        model = state.model
        # Recomputed with every new weight table (every page of a small site, then every 1 %
        # of growth), so the templates' totals and the page's weights come from one table;
        # only the document counts of the last few pages can differ between them.
        table = model.table()
        if table is not state.totals_table or (
            model.pages < self.policy.early_pages and model.pages != state.totals_pages
        ):
            summed_under, summed_table, summed_pages, summed = state.anchor_totals
            if summed_under is model and summed_table is table and summed_pages == model.pages:
                each = iter(summed)  # the anchors' sums of the same weights: the same floats
            else:
                each = iter(self._totals_under(model, table))
            state.template_totals = {
                label: [(page, next(each)) for page in pages]
                for label, pages in self._templates.items()
            }
            state.flat_totals = [t for pages in state.template_totals.values() for _, t in pages]
            state.totals_table = table
            state.totals_pages = model.pages
        return state.template_totals

    def _totals_under(self, model: SiteModel, table: list[float]) -> list[float]:
        """Every template's weighted total (in the templates' one list) under ``table``: one
        compiled pass over all their features, each weighed once, gives the sums each
        template's own pass gives (on the weights' grid every sum is exact in any order)."""
        flat, members = self._pair_layout[0], self._template_members
        return shared_weights(self._template_union, flat, members, model.df, table)[1]

    @cached_property
    def _template_union(self) -> Features:
        """Every feature some template holds."""
        return frozenset().union(*self._pair_layout[0])

    def _per_template(self, features: Features | str, state: _Site) -> dict[str, list[float]]:
        """The page's similarity to each template of each label, under the site's weights
        (``features`` as a set, or packed: a kept page is scored without unpacking it)."""
        values = self._template_values(features, state)
        return {label: values[start:end] for label, (start, end) in self._label_spans.items()}

    def _template_values(self, features: Features | str, state: _Site) -> list[float]:
        """:meth:`_per_template` in the templates' one list."""
        model = state.model
        self._template_totals(state)  # every label's templates, in their order
        flat, members = self._pair_layout[0], self._template_members
        weigh = packed_weights if isinstance(features, str) else shared_weights
        total, shared = weigh(features, flat, members, model.df, model.table())  # type: ignore[arg-type]
        return jaccards(shared, total, state.flat_totals)

    def _rescored(self, packed: str, state: _Site, cache: KeptScores) -> dict[str, float]:
        """:meth:`_scores_of` a kept page (packed) within a re-estimate, its weights summed
        from the site's feature counts (see :class:`~pagesim_scrapy.core.keptscores.SiteCounts`):
        the same sums, so the same scores."""
        model = state.model
        self._template_totals(state)
        flat = self._pair_layout[0]
        weighed = cache.weigh_again(
            packed, self._counted_members, len(flat), model.df, model.table()
        )
        if weighed is None:
            return self._scores_of(packed, state)
        return self._by_label(jaccards(weighed[1], weighed[0], state.flat_totals))

    def _rescorer(self, state: _Site, cache: KeptScores) -> _Rescorer:
        """:meth:`_rescored` for the pages of one re-estimate, what they all share (the
        templates' totals, the weights, the counts brought in step) looked up once, at its
        first page as :meth:`_rescored` would: a re-estimate past a site's young pages scores
        hundreds of kept pages again, and one that scores none leaves the totals as they were.
        Its ``many`` scores a list of pages in one compiled call."""
        return _Rescorer(self, state, cache)

    @cached_property
    def _counted_members(self) -> dict[str, int]:
        """The template bits a kept page is scored again with from the site's counts: the
        anchors' (bits past the templates' are not summed) where they have them, so the
        compiled table reads one set of bits per feature for both."""
        anchors = self._anchor_members
        return self._template_members if anchors is None else anchors

    @cached_property
    def _label_spans(self) -> dict[str, tuple[int, int]]:
        """Where each label's templates are in the templates' one list."""
        spans, start = {}, 0
        for label, pages in self._templates.items():
            spans[label] = (start, start + len(pages))
            start += len(pages)
        return spans

    def _scores_of(self, features: Features | str, state: _Site) -> dict[str, float]:
        return self._by_label(self._template_values(features, state))

    def _by_label(self, values: list[float]) -> dict[str, float]:
        """Each label's score from the page's similarity to each template (in their one
        list), as the classifier's ``aggregate`` makes it."""
        spans = self._label_spans.items()
        if self.aggregate == "max":
            return {label: max(values[start:end]) for label, (start, end) in spans}
        return {label: math.fsum(values[s:e]) / (e - s) for label, (s, e) in spans}

    def _template_pairs(self, state: _Site) -> dict[tuple[int, int], float]:
        """Site-weighted similarity of every two templates (all labels), each pair once: each
        template's total and what every pair shares from compiled passes (a sum of weights on
        the table's grid is exact in any order)."""
        return dict(zip(self._pair_layout[3], self._pair_likeness(state)))

    def _pair_likeness(self, state: _Site) -> list[float]:
        """:meth:`_template_pairs` in the pairs' order (``_pair_layout``), as a list."""
        model = state.model
        df, table = model.df, model.table()
        flat, union, pair_members, pairs = self._pair_layout
        both_members = self._anchor_members
        if both_members is not None:  # the totals and the pairs' shares in one pass
            one_pass = self._anchor_sums(state, both_members, len(flat) + len(pairs))
            totals, shared = one_pass[: len(flat)], one_pass[len(flat) :]
        elif pair_members is not None:
            totals = shared_weights(union, flat, self._template_members, df, table)[1]
            shared = grouped_weights(union, pair_members, len(pairs), df, table)
        else:  # more pairs than one pass holds: a pass per template
            sums = [shared_weights(page, flat, self._template_members, df, table) for page in flat]
            totals = [total for total, _ in sums]
            shared = [sums[i][1][j] for i, j in pairs]
        state.anchor_totals = (model, table, model.pages, totals)
        # jaccard_of_totals of each pair in one call: its union, total_a + total_b - shared,
        # is the same float with the pair's totals added first and a total of 0.0
        firsts, seconds = self._pair_ends
        return jaccards(shared, 0.0, list(map(add, firsts(totals), seconds(totals))))

    @cached_property
    def _pair_ends(self) -> tuple[Callable[[list[float]], Any], Callable[[list[float]], Any]]:
        """Getters of the first and of the second template of every pair (in the pairs'
        order) from a list of the templates' values: one C call each."""
        pairs = self._pair_layout[3]

        def getter(ends: list[int]) -> Callable[[list[float]], Any]:
            get = itemgetter(*ends)
            return (lambda values: (get(values),)) if len(ends) == 1 else get

        if not pairs:
            return (lambda values: ()), (lambda values: ())
        return getter([i for i, _ in pairs]), getter([j for _, j in pairs])

    def _anchor_sums(self, state: _Site, members: dict[str, int], groups: int) -> list[float]:
        """What :func:`grouped_weights` sums over the templates' features (``members``: the
        anchors' groups), read from the site's feature counts where they are compiled (see
        :meth:`KeptScores.weigh_packed`): no string or dictionary read per feature, the same
        sums (exact in any order on the weights' grid)."""
        model = state.model
        df, table = model.df, model.table()
        cache = self._kept_scores(state)
        if members is self._anchor_members:
            union, bits = self._union_layout
            sums = cache.weigh_union(union, bits, groups, df, table, model.changes)
        else:
            sums = cache.weigh_packed(
                self._packed_union, members, groups, df, table, model.changes, self._union_singles
            )
        if sums is None:
            return grouped_weights(self._template_union, members, groups, df, table)
        return sums

    @cached_property
    def _packed_union(self) -> str:
        """The templates' features packed as a kept page is (one start label of them, and
        every pair): the anchors sum them from the site's feature counts."""
        starts = sorted(feature for feature in self._template_union if len(feature) == 1)
        pairs = self._template_union.difference(starts)
        return pack_features(frozenset(pairs | set(starts[:1])))

    @cached_property
    def _union_layout(self) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """The templates' features in one order and each one's anchor groups (bits): the
        site's compiled counts keep these features' counts in step and sum them by groups."""
        members = self._anchor_members or {}
        union = tuple(sorted(self._template_union))
        return union, tuple(members.get(feature, 0) for feature in union)

    @cached_property
    def _union_singles(self) -> tuple[str, ...]:
        """The templates' other start labels, each packed alone (a packed page holds one)."""
        starts = sorted(feature for feature in self._template_union if len(feature) == 1)
        return tuple(starts[1:])

    @cached_property
    def _pair_layout(
        self,
    ) -> tuple[list[Features], Features, dict[str, int] | None, list[tuple[int, int]]]:
        """The templates in one list, all their features, feature -> the bits of the template
        pairs that both hold it (None past 64 pairs), and the pairs in their order."""
        flat = [page for pages in self._templates.values() for page in pages]
        pairs = list(combinations(range(len(flat)), 2))
        if len(pairs) > 64:
            return flat, frozenset(), None, pairs
        union = frozenset().union(*flat)
        members = self._template_members
        # most features are held by one of a few sets of templates: each set's pairs once
        by_mask = {
            mask: sum(
                1 << number for number, (i, j) in enumerate(pairs) if mask >> i & mask >> j & 1
            )
            for mask in set(map(members.__getitem__, union))
        }
        pair_members = {feature: by_mask[members[feature]] for feature in union}
        return flat, union, pair_members, pairs

    @cached_property
    def _anchor_members(self) -> dict[str, int] | None:
        """Feature -> its templates' bits, then (shifted past them) its template pairs' bits:
        a young site's anchors sum both from one pass over the templates' features (None
        when templates and pairs together pass 64 groups)."""
        flat, union, pair_members, pairs = self._pair_layout
        if pair_members is None or len(flat) + len(pairs) > 64:
            return None
        members, shift = self._template_members, len(flat)
        return {feature: members[feature] | pair_members[feature] << shift for feature in union}

    @cached_property
    def _template_forms(self) -> tuple[Counter[Features], dict[int, int]]:
        """The templates counted by their features, and how many have each packed length
        (see :meth:`_sample`): the templates are fixed, and a young site re-estimates on
        every page."""
        counted = Counter(page for pages in self._templates.values() for page in pages)
        return counted, template_counts(self._templates)

    @cached_property
    def _label_shared(self) -> dict[str, Features | None]:
        """The features all of each label's templates hold (None for a single template),
        from which its core on a site is taken (see :meth:`_find_cores`)."""
        return {
            label: frozenset.intersection(*templates) if len(templates) >= 2 else None
            for label, templates in self._templates.items()
        }

    def _sample(self, state: _Site) -> list[str]:
        """The site's kept pages (packed) that the cuts are estimated from: all but the
        templates themselves. A crawl given the site's own pages as templates fetches them, and
        their score of 1.0 is not a sample of how the type's pages score (one such page at the
        top made a group of its own there). One kept page is left out per template it equals;
        only a kept page as long as a template is unpacked to tell."""
        counted, lengths = self._template_forms
        recent = state.model.recent
        if lengths.keys().isdisjoint(map(len, recent)):
            return list(recent)  # none is as long as a template (a young site: every page)
        templates = Counter(counted)
        sample = []
        for packed in recent:
            form = self._template_form(packed) if len(packed) in lengths else None
            if form is not None and templates[form] > 0:
                templates[form] -= 1
            else:
                sample.append(packed)
        return sample

    def _template_form(self, packed: str) -> Features | None:
        """The template a kept page (packed, as long as some template) is, else None;
        remembered by its packed string (a kept page is sampled at every re-estimate of its
        site, and unpacking it each time was most of the sample's cost)."""
        memo = self._template_form_memo
        if packed in memo:
            return memo[packed]
        if len(memo) >= TEMPLATE_FORM_MEMO:
            memo.clear()
        features = unpack_features(packed)
        form = memo[packed] = features if features in self._template_forms[0] else None
        return form

    @cached_property
    def _template_form_memo(self) -> dict[str, Features | None]:
        return {}

    def _refresh(self, state: _Site, *, exact: bool = False) -> None:
        """Re-estimate every label's anchors and cut from the site's kept pages (their cached
        scores where the weights have not moved them, see :mod:`~pagesim_scrapy.core.keptscores`;
        ``exact`` re-scores them all). While no label's cut can read the scores (several
        labels, before the pages a cut needs), a kept page is scored once and not again."""
        self._set_anchors(state)
        # Every label's cut comes from its scores over all the site's kept pages, as if it
        # were the only label: with several labels a page must be nearest a label *and* pass
        # that label's own cut (the nearest label alone let pages of every type nobody
        # configured through).
        sample = self._sample(state)
        cache = self._kept_scores(state)
        pages = state.model.pages
        needed = pages_needed(len(state.labels), self.policy)
        rescorer = self._rescorer(state, cache)
        kept = cache.scores(
            sample,
            lambda page: self._scores_of(page, state),
            pages,
            rescore=rescorer,
            rescore_many=getattr(rescorer, "many", None),
            exact=exact,
            young=pages < self.policy.early_pages,
            # no cut reads them yet (they are counted): earlier scores of the kept pages do
            stale_ok=not any(
                reads_the_scores(info, len(sample), needed, self.policy)
                for info in state.labels.values()
            ),
            changes=state.model.changes,
        )
        self._find_cores(state, sample)
        self._place_cuts(state, kept, needed)
        state.coverage = self._coverage(state, kept)
        state.refreshed_at = state.model.pages
        self._track_highest(state)

    def _place_cuts(self, state: _Site, kept: list[dict[str, float]], needed: int) -> None:
        """Every label's scores on the kept pages, its cut, and the gap the cut sits in. The
        scores are kept sorted: every rule reads them sorted (sorting them again is then one
        pass), and the gap's edges are the scores next to the cut."""
        labels = state.labels
        for info, column in zip(labels.values(), self._score_columns(labels, kept)):
            info.observed = sorted(column)
            info.cut, info.rule = label_cut(info, needed, self.policy)
            info.gap, info.below = gap_and_below_sorted(info.observed, info.cut)

    @staticmethod
    def _score_columns(labels: Mapping[str, Any], kept: list[dict[str, float]]) -> Iterable[Any]:
        """Each label's scores on the kept pages (in ``labels``' order), read in one pass over
        the pages: a young site places its cuts on every page, one pass per label cost more."""
        if not kept or len(labels) < 2:
            return [list(map(itemgetter(label), kept)) for label in labels]
        return zip(*map(itemgetter(*labels), kept))

    def _kept_scores(self, state: _Site) -> KeptScores:
        """The site's cached kept-page scores (see :mod:`~pagesim_scrapy.core.keptscores`)."""
        return kept_scores(state.model, self.rescore_limits, self._shared_features)

    @cached_property
    def _anchor_pairs(self) -> dict[str, tuple[list[tuple[int, int]], list[tuple[int, int]]]]:
        """Per label, the template pairs its ``within`` and its ``cross`` read, in the pairs'
        order (the templates are fixed; a young site re-estimates on every page)."""
        owner = [label for label, pages in self._templates.items() for _ in pages]
        every = list(combinations(range(len(owner)), 2))
        return {
            label: (
                [(i, j) for i, j in every if owner[i] == owner[j] == label],
                [
                    (i, j)
                    for i, j in every
                    if owner[i] != owner[j] and label in (owner[i], owner[j])
                ],
            )
            for label in self._templates
        }

    @cached_property
    def _anchor_places(self) -> dict[str, tuple[Callable[[list[float]], Any] | None, ...]]:
        """:attr:`_anchor_pairs` as getters of the pairs' likeness list (None: no pair)."""
        place = {pair: number for number, pair in enumerate(self._pair_layout[3])}

        def getter(pairs: list[tuple[int, int]]) -> Callable[[list[float]], Any] | None:
            if not pairs:
                return None
            numbers = [place[pair] for pair in pairs]
            get = itemgetter(*numbers)
            return (lambda values: (get(values),)) if len(numbers) == 1 else get

        return {
            label: (getter(within), getter(cross))
            for label, (within, cross) in self._anchor_pairs.items()
        }

    def _set_anchors(self, state: _Site) -> None:
        """Every label's templates' likeness (``within``), their likeness to other labels'
        templates (``cross``) and the prior they give, under the site's weights; its scores
        are cleared for re-scoring."""
        likeness = self._pair_likeness(state)
        for label, (within_pairs, cross_pairs) in self._anchor_places.items():
            info = state.labels[label]
            info.within = min(within_pairs(likeness)) if within_pairs else None
            info.cross = max(cross_pairs(likeness)) if cross_pairs else None
            if info.cross is not None:
                # the nearest label decides the type; the cut only turns away pages no closer
                # to this label's templates than the other labels' templates are
                info.prior = info.cross
            else:
                anchor = info.within if info.within is not None else 1.0
                info.prior = self.prior_weight * anchor
            info.observed = []

    @staticmethod
    def _coverage(state: _Site, kept: list[dict[str, float]]) -> float:
        """The share of the kept pages that are nearest a label and pass its own cut: how much
        of the site the labels describe."""
        if all(info.cut is None for info in state.labels.values()):
            return 0.0  # no page passes (a young site of several labels, page after page)
        passed = 0
        for scores in kept:
            nearest = max(scores, key=scores.__getitem__)
            cut = state.labels[nearest].cut
            passed += cut is not None and scores[nearest] >= cut
        return passed / len(kept) if kept else 0.0

    def _track_highest(self, state: _Site) -> None:
        """Remember the highest threshold each auto label has had on the site since its own
        cut (what a verdict of a young site must reach to hold)."""
        for label, info in state.labels.items():
            if label in self._given or info.cut is None:  # no cut: the prior's threshold
                continue
            value, source = threshold_of(info, state.coverage, self.policy)
            if source != "prior":
                info.highest = value if info.highest is None else max(info.highest, value)

    def _find_cores(self, state: _Site, sample: list[str]) -> None:
        """Every label's core under the site's current weights, and how much of the site
        (``sample``: its kept pages, packed) holds it (see :func:`holds_the_core`)."""
        cache = self._kept_scores(state)
        # the shared features (all labels') that weigh nothing on the site, as bits
        # (a young site re-estimates on every page): usually none
        light = self._light_bits(state, cache)
        held: Counter[int] | None = None  # the sample's pages by the shared features they hold
        for label, shared in self._label_shared.items():
            info = state.labels[label]
            if shared is None:
                info.core, info.core_share = frozenset(), 0.0
                continue
            info.core, need = self._core_of(label, shared, light, cache)
            if info.core and held is None:
                held = cache.held_bits(sample)
            holding = cache.holders_in(need, held) if held is not None and info.core else 0
            info.core_share = holding / len(sample) if sample else 0.0

    @staticmethod
    def _light_bits(state: _Site, cache: KeptScores) -> int:
        """The bits (numbered by ``cache``) of the shared features that weigh nothing on the
        site: from the site's compiled counts, else one C loop over the dictionaries."""
        bits = cache.light_bits(state.model)
        if bits is not None:
            return bits
        weight, count = state.model.table().__getitem__, state.model.df.get
        union = cache.shared
        light = compress(union, map((0.0).__ge__, map(weight, map(count, union, repeat(0)))))
        return cache.mask(frozenset(light))

    def _core_of(
        self, label: str, shared: Features, light: int, cache: KeptScores
    ) -> tuple[Features, int]:
        """The core of ``label`` (its ``shared`` features but the ``light`` ones, as bits in
        ``cache``) and its bits. Most re-estimates find every shared feature weighing: that
        core is made once (as every other is made, so the same set in the same order)."""
        whole = self._whole_cores.get(label)
        if whole is None or whole[2] is not cache.shared:  # bits are numbered by those
            core = frozenset(compress(shared, [True] * len(shared)))
            whole = self._whole_cores[label] = (core, sum(cache.bits_of(shared)), cache.shared)
        if not light & whole[1]:
            return whole[0], whole[1]
        # the core's bits straight from the same flags (an int sum is the same in any order)
        bits = cache.bits_of(shared)
        weighing = [not bit & light for bit in bits]
        return frozenset(compress(shared, weighing)), sum(compress(bits, weighing))

    def _due(self, state: _Site, pages: int) -> bool:
        """Whether a site of ``pages`` pages is due a re-estimate: on every page while it is
        young, then whenever it has grown by the policy's ``refresh_growth``."""
        policy = self.policy
        return pages < policy.early_pages or pages >= state.refreshed_at * policy.refresh_growth

    def _maybe_refresh(self, state: _Site) -> None:
        if self._due(state, state.model.pages) or state.refreshed_at < 0:
            self._refresh(state)

    # -- the classifier interface ----------------------------------------------------------

    def features(self, page: Any) -> Features:
        """The page's structural features (a page's features given as they are: a batch job
        computes them where the page is read and moves only them)."""
        if isinstance(page, frozenset):
            return page
        summary = page if isinstance(page, PageSummary) else summarize(page, self.summary_options)
        return structural_features(summary)

    def scores(self, page: Any, *, site: str | None = None) -> dict[str, float]:
        """Per-label similarity of ``page`` under the site's current weights (learns nothing)."""
        features = self.features(page)
        with self._lock:
            return self._scores_of(features, self._site(site))

    def template_scores(self, page: Any, *, site: str | None = None) -> dict[str, list[float]]:
        """Per label, the page's similarity to each of its templates (learns nothing)."""
        features = self.features(page)
        with self._lock:
            return self._per_template(features, self._site(site))

    def learn(self, page: Any, *, site: str | None = None) -> None:
        """Count a page into its site's model (without deciding it)."""
        features = self.features(page)
        with self._lock:
            state = self._site(site)
            self._add(state, features, site)
            self._maybe_refresh(state)

    def threshold_info(self, label: str, site: str | None = None) -> tuple[float, str]:
        """The threshold ``label`` must reach on ``site`` and how it was set."""
        if label in self._given:
            return self._given[label], "given"
        with self._lock:
            state = self._site(site)
            if state.refreshed_at < 0:
                self._refresh(state)
            return self._threshold(state, label)

    def _threshold(self, state: _Site, label: str) -> tuple[float, str]:
        """The threshold of ``label`` on the site and its source (see
        :func:`~pagesim_scrapy.core.cutrules.threshold_of`)."""
        return threshold_of(state.labels[label], state.coverage, self.policy)

    def is_young(self, site: str | None = None) -> bool:
        """Whether ``site`` is within its first ``keep_pages`` pages (its templates included):
        the window its cuts are first estimated from, where a verdict may not last."""
        with self._lock:
            return self._site(site).model.pages <= self.keep_pages

    def holds(self, verdict: Verdict, site: str | None = None) -> bool:
        """Whether a verdict that gives a label is settled: true once the site is past its
        young pages (``keep_pages``), or for a given threshold; while the site is young, only
        when the label has a cut of its own (not the prior) and the page reaches every
        threshold the label has had on the site and its templates' anchor (the prior).

        A young site's cut moves as its pages arrive, and a page that passes a low cut early
        may be of another type. A crawl that can look at a page again once the site is
        learned (:mod:`~pagesim_scrapy.core.secondlook`) holds a verdict that does not hold
        until then, instead of letting the page through on a cut that may not last."""
        label = verdict.label
        if label is None or label in self._given:
            return True
        with self._lock:
            if not self.is_young(site):
                return True
            return reaches_every_threshold(self._site(site).labels[label], verdict.score)

    def settled(self, verdict: Verdict, site: str | None = None) -> bool:
        """Whether a verdict, with a label or without, is the one the site's final cut would
        give: a labelled verdict when it :meth:`holds`; one without a label once the site is
        past its young pages, for a given threshold, or when its best score is under the
        lowest cut its nearest label can get on the site (:meth:`lowest_cut`).

        A crawl whose spider sees every page with its verdict (tag mode) cannot look at a
        page again once delivered; it defers the pages whose verdict is not settled to the
        second look instead, both ways."""
        if verdict.label is not None:
            return self.holds(verdict, site)
        if not verdict.scores:
            return True
        nearest = max(verdict.scores, key=verdict.scores.__getitem__)
        if nearest in self._given:
            return True
        with self._lock:
            if not self.is_young(site):
                return True
            return verdict.score < self.lowest_cut(nearest, site)

    def core(self, label: str, site: str | None = None) -> tuple[Features, float]:
        """``label``'s core on ``site`` and the share of the site's kept pages holding it (see
        :func:`holds_the_core`; empty for a label with one template)."""
        with self._lock:
            state = self._site(site)
            if state.refreshed_at < 0:
                self._refresh(state)
            info = state.labels[label]
            return info.core, info.core_share

    def catch_up(self, site: str | None = None) -> None:
        """Re-estimate ``site``'s weights, anchors and cuts from every page it has seen, when
        pages have arrived since the last re-estimate. A crawl re-estimates a site only when it
        has grown by a quarter, so its last cut can miss up to a fifth of its pages; a decision
        that waited for the site to be learned (the second look) is made on the cut the whole
        site gives, as ``classify_all`` does."""
        with self._lock:
            state = self._site(site)
            if state.refreshed_at != state.model.pages:
                self._refresh(state, exact=True)

    def lowest_cut(self, label: str, site: str | None = None) -> float:
        """A bound under which no threshold of ``label`` on ``site`` is expected (see
        :func:`~pagesim_scrapy.core.cutrules.lowest_cut`): a page without a label that scores
        under it is settled even on a young site."""
        with self._lock:
            state = self._site(site)
            if state.refreshed_at < 0:
                self._refresh(state)
            return lowest_cut(state.labels[label], self.policy)

    def decide(
        self,
        scores: Mapping[str, float],
        *,
        site: str | None = None,
        features: Features | None = None,
    ) -> Verdict:
        """The verdict for a page's ``scores`` on ``site``; with the page's ``features``, a
        page under its nearest label's cut that holds the label's core is given the label
        (see :func:`holds_the_core`)."""
        ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
        best_label, best_score = ranked[0]
        runner_up, second = ranked[1] if len(ranked) > 1 else (None, 0.0)
        margin = best_score - second if len(ranked) > 1 else 1.0
        threshold, source = self.threshold_info(best_label, site)
        accepted = best_score >= threshold
        by_core = False
        if not accepted:
            by_core = accepted = self._by_core(best_label, best_score, source, site, features)
        evidence = confidence_features(
            best_score,
            threshold,
            accepted=accepted,
            margin=margin,
            labels=len(ranked),
            source=source,
        )
        return Verdict(
            label=best_label if accepted else None,
            score=best_score,
            scores=dict(scores),
            method=SITE_METHOD,
            margin=margin,
            runner_up=runner_up,
            threshold=threshold,
            threshold_source=source,
            confidence=verdict_confidence(evidence, self.policy.confidence_weights),
            core=by_core,
        )

    def _by_core(
        self,
        label: str,
        score: float,
        source: str,
        site: str | None,
        features: Features | None,
    ) -> bool:
        """Whether a page under ``label``'s cut is given it for holding its core (see
        :func:`holds_the_core`): never without the page's ``features`` or under a given
        threshold."""
        if features is None or source == "given":
            return False
        with self._lock:
            info = self._site(site).labels[label]
            return holds_the_core(info, features, score, self.policy)

    def _label_of(
        self, scores: Mapping[str, float], site: str | None, features: Features
    ) -> str | None:
        """:meth:`decide`'s label alone: the crawl's fill labels every page of its sample at
        each build, and reads nothing else of the verdict (its confidence and the verdict
        itself were most of that cost)."""
        label = max(scores, key=scores.__getitem__)  # the first highest, as decide's sort
        score = scores[label]
        threshold, source = self.threshold_info(label, site)
        if score >= threshold or self._by_core(label, score, source, site, features):
            return label
        return None

    def classify(self, page: Any, *, site: str | None = None, learn: bool = True) -> Verdict:
        """Score ``page`` on its site and decide; ``learn`` counts it into the site first."""
        features = self.features(page)
        with self._lock:
            state = self._site(site)
            scores = None
            if learn:
                before = state.model.pages
                self._add(state, features, site)
                self._maybe_refresh(state)
                if state.refreshed_at == state.model.pages:  # the re-estimate scored it
                    scores = self._kept_scores(state).just_scored(state.model, before)
            elif state.refreshed_at < 0:
                self._refresh(state)
            if scores is None:
                scores = self._scores_of(features, state)
            return self.decide(scores, site=site, features=features)

    def classify_all(self, pages: Iterable[Any], *, site: str | None = None) -> list[Verdict]:
        """Batch form: the pages given are the site; learn them all, then decide each, and
        let the site's clusters name the pages left with none (:meth:`_fill_from_types`)."""
        given = [self._summary(page) for page in pages]
        features = [self.features(page) for page in given]
        with self._lock:
            state = self._site(site)
            state.model.keep_at_most(max(len(features), self.keep_pages))
            for page in features:
                self._add(state, page, site)
            self._refresh(state)
            verdicts = [
                self.decide(self._scores_of(page, state), site=site, features=page)
                for page in features
            ]
        return self._fill_from_types(given, verdicts, features, site)

    def fills_from_types(self) -> bool:
        """Whether :meth:`classify_all` names the pages left with none from the site's
        clusters (``policy.site_types_cover`` at most 1): it then needs the pages' summaries,
        so a batch job that moves pages must move them, not only their features."""
        return self.policy.site_types_cover <= 1.0

    def _fill_from_types(
        self,
        pages: list[Any],
        verdicts: list[Verdict],
        features: list[Features],
        site: str | None,
    ) -> list[Verdict]:
        """The verdicts with the pages left with none given their cluster's label, when the
        examples' clusters cover the site (``policy.site_types_cover``), then, with several
        labels, their nearest labelled page's (``policy.site_neighbour_cover``; see
        :mod:`~pagesim_scrapy.core.clusterfill`). Pages given as features alone (a batch job
        that moved only them) cannot be clustered and keep their verdicts."""
        cover = self.policy.site_types_cover
        if cover > 1.0 or not any(verdict.label is None for verdict in verdicts):
            return verdicts
        summaries = [page for page in pages if isinstance(page, PageSummary)]
        if len(summaries) != len(pages):
            return verdicts
        types = site_types(summaries, self.template_summaries)
        filled = fill_from_types(verdicts, types, cover, frozenset(self._given))
        if len(self._templates) < 2 or types.covered < self.policy.site_neighbour_cover:
            return filled  # one label: its own cut bounds its type, no route to choose
        return self._fill_from_neighbours(filled, features, site)

    def _fill_from_neighbours(
        self, verdicts: list[Verdict], features: list[Features], site: str | None
    ) -> list[Verdict]:
        """The verdicts with each page left with none given the label its chain of nearest
        pages of the site (the labels' examples first, then the pages) ends in (see
        :func:`~pagesim_scrapy.core.clusterfill.fill_from_neighbours`)."""
        examples = [(label, page) for label, pages in self._templates.items() for page in pages]
        offset = len(examples)
        labels = [label for label, _ in examples] + [verdict.label for verdict in verdicts]
        left = [offset + n for n, verdict in enumerate(verdicts) if verdict.label is None]
        with self._lock:
            model = self._site(site).model
            pages = [page for _, page in examples] + features
            nearest = dict(zip(left, nearest_pages(pages, model, left, always=offset)))
        named = fill_from_neighbours(labels, nearest, frozenset(self._given))[offset:]
        return [
            verdict if label is None or verdict.label is not None else replace(verdict, label=label)
            for verdict, label in zip(verdicts, named)
        ]

    def fill_from_kept(
        self, verdict: Verdict, features: Features, site: str | None = None
    ) -> tuple[Verdict, NeighbourFill | None]:
        """A crawl's verdict with the neighbour fill of :meth:`classify_all`: with several
        labels that describe the site (see :meth:`neighbour_fill`), a page left with none
        takes its nearest label when its most similar kept page chains to that label.
        Returns the verdict and why it got the label (None when it did not)."""
        if verdict.label is not None:
            return verdict, None
        found = self.neighbour_fill(features, verdict.scores, site)
        if found is None:
            return verdict, None
        return replace(verdict, label=found.label), found

    def neighbour_fill(
        self, features: Features, scores: Mapping[str, float], site: str | None = None
    ) -> NeighbourFill | None:
        """The label a page left with none takes from its neighbours on ``site`` and why, or
        None; learns nothing. Only once every label can have a cut of its own (before, the
        kept pages' labels are the priors' and lead chains astray), when at least
        ``policy.crawl_neighbour_cover`` of the kept pages chain to a label, and when the
        label the chain gives is the page's nearest (its scores and its neighbours agree)."""
        if not scores or not self._fills_from_neighbours():
            return None
        needed = pages_needed(len(self._templates), self.policy)
        with self._lock:
            if len(self._site(site).model.recent) < needed:  # not built before it can serve
                return None
            kept = self._kept_neighbours(site)
            if kept.sampled < needed or kept.covered < self.policy.crawl_neighbour_cover:
                return None
            found = kept.fill(features)
        nearest = max(scores, key=scores.__getitem__)
        if found is None or found.label != nearest or found.label in self._given:
            return None
        return found

    def _fills_from_neighbours(self) -> bool:
        """Whether pages left with none are filled from their neighbours: several labels (one
        label's own cut bounds its type), and both fills of the batch on."""
        policy = self.policy
        covers = (
            policy.site_types_cover,
            policy.site_neighbour_cover,
            policy.crawl_neighbour_cover,
        )
        return max(covers) <= 1.0 and len(self._templates) >= 2

    @cached_property
    def _neighbour_cache(
        self,
    ) -> dict[str | None, tuple[_Site, int, KeptNeighbours, PoolNumbers]]:
        """Per site, its kept pages as the crawl's fill reads them, the re-estimate they
        were labelled at (the labels move only when the cuts do), and their feature numbers
        (kept from build to build)."""
        return {}

    def _kept_neighbours(self, site: str | None) -> KeptNeighbours:
        """The site's :class:`~pagesim_scrapy.core.clusterfill.KeptNeighbours`, rebuilt after
        each re-estimate of its cuts. Called under the lock."""
        state = self._site(site)
        if state.refreshed_at < 0:
            self._refresh(state)
        cache = self._neighbour_cache
        cached = cache.get(site)
        if cached is not None and cached[0] is state and cached[1] == state.refreshed_at:
            return cached[2]
        numbers = cached[3] if cached is not None and cached[0] is state else PoolNumbers()

        scored = self._kept_scores(state)

        def label_of(packed: str) -> str | None:
            # the re-estimate has often just scored the page under the counts of now; the
            # decision reads of a page's features only whether it holds a core
            scores = scored.current(packed, state.model)
            if scores is None:
                page = unpack_features(packed)
                return self._label_of(self._scores_of(page, state), site, page)
            return self._label_of(scores, site, scored.held_shared(packed))

        examples = [(label, page) for label, pages in self._templates.items() for page in pages]
        kept = self._sample(state)
        built = KeptNeighbours(
            examples, kept, label_of, state.model, frozenset(self._given), numbers=numbers
        )
        if len(cache) > len(self._sites):  # forget the sites evicted since
            for gone in [name for name in cache if name not in self._sites]:
                del cache[gone]
        cache[site] = (state, state.refreshed_at, built, numbers)
        return built

    def _summary(self, page: Any) -> Any:
        """The page's summary (summarised once for both the features and the clusters), or
        the page's features as given."""
        if isinstance(page, (PageSummary, frozenset)):
            return page
        return summarize(page, self.summary_options)

    def describe(self, site: str | None = None) -> dict[str, Any]:
        """Labels, template counts and the thresholds on ``site``, for logs and reports."""
        out: dict[str, Any] = {"method": SITE_METHOD, "params": {}, "labels": {}}
        with self._lock:
            state = self._site(site)
            for label, pages in self._templates.items():
                value, source = self.threshold_info(label, site)
                info = state.labels[label]
                out["labels"][label] = {
                    "templates": len(pages),
                    "threshold": round(value, 4),
                    "threshold_source": source,
                    "within": None if info.within is None else round(info.within, 4),
                    "background": None if info.cross is None else round(info.cross, 4),
                    "pages_scored": len(info.observed),
                    "cut_rule": info.rule if info.cut is not None else "",
                    "core_pairs": len(info.core),
                    "core_share": round(info.core_share, 4),
                }
            out["site"] = {
                "name": site,
                **state.model.describe(),
                "coverage": round(state.coverage, 4),
            }
        return out

    def sites(self) -> list[str | None]:
        with self._lock:
            return list(self._sites)


class _Rescorer:
    """A classifier's scorer of kept pages for one re-estimate of a site (see
    :meth:`SiteAwareClassifier._rescorer`): one page at a time, or a list in one call."""

    def __init__(self, classifier: SiteAwareClassifier, state: _Site, cache: KeptScores) -> None:
        self._classifier, self._state, self._cache = classifier, state, cache
        self._weigh: Callable[[str], tuple[float, list[float]]] | None = None
        self._weigh_many: Callable[[list[str]], list[list[float]]] | None = None
        self._totals: list[float] | None = None

    def _ready(self) -> list[float]:
        """The templates' totals, and the weigher of one page, made at the first page scored."""
        if self._totals is None:
            classifier, state = self._classifier, self._state
            classifier._template_totals(state)
            self._totals = state.flat_totals
            model, members = state.model, classifier._counted_members
            count, table = len(classifier._pair_layout[0]), model.table()
            self._weigh = self._cache.weigher(members, count, model.df, table, model.changes)
        return self._totals

    def _many_weigher(self) -> Callable[[list[str]], list[list[float]]] | None:
        """The weigher of lists of pages, made at the first list (a young site's re-estimate
        scores its one new page alone: it makes none)."""
        totals = self._ready()
        if self._weigh_many is None and self._weigh is not None:
            classifier, model = self._classifier, self._state.model
            self._weigh_many = self._cache.many_weigher(
                classifier._counted_members,
                len(classifier._pair_layout[0]),
                model.df,
                model.table(),
                model.changes,
                totals,
            )
        return self._weigh_many

    def __call__(self, packed: str) -> dict[str, float]:
        totals = self._ready()
        if self._weigh is None:
            return self._classifier._rescored(packed, self._state, self._cache)
        total, shared = self._weigh(packed)
        return self._classifier._by_label(jaccards(shared, total, totals))

    def many(self, pages: list[str]) -> list[dict[str, float]]:
        """Each page's scores, as one call per page gives them."""
        weigh_many = self._many_weigher()
        if weigh_many is None:
            return list(map(self, pages))
        return list(map(self._classifier._by_label, weigh_many(pages)))
