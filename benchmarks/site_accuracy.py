"""Page-type decisions on real multi-type sites (issue 10's figures), offline.

    python benchmarks/site_accuracy.py [--method site] [--sites a,b] [--seed 1] [--loso]
                                       [--loso-weights] [--data a,b] [--several-types]
                                       [--covering-grid] [--clustered-types MODES]

Pages: ../shared/data/site_page_types (five real sites, 976 labelled pages); ``--data`` names
the data sets to read (``site_page_types,site_page_types_2`` adds four more sites). The wiki's
<body> class names the page type (``ns-10``, ``mw-special-…``), so it is removed from the
wiki's pages before they are summarised: the test is of structure, not of one telling attribute.

Protocols, printed per site and pooled:

* one-class: for every type with >= 5 pages, its first 2 pages (by path) are the templates and
  every other page of the site is a test page. "batch" decides all pages at once (the pages
  given are the site, as ``classify`` does); "online" decides them one by one in a shuffled
  order (as a crawl does), and also reports the error rate on the first 10 pages. Beside them,
  the F1 of the best threshold in hindsight (the ceiling of any threshold rule on that score).
* one-class in link order: the same, online, with the pages in the order a breadth-first
  crawl from the home page meets them (the links of each page in a shuffled order, 3 orders;
  pages no link leads to are left out): a crawl meets a site's types in bursts, some late.
* multi-type: the first page of every type with >= 3 pages is its template; accuracy over the
  other pages of those types (nearest type, and nearest type that also passes the cut).
* every type configured: every type with >= 3 pages configured, 2 examples of the site's
  largest (detail) type and 1 of each other; the share of those types' pages given their own
  type, no label, or another label, and whose nearest type is their own; beside them the
  labelled 1-NN ceiling (a page's most similar other page of the configured types, under the
  site's weights, is of its type), what any nearest-type choice could reach on these
  features. ``--several-types`` prints only this table, over both data sets by default.
* all types but one: the multi-type templates without one type's, each type with >= 5 pages
  in turn; its pages must get "none of these". Micro P/R/F1, and the share of the held-out
  types' pages given a label.
* some of the types: 2 or 3 of a site's types configured (2 templates each), every other page
  of the site tested; a page of another type must get "none of these". Micro P/R/F1.
* stability: one-class, 3 shuffled orders; the pages a label's threshold needs before it
  stays within 0.05 of the one the whole site gives (median and 90th percentile over types
  and orders), and the error rate of the verdicts by rank (1-10, 11-20, 21-50, 51-100, later)
  beside the batch's: what the classifier does before it is stable.
* large type: the type is a large share of the site, as products are of a shop's crawl: for
  every type with >= 20 pages, all its pages plus other pages of the site drawn at random so
  that the type is 35 %, 50 % or 70 % of the pages; 2 templates, batch and online F1. "Most
  of the site": the same with the type 80 % and 90 % of the pages (a crawl that keeps to a
  shop's product pages), seeds 1 and 2.
* several sites in one crawl: the one-class protocol with the templates of one site's type,
  and the pages of every site given interleaved in a shuffled order (each page with its site,
  as a crawl's hosts): F1 on the templates' site, batch, as a crawl decided once and holding
  in tag mode, beside the same order with that site's pages alone; and how many pages of the
  other sites are given the label (a crawl that leaves its site must not take the other
  sites' pages for the type). ``--several-sites`` prints only this table.
* templates drawn at random: the one-class batch protocol with each type's 2 templates drawn
  at random from its pages (3 draws) beside the first 2 by path: which pages are the examples
  is a user's choice, and the figures above are for one choice; and the every-type protocol's
  own-type (and nearest-type) share with its examples drawn the same way. ``--drawn-templates``
  prints only these tables.
* --none-sources: where the every-type batch's "none" comes from: per site, the pages of the
  configured types left with none, by their nearest label's threshold source and cut rule,
  whether that label is their own type and whether the site's clusters hold them with an
  example; both data sets by default.
* --lost-pages: the pages each configured label's one-class batch (with the every-type
  examples, over the same pages) gives it rightly and the every-type batch does not, by cause:
  their nearest label is another one (which rejects them or gives its own), or it is their own
  and its cut moved up, or their score fell (the weights changed), or the one-class run gave
  them the label by the core or a fill; both data sets by default.
* --clustered-types MODES: the site's pages clustered (``cluster``'s batch procedure, method
  ``site``), each cluster named by the examples it holds, and the batch verdicts relabelled
  by it (``RELABEL_MODES``; ``mode@share``: only when at least ``share`` of the site's pages
  are in a cluster that holds an example). Per mode: the every-type own share (path and 3
  draws), "some of the types" P/F1 and one-class batch F1 (path and 3 draws).
  ``--clustered-loso``: the modes as a grid, each site decided with the one chosen on the
  others (highest own share that keeps "some" P and one-class F1 within 0.005;
  ``--clustered-precision P``: and "some" P at least P on the others).
* --online-types: every type configured and "some of the types", online: the pages decided one
  by one in a shuffled order (3 orders) through the crawl's decision step (``PageDecider``, so
  the crawl's neighbour fill included); both data sets by default. ``--online-fill-grid``: the
  crawl fill's cover (``crawl_neighbour_cover``) per leave-one-site-out fold, judged by the
  online every-type own share among the values that keep the online "some" precision.
* --loso: the online protocol's two constants (prior weight, pages before the distribution
  decides) chosen on four sites by pooled F1 and applied to the fifth.
* --wide-grid: the nearest rule's wide-gap exception (``WIDE_GAP``) per leave-one-site-out
  fold, judged by multi-type accepted accuracy + "all types but one" F1, batch and online.
* --nearest-floor-grid: the nearest rule's floor (``NEAREST_FLOOR``) the same way, with two
  templates per type (the first two pages of every type with >= 5 pages).
* --early-grid: the share of the pages seen that must be above the site's own split for it to
  lower the prior before a label's cut is set (``EARLY_CUT_SHARE``; 2 = the rule off), judged
  by batch + online + link-order + large-type online one-class F1.
* --dominant-grid: how alike a label's templates must be for a type that is most of the site
  to be cut at its edge (``DOMINANT_WITHIN``; 2 = the rule off), judged by batch + online +
  link-order + large-type online + most-of-the-site batch and online one-class F1.
* --covering-grid: when the labels are taken to cover the site (``COVERING_SHARE``) and the
  nearest rule's floor (``NEAREST_FLOOR``) per leave-one-site-out fold over every site given,
  judged by every-type own share + "all types but one" F1 + "some of the types" F1.
* --floor-grid: the cut's floor (``ANCHOR_FLOOR``) per leave-one-site-out fold, judged by
  batch + online + link-order one-class F1.
* --loso-weights: the same for the site model's weight ramp (``RAMP_PAGES``) and the one-label
  cut's floor percentile (``CUT_FLOOR_PERCENTILE``), judged by batch F1 + online F1 +
  multi-type accepted accuracy.

Pages are summarised with the crawl's default options (``PageSimConfig().summary_options()``),
so these figures predict the crawl's.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from itertools import combinations
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import urldefrag, urljoin, urlsplit

import lxml.etree
import lxml.html
from _data import shared

from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.clusterfill import (
    CandidatePool,
    feature_numbers,
    fill_from_types,
    site_types,
)
from pagesim_scrapy.core.decide import PageDecider
from pagesim_scrapy.core.secondlook import SecondLook
from pagesim_scrapy.core.site import jaccard_of_totals, site_similarity
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.sitefile import parse_site_models, site_models_text
from pagesim_scrapy.core.sitepolicy import DEFAULT_POLICY, SitePolicy
from pagesim_scrapy.core.summary import PageSummary, summarize
from pagesim_scrapy.core.verdict import Verdict
from pagesim_scrapy.settings import PageSimConfig

#: Types shared by several labels in one template (the data's README): reported, not tuned to.
SHARED_TEMPLATE_SITES = ("flink_site", "cpython_docs")
_BODY_CLASS = re.compile(rb"(<body\b[^>]*?)\sclass=(\"[^\"]*\"|'[^']*')", re.IGNORECASE)


@dataclass
class Page:
    path: str
    label: str
    summary: PageSummary
    url: str = ""
    #: paths of the site's pages (in the data) this page links to, in document order
    links: list[str] = field(default_factory=list)


def _hrefs(data: bytes) -> list[str]:
    """The link targets of a page's ``<a href>`` elements, in document order."""
    try:
        root = lxml.html.fromstring(data)
    except (ValueError, lxml.etree.ParserError):
        return []
    return [href for a in root.iter("a") if (href := a.get("href"))]


def link_key(url: str) -> str:
    """A URL compared loosely (no fragment, scheme, www. or trailing slash): the data's URLs
    and the pages' own links name one page in several ways."""
    url = urldefrag(url)[0].split("://", 1)[-1]
    return url.removeprefix("www.").rstrip("/")


def load_site(folder: Path) -> list[Page]:
    options = PageSimConfig().summary_options()
    pages = []
    hrefs: dict[str, list[str]] = {}
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            data = (folder / row["path"]).read_bytes()
            if folder.name == "awesomewm_wiki":
                data = _BODY_CLASS.sub(rb"\1", data, count=1)
            summary = summarize(data, options)
            pages.append(Page(row["path"], row["page_type"], summary, row.get("url") or ""))
            hrefs[row["path"]] = _hrefs(data)
    by_key = {link_key(page.url): page.path for page in pages if page.url}
    for page in pages:
        seen = {page.path}
        for href in hrefs[page.path]:
            target = by_key.get(link_key(urljoin(page.url, href)))
            if target is not None and target not in seen:
                seen.add(target)
                page.links.append(target)
    pages.sort(key=lambda page: page.path)
    return pages


def link_order(pages: list[Page], seed: int) -> list[Page]:
    """The pages a breadth-first crawl from the home page (the first page by path on a site
    without one) reaches, in the order it meets them; each page's links in a shuffled order,
    as concurrent downloads return them. Pages no link of the data leads to are left out."""
    rng = random.Random(f"links:{seed}")
    by_path = {page.path: page for page in pages}
    start = next((page for page in pages if page.label == "home"), pages[0])
    order, seen = [start], {start.path}
    for page in order:
        links = list(page.links)
        rng.shuffle(links)
        for path in links:
            if path not in seen:
                seen.add(path)
                order.append(by_path[path])
    return order


def one_class_link_order(
    pages: list[Page], seed: int, min_pages: int = 20, policy: SitePolicy | None = None
) -> tuple[Counts, float, int]:
    """One-class online F1 with the pages in link order (see :func:`link_order`): a crawl
    meets a site's types in bursts, and some late. Also the first-10 error rate and the
    number of pages reached."""
    order = link_order(pages, seed)
    counts = Counts()
    early_errors = early_total = 0
    for label, count in sorted(Counter(page.label for page in pages).items()):
        if count < 5:
            continue
        templates = [page for page in pages if page.label == label][:2]
        given = {label: [t.summary for t in templates]}
        clf = build_classifier(given, method="site", min_pages=min_pages, policy=policy)
        tests = [page for page in order if page not in templates]
        for rank, page in enumerate(tests):
            accepted = clf.classify(page.summary).label == label
            counts.add(page.label == label, accepted)
            if rank < 10:
                early_total += 1
                early_errors += accepted != (page.label == label)
    return counts, early_errors / early_total if early_total else 0.0, len(order)


class Counts:
    def __init__(self) -> None:
        self.tp = self.fp = self.fn = 0

    def add(self, truth: bool, predicted: bool) -> None:
        self.tp += truth and predicted
        self.fp += predicted and not truth
        self.fn += truth and not predicted

    def merge(self, other: Counts) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn

    @property
    def f1(self) -> float:
        return 2 * self.tp / (2 * self.tp + self.fp + self.fn) if self.tp else 0.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    def __str__(self) -> str:
        return f"P {self.precision:.3f} R {self.recall:.3f} F1 {self.f1:.3f}"


def best_threshold_f1(scores: list[float], truth: list[bool]) -> float:
    """F1 of the best threshold in hindsight."""
    ranked = sorted(zip(scores, truth), key=lambda item: -item[0])
    positives = sum(truth)
    best = hits = 0
    for rank, (_, positive) in enumerate(ranked, 1):
        hits += positive
        if hits:
            best = max(best, 2 * hits / (rank + positives))
    return best


def one_class(
    pages: list[Page],
    method: str,
    seed: int,
    prior_weight: float,
    min_pages: int,
    policy: SitePolicy | None = None,
) -> dict[str, object]:
    types = Counter(page.label for page in pages)
    batch, online = Counts(), Counts()
    early_errors = early_total = 0
    ceilings: list[float] = []
    per_type: dict[str, float] = {}
    for label, count in sorted(types.items()):
        if count < 5:
            continue
        templates = [page for page in pages if page.label == label][:2]
        tests = [page for page in pages if page not in templates]
        truth = [page.label == label for page in tests]
        options: dict[str, Any] = {
            "prior_weight": prior_weight,
            "min_pages": min_pages,
            "policy": policy,
        }
        clf = build_classifier({label: [t.summary for t in templates]}, method=method, **options)
        verdicts = clf.classify_all([page.summary for page in tests])
        counts = Counts()
        for positive, verdict in zip(truth, verdicts):
            counts.add(positive, verdict.label == label)
        batch.merge(counts)
        per_type[label] = counts.f1
        ceilings.append(best_threshold_f1([v.score for v in verdicts], truth))
        order = list(range(len(tests)))
        random.Random(f"{seed}:{label}").shuffle(order)
        clf = build_classifier({label: [t.summary for t in templates]}, method=method, **options)
        for rank, index in enumerate(order):
            verdict = clf.classify(tests[index].summary)
            online.add(truth[index], verdict.label == label)
            if rank < 10:
                early_total += 1
                early_errors += (verdict.label == label) != truth[index]
    return {
        "batch": batch,
        "online": online,
        "ceiling": sum(ceilings) / len(ceilings) if ceilings else 0.0,
        "early_error": early_errors / early_total if early_total else 0.0,
        "per_type": per_type,
    }


def drawn_templates(pages: list[Page], draw: int) -> tuple[Counts, dict[str, float]]:
    """One-class batch counts with each type's 2 templates drawn at random (``draw`` seeds the
    draw; 0 takes the first 2 by path, as the one-class protocol does), and F1 per type."""
    counts, per_type = Counts(), {}
    for label, count in sorted(Counter(page.label for page in pages).items()):
        if count < 5:
            continue
        mine = [page for page in pages if page.label == label]
        templates = mine[:2] if draw == 0 else random.Random(f"{draw}:{label}").sample(mine, 2)
        tests = [page for page in pages if page not in templates]
        clf = build_classifier({label: [t.summary for t in templates]}, method="site")
        mine_counts = Counts()
        for page, verdict in zip(tests, clf.classify_all([page.summary for page in tests])):
            mine_counts.add(page.label == label, verdict.label == label)
        counts.merge(mine_counts)
        per_type[label] = mine_counts.f1
    return counts, per_type


def print_drawn_templates(sites: dict[str, list[Page]], draws: int = 3) -> None:
    """One-class batch F1 per site with the templates first by path and drawn at random."""
    print(
        f"\none-class, batch, templates drawn at random ({draws} draws; 'path': the first 2 by "
        "path, as above): how much the figures owe to which pages are the examples"
    )
    heads = " ".join(f"{'draw ' + str(d):>9}" for d in range(1, draws + 1))
    print(f"{'site':24} {'path':>9} {heads}  worst types (F1 < 0.9 in a draw)")
    pooled = [Counts() for _ in range(draws + 1)]
    for name, pages in sites.items():
        row, weak = [], Counter()
        for draw in range(draws + 1):
            counts, per_type = drawn_templates(pages, draw)
            row.append(counts.f1)
            if name not in SHARED_TEMPLATE_SITES:
                pooled[draw].merge(counts)
            weak.update(label for label, f1 in per_type.items() if f1 < 0.9)
        mark = " *" if name in SHARED_TEMPLATE_SITES else ""
        worst = ", ".join(f"{label} ({n})" for label, n in weak.most_common(4))
        print(f"{name + mark:24} " + " ".join(f"{f1:9.3f}" for f1 in row) + f"  {worst}")
    print(f"{'pooled, distinct sites':24} " + " ".join(f"{c.f1:9.3f}" for c in pooled))
    print_drawn_several_types(sites, draws)


