"""The drift decision for one (site, label): do the label's new pages still look as before?

The evidence is the label's *features* (parent > child pairs of node labels, as the site model
counts them) beyond the site's chrome. A layout change shows as pairs that were on most of the
label's pages and are on few now (a renamed class, a moved block) or the reverse (a new
gallery); new content in the same layout moves pairs only a little, and a random half of the
same pages moves them by chance only, which a Fisher exact test keeps out. The moved pairs then
sort each page into the old or the new look: most new pages in the new look is a change, some
of them is a second look (an A/B test), and a new look already on the baseline's pages is no
change at all (a variant that was there before).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pagesim_scrapy.core.drift.collapse import collapsed, with_stand_ins
from pagesim_scrapy.core.drift.fisher import fisher_two_sided
from pagesim_scrapy.core.drift.looks import Look, SiteLooks
from pagesim_scrapy.core.drift.memo import once
from pagesim_scrapy.core.drift.options import DEFAULT_DRIFT_OPTIONS, DriftOptions
from pagesim_scrapy.core.drift.report import (
    CHANGED,
    TWO_LOOKS,
    UNCHANGED,
    DriftReport,
    FeatureMove,
)
from pagesim_scrapy.core.site import Features, SiteModel, jaccard_of_totals


@dataclass
class _Side:
    """One side's pages of the label: their features, ids and per-feature counts."""

    pages: list[Features]
    ids: list[str]
    counts: Counter[str]

    @classmethod
    def of(cls, looks: SiteLooks, label: str) -> _Side:
        look = looks.labels[label]
        return cls(look.features(), look.page_ids(), look.counts())

    def share(self, feature: str) -> float:
        return self.counts[feature] / len(self.pages)


def _other_shares(looks: SiteLooks, label: str, options: DriftOptions) -> dict[str, float] | None:
    """Each feature's share among the site's pages of other labels (None: too few of them);
    once per round of checks (:mod:`.memo`), from each look's own counts."""
    others = [look for key, look in looks.labels.items() if key != label]
    state = tuple(look.state() for look in others)
    return once(
        ("shares", label), (looks, options, *others), state, lambda: _shares(others, options)
    )


def _shares(others: list[Look], options: DriftOptions) -> dict[str, float] | None:
    pages = sum(len(look.kept) for look in others)
    if pages < options.min_other_pages:
        return None
    counts: Counter[str] = Counter()
    for look in others:  # the features in the order the pages first show them, as one count
        counts.update(look.counts())
    return {f: n / pages for f, n in counts.items()}


def chrome_of(looks: SiteLooks, label: str, options: DriftOptions) -> frozenset[str]:
    """Features on at least ``chrome_share`` of the site's pages of other labels: the site's
    header, menus and footer, which say little about this label (none when too few pages of
    other labels were seen to tell)."""
    shares = _other_shares(looks, label, options) or {}
    return frozenset(f for f, share in shares.items() if share >= options.chrome_share)


def sitewide_moves(
    before: SiteLooks, now: SiteLooks, label: str, options: DriftOptions
) -> frozenset[str]:
    """Features whose share moved on the other labels' pages too: a change of the site's
    chrome (a new footer, a renamed menu) is the site's, not this label's."""
    was, is_now = _other_shares(before, label, options), _other_shares(now, label, options)
    if was is None or is_now is None:
        return frozenset()
    return frozenset(
        f
        for f in was.keys() | is_now.keys()
        if abs(is_now.get(f, 0.0) - was.get(f, 0.0)) >= options.min_shift
    )


def moved_features(
    before: _Side, now: _Side, sitewide: frozenset[str], options: DriftOptions
) -> list[FeatureMove]:
    """The pairs whose share among the label's pages moved by a lot, on a look, beyond
    chance, and not on the whole site."""
    moves = []
    n_before, n_now = len(before.pages), len(now.pages)
    for feature in (before.counts.keys() | now.counts.keys()) - sitewide:
        was, is_now = before.share(feature), now.share(feature)
        if abs(is_now - was) < options.min_shift or not _on_a_look(was, is_now, options):
            continue
        p = fisher_two_sided(before.counts[feature], n_before, now.counts[feature], n_now)
        if p <= options.max_p:
            moves.append(FeatureMove(feature, was, is_now, p))
    moves.sort(key=lambda m: (m.p_value, -abs(m.now - m.before), m.feature))
    return moves


def _on_a_look(was: float, is_now: float, options: DriftOptions) -> bool:
    """A pair of a look: on most pages of one side, or on a part of one side and on no page
    of the other (the structure of a second look)."""
    most = max(was, is_now)
    return most >= options.look_share or (min(was, is_now) == 0.0 and most >= options.min_shift)


def newness(page: Features, gone: frozenset[str], new: frozenset[str]) -> float:
    """How much a page shows the new look: lacks the pairs that went, holds those that came."""
    parts = []
    if gone:
        parts.append(1.0 - len(page & gone) / len(gone))
    if new:
        parts.append(len(page & new) / len(new))
    return sum(parts) / len(parts) if parts else 0.0


