"""The Spark jobs: read pages where they are stored, then classify, cluster or extract them
with the core's functions (see the package docstring for how each job is split)."""

from __future__ import annotations

import logging
import os
import pickle
import time
import uuid
import zlib
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from operator import add
from pathlib import Path
from typing import Any, NamedTuple

from pagesim_scrapy.cli._common import jsonl_line
from pagesim_scrapy.cli.classify import verdict_record
from pagesim_scrapy.cli.extract import extract_record
from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.cluster import ClusterOptions, cluster_pages
from pagesim_scrapy.core.cluster.pipeline import SITE_METHOD, site_document_model
from pagesim_scrapy.core.cluster.sketch import Sketcher, band_keys, lsh_bands
from pagesim_scrapy.core.decide import PageDecider, site_classifier
from pagesim_scrapy.core.drift import (
    ALL_PAGES,
    DEFAULT_DRIFT_OPTIONS,
    DriftReport,
    SiteLooks,
    compare_looks,
    skeleton_features,
)
from pagesim_scrapy.core.induce import Wrapper
from pagesim_scrapy.core.pageio import (
    WARC_SUFFIXES,
    PageReadError,
    is_page_file,
    iter_input_files,
    read_page_bytes,
    warc_page_contents,
)
from pagesim_scrapy.core.site import (
    SiteModel,
    pack_features,
    structural_features,
    unpack_features,
)
from pagesim_scrapy.core.site import (
    site_key as site_of_url,
)
from pagesim_scrapy.core.summary import PageParseError, PageSummary, SummaryOptions, summarize

logger = logging.getLogger(__name__)

#: How ``classify`` groups pages into sites: the host of the page's URL (WARC records; a page
#: file, which has no URL, counts as a page of the argument it came from), the argument the
#: page came from, or all pages as one site (the local command's grouping, in one task).
SITE_KEYS: tuple[str, ...] = ("host", "input", "all")

#: The order of a page in the output: (input file number, WARC record offset or 0).
Order = tuple[int, int]

#: Input bytes a read task takes at most when it reads several small files (a larger file is
#: one task alone): every task costs its Python worker a fixed overhead, which one task per
#: file of a few MB multiplied by hundreds of files, and again in every later stage over them.
TASK_BYTES = 32 << 20


def _storage() -> Any:
    from pyspark import StorageLevel

    return StorageLevel.MEMORY_AND_DISK


@dataclass(frozen=True)
class JobInput:
    """One file of the job's input, listed by the driver and read by one worker."""

    number: int  # position among the input files: the output keeps the local order
    path: str  # as the local command names it
    origin: str  # the argument it came from
    warc: bool
    size: int = 0  # bytes on disk (0 if unknown): read tasks are balanced by it


class PageRecord(NamedTuple):
    """One page as a worker read it: its content, or why it could not be read."""

    order: Order
    path: str
    site: str
    data: bytes | None
    error: str | None


class PageSummaryRecord(NamedTuple):
    order: Order
    path: str
    site: str
    summary: PageSummary | None
    error: str | None


def list_inputs(paths: Iterable[str]) -> list[JobInput]:
    """The files the arguments name, in the local commands' order (folders walked, sorted).

    Raises :class:`PageReadError` for a missing path or when no page or WARC file is found.
    """
    inputs = [
        JobInput(number, str(path), origin, is_page_file(path, WARC_SUFFIXES), _size(path))
        for number, (path, origin) in enumerate(iter_input_files(paths))
    ]
    if not inputs:
        raise PageReadError("no pages or WARC files found in the given paths")
    return inputs