def print_drawn_several_types(sites: dict[str, list[Page]], draws: int = 3) -> None:
    """Every type configured, the share of their pages given their own type (and whose
    nearest type is their own), with the examples first by path and drawn at random."""
    print(
        f"\nevery type configured, examples drawn at random ({draws} draws): own type share "
        "(nearest type own)"
    )
    heads = " ".join(f"{'draw ' + str(d):>13}" for d in range(1, draws + 1))
    print(f"{'site':24} {'path':>13} {heads}")
    pooled = [TypeShares() for _ in range(draws + 1)]
    for name, pages in sites.items():
        row = []
        for draw in range(draws + 1):
            shares = several_types(pages, draw=draw)
            pooled[draw].merge(shares)
            row.append(shares)
        print(f"{name:24} " + " ".join(_own_and_nearest(shares) for shares in row))
    print(f"{'pooled':24} " + " ".join(_own_and_nearest(shares) for shares in pooled))


def _own_and_nearest(shares: TypeShares) -> str:
    n = max(1, shares.total)
    return f"{shares.own / n:6.3f} ({shares.nearest / n:.3f})"


RANK_BUCKETS = ((0, 10), (10, 20), (20, 50), (50, 100), (100, 10**9))


def stability(pages: list[Page], seeds: tuple[int, ...] = (1, 2, 3)) -> dict[str, list[float]]:
    """How many pages a label's threshold needs to settle, and what the verdicts are worth
    before then: one-class (2 templates per type with >= 5 pages), pages in shuffled orders.

    ``settled``: per type and order, the page count from which the online threshold stays
    within 0.05 of the one the whole site gives (batch); ``errors``: wrong verdicts per rank
    bucket (:data:`RANK_BUCKETS`), as [wrong, total] pairs flattened, then batch's."""
    settled: list[float] = []
    wrong = [0.0] * (2 * len(RANK_BUCKETS) + 2)
    for label, count in sorted(Counter(page.label for page in pages).items()):
        if count < 5:
            continue
        templates = [page for page in pages if page.label == label][:2]
        tests = [page for page in pages if page not in templates]
        given = {label: [t.summary for t in templates]}
        batch = build_classifier(given, method="site")
        verdicts = batch.classify_all([page.summary for page in tests])
        final, _ = batch.threshold_info(label)
        for page, verdict in zip(tests, verdicts):
            wrong[-2] += (verdict.label == label) != (page.label == label)
            wrong[-1] += 1
        for seed in seeds:
            order = list(tests)
            random.Random(f"{seed}:{label}").shuffle(order)
            clf = build_classifier(given, method="site")
            since = 0
            for rank, page in enumerate(order):
                verdict = clf.classify(page.summary)
                if abs(clf.threshold_info(label)[0] - final) > 0.05:
                    since = rank + 1
                bucket = next(i for i, (lo, hi) in enumerate(RANK_BUCKETS) if lo <= rank < hi)
                wrong[2 * bucket] += (verdict.label == label) != (page.label == label)
                wrong[2 * bucket + 1] += 1
            settled.append(since)
    return {"settled": settled, "errors": wrong}


def _error_rates(errors: list[float]) -> str:
    """:func:`stability`'s [wrong, total] pairs as error rates, one column per rank bucket."""
    return " ".join(
        f"{errors[i] / errors[i + 1]:7.3f}" if errors[i + 1] else f"{'-':>7}"
        for i in range(0, len(errors), 2)
    )


def second_crawl(
    pages: list[Page], seed: int, weight: float = DEFAULT_POLICY.saved_site_weight
) -> dict[str, object]:
    """One-class, online, twice: a first crawl meets the site's pages in a shuffled order and
    saves its site model (through the site-models file's text, with its default bounds); a
    second crawl adopts it and meets the same pages in another order."""
    types = Counter(page.label for page in pages)
    first, second = Counts(), Counts()
    early = {"first": [0, 0], "second": [0, 0]}
    options = PageSimConfig().summary_options()
    for label, count in sorted(types.items()):
        if count < 5:
            continue
        templates = {label: [page.summary for page in pages if page.label == label][:2]}
        tests = [page for page in pages if page.summary not in templates[label]]
        rng = random.Random(f"{seed}:{label}:second")
        crawler = build_classifier(templates, method="site")
        assert isinstance(crawler, SiteAwareClassifier)
        for crawl, counts in (("first", first), ("second", second)):
            order = list(range(len(tests)))
            rng.shuffle(order)
            for rank, index in enumerate(order):
                page = tests[index]
                predicted = crawler.classify(page.summary).label == label
                counts.add(page.label == label, predicted)
                right = predicted == (page.label == label)
                if rank < 10:
                    early[crawl][0] += not right
                    early[crawl][1] += 1
            if crawl == "first":
                text = site_models_text(crawler.export_sites(), options)
                saved = parse_site_models(text, options)
                assert saved is not None
                crawler = build_classifier(templates, method="site")
                assert isinstance(crawler, SiteAwareClassifier)
                crawler.adopt_saved(saved, weight)
    return {
        "first": first,
        "second": second,
        "first_early": early["first"][0] / max(1, early["first"][1]),
        "second_early": early["second"][0] / max(1, early["second"][1]),
    }


def type_templates(
    pages: list[Page], templates: int = 1, leave_out: str | None = None
) -> dict[str, list[Page]]:
    """The multi-type protocols' templates: the first page of every type with >= 3 pages, or
    with ``templates=2`` the first two pages of every type with >= 5 (a label's templates are
    then compared with each other, as the sample project's are); ``leave_out`` is not given."""
    need = 3 if templates == 1 else 5
    types = Counter(page.label for page in pages)
    return {
        label: [p for p in pages if p.label == label][:templates]
        for label in sorted(types)
        if types[label] >= need and label != leave_out
    }


def _tests(pages: list[Page], given: dict[str, list[Page]]) -> list[Page]:
    used = {id(p) for chosen in given.values() for p in chosen}
    return [p for p in pages if id(p) not in used]


def _classifier(given: dict[str, list[Page]], method: str, policy: SitePolicy | None = None) -> Any:
    return build_classifier(
        {label: [p.summary for p in chosen] for label, chosen in given.items()},
        method=method,
        policy=policy,
    )


def multi_type(
    pages: list[Page],
    method: str,
    quiet: bool = False,
    templates: int = 1,
    policy: SitePolicy | None = None,
) -> tuple[float, float, int]:
    given = type_templates(pages, templates)
    tests = [p for p in _tests(pages, given) if p.label in given]
    clf = _classifier(given, method, policy)
    verdicts = clf.classify_all([p.summary for p in tests])
    coverage = clf.describe().get("site", {}).get("coverage")
    if coverage is not None and not quiet:
        print(f"    (share of the site the labels cover: {coverage:.2f})")
    nearest = sum(nearest_type(v) == p.label for p, v in zip(tests, verdicts))
    accepted = sum(v.label == p.label for p, v in zip(tests, verdicts))
    return nearest / len(tests), accepted / len(tests), len(tests)


def nearest_type(verdict: Any) -> str:
    """The label a verdict's page is nearest (its best score), given a label or not."""
    return str(max(verdict.scores, key=verdict.scores.__getitem__))


def add_micro(counts: Counts, tests: list[Page], verdicts: list[Any], configured: Any) -> None:
    """Add micro P/R/F1 counts over the ``configured`` labels: a page's right answer is its
    type when configured, else "none of these"; a wrong label is a false positive."""
    for page, verdict in zip(tests, verdicts):
        truth = page.label if page.label in configured else None
        counts.tp += verdict.label is not None and verdict.label == truth
        counts.fp += verdict.label is not None and verdict.label != truth
        counts.fn += truth is not None and verdict.label != truth


def all_but_one(
    pages: list[Page],
    method: str,
    seed: int | None = None,
    templates: int = 1,
    policy: SitePolicy | None = None,
) -> tuple[Counts, int, int]:
    """Every type of the site configured but one, in turn: the multi-type protocol's templates
    without the held-out type's, for every type with >= 5 pages. The held-out type's pages
    must get "none of these": the multi-type protocol counts only pages of configured types,
    so it cannot see a label taken by a type nobody configured (as a shop's cart page takes
    "product" when every other type is given). Returns micro P/R/F1 over the configured
    labels, and how many of the held-out types' pages were given a label, of how many. With
    ``seed``, online: the pages one by one in a shuffled order, as a crawl decides them."""
    types = Counter(page.label for page in pages)
    counts = Counts()
    labelled = held_pages = 0
    for held in sorted(t for t, c in types.items() if c >= 5):
        given = type_templates(pages, templates, leave_out=held)
        tests = _tests(pages, given)
        clf = _classifier(given, method, policy)
        if seed is None:
            verdicts = clf.classify_all([p.summary for p in tests])
        else:
            random.Random(f"{seed}:{held}").shuffle(tests)
            verdicts = [clf.classify(p.summary) for p in tests]
        add_micro(counts, tests, verdicts, given)
        for page, verdict in zip(tests, verdicts):
            if page.label == held:
                held_pages += 1
                labelled += verdict.label is not None
    return counts, labelled, held_pages


def multi_type_online(
    pages: list[Page],
    method: str,
    seed: int,
    templates: int = 1,
    policy: SitePolicy | None = None,
) -> float:
    """The multi-type protocol online: every page of the site but the templates (those of the
    types not configured too) decided one by one in a shuffled order; accepted accuracy over
    the pages of the configured types."""
    given = type_templates(pages, templates)
    order = _tests(pages, given)
    random.Random(f"{seed}:multi").shuffle(order)
    clf = _classifier(given, method, policy)
    right = scored = 0
    for page in order:
        verdict = clf.classify(page.summary)
        if page.label in given:
            scored += 1
            right += verdict.label == page.label
    return right / scored if scored else 0.0


def several_type_templates(pages: list[Page], draw: int = 0) -> dict[str, list[Page]]:
    """Every type with >= 3 pages configured: 2 examples of the site's largest type, its
    detail type (ties to the first by name), and 1 of each other type; the first by path, or
    drawn at random (``draw`` seeds the draw, as :func:`drawn_templates`)."""
    types = Counter(page.label for page in pages)
    configured = sorted(label for label, count in types.items() if count >= 3)
    detail = max(configured, key=lambda label: (types[label], [-ord(c) for c in label]))
    given = {}
    for label in configured:
        mine = [p for p in pages if p.label == label]
        wanted = 2 if label == detail else 1
        drawn = random.Random(f"{draw}:{label}").sample(mine, wanted) if draw else mine[:wanted]
        given[label] = drawn
    return given


@dataclass
class TypeShares:
    """How the pages of the configured types were decided: their own type, none, another."""

    own: int = 0
    none: int = 0
    other: int = 0
    nearest: int = 0  # pages whose nearest type is their own, given a label or not
    # pages whose most similar other page of the configured types (or example) is of their
    # type, under the site's weights: the ceiling of any nearest-type choice on these features
    one_nn: int = 0

    def merge(self, other: TypeShares) -> None:
        self.own += other.own
        self.none += other.none
        self.other += other.other
        self.nearest += other.nearest
        self.one_nn += other.one_nn

    @property
    def total(self) -> int:
        return self.own + self.none + self.other

    def __str__(self) -> str:
        n = max(1, self.total)
        return (
            f"own {self.own / n:.3f}  none {self.none / n:.3f}  other {self.other / n:.3f}"
            f"  nearest own {self.nearest / n:.3f}"
            + (f"  1-NN {self.one_nn / n:.3f}" if self.one_nn else "")
            + f"  ({self.total} pages)"
        )


def several_types(
    pages: list[Page],
    method: str = "site",
    policy: SitePolicy | None = None,
    draw: int = 0,
    one_nn: bool = False,
) -> TypeShares:
    """Every type with >= 3 pages configured (:func:`several_type_templates`, ``draw`` seeds
    the examples' draw), batch: every page of the site but the templates is decided; the pages
    of the configured types are counted as given their own type, no label, or another label.
    With ``one_nn`` (method ``site``), also the labelled 1-NN ceiling (:func:`one_nn_right`)."""
    given = several_type_templates(pages, draw)
    tests = _tests(pages, given)
    clf = _classifier(given, method, policy)
    verdicts = clf.classify_all([p.summary for p in tests])
    shares = TypeShares()
    for page, verdict in zip(tests, verdicts):
        if page.label not in given:
            continue
        shares.own += verdict.label == page.label
        shares.none += verdict.label is None
        shares.other += verdict.label is not None and verdict.label != page.label
        shares.nearest += nearest_type(verdict) == page.label
    if one_nn:
        counted = [p for p in tests if p.label in given]
        shares.one_nn = one_nn_right(clf, [p for p in pages if p.label in given], counted)
    return shares


def crawl_verdicts(clf: Any, pages: list[Page]) -> list[Any]:
    """The pages decided one by one, in the order given, through the crawl's decision step
    (:class:`~pagesim_scrapy.core.decide.PageDecider`, tag mode): what a crawl's spider reads
    as ``response.meta["pagesim"]``, fills included."""
    decider = PageDecider(clf)
    return [decider.decide(page.summary, site=None, url=page.url or page.path) for page in pages]


def several_types_online(
    pages: list[Page], seed: int, policy: SitePolicy | None = None, draw: int = 0
) -> TypeShares:
    """The every-type protocol (:func:`several_types`) online: the same pages decided one by
    one in a shuffled order (``seed``) through the crawl's decision step."""
    given = several_type_templates(pages, draw)
    tests = _tests(pages, given)
    random.Random(f"{seed}:several").shuffle(tests)
    decisions = crawl_verdicts(_classifier(given, "site", policy), tests)
    shares = TypeShares()
    for page, decision in zip(tests, decisions):
        if page.label not in given:
            continue
        shares.own += decision.label == page.label
        shares.none += decision.label is None
        shares.other += decision.label is not None and decision.label != page.label
        shares.nearest += nearest_type(decision) == page.label
    return shares


def some_types_online(pages: list[Page], seed: int, policy: SitePolicy | None = None) -> Counts:
    """The "some of the types" protocol (:func:`some_types`) online: the same label sets, the
    other pages decided one by one in a shuffled order through the crawl's decision step."""
    types = sorted(t for t, c in Counter(page.label for page in pages).items() if c >= 5)
    rng = random.Random(f"{seed}:some")
    combos = [rng.sample(types, k) for k, n in ((2, 6), (3, 4)) if k < len(types) for _ in range(n)]
    counts = Counts()
    for number, combo in enumerate(combos):
        templates = {label: [p for p in pages if p.label == label][:2] for label in combo}
        tests = _tests(pages, templates)
        random.Random(f"{seed}:some:{number}").shuffle(tests)
        decisions = crawl_verdicts(_classifier(templates, "site", policy), tests)
        add_micro(counts, tests, decisions, combo)
    return counts


def print_online_types(
    sites: dict[str, list[Page]],
    seeds: tuple[int, ...] = (1, 2, 3),
    policy: SitePolicy | None = None,
) -> None:
    """Every type configured and some of the types, online (a crawl's decisions), per site
    and pooled over ``seeds``."""
    print(
        "\nonline, through the crawl's decision step (shuffled orders, seeds "
        f"{','.join(map(str, seeds))}): every type configured (configured types' pages given) "
        "/ some of the types (micro P/R/F1)"
    )
    every, some = TypeShares(), Counts()
    for name, pages in sites.items():
        site_every, site_some = TypeShares(), Counts()
        for seed in seeds:
            site_every.merge(several_types_online(pages, seed, policy))
            site_some.merge(some_types_online(pages, seed, policy))
        every.merge(site_every)
        some.merge(site_some)
        print(f"{name:24} {site_every}\n{'':24} some {site_some}")
    print(f"{'pooled':24} {every}\n{'':24} some {some}")


#: The neighbour fill's cover in a crawl, per value tried (above 1: the fill off).
ONLINE_FILL_GRID = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 2.0)


def online_fill_grid(
    sites: dict[str, list[Page]], seeds: tuple[int, ...] = (1, 2, 3), slack: float = 0.005
) -> None:
    """The crawl's neighbour-fill cover (``crawl_neighbour_cover``) per leave-one-site-out
    fold: on the other sites, the highest online every-type own share among the values that
    keep the online "some of the types" precision within ``slack`` of the fill off; the
    held-out site decided with it."""
    table: dict[float, dict[str, tuple[TypeShares, Counts]]] = {}
    for value in ONLINE_FILL_GRID:
        policy = replace(DEFAULT_POLICY, crawl_neighbour_cover=value)
        table[value] = {}
        for name, pages in sites.items():
            every, some = TypeShares(), Counts()
            for seed in seeds:
                every.merge(several_types_online(pages, seed, policy))
                some.merge(some_types_online(pages, seed, policy))
            table[value][name] = (every, some)
        pooled_every, pooled_some = _pooled_online(table[value], list(sites))
        print(f"cover {value:4.2f}  every type {pooled_every}\n{'':12}some {pooled_some}")
    held_every, held_some = TypeShares(), Counts()
    for name in sites:
        others = [other for other in sites if other != name]
        chosen = _chosen_cover(table, others, slack)
        every, some = table[chosen][name]
        held_every.merge(every)
        held_some.merge(some)
        print(f"held out {name:24} cover {chosen:4.2f}  {every}  some {some}")
    print(f"{'held out, pooled':33} {held_every}\n{'':33} some {held_some}")