def _site_weights(before: SiteLooks, now: SiteLooks) -> SiteModel:
    """The site's weights over both sides' kept pages: once per round of checks (every label
    of a site shares them at the close), not to be changed."""
    looks = [*before.labels.values(), *now.labels.values()]
    state = (list(before.labels), list(now.labels), [look.state() for look in looks])
    return once("weights", (before, now, *looks), state, lambda: _weights_of(looks))


def _weights_of(looks: list[Look]) -> SiteModel:
    model = SiteModel(keep_pages=0)
    for look in looks:
        for page in look.features():
            model.add(page, keep=False)
    return model


class _Scorer:
    """Scores pages against the baseline's look (the pairs on at least half of the baseline
    pages, beyond the chrome) under the site's weights: how the label's pages score against
    their examples, before (each baseline page left out of its own look) and now."""

    def __init__(self, before: _Side, chrome: frozenset[str], model: SiteModel) -> None:
        self.before = before
        self.chrome = chrome
        candidates = [f for f in before.counts if f not in chrome]
        weights = model.weights(candidates)
        if not any(weights.values()):  # one label only: every pair is "chrome" to the IDF
            weights = dict.fromkeys(candidates, 1.0)
        self.weights = weights

    def _score(self, page: Features, look: set[str]) -> float:
        weight = self.weights.get
        own = page - self.chrome
        total_page = sum(weight(f, 0.0) for f in own)
        total_look = sum(weight(f, 0.0) for f in look)
        shared = sum(weight(f, 0.0) for f in own & look)
        return jaccard_of_totals(shared, total_page, total_look)

    def mean_before(self) -> float:
        """Each baseline page against the look of the other baseline pages: a pair on more
        than half of them is in every page's look, one just at half only in the looks of
        the pages that lack it; so the looks are not built page by page (the weights are on a
        grid, so the sums are the same in any order)."""
        counts, n = self.before.counts, len(self.before.pages)
        half = (n - 1) / 2
        weight = self.weights.get
        always = {f for f in self.weights if counts[f] - 1 >= half}
        edge = [f for f in self.weights if half <= counts[f] < half + 1]
        total_always = sum(weight(f, 0.0) for f in always)
        scores = []
        for page in self.before.pages:
            own = page - self.chrome
            total_page = sum(weight(f, 0.0) for f in own)
            total_look = total_always + sum(weight(f, 0.0) for f in edge if f not in page)
            shared = sum(weight(f, 0.0) for f in own if f in always)
            scores.append(jaccard_of_totals(shared, total_page, total_look))
        return sum(scores) / len(scores)

    def mean_now(self, pages: Sequence[Features]) -> float:
        counts, half = self.before.counts, len(self.before.pages) / 2
        look = {f for f in self.weights if counts[f] >= half}
        return sum(self._score(page, look) for page in pages) / len(pages)


def _significance(moves: list[FeatureMove], options: DriftOptions) -> float:
    """1 when the strongest move is far beyond ``max_p`` (its square), 0.5 at ``max_p``."""
    best = max(moves[0].p_value, 1e-300)
    return min(1.0, math.log(best) / (2 * math.log(options.max_p)))


def _verdict(
    moves: list[FeatureMove],
    look_before: float,
    look_now: float,
    clarity: float,
    sizes: int,
    options: DriftOptions,
) -> tuple[str, float, str]:
    """(verdict, confidence, reason) from the moved pairs and the new look's shares."""
    size = min(1.0, sizes / (4 * options.min_pages))
    if len(moves) < options.min_moved:
        return UNCHANGED, size, "no structure beyond the site's chrome moved beyond chance"
    if look_before > options.earlier_look_share:
        return (
            UNCHANGED,
            size * min(1.0, look_before / (2 * options.earlier_look_share)),
            f"the other look was already on {look_before:.0%} of the baseline's pages",
        )
    significance = _significance(moves, options)
    if look_now >= options.changed_share:
        confidence = significance * min(look_now, 1.0 - look_before) * clarity
        return CHANGED, confidence, f"{look_now:.0%} of the new pages show a new look"
    if look_now >= options.two_looks_share:
        return (
            TWO_LOOKS,
            significance * clarity,
            f"{look_now:.0%} of the new pages show a second look, the rest the baseline's",
        )
    return UNCHANGED, size * (1.0 - look_now), f"only {look_now:.0%} of the new pages look new"


def _no_verdict(
    site: str | None, label: str, before: SiteLooks, now: SiteLooks, options: DriftOptions
) -> DriftReport | None:
    """A report without a verdict when there is nothing to compare yet, else None."""
    if label not in now.labels:
        return DriftReport(site, label, None, None, "no pages of the label now")
    kept_before, kept_now = len(before.labels[label].kept), len(now.labels[label].kept)
    if min(kept_before, kept_now) < options.min_pages:
        reason = (
            f"too few pages ({kept_before} before, {kept_now} now; "
            f"{options.min_pages} needed on each side)"
        )
        return DriftReport(
            site, label, None, None, reason, pages_before=kept_before, pages_now=kept_now
        )
    return None