def _size(path: Path | str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:  # reported when a worker reads it
        return 0


def input_groups(inputs: list[JobInput], parallelism: int) -> list[list[JobInput]]:
    """The files in consecutive runs, one run per read task, of about equal bytes: at least
    ``2 * parallelism`` runs (when there are as many files), more where the input is over
    :data:`TASK_BYTES` a run. The output's partitions are the same runs, so it needs no
    sampling to be sorted."""
    if not inputs:
        return []
    total = sum(max(item.size, 1) for item in inputs)
    runs = max(2 * parallelism, -(-total // TASK_BYTES))
    runs = max(1, min(len(inputs), runs))
    share = total / runs
    groups: list[list[JobInput]] = [[]]
    done = 0
    for item in inputs:
        # a new run starts where this file's first byte passes the next run's share
        if groups[-1] and done >= share * len(groups) and len(groups) < runs:
            groups.append([])
        groups[-1].append(item)
        done += max(item.size, 1)
    return groups


def site_of(url: str | None, origin: str, site_key: str) -> str:
    """The site a page is decided with (see :data:`SITE_KEYS`)."""
    if site_key == "all":
        return ""
    if site_key == "host" and url:
        # the same site as a crawl's (no leading www., the port when not the default)
        host = site_of_url(url)
        if host:
            return host
    return origin


def read_input(item: JobInput, site_key: str) -> Iterator[PageRecord]:
    """The pages of one input file; a WARC file that breaks off gives the pages before the
    break and one error line for the rest (logged), so one bad file does not stop a job."""
    if not item.warc:
        try:
            data, error = read_page_bytes(item.path), None
        except PageReadError as exc:
            logger.warning("skipping %s: %s", item.path, exc)
            data, error = None, str(exc)
        yield PageRecord(
            (item.number, 0), item.path, site_of(None, item.origin, site_key), data, error
        )
        return
    last = -1
    try:
        for name, url, data, error in warc_page_contents(Path(item.path)):
            last = int(name.name.rpartition("#")[2])
            site = site_of(url, item.origin, site_key)
            if error:
                logger.warning("skipping %s: %s", name, error)
            yield PageRecord((item.number, last), str(name), site, data, error)
    except PageReadError as exc:
        logger.warning("%s", exc)
        yield PageRecord(
            (item.number, last + 1), item.path, site_of(None, item.origin, site_key), None, str(exc)
        )


def summarise(page: PageRecord, options: SummaryOptions) -> PageSummaryRecord:
    """The page's summary, or why it has none (as the local commands report it)."""
    if page.data is None:
        return PageSummaryRecord(page.order, page.path, page.site, None, page.error)
    try:
        summary = summarize(page.data, options, source=page.path)
    except (PageReadError, PageParseError) as exc:
        logger.warning("skipping %s: %s", page.path, exc)
        return PageSummaryRecord(page.order, page.path, page.site, None, str(exc))
    return PageSummaryRecord(page.order, page.path, page.site, summary, None)


def read_pages(spark: Any, inputs: list[JobInput], site_key: str = "host") -> Any:
    """An RDD of :class:`PageRecord`: each input file read whole by one task (a task reads a
    run of consecutive files, see :func:`input_groups`)."""
    if site_key not in SITE_KEYS:
        raise ValueError(f"site key must be one of {SITE_KEYS}, not {site_key!r}")
    sc = spark.sparkContext
    groups = input_groups(inputs, sc.defaultParallelism)
    return sc.parallelize(groups, len(groups)).flatMap(
        lambda group: (page for item in group for page in read_input(item, site_key))
    )


# -- classify ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClassifierSpec:
    """What a worker needs to build the classifier the local command builds."""

    templates: Mapping[str, list[tuple[str, bytes]]]  # label -> (name, HTML) of each template
    method: str
    params: Mapping[str, Any]
    threshold: float | str
    summary_options: SummaryOptions
    token: str = field(default_factory=lambda: uuid.uuid4().hex)  # names the built classifier

    def template_summaries(self) -> dict[str, list[PageSummary]]:
        options = self.summary_options
        return {
            label: [summarize(html, options, source=name) for name, html in pages]
            for label, pages in self.templates.items()
        }

    def build(self, summaries: Mapping[str, list[PageSummary]] | None = None) -> Any:
        """A new classifier (``summaries``: the templates' summaries, if already made)."""
        return build_classifier(
            self.template_summaries() if summaries is None else summaries,
            method=self.method,
            params=dict(self.params),
            threshold=self.threshold,
            summary_options=self.summary_options,
        )


_summarised: dict[str, dict[str, list[PageSummary]]] = {}  # spec token -> template summaries


def _classifier(spec: Any) -> Any:
    """A new classifier for a broadcast spec: a site's state must start empty each time a
    task runs (Spark may run a task again), the templates are summarised once per worker."""
    value: ClassifierSpec = spec.value
    summaries = _summarised.get(value.token)
    if summaries is None:
        summaries = _summarised[value.token] = value.template_summaries()
    return value.build(summaries)


def classify_job(spark: Any, inputs: list[JobInput], spec: ClassifierSpec, site_key: str) -> Any:
    """An RDD of (order, output line): the local ``classify`` lines of every page."""
    options = spec.summary_options
    sc = spark.sparkContext
    pages = read_pages(spark, inputs, site_key)
    broadcast = sc.broadcast(spec)
    if spec.method == SITE_METHOD:
        # a site is decided from all of its pages: group them, moving each page's features
        # packed into one small string (pickling them as a set of strings cost more than the
        # grouping), and its summary only where the batch's cluster fill needs it (the
        # local command's verdicts); a page without features goes along for its line
        keep = fills_from_types(spec)
        by_site = pages.map(lambda page: _site_features(page, options, keep)).groupByKey(
            sc.defaultParallelism
        )
        return by_site.flatMap(lambda group: _classify_site(broadcast, *group))
    # pairwise measures: scores where the pages are read, the automatic thresholds fitted to
    # all of them on the driver (as the local command fits them), then each page decided
    scored = pages.mapPartitions(lambda rows: _scores(broadcast, rows, options)).collect()
    scored.sort(key=lambda row: row[0])
    classifier = spec.build()
    classifier.fit_distribution([scores for _, _, scores, _ in scored if scores is not None])
    decider = PageDecider(classifier)
    lines = [
        (
            order,
            verdict_record(path, None if scores is None else decider.decide_scores(scores), error),
        )
        for order, path, scores, error in scored
    ]
    return sc.parallelize(lines, sc.defaultParallelism)


#: What grouping moves per page: order, path, packed features (None: unread), error, and the
#: compressed pickled summary when the cluster fill needs it (else None).
SitePage = tuple[Order, str, str | None, str | None, bytes | None]


def fills_from_types(spec: ClassifierSpec) -> bool:
    """Whether the spec's classifier names a site's pages left with none from the site's
    clusters, which needs every page's summary, not only its features."""
    sites = site_classifier(spec.build())
    return sites is not None and sites.fills_from_types()


def _site_features(
    page: PageRecord, options: SummaryOptions, keep_summary: bool = False
) -> tuple[str, SitePage]:
    """(site, :data:`SitePage`): what grouping moves."""
    row = summarise(page, options)
    if row.summary is None:
        return row.site, (row.order, row.path, None, row.error, None)
    packed = pack_features(structural_features(row.summary))
    kept = (
        zlib.compress(pickle.dumps(row.summary, pickle.HIGHEST_PROTOCOL)) if keep_summary else None
    )
    return row.site, (row.order, row.path, packed, row.error, kept)


def _site_page(packed: str, kept: bytes | None) -> Any:
    """What the classifier decides a page from: its summary when it was moved, else its
    features."""
    return unpack_features(packed) if kept is None else pickle.loads(zlib.decompress(kept))


def _classify_site(
    spec: Any, site: str, pages: Iterable[SitePage]
) -> Iterator[tuple[Order, dict[str, Any]]]:
    """One site's pages, learned together and then each decided (the local command's way);
    the pages that could not be read get their error lines."""
    ordered = sorted(pages, key=lambda page: page[0])
    for order, path, packed, error, _ in ordered:
        if packed is None:
            yield order, verdict_record(path, None, error)
    read = [
        (order, path, _site_page(packed, kept))
        for order, path, packed, _, kept in ordered
        if packed is not None
    ]
    if not read:
        return
    decider = PageDecider(_classifier(spec))
    decisions = decider.decide_all([page for _, _, page in read], site=site)
    for (order, path, _), decision in zip(read, decisions):
        yield order, verdict_record(path, decision, None)


def _scores(
    spec: Any, pages: Iterable[PageRecord], options: SummaryOptions
) -> Iterator[tuple[Order, str, dict[str, float] | None, str | None]]:
    classifier = _classifier(spec)
    for page in pages:
        row = summarise(page, options)
        if row.summary is None:
            yield row.order, row.path, None, row.error
        else:
            yield row.order, row.path, classifier.scores(row.summary), None


# -- cluster -------------------------------------------------------------------------------


#: Links the driver joins into components itself (a union-find over the collected links, a
#: few bytes each) instead of label propagation, whose every round shuffles all links and
#: labels three times; above it the rounds run on the cluster.
DRIVER_LINKS = 5_000_000


def cluster_job(
    spark: Any, inputs: list[JobInput], options: ClusterOptions, summary_options: SummaryOptions
) -> tuple[Any, dict[str, Any]]:
    """An RDD of (order, output line) as the local ``cluster`` writes them, and the job's
    figures (pages, components, the largest, rounds of label propagation, clusters, and the
    seconds of each stage up to the clustering, which runs with the output's writing).

    Raises ValueError when no page could be summarised.
    """
    sc = spark.sparkContext
    parts = sc.defaultParallelism  # shuffles keep this many partitions (unions add theirs up)
    clock = _StageClock()
    summaries = (
        read_pages(spark, inputs, "all")
        .map(lambda page: summarise(page, summary_options))
        .persist(_storage())
    )
    failed = summaries.filter(lambda r: r.summary is None).map(
        lambda r: (r.order, {"path": r.path, "cluster": None, "error": r.error})
    )
    ok = summaries.filter(lambda r: r.summary is not None)
    pages = ok.count()
    clock("read")
    if not pages:
        summaries.unpersist()
        raise ValueError("no pages to cluster")
    site_model = _site_model(sc, ok, pages) if options.method == SITE_METHOD else None
    clock("document_frequencies")
    links = _links(ok, options, parts)
    count = links.count()
    clock("links")
    component, rounds, sizes = _component_of(sc, ok, links, count, parts)
    clock("components")
    clustered = (
        component.groupByKey(parts)
        .flatMap(lambda group: _cluster_component(group[0], group[1], options, site_model))
        .persist(_storage())
    )
    clusters = clustered.filter(lambda row: row[0] == "cluster").map(lambda row: row[1]).collect()
    clock("cluster")
    # names over all components, as the local command gives them: the largest first, ties by
    # their first page
    clusters.sort(key=lambda c: (-c[2], c[3]))
    names = sc.broadcast(
        {(comp, local): f"cluster-{n + 1}" for n, (comp, local, _, _) in enumerate(clusters)}
    )
    lines = clustered.filter(lambda row: row[0] == "page").map(
        lambda row: (row[1][0], {"path": row[1][1], "cluster": names.value[row[1][2]]})
    )
    stats = {
        "pages": pages,
        "components": len(sizes),
        "largest_component": max(sizes),
        "propagation_rounds": rounds,
        "clusters": len(clusters),
        "links": count,
        **clock.seconds,
    }
    return lines.union(failed), stats


class _StageClock:
    """Seconds between the job's actions, by stage (Spark runs a stage when its result is
    asked for, so each stage is timed at its action)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last = time.perf_counter()

    def __call__(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[f"seconds_{stage}"] = round(now - self._last, 3)
        self._last = now


def _feature_counts(rows: Iterable[PageSummaryRecord]) -> Iterator[tuple[str, int]]:
    """The document frequencies of one partition's pages."""
    counts: Counter[str] = Counter()
    for row in rows:
        if row.summary is not None:
            counts.update(structural_features(row.summary))
    return iter(counts.items())


def _site_model(sc: Any, ok: Any, pages: int) -> Any:
    """The pages are one site: their features' document frequencies, summed over workers and
    broadcast."""
    counts = ok.mapPartitions(_feature_counts).reduceByKey(add, sc.defaultParallelism)
    template = site_document_model()
    return sc.broadcast(
        SiteModel.from_counts(pages, counts.collectAsMap(), template.max_features, keep_pages=0)
    )


def _links(ok: Any, options: ClusterOptions, parts: int) -> Any:
    """Candidate links: pages sharing one LSH band (the local index's bands). Each partition's
    buckets are joined there first (a star per connected part), so about one link a page
    moves instead of one per shared band."""
    bands = lsh_bands(options.num_perm, options.lsh_threshold)
    sketch_args = (options.num_perm, 1, options.shingle_size, options.shingle_relation)
    keyed = ok.mapPartitions(lambda rows: _band_keys(rows, sketch_args, bands))
    return keyed.groupByKey(parts).mapPartitions(_bucket_stars).distinct(parts).persist(_storage())


def _component_of(
    sc: Any, ok: Any, links: Any, count: int, parts: int
) -> tuple[Any, int, list[int]]:
    """(component, (order, path, summary)) of every page, the propagation rounds (0: joined
    on the driver) and the components' sizes. Each page's summary moves once, straight to
    its component's task."""
    if count <= DRIVER_LINKS:
        least = sc.broadcast(_least_linked(links.collect()))
        links.unpersist()
        component = ok.map(
            lambda r: (least.value.get(r.order, r.order), (r.order, r.path, r.summary))
        )
        sizes = component.map(lambda kv: (kv[0], 1)).reduceByKey(add, parts).values().collect()
        return component, 0, sizes
    labels, rounds = _components(ok.map(lambda r: (r.order, r.order)), links, parts)
    members = ok.map(lambda r: (r.order, (r.path, r.summary))).join(labels, parts)
    component = members.map(lambda kv: (kv[1][1], (kv[0], kv[1][0][0], kv[1][0][1])))
    sizes = labels.map(lambda kv: (kv[1], 1)).reduceByKey(add, parts).values().collect()
    return component, rounds, sizes


class _LeastUnion:
    """A union-find whose every set is named by its least member (as label propagation
    names a component)."""

    def __init__(self) -> None:
        self.parent: dict[Order, Order] = {}

    def root(self, page: Order) -> Order:
        parent = self.parent
        root = parent.setdefault(page, page)
        while parent[root] != root:
            root = parent[root]
        while page != root:  # path compression
            parent[page], page = root, parent[page]
        return root

    def join(self, one: Order, other: Order) -> Order:
        """Join the sets of ``one`` and ``other``; their least member names the union."""
        a, b = self.root(one), self.root(other)
        if a != b:
            self.parent[max(a, b)] = min(a, b)
        return min(a, b)


def _least_linked(links: Iterable[tuple[Order, Order]]) -> dict[Order, Order]:
    """Every linked page's component named by its least page (as label propagation names
    it), by a union-find over the links."""
    union = _LeastUnion()
    for one, other in links:
        union.join(one, other)
    return {page: union.root(page) for page in union.parent}


def _band_keys(
    rows: Iterable[PageSummaryRecord], sketch_args: tuple[int, int, int, str], bands: Any
) -> Iterator[tuple[bytes, Order]]:
    sketcher = Sketcher(*sketch_args)
    for row in rows:
        if row.summary is None:  # pages without a summary were filtered out before
            continue
        for key in band_keys(sketcher.sketch(row.summary), bands):
            yield key, row.order


def _bucket_stars(
    buckets: Iterable[tuple[bytes, Iterable[Order]]],
) -> Iterator[tuple[Order, Order]]:
    """The links of one partition's band buckets, as few as keep its connected parts: every
    page linked with the least page it is connected to through these buckets, both ways (a
    union-find; the components over all partitions are those of linking every bucket)."""
    union = _LeastUnion()
    for _, pages in buckets:
        members = iter(pages)
        least = union.root(next(members))
        for page in members:
            least = union.join(least, page)
    for page in list(union.parent):
        root = union.root(page)
        if root != page:
            yield page, root
            yield root, page


def _components(labels: Any, links: Any, parts: int) -> tuple[Any, int]:
    """Connected components by label propagation: every page takes the least label among
    itself and its linked pages until nothing changes. Returns (page -> component, rounds)."""
    labels = labels.persist()
    rounds = 0
    while True:
        rounds += 1
        proposed = links.join(labels, parts).map(lambda kv: (kv[1][0], kv[1][1]))
        updated = labels.union(proposed).reduceByKey(min, parts).persist()
        changed = updated.join(labels, parts).filter(lambda kv: kv[1][0] != kv[1][1]).count()
        labels.unpersist()
        labels = updated
        if not changed:
            return labels, rounds


def _cluster_component(
    component: Order,
    members: Iterable[tuple[Order, str, PageSummary]],
    options: ClusterOptions,
    site_model: Any,
) -> Iterator[tuple[str, Any]]:
    """Cluster one component's pages in input order with the local pipeline: each page's
    cluster, and each cluster's (component, number, size, first page) for naming them."""
    ordered = sorted(members, key=lambda member: member[0])
    model = None if site_model is None else site_model.value
    # a list, not a generator: the summaries are held here anyway, so the pipeline need not
    # keep its own pickled copies (what it does for pages streamed from an iterator)
    summaries = [summary for _, _, summary in ordered]
    result = cluster_pages(summaries, options, site_model=model)
    first: dict[int, Order] = {}
    for (order, path, _), local in zip(ordered, result.assignments):
        first.setdefault(local, order)
        yield "page", (order, path, (component, local))
    for local, cluster in enumerate(result.clusters):
        yield "cluster", (component, local, cluster.size, first[local])


# -- extract -------------------------------------------------------------------------------


def extract_job(
    spark: Any,
    inputs: list[JobInput],
    wrapper: Wrapper,
    *,
    records: bool,
    rows: bool,
    core: bool = True,
) -> Any:
    """An RDD of (order, output line) as the local ``extract`` writes them (``core``: the
    record led by the page's core record, as the local command's default)."""
    broadcast = spark.sparkContext.broadcast(wrapper.to_dict())

    def extract_partition(pages: Iterable[PageRecord]) -> Iterator[tuple[Order, dict[str, Any]]]:
        local = Wrapper.from_dict(broadcast.value)
        for page in pages:
            yield (
                page.order,
                extract_record(
                    local, page.path, page.data, page.error, records=records, rows=rows, core=core
                ),
            )

    return read_pages(spark, inputs, "all").mapPartitions(extract_partition)


# -- drift ---------------------------------------------------------------------------------

#: The two sides of a drift job.
OLD, NEW = "old", "new"


def page_label(path: str, item: JobInput) -> str:
    """A page's label in a drift job: its sub-folder under the argument for a folder of
    labelled sub-folders (as the local ``drift`` reads them), else one look of all pages
    (WARC records, which carry no label)."""
    if item.warc or item.origin == item.path:
        return ALL_PAGES
    try:
        parts = Path(path).relative_to(item.origin).parts
    except ValueError:
        return ALL_PAGES
    return parts[0] if len(parts) > 1 else ALL_PAGES


def _drift_pages(
    group: list[JobInput], side: str, site_name: str, options: SummaryOptions
) -> Iterator[tuple[str, tuple[str, str, str, str, str]]]:
    """(site, (side, label, packed features, page, packed tag skeleton)) of every readable
    page of the files:
    the site is the host of a WARC record's URL, ``site_name`` for a page file (a folder
    of pages has no URL, and OLD and NEW must be one site)."""
    for item in group:
        for page in read_input(item, "host"):
            row = summarise(page, options)
            if row.summary is None:
                continue  # logged where it was read
            site = site_name if page.site == item.origin else page.site
            packed = pack_features(structural_features(row.summary))
            skeleton = pack_features(skeleton_features(row.summary))
            yield site, (side, page_label(page.path, item), packed, page.path, skeleton)


def _compare_site(
    site: str, pages: Iterable[tuple[str, str, str, str, str]], max_kept: int
) -> Iterator[DriftReport]:
    """Every label of the site's NEW pages compared with its OLD pages."""
    looks = {OLD: SiteLooks(max_kept), NEW: SiteLooks(max_kept)}
    for side, label, packed, path, skeleton in sorted(pages, key=lambda page: page[3]):
        looks[side].add(label, unpack_features(packed), path, unpack_features(skeleton))
    for label in sorted(looks[NEW].named_labels()):
        yield compare_looks(site or None, label, looks[OLD], looks[NEW])


def drift_job(
    spark: Any,
    old: list[JobInput],
    new: list[JobInput],
    options: SummaryOptions,
    site_name: str = "",
) -> list[DriftReport]:
    """The local ``drift OLD NEW`` over two sets of WARC files or pages of one site (or
    several: a site per host): pages summarised where they are read, grouped by site, each
    site's labels compared in one task. Returns the reports, by site and label."""
    sc = spark.sparkContext
    parts = sc.defaultParallelism
    sides = []
    for side, inputs in ((OLD, old), (NEW, new)):
        groups = input_groups(inputs, parts)
        sides.append(
            sc.parallelize(groups, len(groups)).flatMap(
                lambda group, side=side: _drift_pages(group, side, site_name, options)
            )
        )
    max_kept = DEFAULT_DRIFT_OPTIONS.max_kept
    reports = (
        sc.union(sides)
        .groupByKey(parts)
        .flatMap(lambda group: _compare_site(group[0], group[1], max_kept))
        .collect()
    )
    return sorted(reports, key=lambda report: (report.site or "", report.label))


# -- output --------------------------------------------------------------------------------

#: Parquet columns per command; the fields whose values vary in shape (records, rows) are
#: stored as JSON text.
_JSON_COLUMNS = frozenset({"record", "records", "rows"})


def _schema(command: str) -> Any:
    from pyspark.sql.types import (
        BooleanType,
        DoubleType,
        MapType,
        StringType,
        StructField,
        StructType,
    )

    text, number = StringType(), DoubleType()
    columns: dict[str, list[tuple[str, Any]]] = {
        "classify": [
            ("path", text),
            ("label", text),
            ("score", number),
            ("scores", MapType(text, number)),
            ("threshold", number),
            ("threshold_source", text),
            ("confidence", number),
            ("core", BooleanType()),
            ("error", text),
        ],
        "cluster": [("path", text), ("cluster", text), ("error", text)],
        "extract": [
            ("path", text),
            ("record", text),
            ("fit", number),
            ("reason", text),
            ("records", text),
            ("rows", text),
        ],
    }
    return StructType([StructField(name, kind, True) for name, kind in columns[command]])


def _row(record: dict[str, Any], names: list[str]) -> tuple[Any, ...]:
    import json

    return tuple(
        json.dumps(record[name], ensure_ascii=False)
        if name in _JSON_COLUMNS and name in record
        else record.get(name)
        for name in names
    )


def write_records(
    spark: Any, lines: Any, output: str, fmt: str, command: str, inputs: list[JobInput]
) -> None:
    """Write (order, line) pairs in input order: JSON Lines text files (each line as the local
    command writes it; the part files in order are its output) or Parquet.

    The output's partitions are the runs of input files the pages were read in
    (:func:`input_groups`), so a page's partition is known from its file number: no job
    samples the keys first (``sortByKey`` would run two jobs over all lines before sorting).
    Each line is made into its output form before the shuffle, so one string a page moves.
    """
    if fmt not in ("jsonl", "parquet"):
        raise ValueError(f"unknown output format {fmt!r}")
    groups = input_groups(inputs, spark.sparkContext.defaultParallelism)
    starts = [group[0].number for group in groups]

    def partition(order: Order) -> int:
        return max(0, bisect_right(starts, order[0]) - 1)

    if fmt == "jsonl":
        text = lines.mapValues(jsonl_line)
        ordered = text.repartitionAndSortWithinPartitions(len(groups), partition)
        ordered.values().saveAsTextFile(output)
        return
    schema = _schema(command)
    names = [field.name for field in schema.fields]
    rows = lines.mapValues(lambda record: _row(record, names))
    ordered = rows.repartitionAndSortWithinPartitions(len(groups), partition)
    spark.createDataFrame(ordered.values(), schema).write.parquet(output)