def _pooled_online(
    row: dict[str, tuple[TypeShares, Counts]], names: list[str]
) -> tuple[TypeShares, Counts]:
    every, some = TypeShares(), Counts()
    for name in names:
        every.merge(row[name][0])
        some.merge(row[name][1])
    return every, some


def _chosen_cover(
    table: dict[float, dict[str, tuple[TypeShares, Counts]]], names: list[str], slack: float
) -> float:
    """The value with the highest own share on ``names`` that keeps "some" P within
    ``slack`` of the fill off (the last value of the grid); the lowest such on a tie."""
    off = ONLINE_FILL_GRID[-1]
    floor = _pooled_online(table[off], names)[1].precision - slack
    best, best_own = off, -1.0
    for value in ONLINE_FILL_GRID:
        every, some = _pooled_online(table[value], names)
        own = every.own / max(1, every.total)
        if some.precision >= floor and own > best_own:
            best, best_own = value, own
    return best


def one_nn_right(clf: SiteAwareClassifier, pages: list[Page], counted: list[Page]) -> int:
    """How many of ``counted`` have, as their most similar other page of ``pages`` under the
    site's weights (after a batch), a page of their own type: what choosing the nearest type
    could reach if every other page of the configured types were a labelled example."""
    model = clf.site_model()
    features = [clf.features(page.summary) for page in pages]
    wanted = {id(page) for page in counted}
    right = 0
    for i, (page, mine) in enumerate(zip(pages, features)):
        if id(page) not in wanted:
            continue
        others = (j for j in range(len(pages)) if j != i)
        best = max(others, key=lambda j: site_similarity(mine, features[j], model), default=i)
        right += pages[best].label == page.label
    return right


def some_types(
    pages: list[Page], method: str, seed: int, policy: SitePolicy | None = None, quiet: bool = False
) -> Counts:
    """Several labels, but not every type of the site: 6 random pairs and 4 random triples of
    the types with >= 5 pages, 2 templates each; every other page of the site is a test page
    whose right answer is its type if configured, else "none of these". Micro P/R/F1 over the
    configured labels (a page given the wrong label, or a label when it has none, is a false
    positive)."""
    types = sorted(t for t, c in Counter(page.label for page in pages).items() if c >= 5)
    rng = random.Random(f"{seed}:some")
    # "some" is fewer than all: a site of two or three types has fewer combinations
    combos = [rng.sample(types, k) for k, n in ((2, 6), (3, 4)) if k < len(types) for _ in range(n)]
    counts = Counts()
    coverages: list[float] = []
    for combo in combos:
        templates = {label: [p for p in pages if p.label == label][:2] for label in combo}
        used = {id(p) for chosen in templates.values() for p in chosen}
        tests = [p for p in pages if id(p) not in used]
        given = {label: [p.summary for p in chosen] for label, chosen in templates.items()}
        clf = build_classifier(given, method=method, policy=policy)
        verdicts = clf.classify_all([p.summary for p in tests])
        coverages.append(clf.describe().get("site", {}).get("coverage", 0.0))
        add_micro(counts, tests, verdicts, combo)
    if coverages and not quiet:
        print(
            f"    (share of the site the labels cover: {min(coverages):.2f}-{max(coverages):.2f})"
        )
    return counts


class _Labelled(Protocol):
    label: str


P = TypeVar("P", bound=_Labelled)


def large_type_samples(
    pages: list[P], seed: int, share: float
) -> Iterator[tuple[str, list[P], list[P]]]:
    """(type, its 2 templates, the test pages in a shuffled order) per type with >= 20 pages:
    the type's other pages and other pages of the site drawn so that it is ``share`` of them."""
    types = Counter(page.label for page in pages)
    for label, count in sorted(types.items()):
        if count < 20:
            continue
        mine = [page for page in pages if page.label == label]
        others = [page for page in pages if page.label != label]
        rng = random.Random(f"{seed}:{label}:{share}")
        extra = min(len(others), round(len(mine) * (1 - share) / share))
        tests = mine[2:] + rng.sample(others, extra)
        rng.shuffle(tests)
        yield label, mine[:2], tests


def large_type(
    pages: list[Page],
    method: str,
    seed: int,
    share: float,
    min_pages: int = 20,
    policy: SitePolicy | None = None,
) -> dict[str, Counts]:
    """One-class F1 when the type is ``share`` of the site (see the module docstring)."""
    out = {"batch": Counts(), "online": Counts()}
    for label, templates, tests in large_type_samples(pages, seed, share):
        given = {label: [page.summary for page in templates]}
        options: dict[str, Any] = (
            {"min_pages": min_pages, "policy": policy} if method == "site" else {}
        )
        clf = build_classifier(given, method=method, **options)
        batch = clf.classify_all([p.summary for p in tests])
        clf = build_classifier(given, method=method, **options)
        online = [clf.classify(page.summary) for page in tests]
        for key, verdicts in (("batch", batch), ("online", online)):
            for page, verdict in zip(tests, verdicts):
                out[key].add(page.label == label, verdict.label == label)
    return out


def most_of_the_site(
    pages: list[Page], method: str, min_pages: int = 20, policy: SitePolicy | None = None
) -> dict[str, Counts]:
    """The large-type protocol with the type 80 % and 90 % of the site, seeds 1 and 2, pooled."""
    out = {"batch": Counts(), "online": Counts()}
    for share in (0.8, 0.9):
        for seed in (1, 2):
            for key, counts in large_type(pages, method, seed, share, min_pages, policy).items():
                out[key].merge(counts)
    return out


CRAWL_MODES = ("once", "second look", "held", "tag, held")

#: pages decided by :func:`as_a_crawl` and those its tag mode deferred (see print_crawl_modes)
TAG_DEFERRED: Counter[str] = Counter()


def as_a_crawl(
    clf: SiteAwareClassifier,
    summaries: list[PageSummary],
    targets: frozenset[str],
    sites: list[str] | None = None,
) -> dict[str, list[str | None]]:
    """The label each page reaches the spider with (None: it does not), when a crawl in drop
    mode (or with its items filtered) decides the pages one by one in the order given, per
    mode: "once", as each page is decided; "second look", the pages turned away while their
    site was young decided again when the crawl runs dry (:mod:`~pagesim_scrapy.core.secondlook`);
    "held", also the passing verdicts that do not hold yet (``SiteAwareClassifier.holds``)
    turned away until then; "tag, held", a tag-mode crawl whose spider gets every page with
    its verdict: the verdicts not settled either way (``SiteAwareClassifier.settled``) are
    deferred to the end and decided then, the others stand. The learning is the same in
    all: one pass. ``sites``: each page's site (default: one site), for a crawl of several."""
    once: list[str | None] = []
    held: list[str | None] = []
    tag: list[str | None] = []
    looks = {mode: SecondLook[int](clf, targets) for mode in CRAWL_MODES[1:]}
    for index, summary in enumerate(summaries):
        site = sites[index] if sites is not None else None
        features = clf.features(summary)
        verdict = clf.classify(features, site=site)
        wanted = verdict.label if verdict.label in targets else None
        once.append(wanted)
        TAG_DEFERRED["pages"] += 1
        if clf.settled(verdict, site):
            tag.append(wanted)
        else:
            looks["tag, held"].record(index, features, site)
            tag.append(None)
            TAG_DEFERRED["deferred"] += 1
        if wanted is None:
            looks["second look"].record(index, features, site)
            looks["held"].record(index, features, site)
            held.append(None)
        elif clf.holds(verdict, site):
            held.append(wanted)
        else:
            looks["held"].record(index, features, site)
            held.append(None)
    out = {"once": once, "second look": list(once), "held": held, "tag, held": tag}
    for mode, look in looks.items():
        for index, verdict in look.due():
            out[mode][index] = verdict.label
    return out


def crawl_one_class(
    pages: list[Page],
    orders: list[list[Page]],
    templates_per_type: int = 2,
    **options: Any,
) -> dict[str, Counts]:
    """One-class F1 per crawl mode (:func:`as_a_crawl`) over the given page orders: for every
    type with >= 5 pages, its first 2 pages (or ``templates_per_type``) are the templates, the
    rest of each order is crawled. An order is a list of the site's pages (shuffled, or in
    link order); ``options`` go to the classifier (``prior_weight``, ``min_pages``)."""
    out = {mode: Counts() for mode in CRAWL_MODES}
    for label, count in sorted(Counter(page.label for page in pages).items()):
        if count < 5:
            continue
        templates = [page for page in pages if page.label == label][:templates_per_type]
        for order in orders:
            tests = [page for page in order if page not in templates]
            _crawl_one_label(label, templates, tests, out, **options)
    return out


def _crawl_one_label(
    label: str, templates: list[Page], tests: list[Page], out: dict[str, Counts], **options: Any
) -> None:
    """One one-class crawl of ``tests`` (in that order) per mode, counted into ``out``."""
    clf = build_classifier({label: [t.summary for t in templates]}, method="site", **options)
    assert isinstance(clf, SiteAwareClassifier)
    crawled = as_a_crawl(clf, [page.summary for page in tests], frozenset({label}))
    for mode, labels in crawled.items():
        for page, got in zip(tests, labels):
            out[mode].add(page.label == label, got == label)


def _several_batch(
    given: dict[str, list[PageSummary]],
    label: str,
    sites: dict[str, list[Page]],
    home: str,
    tests: list[tuple[str, Page]],
    out: dict[str, Counts],
    foreign_labelled: dict[str, int],
) -> int:
    """:func:`several_sites`' batch mode (each site's pages decided at once); returns how many
    pages of the other sites were decided."""
    foreign = 0
    clf = build_classifier(given, method="site")
    assert isinstance(clf, SiteAwareClassifier)
    for name in sites:
        group = [page for site, page in tests if site == name]
        verdicts = clf.classify_all([page.summary for page in group], site=name)
        for page, verdict in zip(group, verdicts):
            if name == home:
                out["batch"].add(page.label == label, verdict.label == label)
            else:
                foreign_labelled["batch"] += verdict.label == label
                foreign += 1
    return foreign


def _several_crawl(
    given: dict[str, list[PageSummary]],
    label: str,
    home: str,
    tests: list[tuple[str, Page]],
    out: dict[str, Counts],
    foreign_labelled: dict[str, int],
) -> None:
    """:func:`several_sites`' crawl modes ("once", "tag, held") over all sites interleaved."""
    clf = build_classifier(given, method="site")
    assert isinstance(clf, SiteAwareClassifier)
    crawled = as_a_crawl(
        clf,
        [page.summary for _, page in tests],
        frozenset({label}),
        sites=[site for site, _ in tests],
    )
    for mode in ("once", "tag, held"):
        for (site, page), got in zip(tests, crawled[mode]):
            if site == home:
                out[mode].add(page.label == label, got == label)
            else:
                foreign_labelled[mode] += got == label


def several_sites(
    sites: dict[str, list[Page]], home: str, seed: int
) -> tuple[dict[str, Counts], dict[str, int], int]:
    """One crawl over every site given, its pages interleaved in a shuffled order, with the
    templates of one type of ``home`` (2 pages, every type with >= 5 pages in turn): the
    one-class counts on ``home``'s pages per mode ("batch": each site's pages decided at once;
    "alone": the same shuffled order with ``home``'s pages only, tag mode holding; "once" and
    "tag, held" as in :func:`as_a_crawl`, over all sites), and the pages of the other sites
    given the label per mode, out of how many."""
    pages = sites[home]
    out = {mode: Counts() for mode in ("batch", "alone", "once", "tag, held")}
    foreign_labelled = {mode: 0 for mode in ("batch", "once", "tag, held")}
    foreign_total = 0
    for label, count in sorted(Counter(page.label for page in pages).items()):
        if count < 5:
            continue
        templates = [page for page in pages if page.label == label][:2]
        tests = [(home, page) for page in pages if page not in templates] + [
            (name, page) for name, others in sites.items() if name != home for page in others
        ]
        random.Random(f"{seed}:{home}:{label}").shuffle(tests)
        given = {label: [t.summary for t in templates]}
        foreign_total += _several_batch(given, label, sites, home, tests, out, foreign_labelled)
        _several_crawl(given, label, home, tests, out, foreign_labelled)
        own = [page for site, page in tests if site == home]
        clf = build_classifier(given, method="site")
        assert isinstance(clf, SiteAwareClassifier)
        alone = as_a_crawl(clf, [page.summary for page in own], frozenset({label}))
        for page, got in zip(own, alone["tag, held"]):
            out["alone"].add(page.label == label, got == label)
    return out, foreign_labelled, foreign_total


def print_several_sites(sites: dict[str, list[Page]], seed: int) -> None:
    """The table of :func:`several_sites`, per home site and pooled over the distinct ones."""
    print(
        "\nseveral sites in one crawl (templates of one site's type; every site's pages "
        "interleaved, shuffled): one-class F1 on the templates' site, and the other sites' "
        "pages given the label"
    )
    print(
        f"{'site':24} {'batch':>6} {'alone':>6} {'once':>6} {'held':>6}  "
        "other sites' pages labelled (batch / once / tag, held)"
    )
    pooled = {mode: Counts() for mode in ("batch", "alone", "once", "tag, held")}
    for home in sites:
        counts, labelled, total = several_sites(sites, home, seed)
        mark = " *" if home in SHARED_TEMPLATE_SITES else ""
        if not mark:
            for mode, value in counts.items():
                pooled[mode].merge(value)
        print(
            f"{home + mark:24} "
            + " ".join(f"{counts[mode].f1:6.3f}" for mode in pooled)
            + "  "
            + " / ".join(str(labelled[mode]) for mode in labelled)
            + f" of {total}"
        )
    print(f"{'pooled, distinct sites':24} " + " ".join(f"{c.f1:6.3f}" for c in pooled.values()))


def crawl_multi_type(pages: list[Page], seeds: tuple[int, ...]) -> dict[str, float]:
    """Multi-type accepted accuracy per crawl mode: the multi-type protocol's templates (2 per
    type with >= 5 pages, so each label has an anchor), every other page of the site in a
    shuffled order; accuracy over the pages of the configured types."""
    given = type_templates(pages, 2)
    right = dict.fromkeys(CRAWL_MODES, 0)
    scored = 0
    for seed in seeds:
        order = _tests(pages, given)
        random.Random(f"{seed}:multi").shuffle(order)
        clf = _classifier(given, "site")
        crawled = as_a_crawl(clf, [page.summary for page in order], frozenset(given))
        scored += sum(page.label in given for page in order)
        for mode, labels in crawled.items():
            right[mode] += sum(
                got == page.label for page, got in zip(order, labels) if page.label in given
            )
    return {mode: right[mode] / scored if scored else 0.0 for mode in CRAWL_MODES}


def crawl_most_of_the_site(pages: list[Page]) -> dict[str, Counts]:
    """One-class F1 per crawl mode with the type 80 % and 90 % of the pages (seeds 1 and 2),
    as the "most of the site" protocol: a crawl that keeps to a shop's product pages."""
    out = {mode: Counts() for mode in CRAWL_MODES}
    for share in (0.8, 0.9):
        for seed in (1, 2):
            for label, templates, tests in large_type_samples(pages, seed, share):
                _crawl_one_label(label, templates, tests, out)
    return out


def _crawl_modes_row(name: str, protocol: str, counts: dict[str, Counts]) -> str:
    """One line of the crawl-modes table: F1, precision and recall of the four modes."""
    parts = [
        " / ".join(f"{getattr(counts[mode], figure):.3f}" for mode in CRAWL_MODES)
        for figure in ("f1", "precision", "recall")
    ]
    return f"{name:24} {protocol:13} F1 {parts[0]}   P {parts[1]}   R {parts[2]}"


def _crawl_protocol(
    protocol: str, pages: list[Page], shuffled: list[list[Page]]
) -> dict[str, Counts]:
    """One-class counts per crawl mode of one protocol of :func:`print_crawl_modes`."""
    if protocol == "shuffled":
        return crawl_one_class(pages, shuffled)
    if protocol == "1 template":  # no templates' likeness to anchor on
        return crawl_one_class(pages, shuffled, templates_per_type=1)
    if protocol == "link order":
        return crawl_one_class(pages, [link_order(pages, s) for s in (1, 2, 3)])
    return crawl_most_of_the_site(pages)