@dataclass
class _Looks:
    """The moved pairs and how much each page of both sides shows the new look."""

    moves: list[FeatureMove]
    gone: frozenset[str]
    came: frozenset[str]
    before: list[float]
    now: list[float]

    @classmethod
    def of(cls, moves: list[FeatureMove], old: _Side, new: _Side) -> _Looks:
        gone = frozenset(m.feature for m in moves if m.now < m.before)
        came = frozenset(m.feature for m in moves if m.now > m.before)
        return cls(
            moves,
            gone,
            came,
            [newness(page, gone, came) for page in old.pages],
            [newness(page, gone, came) for page in new.pages],
        )

    @staticmethod
    def share(values: list[float]) -> float:
        return sum(v > 0.5 for v in values) / len(values)

    def clarity(self) -> float:
        """How cleanly the new pages fall into one look or the other (1: all clearly)."""
        return sum(abs(2 * v - 1) for v in self.now) / len(self.now)


def compare_looks(
    site: str | None,
    label: str,
    before: SiteLooks | None,
    now: SiteLooks,
    options: DriftOptions = DEFAULT_DRIFT_OPTIONS,
) -> DriftReport:
    """Drift of ``label``'s pages on ``site`` from ``before`` (the baseline) to ``now``."""
    if before is None or label not in before.labels:
        return DriftReport(site, label, None, None, "no baseline: the label's first crawl here")
    if collapsed(before, now, label, options):
        report = _collapse_report(site, label, before, now, options)
        if report is not None:
            return report
    empty = _no_verdict(site, label, before, now, options)
    return empty or _compare_present(site, label, before, now, options)


def _collapse_report(
    site: str | None, label: str, before: SiteLooks, now: SiteLooks, options: DriftOptions
) -> DriftReport | None:
    """A change when the label's share of the site collapsed and the unlabelled pages nearest
    its look show a new one (None otherwise: the label's own pages decide)."""
    relabelled, moved = with_stand_ins(before, now, label, options)
    stand_ins = relabelled.labels.get(label)  # none when no page without a label is nearest it
    if stand_ins is None or len(stand_ins.kept) < options.min_pages:
        return None
    report = _compare_present(site, label, before, relabelled, options)
    if report.verdict != CHANGED:
        return None
    report.reason = (
        f"its share of the site's pages fell from {before.share(label):.0%} to "
        f"{now.share(label):.0%}, and {report.reason} ({moved} pages without a label, "
        "nearest its look, taken for its pages)"
    )
    report.share_now = now.share(label)
    report.pages_now = now.labels[label].pages if label in now.labels else 0
    report.stand_ins = moved
    return report


def _compare_present(
    site: str | None, label: str, before: SiteLooks, now: SiteLooks, options: DriftOptions
) -> DriftReport:
    """The verdict from the label's pages on both sides (enough of them on each)."""
    old, new = _Side.of(before, label), _Side.of(now, label)
    moves = moved_features(old, new, sitewide_moves(before, now, label, options), options)
    looks = _Looks.of(moves, old, new)
    look_before, look_now = looks.share(looks.before), looks.share(looks.now)
    verdict, confidence, reason = _verdict(
        moves, look_before, look_now, looks.clarity(), min(len(old.pages), len(new.pages)), options
    )
    chrome = chrome_of(before, label, options) | chrome_of(now, label, options)
    scorer = _Scorer(old, chrome, _site_weights(before, now))
    top = options.top if verdict != UNCHANGED else 0
    return DriftReport(
        site,
        label,
        verdict,
        confidence,
        reason,
        pages_before=before.labels[label].pages,
        pages_now=now.labels[label].pages,
        share_before=before.share(label),
        share_now=now.share(label),
        score_before=scorer.mean_before(),
        score_now=scorer.mean_now(new.pages),
        new_look_before=look_before,
        new_look_now=look_now,
        disappeared=[m for m in moves if m.feature in looks.gone][:top],
        appeared=[m for m in moves if m.feature in looks.came][:top],
        examples_before=_examples(old.ids, looks.before, newest=False, top=min(3, options.top)),
        examples_now=_examples(new.ids, looks.now, newest=True, top=min(3, top)),
    )


def _examples(ids: list[str], values: list[float], *, newest: bool, top: int) -> list[str]:
    """The pages that show a look best: the baseline's most typical, the new look's newest."""
    order = sorted(range(len(ids)), key=lambda i: (-values[i] if newest else values[i], ids[i]))
    picked = [ids[i] for i in order if ids[i] and (values[i] > 0.5) == newest]
    return picked[:top]