def print_crawl_modes(sites: dict[str, list[Page]]) -> None:
    """The table of :func:`as_a_crawl`'s four modes over five protocols."""
    print(
        "\nas a crawl that can look again: what reaches the spider with the label, decided "
        "once / with the second look / with unsettled verdicts held for it (drop mode, or tag "
        "mode with its items filtered) / tag mode holding the verdicts not settled either way "
        "(its last column: the share of the pages it deferred)"
    )
    protocols = ("shuffled", "1 template", "link order", "most of site", "multi-type")
    pooled = {name: {mode: Counts() for mode in CRAWL_MODES} for name in protocols[:4]}
    multi: dict[str, list[float]] = {mode: [] for mode in CRAWL_MODES}
    for name, pages in sites.items():
        mark = " *" if name in SHARED_TEMPLATE_SITES else ""
        shuffled = []
        for seed in (1, 2, 3):
            order = list(pages)
            random.Random(f"{seed}:crawl").shuffle(order)
            shuffled.append(order)
        figures: dict[str, dict[str, Counts]] = {}
        deferred: dict[str, float] = {}
        for protocol in protocols[:4]:
            TAG_DEFERRED.clear()
            figures[protocol] = _crawl_protocol(protocol, pages, shuffled)
            deferred[protocol] = TAG_DEFERRED["deferred"] / max(1, TAG_DEFERRED["pages"])
        TAG_DEFERRED.clear()
        accuracy = crawl_multi_type(pages, (1, 2, 3))
        deferred["multi-type"] = TAG_DEFERRED["deferred"] / max(1, TAG_DEFERRED["pages"])
        for protocol, counts in figures.items():
            print(
                _crawl_modes_row(name + mark, protocol, counts)
                + f"   deferred {deferred[protocol]:.0%}"
            )
            if name not in SHARED_TEMPLATE_SITES:
                for mode in CRAWL_MODES:
                    pooled[protocol][mode].merge(counts[mode])
        print(
            f"{name + mark:24} {'multi-type':13} accepted "
            + " / ".join(f"{accuracy[mode]:.3f}" for mode in CRAWL_MODES)
            + f"   deferred {deferred['multi-type']:.0%}"
        )
        if name not in SHARED_TEMPLATE_SITES:
            for mode in CRAWL_MODES:
                multi[mode].append(accuracy[mode])
    for protocol, counts in pooled.items():
        print(_crawl_modes_row("pooled, distinct sites", protocol, counts))
    if multi["once"]:
        print(
            f"{'mean, distinct sites':24} {'multi-type':13} accepted "
            + " / ".join(f"{statistics.mean(multi[mode]):.3f}" for mode in CRAWL_MODES)
        )


def parse_args() -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="site")
    parser.add_argument("--sites", default="")
    parser.add_argument(
        "--data",
        default="",
        help="comma-separated data sets under ../shared/data (default: site_page_types; "
        "with --several-types, site_page_types and site_page_types_2)",
    )
    parser.add_argument(
        "--several-types",
        action="store_true",
        help="only the table of every type with >= 3 pages configured (2 examples of the "
        "detail type)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--prior-weight", type=float, default=DEFAULT_POLICY.prior_weight)
    parser.add_argument("--min-pages", type=int, default=DEFAULT_POLICY.min_pages)
    parser.add_argument("--loso", action="store_true", help="leave-one-site-out constants")
    parser.add_argument(
        "--loso-weights",
        action="store_true",
        help="leave-one-site-out: the weight ramp and the cut's floor percentile (slow)",
    )
    parser.add_argument("--per-type", action="store_true", help="print F1 per type")
    parser.add_argument(
        "--crawl-only",
        action="store_true",
        help="only the table of a crawl that can look again (see as_a_crawl)",
    )
    parser.add_argument(
        "--drawn-templates",
        action="store_true",
        help="only one-class batch F1 with each type's templates drawn at random (3 draws)",
    )
    parser.add_argument(
        "--several-sites",
        action="store_true",
        help="only the table of a crawl over several sites (see several_sites)",
    )
    parser.add_argument(
        "--narrow-grid",
        action="store_true",
        help="the cut's narrow-gap anchor (NARROW_GAP) per leave-one-site-out fold (3 orders)",
    )
    parser.add_argument(
        "--recurring-grid",
        action="store_true",
        help="recurring crawl: the saved sites' weight per leave-one-site-out fold (4 seeds)",
    )
    parser.add_argument(
        "--wide-grid",
        action="store_true",
        help="the nearest rule's wide-gap exception (WIDE_GAP) per leave-one-site-out fold",
    )
    parser.add_argument(
        "--nearest-floor-grid",
        action="store_true",
        help="the nearest rule's floor (NEAREST_FLOOR) per leave-one-site-out fold (2 templates)",
    )
    parser.add_argument(
        "--early-grid",
        action="store_true",
        help="the early cut's share of the pages (EARLY_CUT_SHARE) per leave-one-site-out fold",
    )
    parser.add_argument(
        "--dominant-grid",
        action="store_true",
        help="how alike the templates of a type that is most of the site must be "
        "(DOMINANT_WITHIN) per leave-one-site-out fold",
    )
    parser.add_argument(
        "--covering-grid",
        action="store_true",
        help="when the labels cover the site (COVERING_SHARE) and the nearest rule's floor "
        "(NEAREST_FLOOR) per leave-one-site-out fold, over every site given",
    )
    parser.add_argument(
        "--none-sources",
        action="store_true",
        help="only where the every-type batch's 'none' comes from, per site (both data sets "
        "by default)",
    )
    parser.add_argument(
        "--lost-pages",
        action="store_true",
        help="only the pages a label's one-class batch keeps that every type configured "
        "loses, by cause, per site (both data sets by default)",
    )
    parser.add_argument(
        "--clustered-types",
        default=None,
        help="comma-separated relabel modes (see RELABEL_MODES; 'off' for none): the site's "
        "clusters relabel the batch verdicts; prints only that table",
    )
    parser.add_argument(
        "--clustered-precision",
        type=float,
        default=0.0,
        help="with --clustered-loso: a mode must also keep the other sites' pooled 'some of "
        "the types' precision at least this high",
    )
    parser.add_argument(
        "--clustered-loso",
        action="store_true",
        help="with --clustered-types: each site decided with the mode chosen on the others",
    )
    parser.add_argument(
        "--online-types",
        action="store_true",
        help="only every type configured and some of the types, online through the crawl's "
        "decision step (3 shuffled orders; both data sets by default)",
    )
    parser.add_argument(
        "--online-fill-grid",
        action="store_true",
        help="the crawl's neighbour-fill cover per leave-one-site-out fold (online every-type "
        "own share, 'some of the types' precision kept; both data sets by default)",
    )
    parser.add_argument(
        "--url-evidence",
        action="store_true",
        help="pages left with none given a label whose examples' URLs share their URL's shape "
        "(several labels), per mode and leave-one-site-out (both data sets by default)",
    )
    parser.add_argument(
        "--cover-gates",
        action="store_true",
        help="the nearest label for pages left with none, gated by each measure of how much of "
        "the site the labels describe, per value and leave-one-site-out (both data sets)",
    )
    parser.add_argument(
        "--labelled-neighbours",
        action="store_true",
        help="pages left with none given their most similar labelled page's label (the "
        "examples and the pages given a label), per floor mode (both data sets)",
    )
    parser.add_argument(
        "--floor-grid",
        action="store_true",
        help="the cut's floor (ANCHOR_FLOOR) per leave-one-site-out fold",
    )
    return parser.parse_args()


def print_one_class(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """The one-class protocol, per site and pooled."""
    print(f"\none-class (2 templates per type with >= 5 pages), method {args.method}")
    print(f"{'site':24} {'batch':28} {'online (shuffled)':28} {'first 10 err':>12} {'ceiling':>8}")
    pooled = {"batch": Counts(), "online": Counts()}
    distinct = {"batch": Counts(), "online": Counts()}
    for name, pages in sites.items():
        result = one_class(pages, args.method, args.seed, args.prior_weight, args.min_pages)
        for key in ("batch", "online"):
            counts = result[key]
            assert isinstance(counts, Counts)
            pooled[key].merge(counts)
            if name not in SHARED_TEMPLATE_SITES:
                distinct[key].merge(counts)
        mark = " *" if name in SHARED_TEMPLATE_SITES else ""
        print(
            f"{name + mark:24} {result['batch']!s:28} {result['online']!s:28} "
            f"{result['early_error']:12.3f} {result['ceiling']:8.3f}"
        )
        if args.per_type:
            per_type = result["per_type"]
            assert isinstance(per_type, dict)
            print("    " + " ".join(f"{k}={v:.2f}" for k, v in per_type.items()))
    print(f"{'pooled, distinct sites':24} {distinct['batch']!s:28} {distinct['online']!s:28}")
    print(f"{'pooled, all sites':24} {pooled['batch']!s:28} {pooled['online']!s:28}")
    print("(* several labelled types share one template on this site: reported, not tuned to)")


def print_link_order(sites: dict[str, list[Page]]) -> None:
    """The one-class protocol in link order (3 orders)."""
    print("\none-class, pages in link order (a breadth-first crawl from the home page, 3 orders)")
    print(f"{'site':24} {'online (link order)':28} {'first 10 err':>12} {'reached':>8}")
    linked = {"all": Counts(), "distinct": Counts()}
    for name, pages in sites.items():
        counts, early, reached = Counts(), 0.0, 0
        for seed in (1, 2, 3):
            run, run_early, reached = one_class_link_order(pages, seed)
            counts.merge(run)
            early += run_early / 3
        linked["all"].merge(counts)
        if name not in SHARED_TEMPLATE_SITES:
            linked["distinct"].merge(counts)
        mark = " *" if name in SHARED_TEMPLATE_SITES else ""
        print(f"{name + mark:24} {counts!s:28} {early:12.3f} {reached:4d}/{len(pages)}")
    print(f"{'pooled, distinct sites':24} {linked['distinct']!s:28}")
    print(f"{'pooled, all sites':24} {linked['all']!s:28}")


def print_multi_type(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """The multi-type protocol, per site and pooled."""
    print(f"\nmulti-type (first page of each type with >= 3 pages), method {args.method}")
    total_nearest = total_accepted = total = 0
    dn = da = dt = 0
    for name, pages in sites.items():
        nearest, accepted, count = multi_type(pages, args.method)
        print(f"{name:24} nearest {nearest:.3f}  accepted {accepted:.3f}  ({count} pages)")
        total_nearest += round(nearest * count)
        total_accepted += round(accepted * count)
        total += count
        if name not in SHARED_TEMPLATE_SITES:
            dn += round(nearest * count)
            da += round(accepted * count)
            dt += count
    if dt:
        print(f"{'pooled, distinct sites':24} nearest {dn / dt:.3f}  accepted {da / dt:.3f}")
    print(
        f"{'pooled, all sites':24} nearest {total_nearest / total:.3f}  "
        f"accepted {total_accepted / total:.3f}"
    )


def print_some_types(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """Some of the types configured, the rest "none of these"."""
    print("\nsome of the types (2 or 3 of a site's types configured, the rest 'none of these')")
    some_pooled, some_distinct = Counts(), Counts()
    for name, pages in sites.items():
        counts = some_types(pages, args.method, args.seed)
        some_pooled.merge(counts)
        if name not in SHARED_TEMPLATE_SITES:
            some_distinct.merge(counts)
        print(f"{name:24} {counts}")
    print(f"{'pooled, distinct sites':24} {some_distinct}")
    print(f"{'pooled, all sites':24} {some_pooled}")


def print_all_but_one(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """All types but one configured, each type in turn."""
    print("\nall types but one (the multi-type templates without one type's, each type in turn)")
    held_pooled, held_distinct = Counts(), Counts()
    shares = {"distinct": [0, 0], "all": [0, 0]}
    for name, pages in sites.items():
        counts, labelled, held_pages = all_but_one(pages, args.method)
        groups = ("all",) if name in SHARED_TEMPLATE_SITES else ("all", "distinct")
        for group in groups:
            (held_distinct if group == "distinct" else held_pooled).merge(counts)
            shares[group][0] += labelled
            shares[group][1] += held_pages
        print(f"{name:24} {counts}  held-out type's pages given a label {labelled}/{held_pages}")
    for group, group_counts in (("distinct", held_distinct), ("all", held_pooled)):
        labelled, held_pages = shares[group]
        share = labelled / held_pages if held_pages else 0.0
        print(f"{'pooled, ' + group + ' sites':24} {group_counts}  given a label {share:.3f}")


def print_stability(sites: dict[str, list[Page]]) -> None:
    """Pages until the threshold settles, and errors by rank."""
    print(
        "\nstability (one-class, 3 shuffled orders): pages until the threshold stays within 0.05"
        " of the whole site's, and the error rate of the verdicts by rank"
    )
    names_of = [f"{lo + 1}-{hi}" if hi < 10**9 else f">{lo}" for lo, hi in RANK_BUCKETS]
    heads = " ".join(f"{bucket:>7}" for bucket in names_of)
    print(f"{'site':24} {'median':>6} {'p90':>5} {'pages':>5}  error by rank: {heads} {'batch':>7}")
    pooled_settled: list[float] = []
    pooled_errors = [0.0] * (2 * len(RANK_BUCKETS) + 2)
    for name, pages in sites.items():
        result = stability(pages)
        settled, errors = sorted(result["settled"]), result["errors"]
        if name not in SHARED_TEMPLATE_SITES:
            pooled_settled += settled
            pooled_errors = [a + b for a, b in zip(pooled_errors, errors)]
        print(
            f"{name:24} {statistics.median(settled):6.0f} "
            f"{settled[int(0.9 * (len(settled) - 1))]:5.0f} {len(pages):5}  {'':15}"
            f"{_error_rates(errors)}"
        )
    if pooled_settled:
        pooled_settled.sort()
        print(
            f"{'pooled, distinct sites':24} {statistics.median(pooled_settled):6.0f} "
            f"{pooled_settled[int(0.9 * (len(pooled_settled) - 1))]:5.0f} {'':5}  {'':15}"
            f"{_error_rates(pooled_errors)}"
        )


def print_large_type(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """The type a large share of the site."""
    print("\nlarge type (the type is 35 / 50 / 70 % of the site's pages; 2 templates)")
    for share in (0.35, 0.5, 0.7):
        large = {"batch": Counts(), "online": Counts()}
        for name, pages in sites.items():
            if name in SHARED_TEMPLATE_SITES:
                continue
            for key, counts in large_type(pages, args.method, args.seed, share).items():
                large[key].merge(counts)
        print(
            f"share {share:.2f}, distinct sites  batch {large['batch']}  online {large['online']}"
        )


def print_most_of_the_site(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """The type most of the site."""
    print("\nmost of the site (the type is 80 / 90 % of the site's pages; 2 templates, seeds 1-2)")
    for name, pages in sites.items():
        figures = most_of_the_site(pages, args.method)
        mark = " *" if name in SHARED_TEMPLATE_SITES else ""
        print(f"{name + mark:24} batch {figures['batch']}  online {figures['online']}")


def print_recurring(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """A recurring crawl adopting the first crawl's site models."""
    print(
        "\nrecurring crawl (one-class online; the second crawl adopts the site model the "
        "first saved)"
    )
    print(f"{'site':24} {'first crawl':28} {'err 10':>6}  {'second crawl':28} {'err 10':>6}")
    runs = {"first": Counts(), "second": Counts()}
    for name, pages in sites.items():
        if name in SHARED_TEMPLATE_SITES:
            continue
        result = second_crawl(pages, args.seed)
        for key in runs:
            counts = result[key]
            assert isinstance(counts, Counts)
            runs[key].merge(counts)
        print(
            f"{name:24} {result['first']!s:28} {result['first_early']:6.3f}  "
            f"{result['second']!s:28} {result['second_early']:6.3f}"
        )
    print(f"{'pooled, distinct sites':24} {runs['first']!s:28} {'':6}  {runs['second']!s:28}")


def run_grids(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """The leave-one-site-out grids the options ask for."""
    if args.narrow_grid:
        constant_grid(sites, args, "NARROW_GAP", (0.0, 0.05, 0.1, 0.15), link_order=True)
    if args.recurring_grid:
        recurring_grid(sites)
    if args.wide_grid:
        nearest_grid(sites, "WIDE_GAP", (0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 1.0), templates=1)
    if args.nearest_floor_grid:
        nearest_grid(sites, "NEAREST_FLOOR", (0.0, 0.1, 0.2, 0.3, 0.4, 0.5), templates=2)
    grid: tuple[float, ...]
    if args.floor_grid:
        grid = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7)
        constant_grid(sites, args, "ANCHOR_FLOOR", grid, link_order=True)
    if args.early_grid:
        # 2.0: no share of the pages is enough, the prior decides until the cut (the rule off)
        grid = (0.25, 1 / 3, 0.5, 2.0)
        constant_grid(sites, args, "EARLY_CUT_SHARE", grid, link_order=True, large=True)
    if args.dominant_grid:
        # 2.0: no templates are that alike, a type that is most of the site keeps the rule of
        # the others (the rule off)
        grid = (0.15, 0.25, 0.35, 2.0)
        constant_grid(
            sites, args, "DOMINANT_WITHIN", grid, link_order=True, large=True, dominant=True
        )
    if args.covering_grid:
        covering_grid(sites)
    if args.loso:
        loso(sites, args)
    if args.loso_weights:
        loso_weights(sites, args)


def site_folders(args: argparse.Namespace) -> dict[str, Path]:
    """The folders of the sites to run on: every site of the data sets asked for (``--data``),
    or those named by ``--sites``."""
    both = (
        args.several_types
        or args.none_sources
        or args.lost_pages
        or args.online_types
        or args.online_fill_grid
        or args.url_evidence
        or args.cover_gates
        or args.labelled_neighbours
    )
    default = "site_page_types,site_page_types_2" if both else "site_page_types"
    folders = {}
    for data in (args.data or default).split(","):
        root = shared(data)
        folders.update({p.name: p for p in sorted(root.iterdir()) if p.is_dir()})
    wanted = [n for n in args.sites.split(",") if n]
    return {name: folders[name] for name in wanted} if wanted else folders


def print_several_types(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """Every type with >= 3 pages configured, per site and pooled."""
    print(
        "\nevery type configured (types with >= 3 pages; 2 examples of the largest type, 1 of"
        f" each other), batch, method {args.method}: the configured types' pages given"
    )
    pooled = TypeShares()
    for name, pages in sites.items():
        shares = several_types(pages, args.method, one_nn=args.method == "site")
        pooled.merge(shares)
        print(f"{name:24} {shares}")
    print(f"{'pooled':24} {pooled}")


def _only_tables() -> dict[str, Any]:
    """The options that print one table alone, by their ``args`` name."""
    return {
        "drawn_templates": print_drawn_templates,
        "online_types": print_online_types,
        "online_fill_grid": online_fill_grid,
        "none_sources": print_none_sources,
        "lost_pages": print_lost_pages,
        "url_evidence": print_url_evidence,
        "cover_gates": print_cover_gates,
        "labelled_neighbours": print_labelled_neighbours,
    }


def main() -> None:
    args = parse_args()
    started = time.perf_counter()
    sites = {name: load_site(folder) for name, folder in site_folders(args).items()}
    print(
        f"{sum(map(len, sites.values()))} pages summarised in {time.perf_counter() - started:.1f} s"
    )
    if args.several_sites:
        print_several_sites(sites, args.seed)
        return
    if args.several_types:
        print_several_types(sites, args)
        run_grids(sites, args)
        return
    for only, table in _only_tables().items():
        if getattr(args, only):
            table(sites)
            return
    if args.clustered_types is not None:
        modes = [m if m != "off" else "" for m in args.clustered_types.split(",")]
        print_clustered_types(sites, modes, args.clustered_loso, args.clustered_precision)
        return
    if args.crawl_only:
        print_crawl_modes(sites)
        return
    site = args.method == "site"
    print_one_class(sites, args)
    if site:
        print_link_order(sites)
    print_multi_type(sites, args)
    print_several_types(sites, args)
    print_some_types(sites, args)
    print_all_but_one(sites, args)
    print_stability(sites)
    print_large_type(sites, args)
    if site:
        print_crawl_modes(sites)
    print_most_of_the_site(sites, args)
    if site:
        print_recurring(sites, args)
    if site and len(sites) > 1:
        print_several_sites(sites, args.seed)
    if site:
        print_drawn_templates(sites)
    run_grids(sites, args)


def _grid_figures(
    pages: list[Page],
    args: argparse.Namespace,
    policy: SitePolicy,
    *,
    link_order: bool,
    large: bool,
    dominant: bool,
) -> list[float]:
    """The figures :func:`constant_grid` sums for one site under ``policy``."""
    runs = [
        one_class(pages, "site", seed, args.prior_weight, args.min_pages, policy)
        for seed in (1, 2, 3)
    ]
    batch = runs[0]["batch"]
    assert isinstance(batch, Counts)
    online = [run["online"] for run in runs]
    figures = [batch.f1, sum(c.f1 for c in online if isinstance(c, Counts)) / 3]
    if link_order:
        linked = Counts()
        for seed in (1, 2, 3):
            linked.merge(one_class_link_order(pages, seed, policy=policy)[0])
        figures.append(linked.f1)
    if large:
        grown = Counts()
        for share in (0.35, 0.5, 0.7):
            grown.merge(large_type(pages, "site", 1, share, args.min_pages, policy)["online"])
        figures.append(grown.f1)
    if dominant:
        most = most_of_the_site(pages, "site", args.min_pages, policy)
        figures += [most["batch"].f1, most["online"].f1]
    return figures


def constant_grid(
    sites: dict[str, list[Page]],
    args: argparse.Namespace,
    constant: str,
    grid: tuple[float, ...],
    link_order: bool,
    large: bool = False,
    dominant: bool = False,
) -> None:
    """One-class batch F1, online F1 (mean of seeds 1-3), with ``link_order`` link-order F1
    (3 orders) and with ``large`` the large-type protocol's online F1 (the type 35 / 50 / 70 %
    of the site), with ``dominant`` the most-of-the-site batch and online F1, per value of
    the policy's field ``constant`` (``NARROW_GAP`` or ``narrow_gap``), and the value each
    leave-one-site-out
    fold chooses by their sum on the other four sites (as the issue asks), and on the other
    distinct-template sites only."""
    names = list(sites)
    distinct = [name for name in names if name not in SHARED_TEMPLATE_SITES]
    table: dict[float, dict[str, float]] = {value: {} for value in grid}
    what = "batch F1 / online F1 (mean of 3 orders)" + (" / link-order F1" if link_order else "")
    what += " / large-type online F1" if large else ""
    what += " / most-of-the-site batch F1 / online F1" if dominant else ""
    print(f"\n{constant}: one-class {what}")
    for name in names:
        row = []
        for value in grid:
            policy = replace(DEFAULT_POLICY, **{constant.lower(): value})
            figures = _grid_figures(
                sites[name], args, policy, link_order=link_order, large=large, dominant=dominant
            )
            table[value][name] = sum(figures)
            row.append(f"{value:g}: " + "/".join(f"{f:.3f}" for f in figures))
        print(f"{name:24} " + "  ".join(row))
    for held in names:
        for pool, what in ((names, "the other four"), (distinct, "the other distinct")):
            others = [name for name in pool if name != held]
            chosen = max(grid, key=lambda v: sum(table[v][name] for name in others))
            print(f"  {held:24} {constant} {chosen:g} chosen on {what} sites")


def nearest_grid(
    sites: dict[str, list[Page]], constant: str, grid: tuple[float, ...], templates: int
) -> None:
    """Multi-type accepted accuracy and the "all types but one" micro F1 (``templates`` per
    type), each as a batch and online (multi-type: mean of 3 shuffled orders; all but one:
    one order), per value of the policy's field ``constant``, and the value each leave-one-site-out
    fold chooses by the sum of the four on the other four sites, and on the other
    distinct-template sites."""
    names = list(sites)
    distinct = [name for name in names if name not in SHARED_TEMPLATE_SITES]
    table: dict[float, dict[str, float]] = {value: {} for value in grid}
    print(
        f"\n{constant} ({templates} template(s) per type): multi-type accepted batch / online, "
        "all types but one F1 batch / online (online: held-out pages given a label)"
    )
    for name in names:
        row = []
        for value in grid:
            policy = replace(DEFAULT_POLICY, **{constant.lower(): value})
            pages = sites[name]
            _, accepted, _ = multi_type(pages, "site", True, templates, policy)
            online = (
                sum(multi_type_online(pages, "site", s, templates, policy) for s in (1, 2, 3)) / 3
            )
            counts, _, _ = all_but_one(pages, "site", None, templates, policy)
            live, labelled, held_pages = all_but_one(pages, "site", 1, templates, policy)
            figures = (accepted, online, counts.f1, live.f1)
            table[value][name] = sum(figures)
            row.append(
                f"{value:g}: "
                + "/".join(f"{f:.3f}" for f in figures)
                + f" ({labelled}/{held_pages})"
            )
        print(f"{name:24} " + "  ".join(row))
    for value in grid:
        pooled = sum(table[value][name] for name in distinct) / (4 * len(distinct))
        print(f"  {constant} {value:g}: mean of the four on the distinct sites {pooled:.4f}")
    for held in names:
        for pool, what in ((names, "the other four"), (distinct, "the other distinct")):
            others = [name for name in pool if name != held]
            chosen = max(grid, key=lambda v: sum(table[v][name] for name in others))
            print(f"  {held:24} {constant} {chosen:g} chosen on {what} sites")


def recurring_grid(sites: dict[str, list[Page]]) -> None:
    """Second-crawl F1 per weight of the saved sites (seeds 1-4), and the weight each
    leave-one-site-out fold chooses on the other distinct-template sites."""
    grid = (1.0, 0.5, 0.34, 0.25, 0.2)
    names = [name for name in sites if name not in SHARED_TEMPLATE_SITES]
    table: dict[float, dict[str, float]] = {weight: {} for weight in grid}
    print("\nrecurring crawl, second-crawl F1 per weight of the saved sites (seeds 1-4)")
    for name in names:
        row = []
        for weight in grid:
            counts = Counts()
            for seed in (1, 2, 3, 4):
                second = second_crawl(sites[name], seed, weight)["second"]
                assert isinstance(second, Counts)
                counts.merge(second)
            table[weight][name] = counts.f1
            row.append(f"{weight:g}: {counts.f1:.3f}")
        print(f"{name:24} " + "  ".join(row))
    for held in names:
        others = [name for name in names if name != held]
        chosen = max(grid, key=lambda w: sum(table[w][name] for name in others))
        print(f"  {held:24} weight {chosen:g} chosen on the others: F1 {table[chosen][held]:.3f}")


def _covering_figures(pages: list[Page], policy: SitePolicy) -> tuple[int, int, Counts, Counts]:
    """Every-type own-type pages and their count, "all types but one" and "some of the types"
    counts of one site under ``policy``."""
    shares = several_types(pages, "site", policy)
    held = all_but_one(pages, "site", policy=policy)[0]
    some = some_types(pages, "site", 1, policy, quiet=True)
    return shares.own, shares.total, held, some


def covering_grid(sites: dict[str, list[Page]]) -> None:
    """The policy's covering_share x nearest_floor chosen on the other sites by the sum of
    every-type own-type share, "all types but one" F1 and "some of the types" F1 (pooled),
    among the values that keep the precision of both protocols at least the shipped policy's
    there (the held-out types' pages must keep "none"), applied to the held-out site; beside
    it, the shipped policy's figure on the same site."""
    grid = [(c, f) for c in (0.4, 0.5, 0.65) for f in (0.1, 0.3)]
    shipped = (DEFAULT_POLICY.covering_share, DEFAULT_POLICY.nearest_floor)
    if shipped not in grid:
        grid.append(shipped)
    table = {}
    for key in grid:
        policy = replace(DEFAULT_POLICY, covering_share=key[0], nearest_floor=key[1])
        table[key] = {name: _covering_figures(pages, policy) for name, pages in sites.items()}

    def judged(key: tuple[float, float], names: list[str]) -> tuple[bool, float]:
        """(keeps "none"'s precision, the sum): a key that lets more pages of types nobody
        configured take a label than the shipped policy on these sites is not chosen."""
        own = sum(table[key][n][0] for n in names) / max(1, sum(table[key][n][1] for n in names))
        held, some, shipped_held, shipped_some = Counts(), Counts(), Counts(), Counts()
        for n in names:
            held.merge(table[key][n][2])
            some.merge(table[key][n][3])
            shipped_held.merge(table[shipped][n][2])
            shipped_some.merge(table[shipped][n][3])
        keeps = (
            held.precision >= shipped_held.precision and some.precision >= shipped_some.precision
        )
        return keeps, own + held.f1 + some.f1

    print(
        "\nleave-one-site-out, covering_share x nearest_floor (chosen on the other sites by "
        "every-type own share + all-but-one F1 + some-types F1, keeping both protocols' "
        "precision; beside it, the shipped policy)"
    )
    own = total = shipped_own = 0
    held, some, shipped_held, shipped_some = Counts(), Counts(), Counts(), Counts()
    for name in sites:
        chosen = max(grid, key=lambda key: judged(key, [n for n in sites if n != name]))
        mine, ours = table[chosen][name], table[shipped][name]
        own, total, shipped_own = own + mine[0], total + mine[1], shipped_own + ours[0]
        held.merge(mine[2])
        some.merge(mine[3])
        shipped_held.merge(ours[2])
        shipped_some.merge(ours[3])
        print(
            f"{name:24} covering {chosen[0]:g} floor {chosen[1]:g}  own {mine[0] / mine[1]:.3f}"
            f" (shipped {ours[0] / ours[1]:.3f})  all but one F1 {mine[2].f1:.3f}"
            f" (shipped {ours[2].f1:.3f})  some F1 {mine[3].f1:.3f} (shipped {ours[3].f1:.3f})"
        )
    print(
        f"{'pooled, held out':24} own {own / max(1, total):.3f} (shipped "
        f"{shipped_own / max(1, total):.3f})  all but one {held} (shipped {shipped_held})"
        f"  some {some} (shipped {shipped_some})"
    )


def loso(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """The prior weight and the pages before the distribution decides, chosen on four sites
    and applied to the fifth, per protocol: batch, online (decided once, as it arrives) and
    as a tag-mode crawl holding its unsettled verdicts (the add-on's defaults, one shuffled
    order). Beside each, the shipped constants' figure on the same site."""
    grid = [(w, m) for w in (0.5, 0.7, 0.85) for m in (10, 20, 40)]
    shipped = (DEFAULT_POLICY.prior_weight, DEFAULT_POLICY.min_pages)
    results: dict[str, dict[tuple[float, int], dict[str, Counts]]] = {
        "batch": {},
        "online": {},
        "tag, held": {},
    }
    for weight, min_pages in grid:
        for protocol in results:
            results[protocol][(weight, min_pages)] = {}
        for name, pages in sites.items():
            run = one_class(pages, args.method, args.seed, weight, min_pages)
            results["batch"][(weight, min_pages)][name] = run["batch"]  # type: ignore[assignment]
            results["online"][(weight, min_pages)][name] = run["online"]  # type: ignore[assignment]
            order = list(pages)
            random.Random(f"{args.seed}:crawl").shuffle(order)
            crawled = crawl_one_class(pages, [order], prior_weight=weight, min_pages=min_pages)
            results["tag, held"][(weight, min_pages)][name] = crawled["tag, held"]
    for protocol, by_key in results.items():
        print(
            f"\nleave-one-site-out, {protocol} one-class (constants chosen on the other sites "
            "by pooled F1; beside it, the shipped constants 0.85 and 20)"
        )
        held, held_distinct, ours = Counts(), Counts(), Counts()
        for name in sites:

            def pooled_f1(
                key: tuple[float, int],
                name: str = name,
                by_key: dict[tuple[float, int], dict[str, Counts]] = by_key,
            ) -> float:
                counts = Counts()
                for other, c in by_key[key].items():
                    if other != name:
                        counts.merge(c)
                return counts.f1

            chosen = max(grid, key=pooled_f1)
            counts = by_key[chosen][name]
            held.merge(counts)
            if name not in SHARED_TEMPLATE_SITES:
                held_distinct.merge(counts)
                ours.merge(by_key[shipped][name])
            print(
                f"{name:24} prior_weight {chosen[0]} min_pages {chosen[1]:3d}  {counts}"
                f"   shipped F1 {by_key[shipped][name].f1:.3f}"
            )
        print(f"{'pooled, distinct sites':24} {held_distinct}   shipped F1 {ours.f1:.3f}")
        print(f"{'pooled, all sites':24} {held}")
    # online F1 of one order is a narrow judge of the wait: a crawl also meets a site's types
    # in link order, and a large type's pages are the ones the wait costs
    print(
        "\nmin_pages (prior 0.85) judged by online (3 orders) + link-order + large-type online F1"
    )
    table: dict[int, dict[str, float]] = {}
    for min_pages in (10, 20, 40):
        table[min_pages] = {}
        for name, pages in sites.items():
            online, linked, large = Counts(), Counts(), Counts()
            for seed in (1, 2, 3):
                run = one_class(pages, "site", seed, 0.85, min_pages)["online"]
                assert isinstance(run, Counts)
                online.merge(run)
                linked.merge(one_class_link_order(pages, seed, min_pages)[0])
            for share in (0.35, 0.5, 0.7):
                large.merge(large_type(pages, "site", 1, share, min_pages)["online"])
            table[min_pages][name] = online.f1 + linked.f1 + large.f1
            print(
                f"{name:24} min_pages {min_pages:3d}  online {online.f1:.3f}  "
                f"link order {linked.f1:.3f}  large type {large.f1:.3f}"
            )
    for name in sites:
        chosen_pages = max(
            table, key=lambda m: sum(v for other, v in table[m].items() if other != name)
        )
        print(f"  {name:24} min_pages {chosen_pages} chosen on the other four sites")


def loso_weights(sites: dict[str, list[Page]], args: argparse.Namespace) -> None:
    """The policy's ramp_pages x cut_floor_percentile chosen on four sites by batch F1 + online F1 +
    multi-type accepted accuracy, applied to the fifth."""
    grid = [(k, q) for k in (3, 5, 8, 12, 16) for q in (50, 75)]
    table: dict[tuple[int, int], dict[str, tuple[float, float, float]]] = {}
    for ramp, floor in grid:
        policy = replace(DEFAULT_POLICY, ramp_pages=ramp, cut_floor_percentile=floor)
        row = {}
        for name, pages in sites.items():
            result = one_class(
                pages, args.method, args.seed, args.prior_weight, args.min_pages, policy
            )
            batch, online = result["batch"], result["online"]
            assert isinstance(batch, Counts) and isinstance(online, Counts)
            row[name] = (batch.f1, online.f1, multi_type(pages, args.method, policy=policy)[1])
        table[(ramp, floor)] = row
        print(
            f"  ramp {ramp:2d} floor p{floor}: "
            + ", ".join(f"{n} {sum(v):.3f}" for n, v in row.items()),
            flush=True,
        )
    print(
        "\nleave-one-site-out (ramp, floor percentile; chosen on the other sites by batch F1 +"
        " online F1 + multi-type accepted)"
    )
    for name in sites:
        chosen = max(
            grid, key=lambda key: sum(sum(v) for other, v in table[key].items() if other != name)
        )
        batch, online, accepted = table[chosen][name]
        print(
            f"{name:24} ramp {chosen[0]:2d} floor p{chosen[1]}  batch F1 {batch:.3f}  "
            f"online F1 {online:.3f}  multi-type accepted {accepted:.3f}"
        )


# --- clustered types (issue 32, item 2's mechanism for item 1): one model of the site's types


#: How the site's clusters relabel a batch's verdicts: ``""`` leaves them; ``replace`` gives
#: every page its cluster's label (the nearest of the labels whose examples the cluster holds;
#: none for a cluster without examples); ``fill`` gives a page left with none the label of its
#: cluster the same way; ``fill-nearest`` only when that label is also the page's nearest type;
#: ``fill-spread`` only when the page scores, for that label, at least the lowest score of the
#: pages of its cluster the classifier gave the label (or of the label's examples in it);
#: ``core``: what the classifier's batch does with the shipped policy (``core.clusterfill``:
#: ``fill`` when the examples' clusters hold at least ``site_types_cover`` of the site);
#: ``neighbour``: no clusters: a page left with none takes the label of its most similar page
#: of the site (under the site's weights; examples included) when that page has one, repeated
#: until no page changes, with several labels only (``neighbour-nearest``: only when it is
#: also the page's nearest type);
#: ``core+mode``: ``mode`` applied to what ``core`` gives; ``shipped``: the shipped classifier's
#: own batch (every fill of ``core.clusterfill`` its policy turns on);
#: ``mode@share`` applies ``mode`` only when that share does. Those modes start from the
#: classifier alone (``ALONE``).
RELABEL_MODES = (
    "",
    "replace",
    "fill",
    "fill-nearest",
    "fill-spread",
    "core",
    "neighbour",
    "shipped",
)

#: The classifier alone: its batch's own filling from the site's clusters (``core``) off.
ALONE = replace(DEFAULT_POLICY, site_types_cover=2.0)

_SITE_CLUSTERS: dict[int, dict[int, int]] = {}


def site_clusters(pages: list[Page]) -> dict[int, int]:
    """The cluster of every page of the site (``cluster`` over the site's pages, examples
    included, in path order, method ``site``), by ``id`` of the page; computed once a site."""
    key = id(pages)
    if key not in _SITE_CLUSTERS:
        from pagesim_scrapy.core.cluster import cluster_pages

        result = cluster_pages([page.summary for page in pages], method="site")
        _SITE_CLUSTERS[key] = {id(p): c for p, c in zip(pages, result.assignments)}
    return _SITE_CLUSTERS[key]


def relabel(
    pages: list[Page],
    given: dict[str, list[Page]],
    tests: list[Page],
    verdicts: list[Any],
    mode: str,
) -> list[str | None]:
    """The labels of ``tests`` after the site's clusters have their say (``RELABEL_MODES``)."""
    labels: list[str | None] = [v.label for v in verdicts]
    if not mode:
        return labels
    if mode == "core":
        return _core_labels(given, tests, verdicts)
    if mode == "shipped":
        shipped = _classifier(given, "site").classify_all([p.summary for p in tests])
        return [verdict.label for verdict in shipped]
    if mode.startswith("core+"):
        labels = _core_labels(given, tests, verdicts)
        mode = mode.removeprefix("core+")
    mode, _, cover = mode.partition("@")
    cluster_of = site_clusters(pages)
    held = _held(given, cluster_of)
    singles = cover.endswith("s")
    if cover and _covered(pages, held, cluster_of, singles) < float(cover.rstrip("s")):
        return labels
    if mode.startswith("neighbour"):
        if len(given) < 2:  # as the core: one label's own cut bounds its type
            return labels
        return neighbour_labels(pages, given, tests, verdicts, labels, "nearest" in mode)
    return _cluster_labels(given, tests, verdicts, mode, cluster_of, held)


def _cluster_labels(
    given: dict[str, list[Page]],
    tests: list[Page],
    verdicts: list[Any],
    mode: str,
    cluster_of: dict[int, int],
    held: dict[int, set[str]],
) -> list[str | None]:
    """The cluster modes of :func:`relabel` (``replace``, ``fill`` and its checks)."""
    clusters = [cluster_of[id(page)] for page in tests]
    floors = _cluster_floors(given, clusters, verdicts, cluster_of, mode)
    shares = _cluster_shares(clusters, verdicts)
    out: list[str | None] = []
    for cluster, verdict in zip(clusters, verdicts):
        mine = held.get(cluster, set())
        theirs = max(sorted(mine), key=lambda lb: verdict.scores.get(lb, 0.0)) if mine else None
        if mode == "replace":
            out.append(theirs)
        elif verdict.label is not None or theirs is None:
            out.append(verdict.label)
        else:
            kept = _keeps_none(mode, verdict, theirs, floors.get((cluster, theirs), 2.0))
            share = shares.get((cluster, theirs), 0.0)
            out.append(None if kept or ("share" in mode and share < 0.5) else theirs)
    return out


_SITE_SIMILARITIES: dict[int, tuple[dict[int, int], list[list[float]]]] = {}


def site_similarities(pages: list[Page]) -> tuple[dict[int, int], list[list[float]]]:
    """Every two pages' site-weighted similarity, under the model a batch of the site's pages
    counts (the first page as the template, the rest decided); index by ``id`` of the page.
    Computed once a site."""
    key = id(pages)
    if key not in _SITE_SIMILARITIES:
        clf = _classifier({"any": pages[:1]}, "site", ALONE)
        clf.classify_all([page.summary for page in pages[1:]])
        model = clf.site_model()
        features = [clf.features(page.summary) for page in pages]
        weight = model.weights(frozenset().union(*features)).__getitem__
        totals = [sum(map(weight, page)) for page in features]
        matrix = [[0.0] * len(pages) for _ in pages]
        for i, j in combinations(range(len(pages)), 2):
            shared = sum(map(weight, features[i] & features[j]))
            matrix[i][j] = matrix[j][i] = jaccard_of_totals(shared, totals[i], totals[j])
        _SITE_SIMILARITIES[key] = ({id(page): n for n, page in enumerate(pages)}, matrix)
    return _SITE_SIMILARITIES[key]


def neighbour_labels(
    pages: list[Page],
    given: dict[str, list[Page]],
    tests: list[Page],
    verdicts: list[Any],
    start: list[str | None],
    nearest: bool,
) -> list[str | None]:
    """``neighbour`` (``RELABEL_MODES``): the labels ``start`` gives ``tests`` with each page
    left with none given the label of its most similar page of the site, repeated until no
    page changes."""
    index, matrix = site_similarities(pages)
    known: dict[int, str | None] = {index[id(p)]: lb for lb, ps in given.items() for p in ps}
    known.update((index[id(page)], label) for page, label in zip(tests, start))
    labels = list(start)
    changed = True
    while changed:
        changed = False
        for n, (page, verdict) in enumerate(zip(tests, verdicts)):
            if labels[n] is not None:
                continue
            mine = index[id(page)]
            row = matrix[mine]
            other = max((j for j in known if j != mine), key=row.__getitem__)
            label = known[other]
            if label is None or (nearest and nearest_type(verdict) != label):
                continue
            labels[n] = known[mine] = label
            changed = True
    return labels


def _core_labels(given: dict[str, list[Page]], tests: list[Page], verdicts: list[Any]) -> list:
    """What the classifier's batch gives with the shipped policy (:mod:`core.clusterfill`)."""
    examples = {label: [p.summary for p in chosen] for label, chosen in given.items()}
    types = site_types([p.summary for p in tests], examples)
    cover = DEFAULT_POLICY.site_types_cover
    return [v.label for v in fill_from_types(verdicts, types, cover, frozenset())]


def _held(given: dict[str, list[Page]], cluster_of: dict[int, int]) -> dict[int, set[str]]:
    """Per cluster, the labels whose examples it holds."""
    held: dict[int, set[str]] = {}
    for label, chosen in given.items():
        for page in chosen:
            held.setdefault(cluster_of[id(page)], set()).add(label)
    return held


def _keeps_none(mode: str, verdict: Any, theirs: str, floor: float) -> bool:
    """Whether a page left with none stays so under ``mode``'s nearest and spread checks."""
    if "nearest" in mode and nearest_type(verdict) != theirs:
        return True
    return "spread" in mode and verdict.scores.get(theirs, 0.0) < floor


def _covered(
    pages: list[Page], held: dict[int, set[str]], cluster_of: dict[int, int], singles: bool
) -> float:
    """The share of the site's pages in a cluster that holds an example: how much of the site
    the examples' types cover (``mode@share``: the clusters relabel only above ``share``;
    ``mode@shares``: the share among the pages of clusters of two pages or more)."""
    sizes = Counter(cluster_of[id(page)] for page in pages)
    counted = [p for p in pages if not singles or sizes[cluster_of[id(p)]] > 1]
    return sum(cluster_of[id(page)] in held for page in counted) / max(1, len(counted))


def _cluster_floors(
    given: dict[str, list[Page]],
    clusters: list[int],
    verdicts: list[Any],
    cluster_of: dict[int, int],
    mode: str,
) -> dict[tuple[int, str], float]:
    """Per (cluster, label): the lowest score for the label of the cluster's pages the
    classifier gave it; a cluster whose pages got none of it falls back to 0 (any page), or
    with ``strict`` in the mode to none."""
    floors: dict[tuple[int, str], float] = {}
    for cluster, verdict in zip(clusters, verdicts):
        if verdict.label is None:
            continue
        key = (cluster, verdict.label)
        floors[key] = min(floors.get(key, 2.0), verdict.scores[verdict.label])
    fallback = 2.0 if "strict" in mode else 0.0
    for label, chosen in given.items():
        for page in chosen:
            floors.setdefault((cluster_of[id(page)], label), fallback)
    return floors


def _cluster_shares(clusters: list[int], verdicts: list[Any]) -> dict[tuple[int, str], float]:
    """Per (cluster, label): the share of the cluster's pages the classifier gave the label."""
    sizes = Counter(clusters)
    given = Counter((c, v.label) for c, v in zip(clusters, verdicts) if v.label is not None)
    return {key: n / sizes[key[0]] for key, n in given.items()}


def clustered_several(pages: list[Page], modes: list[str], draw: int = 0) -> list[TypeShares]:
    """Every type configured (:func:`several_types`), the verdicts relabelled by each mode."""
    given = several_type_templates(pages, draw)
    tests = _tests(pages, given)
    verdicts = _classifier(given, "site", ALONE).classify_all([p.summary for p in tests])
    out = []
    for mode in modes:
        shares = TypeShares()
        labels = relabel(pages, given, tests, verdicts, mode)
        for page, verdict, label in zip(tests, verdicts, labels):
            if page.label not in given:
                continue
            shares.own += label == page.label
            shares.none += label is None
            shares.other += label is not None and label != page.label
            shares.nearest += nearest_type(verdict) == page.label
        out.append(shares)
    return out


def clustered_some(pages: list[Page], modes: list[str], seed: int = 1) -> list[Counts]:
    """Some of the types configured (:func:`some_types`' combinations), relabelled."""
    types = sorted(t for t, c in Counter(page.label for page in pages).items() if c >= 5)
    rng = random.Random(f"{seed}:some")
    combos = [rng.sample(types, k) for k, n in ((2, 6), (3, 4)) if k < len(types) for _ in range(n)]
    out = [Counts() for _ in modes]
    for combo in combos:
        given = {label: [p for p in pages if p.label == label][:2] for label in combo}
        tests = _tests(pages, given)
        verdicts = _classifier(given, "site", ALONE).classify_all([p.summary for p in tests])
        for counts, mode in zip(out, modes):
            for page, label in zip(tests, relabel(pages, given, tests, verdicts, mode)):
                truth = page.label if page.label in combo else None
                counts.tp += label is not None and label == truth
                counts.fp += label is not None and label != truth
                counts.fn += truth is not None and label != truth
    return out


def clustered_one_class(pages: list[Page], modes: list[str], draw: int = 0) -> list[Counts]:
    """One-class batch (:func:`drawn_templates`), relabelled."""
    out = [Counts() for _ in modes]
    for label, count in sorted(Counter(page.label for page in pages).items()):
        if count < 5:
            continue
        mine = [page for page in pages if page.label == label]
        chosen = mine[:2] if draw == 0 else random.Random(f"{draw}:{label}").sample(mine, 2)
        given = {label: chosen}
        tests = _tests(pages, given)
        verdicts = _classifier(given, "site", ALONE).classify_all([p.summary for p in tests])
        for counts, mode in zip(out, modes):
            for page, got in zip(tests, relabel(pages, given, tests, verdicts, mode)):
                counts.add(page.label == label, got == label)
    return out


@dataclass
class _ModeFigures:
    own: list[TypeShares]
    some: Counts
    one: list[Counts]


def clustered_figures(
    sites: dict[str, list[Page]], modes: list[str], draws: int = 3
) -> dict[str, list[_ModeFigures]]:
    """Per site, per mode: every-type shares (path and draws), "some of the types" counts,
    one-class batch counts (path and draws); each batch is classified once for all modes."""
    runs = range(draws + 1)
    rows: dict[str, list[_ModeFigures]] = {}
    for name, pages in sites.items():
        several = [clustered_several(pages, modes, d) for d in runs]
        some = clustered_some(pages, modes)
        ones = [clustered_one_class(pages, modes, d) for d in runs]
        rows[name] = [
            _ModeFigures([s[m] for s in several], some[m], [o[m] for o in ones])
            for m in range(len(modes))
        ]
        print(f"  ({name} done)", flush=True)
    return rows


def _pool(figures: Iterable[_ModeFigures], draws: int = 3) -> _ModeFigures:
    total = _ModeFigures([TypeShares() for _ in range(draws + 1)], Counts(), [])
    total.one = [Counts() for _ in range(draws + 1)]
    for part in figures:
        for shares, mine in zip(total.own, part.own):
            shares.merge(mine)
        total.some.merge(part.some)
        for counts, theirs in zip(total.one, part.one):
            counts.merge(theirs)
    return total


def print_clustered_types(
    sites: dict[str, list[Page]], modes: list[str], loso: bool, precision: float = 0.0
) -> None:
    """Per mode, per site and pooled (:func:`clustered_figures`); with ``loso``, the modes are
    a grid of one constant (the first is the reference, ``off``) and each site is decided
    with the mode chosen on the others (:func:`_choose_mode`)."""
    rows = clustered_figures(sites, modes)
    for m, mode in enumerate(modes):
        print(f"\nclustered types, mode {mode or 'off'!r}")
        print(f"{'site':24} {'own path / draws':28} {'none':>6} {'some P':>7} {'F1':>6}  1-class")
        for name, figures in rows.items():
            print(_clustered_row(name, figures[m]))
        print(_clustered_row("pooled", _pool(figures[m] for figures in rows.values())))
    if not loso:
        return
    print("\nclustered types, leave-one-site-out: the mode chosen on the other sites")
    held_out = []
    for name, figures in rows.items():
        others = [rows[other] for other in rows if other != name]
        chosen = _choose_mode(others, modes, precision)
        held_out.append(figures[chosen])
        print(_clustered_row(name, figures[chosen]) + f"  <- {modes[chosen] or 'off'}")
    print(_clustered_row("pooled, held out", _pool(held_out)))


def _choose_mode(others: list[list[_ModeFigures]], modes: list[str], precision: float = 0.0) -> int:
    """The mode with the highest pooled own share (path and draws) on ``others`` among those
    whose "some of the types" precision and one-class F1 (path) stay within 0.005 of the
    first mode's (the reference), and that precision at least ``precision`` (or the
    reference's, when lower); ties to the earlier mode (it relabels less)."""
    pooled = [_pool(figures[m] for figures in others) for m in range(len(modes))]
    reference = pooled[0]
    # within 0.005 of the reference, and not under ``precision`` unless the reference is
    floor = max(reference.some.precision - 0.005, min(precision, reference.some.precision))

    def own(figures: _ModeFigures) -> float:
        return sum(s.own for s in figures.own) / max(1, sum(s.total for s in figures.own))

    allowed = [
        m
        for m, figures in enumerate(pooled)
        if figures.some.precision >= floor and figures.one[0].f1 >= reference.one[0].f1 - 0.005
    ]
    return max(allowed, key=lambda m: (round(own(pooled[m]), 6), -m))


def _clustered_row(name: str, figures: _ModeFigures) -> str:
    shares = " ".join(f"{s.own / max(1, s.total):.3f}" for s in figures.own)
    none = figures.own[0].none / max(1, figures.own[0].total)
    one = " ".join(f"{c.f1:.3f}" for c in figures.one)
    some = figures.some
    return f"{name:24} {shares:28} {none:6.3f} {some.precision:7.3f} {some.f1:6.3f}  {one}"


# --- where "none" comes from (issue 32, item 1): the pages of a configured type left with none


@dataclass
class NoneSources:
    """The pages of the configured types left with none in the every-type batch, by why."""

    pages: int = 0  # pages of the configured types
    #: (nearest label's threshold source, its cut rule, nearest label is the page's own type,
    #: the page's cluster holds an example) -> pages left with none
    sources: Counter[tuple[str, str, bool, bool]] = field(default_factory=Counter)
    #: (page's type, nearest label) -> pages left with none
    types: Counter[tuple[str, str]] = field(default_factory=Counter)
    coverage: float = 0.0  # the classifier's: share of kept pages passing their nearest cut
    covered: float = 0.0  # the clusters': share of the site in a cluster holding an example

    def merge(self, other: NoneSources) -> None:
        self.pages += other.pages
        self.sources.update(other.sources)
        self.types.update(other.types)


def none_sources(pages: list[Page]) -> NoneSources:
    """Every type configured (:func:`several_type_templates`), the shipped batch: each page of
    a configured type left with none, counted by its nearest label's threshold source and cut
    rule (``describe()``), whether that label is the page's own type, and whether the site's
    clusters (:func:`~pagesim_scrapy.core.clusterfill.site_types`) put it with an example."""
    given = several_type_templates(pages)
    tests = _tests(pages, given)
    clf = _classifier(given, "site")
    verdicts = clf.classify_all([p.summary for p in tests])
    described = clf.describe()
    labels = described["labels"]
    types = site_types([p.summary for p in tests], clf.template_summaries)
    out = NoneSources(coverage=described["site"]["coverage"], covered=types.covered)
    for index, (page, verdict) in enumerate(zip(tests, verdicts)):
        if page.label not in given:
            continue
        out.pages += 1
        if verdict.label is not None:
            continue
        near = nearest_type(verdict)
        info = labels[near]
        clustered = bool(types.labels_of(index))
        out.sources[
            (info["threshold_source"], info["cut_rule"] or "-", near == page.label, clustered)
        ] += 1
        out.types[(page.label, near)] += 1
    return out


def _source_lines(found: NoneSources, top: int) -> list[str]:
    lines = []
    for (source, rule, own, clustered), n in found.sources.most_common(top):
        near = "nearest own" if own else "nearest other"
        held = "cluster labelled" if clustered else "cluster unlabelled"
        lines.append(f"    {n:4} ({n / max(1, found.pages):.3f})  {source}/{rule}, {near}, {held}")
    return lines


def print_none_sources(sites: dict[str, list[Page]]) -> None:
    """Per site and pooled: where the every-type batch's "none" comes from."""
    print(
        "\nwhere 'none' comes from: every type configured, batch; the configured types' pages"
        " left with none, by their nearest label's threshold source/cut rule"
    )
    pooled = NoneSources()
    for name, pages in sites.items():
        found = none_sources(pages)
        pooled.merge(found)
        left = sum(found.sources.values())
        print(
            f"{name:24} none {left / max(1, found.pages):.3f} of {found.pages} pages"
            f"  (labels cover {found.coverage:.2f}, clusters {found.covered:.2f})"
        )
        print("\n".join(_source_lines(found, 6)))
        worst = ", ".join(f"{t}->{n} {c}" for (t, n), c in found.types.most_common(4))
        if worst:
            print(f"    type->nearest: {worst}")
    left = sum(pooled.sources.values())
    print(f"{'pooled':24} none {left / max(1, pooled.pages):.3f} of {pooled.pages} pages")
    print("\n".join(_source_lines(pooled, 12)))


# --- pages a label's one-class run keeps that every type configured loses (issue 32, item 1)


@dataclass
class LostPages:
    """Every type configured against each label alone (the same examples, the same pages):
    the pages of a label that its one-class batch gives it and the every-type batch does not,
    by cause."""

    kept: int = 0  # pages the label's one-class run gives it, rightly
    lost: int = 0  # of those, pages the every-type run does not give it
    #: cause -> pages lost
    causes: Counter[str] = field(default_factory=Counter)
    #: pages lost whose own label's every-type threshold they reach (a second label accepts)
    own_accepts: int = 0
    score_shift: float = 0.0  # summed |one-class score - every-type score| of the lost pages

    def merge(self, other: LostPages) -> None:
        self.kept += other.kept
        self.lost += other.lost
        self.causes.update(other.causes)
        self.own_accepts += other.own_accepts
        self.score_shift += other.score_shift


def _one_class_mode(verdict: Any) -> str:
    """How a one-class batch verdict gave its label: its cut, the type's core, or a fill."""
    if verdict.core:
        return "core"
    return "cut" if verdict.score >= (verdict.threshold or 0.0) else "fill"


def _lost_cause(label: str, alone: Any, every: Any, threshold: float) -> str:
    """Why the every-type verdict ``every`` does not give ``label`` a page that the label's
    one-class verdict ``alone`` gives it (``threshold``: the label's every-type threshold)."""
    nearest = nearest_type(every)
    if nearest != label:
        taken = "gives its label" if every.label == nearest else "rejects"
        if every.label is not None and every.label != nearest:
            taken = f"rejects, filled {every.label}"
        return f"nearest another label, which {taken}"
    mode = _one_class_mode(alone)
    if mode != "cut":
        return f"nearest own, one-class gave it by {mode}"
    if every.scores[label] >= (alone.threshold or 0.0):
        return "nearest own, its cut moved up"
    return "nearest own, its score fell (the weights changed)"


def lost_pages(
    pages: list[Page],
    policy: SitePolicy | None = None,
    own_examples: bool = False,
    seed: int | None = None,
) -> LostPages:
    """Every type configured (:func:`several_type_templates`) against each configured
    label's one-class run: the pages the label alone keeps rightly and every type configured
    loses, by :func:`_lost_cause`, over the pages neither run takes as an example. The label
    alone has the every-type examples, or with ``own_examples`` the one-class protocol's (the
    first 2 by path, types with >= 5 pages). Batch, or with ``seed`` online: both runs decide
    the pages one by one in the same shuffled order through the crawl's decision step (the
    cause then reads the thresholds each page was decided at; ``own_accepts`` the last)."""
    given = several_type_templates(pages)
    every_clf = _classifier(given, "site", policy)
    order = _lost_order(pages, given, seed)
    every = dict(zip(map(id, order), _lost_run(every_clf, order, seed)))
    out = LostPages()
    for label in given:
        mine = [p for p in pages if p.label == label]
        if own_examples and len(mine) < 5:
            continue
        examples = {label: mine[:2] if own_examples else given[label]}
        alone_tests = _lost_order(pages, examples, seed)
        alone = _lost_run(_classifier(examples, "site", policy), alone_tests, seed)
        threshold = every_clf.threshold_info(label)[0]
        for page, verdict in zip(alone_tests, alone):
            theirs = every.get(id(page))
            if theirs is None or page.label != label or verdict.label != label:
                continue
            out.kept += 1
            if theirs.label == label:
                continue
            out.lost += 1
            out.causes[_lost_cause(label, verdict, theirs, threshold)] += 1
            out.own_accepts += theirs.scores[label] >= threshold
            out.score_shift += abs(verdict.score - theirs.scores[label])
    return out


def _lost_order(pages: list[Page], given: dict[str, list[Page]], seed: int | None) -> list[Page]:
    """The pages but the examples, in the order of the site (batch) or shuffled by ``seed``
    (the same order for every run: the one of the site's pages, not of the tests)."""
    order = list(pages)
    if seed is not None:
        random.Random(f"{seed}:lost").shuffle(order)
    return _tests(order, given)


def _lost_run(clf: Any, tests: list[Page], seed: int | None) -> list[Any]:
    """The verdicts of ``tests``: a batch, or with ``seed`` the crawl's decisions in order."""
    if seed is None:
        return list(clf.classify_all([p.summary for p in tests]))
    return crawl_verdicts(clf, tests)


def print_lost_pages(sites: dict[str, list[Page]], seeds: tuple[int, ...] = (1, 2, 3)) -> None:
    """Per site and pooled: the pages each label alone keeps that every type configured
    loses, by cause (:func:`lost_pages`): batch with the every-type examples and with the
    one-class protocol's, then online (``seeds``) with the every-type examples."""
    runs = ((False, (None,)), (True, (None,)), (False, seeds))
    for own_examples, run_seeds in runs:
        examples = "the one-class protocol's 2" if own_examples else "the every-type"
        how = "batch" if run_seeds == (None,) else f"online, seeds {run_seeds}"
        print(
            f"\nlost pages ({how}): a label's one-class run ({examples} examples) keeps them "
            "rightly, every type configured does not"
        )
        pooled = LostPages()
        for name, pages in sites.items():
            found = LostPages()
            for seed in run_seeds:
                found.merge(lost_pages(pages, own_examples=own_examples, seed=seed))
            pooled.merge(found)
            _print_lost(name, found)
        _print_lost("pooled", pooled)


def _print_lost(name: str, found: LostPages) -> None:
    shift = found.score_shift / max(1, found.lost)
    print(
        f"{name:24} lost {found.lost} of {found.kept}  (reach their own label's every-type "
        f"threshold: {found.own_accepts}; mean |score change| {shift:.3f})"
    )
    for cause, n in found.causes.most_common():
        print(f"    {n:4}  {cause}")


# --- the URL path as evidence for pages left with none (issue 32: measured, not shipped) ----

#: How a page left with none may take a label from its URL's shape (see :func:`url_label`):
#: off; its nearest label when that label alone has an example of its shape ("unique"); its
#: nearest label when that label is among those that have one ("nearest"); the one label that
#: has one, nearest or not ("url"); "folder": as "unique", for a URL in a folder only (the
#: shape of a page at the site's root is its depth alone, shared by most kinds of pages);
#: "agree": as "unique", with each label's pattern what its examples' paths agree on (a
#: label needs two examples of one depth; see :func:`url_patterns`).
URL_MODES = ("off", "unique", "nearest", "url", "folder", "agree")


def url_shape(url: str) -> tuple[int, tuple[str, ...]]:
    """A URL's path as a site's link pattern: its depth and its folders, numbers as '#'
    (``/2015/01/21/slug/`` and ``/2016/03/02/other/`` have one shape)."""
    parts = [part for part in urlsplit(url).path.split("/") if part]
    return len(parts), tuple("#" if part.isdigit() else part for part in parts[:-1])


def url_label(verdict: Any, url: str, shapes: dict[str, set[Any]], mode: str) -> str | None:
    """The label ``verdict`` ends with under ``mode`` (:data:`URL_MODES`): a page left with
    none takes a label whose examples' URLs (``shapes``: label -> their shapes) share its
    URL's shape. With one label nothing changes (its own cut bounds its type)."""
    if verdict.label is not None or mode == "off" or not url or len(shapes) < 2:
        return verdict.label
    shape = url_shape(url)
    if mode == "folder" and not shape[1]:
        return None
    if mode == "agree":
        matching = [label for label, held in shapes.items() if _matches(url, held)]
    else:
        matching = [label for label, held in shapes.items() if shape in held]
    nearest = nearest_type(verdict)
    if mode == "url":
        return matching[0] if len(matching) == 1 else None
    if nearest in matching and (mode == "nearest" or len(matching) == 1):
        return nearest
    return None


def _shapes(given: dict[str, list[Page]]) -> dict[str, set[Any]]:
    return {label: {url_shape(p.url) for p in chosen if p.url} for label, chosen in given.items()}


def _evidence(given: dict[str, list[Page]], mode: str) -> dict[str, set[Any]]:
    """Per label, what a page's URL is matched against under ``mode``."""
    if mode != "agree":
        return _shapes(given)
    return {
        label: url_patterns([p.url for p in chosen if p.url]) for label, chosen in given.items()
    }


def _segments(url: str) -> tuple[str, ...]:
    parts = [part for part in urlsplit(url).path.split("/") if part]
    return tuple("#" if part.isdigit() else part for part in parts)


def url_patterns(urls: list[str]) -> set[tuple[str | None, ...]]:
    """A label's URL patterns: per depth with two examples or more, the segments all its
    examples of that depth agree on, None where they differ (what a site names a type by is
    what its examples share; a single example says nothing about which segments vary)."""
    by_depth: dict[int, list[tuple[str, ...]]] = {}
    for url in urls:
        segments = _segments(url)
        by_depth.setdefault(len(segments), []).append(segments)
    return {
        tuple(s[0] if len(set(s)) == 1 else None for s in zip(*paths))
        for paths in by_depth.values()
        if len(paths) >= 2
    }


def _matches(url: str, patterns: set[Any]) -> bool:
    segments = _segments(url)
    return any(
        len(pattern) == len(segments)
        and all(want is None or want == got for want, got in zip(pattern, segments))
        for pattern in patterns
    )


@dataclass
class UrlFigures:
    """Per URL mode: every-type shares, "some" and "all but one" counts (batch and online)."""

    every: dict[str, TypeShares] = field(default_factory=dict)
    some: dict[str, Counts] = field(default_factory=dict)
    but_one: dict[str, Counts] = field(default_factory=dict)
    every_online: dict[str, TypeShares] = field(default_factory=dict)
    some_online: dict[str, Counts] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for mode in URL_MODES:
            for part in (self.every, self.every_online):
                part.setdefault(mode, TypeShares())
            for counts in (self.some, self.but_one, self.some_online):
                counts.setdefault(mode, Counts())

    def merge(self, other: UrlFigures) -> None:
        for mode in URL_MODES:
            self.every[mode].merge(other.every[mode])
            self.every_online[mode].merge(other.every_online[mode])
            self.some[mode].merge(other.some[mode])
            self.but_one[mode].merge(other.but_one[mode])
            self.some_online[mode].merge(other.some_online[mode])


def _url_shares(
    shares: dict[str, TypeShares], given: Any, tests: list[Page], verdicts: list[Any]
) -> None:
    for mode in URL_MODES:
        shapes = _evidence(given, mode)
        for page, verdict in zip(tests, verdicts):
            if page.label not in given:
                continue
            label = url_label(verdict, page.url, shapes, mode)
            shares[mode].own += label == page.label
            shares[mode].none += label is None
            shares[mode].other += label is not None and label != page.label
            shares[mode].nearest += nearest_type(verdict) == page.label


def _url_micro(
    counts: dict[str, Counts], given: Any, tests: list[Page], verdicts: list[Any]
) -> None:
    for mode in URL_MODES:
        shapes = _evidence(given, mode)
        labels = [url_label(v, p.url, shapes, mode) for p, v in zip(tests, verdicts)]
        filled = [replace(v, label=label) for v, label in zip(verdicts, labels)]
        add_micro(counts[mode], tests, filled, given)


def url_figures(pages: list[Page], seeds: tuple[int, ...] = (1, 2, 3)) -> UrlFigures:
    """The every-type, "some of the types" and "all but one" protocols (batch, and the first
    two online over ``seeds``) with the URL fill of each :data:`URL_MODES` applied to the
    verdicts (the same verdicts for every mode)."""
    out = UrlFigures()
    given = several_type_templates(pages)
    tests = _tests(pages, given)
    _url_shares(
        out.every, given, tests, _classifier(given, "site").classify_all([p.summary for p in tests])
    )
    for seed in seeds:
        order = list(tests)
        random.Random(f"{seed}:several").shuffle(order)
        _url_shares(
            out.every_online, given, order, crawl_verdicts(_classifier(given, "site"), order)
        )
    for run in (None, *seeds):
        for combo_given, combo_tests in _some_combos(pages, run or 1, shuffled=run is not None):
            clf = _classifier(combo_given, "site")
            if run is None:
                verdicts = clf.classify_all([p.summary for p in combo_tests])
                _url_micro(out.some, combo_given, combo_tests, verdicts)
            else:
                _url_micro(
                    out.some_online, combo_given, combo_tests, crawl_verdicts(clf, combo_tests)
                )
    types = Counter(page.label for page in pages)
    for held in sorted(t for t, c in types.items() if c >= 5):
        held_given = type_templates(pages, 1, leave_out=held)
        held_tests = _tests(pages, held_given)
        verdicts = _classifier(held_given, "site").classify_all([p.summary for p in held_tests])
        _url_micro(out.but_one, held_given, held_tests, verdicts)
    return out


def _some_combos(
    pages: list[Page], seed: int, shuffled: bool
) -> list[tuple[dict[str, list[Page]], list[Page]]]:
    """The "some of the types" label sets of :func:`some_types` (seed 1 for the batch) or of
    :func:`some_types_online` (``shuffled``: the tests in its order), with their tests."""
    types = sorted(t for t, c in Counter(page.label for page in pages).items() if c >= 5)
    rng = random.Random(f"{seed}:some")
    combos = [rng.sample(types, k) for k, n in ((2, 6), (3, 4)) if k < len(types) for _ in range(n)]
    out = []
    for number, combo in enumerate(combos):
        templates = {label: [p for p in pages if p.label == label][:2] for label in combo}
        tests = _tests(pages, templates)
        if shuffled:
            random.Random(f"{seed}:some:{number}").shuffle(tests)
        out.append((templates, tests))
    return out


def print_url_evidence(sites: dict[str, list[Page]]) -> None:
    """Per URL mode, pooled, and leave-one-site-out: each site with the mode the other sites
    choose (highest batch + online every-type own share among the modes that keep batch and
    online "some" precision and "all but one" F1 within 0.005 of off)."""
    figures = {name: url_figures(pages) for name, pages in sites.items()}
    pooled = UrlFigures()
    for found in figures.values():
        pooled.merge(found)
    print("\nURL shape as evidence for pages left with none (several labels only)")
    for mode in URL_MODES:
        _print_url_row(f"mode {mode}", pooled, mode)
    held = UrlFigures()
    for name in sites:
        others = UrlFigures()
        for other, found in figures.items():
            if other != name:
                others.merge(found)
        mode = _chosen_url_mode(others)
        print(f"held out {name}: mode {mode}")
        _print_url_row(f"  {name}", figures[name], mode)
        _merge_mode(held, figures[name], mode)
    _print_url_row("held out, pooled", held, "off")


def _merge_mode(into: UrlFigures, found: UrlFigures, mode: str) -> None:
    into.every["off"].merge(found.every[mode])
    into.every_online["off"].merge(found.every_online[mode])
    into.some["off"].merge(found.some[mode])
    into.some_online["off"].merge(found.some_online[mode])
    into.but_one["off"].merge(found.but_one[mode])


def _own(shares: TypeShares) -> float:
    return shares.own / max(1, shares.total)


def _chosen_url_mode(found: UrlFigures, slack: float = 0.005) -> str:
    def kept(mode: str) -> bool:
        return (
            found.some[mode].precision >= found.some["off"].precision - slack
            and found.some_online[mode].precision >= found.some_online["off"].precision - slack
            and found.but_one[mode].f1 >= found.but_one["off"].f1 - slack
        )

    allowed = [mode for mode in URL_MODES if kept(mode)]
    return max(allowed, key=lambda m: _own(found.every[m]) + _own(found.every_online[m]))


def _print_url_row(name: str, found: UrlFigures, mode: str) -> None:
    print(
        f"{name:24} every batch {found.every[mode]}\n"
        f"{'':24} every online {found.every_online[mode]}\n"
        f"{'':24} some batch {found.some[mode]}  online {found.some_online[mode]}"
        f"  all-but-one batch {found.but_one[mode]}"
    )


# --- does any measure of how much of a site the labels describe tell every type from some? --

#: The measures :func:`cover_instances` reads per classifier: the share of the kept pages
#: passing their nearest label's cut (``coverage``), the share of the site in clusters holding
#: an example, the share of the crawl fill's sample chaining to a label, and the share of the
#: pages reaching their nearest label's nearest-rule floor.
COVER_MEASURES = ("coverage", "clusters", "chains", "floor")
COVER_GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 2.0)


@dataclass
class CoverInstance:
    """One classifier of a protocol: its kind ("every", "some", "but one"), the measures, and
    per test page (its configured type or None, its batch label, its nearest label, whether
    it reaches that label's nearest-rule floor)."""

    kind: str
    labels: int
    measures: dict[str, float]
    rows: list[tuple[str | None, str | None, str, bool]]


def _cover_instance(kind: str, given: dict[str, list[Page]], tests: list[Page]) -> CoverInstance:
    clf = _classifier(given, "site")
    verdicts = clf.classify_all([p.summary for p in tests])
    described = clf.describe()
    floors = {
        label: max(info["background"] or 0.0, 0.3 * (info["within"] or 0.0))
        for label, info in described["labels"].items()
    }
    rows = []
    for page, verdict in zip(tests, verdicts):
        near = nearest_type(verdict)
        truth = page.label if page.label in given else None
        rows.append((truth, verdict.label, near, verdict.scores[near] >= floors[near]))
    chains = clf._kept_neighbours(None).covered if len(given) >= 2 else 0.0
    measures = {
        "coverage": described["site"]["coverage"],
        "clusters": site_types([p.summary for p in tests], clf.template_summaries).covered,
        "chains": chains,
        "floor": sum(row[3] for row in rows) / max(1, len(rows)),
    }
    return CoverInstance(kind, len(given), measures, rows)


def cover_instances(pages: list[Page]) -> list[CoverInstance]:
    """The batch classifiers of the every-type, "some of the types" (seed 1) and "all types
    but one" protocols on a site, each with its measures and verdicts."""
    given = several_type_templates(pages)
    out = [_cover_instance("every", given, _tests(pages, given))]
    out += [_cover_instance("some", g, t) for g, t in _some_combos(pages, 1, shuffled=False)]
    types = Counter(page.label for page in pages)
    for held in sorted(t for t, c in types.items() if c >= 5):
        given = type_templates(pages, 1, leave_out=held)
        out.append(_cover_instance("but one", given, _tests(pages, given)))
    return out


def _gated_figures(
    found: list[CoverInstance], measure: str, at: float
) -> tuple[float, Counts, Counts]:
    """Every-type own share, "some" and "but one" counts when a page left with none takes
    its nearest label (reaching the nearest-rule floor) wherever ``measure`` >= ``at``."""
    own = total = 0
    some, but_one = Counts(), Counts()
    for instance in found:
        fill = instance.labels >= 2 and instance.measures[measure] >= at
        counts = some if instance.kind == "some" else but_one
        for truth, label, near, reaches in instance.rows:
            if label is None and fill and reaches:
                label = near
            if instance.kind == "every":
                total += truth is not None
                own += truth is not None and label == truth
                continue
            counts.tp += label is not None and label == truth
            counts.fp += label is not None and label != truth
            counts.fn += truth is not None and label != truth
    return own / max(1, total), some, but_one


def print_cover_gates(sites: dict[str, list[Page]], slack: float = 0.005) -> None:
    """The nearest label for every page left with none, on the classifiers where a measure of
    how much of the site the labels describe reaches a value: per measure and value, pooled,
    then leave-one-site-out (the highest own share among the values that keep "some" P and
    "but one" F1 within ``slack`` of off, 2.0)."""
    found = {name: cover_instances(pages) for name, pages in sites.items()}
    print("\nmeasures per classifier (kind, labels, truth: share of the tests of configured types)")
    for name, instances in found.items():
        for inst in instances:
            truth = sum(row[0] is not None for row in inst.rows) / max(1, len(inst.rows))
            values = "  ".join(f"{m} {inst.measures[m]:.2f}" for m in COVER_MEASURES)
            print(f"{name:24} {inst.kind:8} {inst.labels:3}  truth {truth:.2f}  {values}")
    every = [inst for instances in found.values() for inst in instances]
    print("\nnearest label for pages left with none where the measure reaches the value")
    for measure in COVER_MEASURES:
        for at in COVER_GRID:
            own, some, but_one = _gated_figures(every, measure, at)
            print(f"{measure:9} {at:4.1f}  own {own:.3f}  some {some}  but one {but_one}")
        held: list[CoverInstance] = []
        chosen = []
        for name in sites:
            others = [inst for other, insts in found.items() if other != name for inst in insts]
            at = _chosen_gate(others, measure, slack)
            chosen.append(at)
            held += [
                replace(inst, measures={measure: 2.0 if inst.measures[measure] < at else 2.5})
                for inst in found[name]
            ]
        own, some, but_one = _gated_figures(held, measure, 2.5)
        print(
            f"{measure:9} held out (chosen {chosen}): own {own:.3f}  some {some}  but one {but_one}"
        )


def _chosen_gate(found: list[CoverInstance], measure: str, slack: float) -> float:
    own_off, some_off, but_one_off = _gated_figures(found, measure, COVER_GRID[-1])
    best, best_own = COVER_GRID[-1], own_off  # off unless a value gives more
    for at in COVER_GRID:
        own, some, but_one = _gated_figures(found, measure, at)
        kept = some.precision >= some_off.precision - slack and but_one.f1 >= but_one_off.f1 - slack
        if kept and own > best_own:
            best, best_own = at, own
    return best


# --- the pages a batch labelled as more examples (issue 32: measured, not kept) -------------

#: How a page left with none may take the label of its most similar labelled page (an
#: example or a page the batch gave a label): off; always ("any"); when that similarity
#: reaches the label's loosest link among its labelled pages ("spread") or their median link.
NEIGHBOUR_MODES = ("off", "any", "spread", "median")


def _labelled_pool(clf: Any, tests: list[Page], verdicts: list[Any]) -> tuple[Any, list[str]]:
    """The labels' examples and the pages given a label, as one candidate pool (every test
    page numbered, so any of them can be compared), and the label of each."""
    examples = [(label, page) for label in clf.labels for page in clf.template_features(label)]
    features = [clf.features(page.summary) for page in tests]
    chosen = [(v.label, f) for v, f in zip(verdicts, features) if v.label is not None]
    pages = [page for _, page in examples + chosen]
    numbers = feature_numbers(pages + features)
    pool = CandidatePool(numbers, clf.site_model(), pages)
    return pool, [label for label, _ in examples + chosen]


def _label_links(pool: Any, labels: list[str], pages: list[Any]) -> dict[str, list[float]]:
    """Per label, each of its pool pages' similarity to its most similar other page of the
    label: how closely the label's pages hang together on the site."""
    links: dict[str, list[float]] = {}
    for index, page in enumerate(pages):
        scores = pool.similarities(page)
        same = [
            scores[k] for k, label in enumerate(labels) if label == labels[index] and k != index
        ]
        if same:
            links.setdefault(labels[index], []).append(float(max(same)))
    return links


def labelled_neighbour_labels(clf: Any, tests: list[Page], verdicts: list[Any]) -> dict[str, list]:
    """Per :data:`NEIGHBOUR_MODES`, each test page's label with the fill of that mode (with
    one label nothing changes)."""
    out: dict[str, list] = {mode: [v.label for v in verdicts] for mode in NEIGHBOUR_MODES}
    if len(clf.labels) < 2:
        return out
    pool, labels = _labelled_pool(clf, tests, verdicts)
    pages = [page for label in clf.labels for page in clf.template_features(label)]
    pages += [clf.features(p.summary) for p, v in zip(tests, verdicts) if v.label is not None]
    links = _label_links(pool, labels, pages)
    floors = {
        "any": dict.fromkeys(clf.labels, -1.0),
        "spread": {label: min(links.get(label, [0.0])) for label in clf.labels},
        "median": {label: statistics.median(links.get(label, [0.0])) for label in clf.labels},
    }
    for index, (page, verdict) in enumerate(zip(tests, verdicts)):
        if verdict.label is not None:
            continue
        scores = pool.similarities(clf.features(page.summary))
        best = int(scores.argmax())
        for mode, floor in floors.items():
            if scores[best] >= floor[labels[best]]:
                out[mode][index] = labels[best]
    return out


def _neighbour_counts(
    found: dict[tuple[str, str], Any],
    kind: str,
    given: Any,
    tests: list[Page],
    verdicts: list[Any],
    labels: dict[str, list],
) -> None:
    for mode, named in labels.items():
        if kind == "every":
            shares = found.setdefault(("every", mode), TypeShares())
            for page, verdict, label in zip(tests, verdicts, named):
                if page.label in given:
                    shares.nearest += nearest_type(verdict) == page.label
                    shares.own += label == page.label
                    shares.none += label is None
                    shares.other += label is not None and label != page.label
        else:
            filled = [Verdict(label, 0.0, {}, "site", 0.0) for label in named]
            add_micro(found.setdefault((kind, mode), Counts()), tests, filled, given)


def labelled_neighbours(pages: list[Page]) -> dict[tuple[str, str], Any]:
    """The every-type, "some of the types" (seed 1) and "all but one" batches of a site with
    each :data:`NEIGHBOUR_MODES` fill: (protocol, mode) -> its shares or counts."""
    found: dict[tuple[str, str], Any] = {}
    runs = [("every", several_type_templates(pages))]
    runs += [("some", given) for given, _ in _some_combos(pages, 1, shuffled=False)]
    types = Counter(page.label for page in pages)
    runs += [
        ("but one", type_templates(pages, 1, leave_out=held))
        for held in sorted(t for t, c in types.items() if c >= 5)
    ]
    for kind, given in runs:
        tests = _tests(pages, given)
        clf = _classifier(given, "site")
        verdicts = clf.classify_all([p.summary for p in tests])
        filled = labelled_neighbour_labels(clf, tests, verdicts)
        _neighbour_counts(found, kind, given, tests, verdicts, filled)
    return found


def print_labelled_neighbours(sites: dict[str, list[Page]]) -> None:
    """Per site and pooled, each :data:`NEIGHBOUR_MODES` fill's every-type shares, "some"
    and "all but one" counts (batch)."""
    print("\npages left with none given their most similar labelled page's label (batch)")
    pooled: dict[tuple[str, str], Any] = {}
    for name, pages in sites.items():
        found = labelled_neighbours(pages)
        for key, value in found.items():
            pooled.setdefault(key, type(value)()).merge(value)
        for mode in NEIGHBOUR_MODES:
            print(f"{name:24} {mode:7} {_neighbour_row(found, mode)}")
    for mode in NEIGHBOUR_MODES:
        print(f"{'pooled':24} {mode:7} {_neighbour_row(pooled, mode)}")


def _neighbour_row(found: dict[tuple[str, str], Any], mode: str) -> str:
    every = found.get(("every", mode), TypeShares())
    some = found.get(("some", mode), Counts())
    but_one = found.get(("but one", mode), Counts())
    return f"every {every}  some {some}  but one {but_one}"


if __name__ == "__main__":
    sys.exit(main())
