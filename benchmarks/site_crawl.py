"""Page-type decisions on real multi-type sites, through real Scrapy crawls.

    python benchmarks/site_crawl.py [--sites a,b] [--seed N] [--method NAME]

The same protocols as ``benchmarks/site_accuracy.py``, but every decision is made by the
add-on (``ADDONS = {"pagesim_scrapy.Addon": 0}``) in a real crawl, not by calling the core:
the pages of ../shared/data/site_page_types (five real sites, 976 labelled pages) are served
over HTTP on 127.0.0.1 (an ephemeral port, a server thread in this process; ``text/html``, an
allow-all ``/robots.txt``), the templates are given to ``PAGESIM_TEMPLATES`` as http URLs on
that server (downloaded through the crawl), and a spider requests the test pages, in a shuffled
order kept by the scheduler (priority decreasing with position), with Scrapy's default
concurrency, ``PAGESIM_ACTION = "tag"`` and the default method (``--method`` sets
``PAGESIM_METHOD``). Its callback yields the verdict of each page (``response.meta["pagesim"]``:
url, label, score, scores) to a JSON-lines feed, read back here. The wiki's <body> class names
the page type (``ns-10``, ``mw-special-…``), so it is removed from the wiki's pages before they
are served.

Protocols, printed per site and pooled (over all sites, and over the sites whose labelled
types each have their own template):

* one-class: for every type with >= 5 pages, its first 2 pages (by path) are the templates
  (``PAGESIM_TARGETS = [type]``) and every other page of the site is requested; one crawl per
  type, each with a fresh classifier, in site_accuracy's online order
  (``random.Random(f"{seed}:{label}")``). P/R/F1 of "label == the type", and the error rate
  on the first 10 pages classified (feed order). By default a page whose verdict is not
  settled while its site is young is held until the crawl runs dry and then given to the
  spider with its verdict then (``PAGESIM_HOLD_UNSETTLED``); beside it, the same crawls with
  nothing held (every page decided once, as it arrives).
* large type: site_accuracy's protocol of that name at 50 %: per type with >= 20 pages, a
  crawl of its pages and of other pages of the site drawn so that the type is half of them
  (a crawl of a shop is mostly products); and at 90 %, "most of the crawl" (a crawl that
  keeps to a shop's product pages).
* following links: one crawl per type with >= 5 pages (2 templates) that starts at the site's
  home page and follows each page's links to the other pages of the data (the pages link to
  the real site; the spider maps those links to the local copies), in Scrapy's default order:
  the way a user's crawl meets a site, its types in bursts and some late. P/R/F1 over the
  pages reached that are not templates, the error rate on the first 10, the pages reached, and
  the median duration of a crawl, by default and with nothing held (a held page's links are
  followed only when it reaches the spider).
* multi-type: one crawl per site; the first page of every type with >= 3 pages is its
  template; the other pages of those types are requested in a shuffled order
  (``random.Random(seed)``). Accuracy: the page's label is its type ("accepted"); beside it,
  the label with the highest score is its type ("nearest"). site_accuracy decides this
  protocol in one batch; here it is online, as a crawl decides.

* drop mode: the one-class crawls again with ``PAGESIM_ACTION = "drop"``: as by default, with
  the second look (``PAGESIM_SECOND_LOOK``: when the crawl runs dry, the pages turned away are
  decided again under the sites' cuts then and those that pass are requested again) and the
  pages that pass on a young site's unsettled verdict held for it (``PAGESIM_HOLD_UNSETTLED``);
  with the second look but nothing held; and with neither. P/R/F1 of what reaches the spider
  with the label, and the pages requested again (default settings).

* every type configured (``--every-type``, both data sets by default): one crawl per site with
  site_accuracy's every-type templates (every label a target), the other pages in a shuffled
  order; the configured types' pages given their own type, none or another, the pages filled
  from their neighbours (``"filled"`` in the verdict), and the share of the crawl's pages
  whose label is the one ``classify``'s batch gives on the same pages. ``--site-policy JSON``
  sets ``PAGESIM_SITE_POLICY`` of every crawl (``'{"crawl_neighbour_cover": 2}'``: fill off).

The crawls of one site run one after the other in a subprocess (``AsyncCrawlerRunner``, a new
crawler, so new pagesim components, per crawl). Pages that are not classified (download
errors, non-HTML, no item) count as "no label" and are reported, with the crawls' warnings.

With concurrent downloads, pages are classified a few places away from the requested order
(printed), and the order varies from run to run: so do the figures, slightly (the site-aware
method learns from the pages in the order it meets them).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urljoin, urlsplit

from _data import isolated_state, shared
from site_accuracy import (
    SHARED_TEMPLATE_SITES,
    Counts,
    large_type_samples,
    link_key,
    several_type_templates,
)

#: The wiki's <body> class names the page type: removed (first occurrence) before serving.
HIDE_BODY_CLASS_SITES = ("awesomewm_wiki",)
_BODY_CLASS = re.compile(rb"(<body\b[^>]*?)\sclass=(\"[^\"]*\"|'[^']*')", re.IGNORECASE)
ROBOTS_TXT = b"User-agent: *\nDisallow:\n"
#: The early error rate covers this many pages, the first classified in each one-class crawl.
EARLY = 10
#: Stats of each crawl worth reporting when something went wrong.
_STAT_PREFIXES = (
    "finish_reason",
    "item_scraped_count",
    "response_received_count",
    "downloader/response_status_count/",
    "downloader/exception_type_count/",
    "pagesim/response_count",
    "pagesim/skipped/",
    "pagesim/second_look/",
    "pagesim/neighbour_fill",
    "elapsed_time_seconds",
    "log_count/ERROR",
    "log_count/WARNING",
    "spider_exceptions/",
)


@dataclass
class Page:
    path: str
    label: str
    url: str = ""  # the page's address on the real site


@dataclass
class Crawl:
    """One crawl: its templates and target labels, the paths requested, in order."""

    name: str
    templates: dict[str, list[str]]
    targets: list[str]
    paths: list[str]
    #: follow the pages' links from ``paths`` (the home page) instead of requesting a list
    follow: bool = False
    #: PAGESIM_ACTION, and PAGESIM_SECOND_LOOK and PAGESIM_HOLD_UNSETTLED for a "drop" crawl
    action: str = "tag"
    second_look: bool = True
    hold: bool = True


@dataclass
class Outcome:
    """What one crawl classified: a verdict per path, in the order of the feed, and stats."""

    verdicts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def by_path(self) -> dict[str, dict[str, Any]]:
        return dict(self.verdicts)


def load_site(folder: Path) -> list[Page]:
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        pages = [
            Page(row["path"], row["page_type"], row.get("url") or "")
            for row in csv.DictReader(handle)
        ]
    pages.sort(key=lambda page: page.path)
    return pages


def site_bodies(folder: Path, pages: list[Page]) -> dict[str, bytes]:
    bodies = {}
    for page in pages:
        data = (folder / page.path).read_bytes()
        if folder.name in HIDE_BODY_CLASS_SITES:
            data = _BODY_CLASS.sub(rb"\1", data, count=1)
        bodies[page.path] = data
    return bodies


# --- the server (a thread of this process) -----------------------------------------------------


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    #: socketserver's default backlog (5) drops connections Scrapy opens at once; each dropped
    #: SYN delays its page by a second, and takes it far out of the requested order
    request_queue_size = 128

    def __init__(self, bodies: dict[str, bytes], origins: dict[str, str] | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.bodies = bodies
        #: each page's address on the real site (links in the pages point there)
        self.origins = origins or {}
        self.hits: Counter[str] = Counter()
        self.misses: Counter[str] = Counter()
        self._lock = threading.Lock()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def url(self, path: str) -> str:
        return self.base + quote(path, safe="/")

    def count(self, path: str, found: bool) -> None:
        with self._lock:
            (self.hits if found else self.misses)[path] += 1


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: SiteServer

    def do_GET(self) -> None:
        path = unquote(urlsplit(self.path).path).lstrip("/")
        status, content_type = 200, "text/html"
        if path == "robots.txt":
            body, content_type = ROBOTS_TXT, "text/plain"
        elif path in self.server.bodies:
            body = self.server.bodies[path]
            self.server.count(path, True)
        else:
            body, status, content_type = b"not found", 404, "text/plain"
            self.server.count(path, False)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


# --- the crawl subprocess ----------------------------------------------------------------------


def run_crawls(job_file: str) -> None:
    """Run the crawls of a job file one after the other; print each one's stats as JSON."""
    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    import scrapy
    from scrapy.crawler import AsyncCrawlerRunner
    from scrapy.utils.defer import deferred_from_coro
    from scrapy.utils.log import configure_logging
    from twisted.internet import reactor

    # the runner does not set up logging: warnings and errors go to stderr, without times, so
    # that the parent can count repeated lines (each crawler re-installs the handler with its
    # own settings)
    log_settings = {"LOG_LEVEL": "WARNING", "LOG_FORMAT": "%(levelname)s [%(name)s] %(message)s"}
    configure_logging(log_settings)
    job = json.loads(Path(job_file).read_text(encoding="utf-8"))

    class PageTypeSpider(scrapy.Spider):
        name = "site_crawl"

        def __init__(self, urls: list[str], follow: bool = False, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.urls = urls
            self.follow = follow

        async def start(self):  # type: ignore[override]
            if self.follow:  # from the home page, in Scrapy's own order
                yield scrapy.Request(self.urls[0], callback=self.parse)
                return
            # the scheduler pops the highest priority first: the shuffled order is kept
            for position, url in enumerate(self.urls):
                yield scrapy.Request(
                    url, callback=self.parse, priority=len(self.urls) - position, dont_filter=True
                )

        def parse(self, response):  # type: ignore[override]
            if self.follow:
                # the pages link to the real site: a link to a page of the data goes to its
                # copy on the local server
                path = unquote(urlsplit(response.url).path).lstrip("/")
                origin = job["origins"].get(path, response.url)
                for href in response.css("a::attr(href)").getall():
                    local = job["links"].get(link_key(urljoin(origin, href)))
                    if local is not None:
                        yield scrapy.Request(job["base"] + quote(local, safe="/"), self.parse)
            verdict = response.meta.get("pagesim")
            if verdict is None:  # not classified (pagesim skipped it): reported as such
                yield {"url": response.url, "label": None, "score": None, "unclassified": True}
                return
            yield {
                "url": response.url,
                "label": verdict["label"],
                "score": verdict["score"],
                "scores": verdict.get("scores", {}),
                "again": bool(response.meta.get("pagesim_second_look")),
                # a held page given again from the response kept in memory: not downloaded
                "replayed": response.meta.get("pagesim_replay") is not None,
                "filled": verdict.get("filled") is not None,
            }

    async def run() -> None:
        for crawl in job["crawls"]:
            settings: dict[str, Any] = {
                "ADDONS": {"pagesim_scrapy.Addon": 0},
                "PAGESIM_TEMPLATES": crawl["templates"],
                "PAGESIM_TARGETS": crawl["targets"],
                "PAGESIM_ACTION": crawl.get("action", "tag"),
                "PAGESIM_SECOND_LOOK": crawl.get("second_look", True),
                "PAGESIM_HOLD_UNSETTLED": crawl.get("hold", True),
                # each crawl meets its site for the first time (a crawl saves its site
                # models for the next one, and every site here is served from 127.0.0.1)
                "PAGESIM_SITE_MODELS_SAVE": False,
                **isolated_state(),
                **log_settings,
                "TELNETCONSOLE_ENABLED": False,
                "FEEDS": {Path(crawl["feed"]).as_uri(): {"format": "jsonlines"}},
            }
            if job["method"]:
                settings["PAGESIM_METHOD"] = job["method"]
            if job.get("policy"):
                settings["PAGESIM_SITE_POLICY"] = job["policy"]
            crawler = AsyncCrawlerRunner(settings).create_crawler(PageTypeSpider)
            await crawler.crawl_async(urls=crawl["urls"], follow=crawl.get("follow", False))
            stats = crawler.stats.get_stats()
            kept = {
                key: value
                for key, value in stats.items()
                if key.startswith(_STAT_PREFIXES) and key != "finish_time"
            }
            print(json.dumps({"name": crawl["name"], "stats": kept}), flush=True)

    failure: list[Any] = []

    def done(outcome: Any) -> None:
        if outcome is not None:
            failure.append(outcome)
        reactor.stop()  # type: ignore[attr-defined]

    deferred_from_coro(run()).addBoth(done)
    reactor.run()  # type: ignore[attr-defined]
    if failure:
        sys.exit(f"crawls failed: {failure[0]}")


def crawl_site(
    server: SiteServer, crawls: list[Crawl], method: str | None, tmp: Path
) -> tuple[dict[str, Outcome], str]:
    """Run the crawls of one site in a subprocess; their outcomes by name, and its stderr."""
    job: dict[str, Any] = {
        "method": method,
        "policy": POLICY,
        "crawls": [],
        "base": server.base,
        "origins": server.origins,
        "links": {link_key(url): path for path, url in server.origins.items()},
    }
    for number, crawl in enumerate(crawls):
        job["crawls"].append(
            {
                "name": crawl.name,
                "templates": {
                    label: [server.url(path) for path in paths]
                    for label, paths in crawl.templates.items()
                },
                "targets": crawl.targets,
                "urls": [server.url(path) for path in crawl.paths],
                "follow": crawl.follow,
                "action": crawl.action,
                "second_look": crawl.second_look,
                "hold": crawl.hold,
                "feed": str(tmp / f"feed-{number}.jsonl"),
            }
        )
    job_file = tmp / "job.json"
    job_file.write_text(json.dumps(job), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, __file__, "--crawl", str(job_file)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if out.returncode != 0:
        sys.exit(f"the crawls failed (exit {out.returncode}):\n{out.stderr[-5000:]}")
    stats = {}
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            stats[record["name"]] = record["stats"]
    outcomes = {}
    for spec in job["crawls"]:
        outcome = Outcome(stats=stats.get(spec["name"], {}))
        feed = Path(spec["feed"])
        if feed.exists():
            for line in feed.read_text(encoding="utf-8").splitlines():
                item = json.loads(line)
                path = unquote(urlsplit(item["url"]).path).lstrip("/")
                outcome.verdicts.append((path, item))
        outcomes[spec["name"]] = outcome
    return outcomes, out.stderr


# --- the protocols -----------------------------------------------------------------------------


#: PAGESIM_SITE_POLICY of every crawl (``--site-policy``, a JSON object; empty: the shipped).
POLICY: dict[str, Any] = {}

#: The share of the crawl the type has in the "large type" crawls.
LARGE_SHARE = 0.5

#: ... and in the "most of the crawl" crawls.
MOST_SHARE = 0.9


def one_class_crawls(pages: list[Page], seed: int) -> list[Crawl]:
    """One crawl per type with >= 5 pages, in site_accuracy's online order."""
    types = Counter(page.label for page in pages)
    crawls = []
    for label, count in sorted(types.items()):
        if count < 5:
            continue
        templates = [page for page in pages if page.label == label][:2]
        tests = [page for page in pages if page not in templates]
        order = list(range(len(tests)))
        random.Random(f"{seed}:{label}").shuffle(order)
        crawls.append(
            Crawl(
                f"one-class:{label}",
                {label: [page.path for page in templates]},
                [label],
                [tests[index].path for index in order],
            )
        )
    return crawls


def unheld_crawls(pages: list[Page], seed: int) -> list[Crawl]:
    """The one-class crawls in tag mode with nothing held: each page decided as it arrives."""
    return [
        Crawl(
            "tag-unheld:" + crawl.targets[0],
            crawl.templates,
            crawl.targets,
            crawl.paths,
            hold=False,
        )
        for crawl in one_class_crawls(pages, seed)
    ]


def drop_crawls(pages: list[Page], seed: int) -> list[Crawl]:
    """The one-class crawls in drop mode: by default (the second look, unsettled verdicts held
    for it), without holding, and without the second look: a page turned away never reaches
    the spider, unless the second look requests it again."""
    crawls = []
    modes = (("drop", True, True), ("drop-unheld", True, False), ("drop-once", False, False))
    for crawl in one_class_crawls(pages, seed):
        label = crawl.targets[0]
        for prefix, second_look, hold in modes:
            crawls.append(
                Crawl(
                    f"{prefix}:{label}",
                    crawl.templates,
                    crawl.targets,
                    crawl.paths,
                    action="drop",
                    second_look=second_look,
                    hold=hold,
                )
            )
    return crawls


def link_crawls(pages: list[Page]) -> list[Crawl]:
    """One crawl per type with >= 5 pages that starts at the home page (the first page by path
    on a site without one) and follows the pages' links to other pages of the data, in
    Scrapy's default order (depth first, with concurrency): a real crawl meets a site's types
    in bursts, and some late."""
    start = next((page for page in pages if page.label == "home"), pages[0])
    types = Counter(page.label for page in pages)
    return [
        Crawl(
            f"links:{label}",
            {label: [page.path for page in pages if page.label == label][:2]},
            [label],
            [start.path],
            follow=True,
        )
        for label, count in sorted(types.items())
        if count >= 5
    ]


def unheld_link_crawls(pages: list[Page]) -> list[Crawl]:
    """The link crawls with nothing held: how long a crawl that follows links takes when no
    page waits for its site's cut to settle (a held page's links wait with it)."""
    return [
        Crawl(
            "links-unheld:" + c.targets[0], c.templates, c.targets, c.paths, follow=True, hold=False
        )
        for c in link_crawls(pages)
    ]


def large_type_crawls(
    pages: list[Page], seed: int, share: float = LARGE_SHARE, prefix: str = "large"
) -> list[Crawl]:
    """site_accuracy's "large type" samples, one crawl each, in their shuffled order."""
    return [
        Crawl(
            f"{prefix}:{label}",
            {label: [page.path for page in templates]},
            [label],
            [page.path for page in tests],
        )
        for label, templates, tests in large_type_samples(pages, seed, share)
    ]


def multi_type_crawl(pages: list[Page], seed: int) -> Crawl:
    types = Counter(page.label for page in pages)
    firsts: dict[str, Page] = {}
    for page in pages:
        if types[page.label] >= 3 and page.label not in firsts:
            firsts[page.label] = page
    tests = [p for p in pages if p.label in firsts and p is not firsts[p.label]]
    random.Random(seed).shuffle(tests)
    return Crawl(
        "multi-type",
        {label: [page.path] for label, page in firsts.items()},
        [],  # every label is a target
        [page.path for page in tests],
    )


@dataclass
class SiteResult:
    name: str
    counts: Counts
    early_errors: int
    early_total: int
    multi_accepted: int
    multi_nearest: int
    multi_total: int
    seconds: float
    problems: list[str]
    log: Counter[str]
    large: Counts
    most: Counts
    linked: Counts
    linked_early: tuple[int, int]  # errors, pages among the first 10 of each link crawl
    linked_reached: int  # pages the link crawls reached (the most of one crawl)
    #: the link crawls' durations, by default and with nothing held
    linked_seconds: tuple[list[float], list[float]]
    #: |position classified - position requested| of every page, over the site's crawls
    displacements: list[int]
    #: drop mode: by default, nothing held, without the second look; pages requested again
    #: (by default)
    dropped: Counts
    dropped_unheld: Counts
    dropped_once: Counts
    looked_again: int
    #: the one-class crawls in tag mode with nothing held
    unheld: Counts


def problems_of(crawl: Crawl, outcome: Outcome) -> list[str]:
    """What went wrong in one crawl, in words (nothing when every page got a verdict)."""
    problems = []
    stats = outcome.stats
    reason = stats.get("finish_reason")
    if reason != "finished":
        problems.append(f"finish reason {reason}")
    got = outcome.by_path()
    missing = [path for path in crawl.paths if path not in got]
    if crawl.action == "drop":
        missing = []  # the pages turned away
    if crawl.follow:
        missing = [] if got else crawl.paths  # the pages reached are whatever links lead to
    if missing:
        problems.append(f"{len(missing)} of {len(crawl.paths)} pages gave no item: {missing[:3]}")
    unclassified = sum(1 for _, item in outcome.verdicts if item.get("unclassified"))
    if unclassified:
        problems.append(f"{unclassified} pages not classified")
    requested = set(got) if crawl.follow else set(crawl.paths)
    strays = [path for path, _ in outcome.verdicts if path not in requested]
    if strays:
        problems.append(f"{len(strays)} items for pages not requested: {strays[:3]}")
    if len(got) < len(outcome.verdicts):
        problems.append(f"{len(outcome.verdicts) - len(got)} pages reached the spider twice")
    if problems:
        interesting = {k: v for k, v in stats.items() if k not in ("finish_reason",)}
        problems.append(f"stats: {interesting}")
    return [f"{crawl.name}: {problem}" for problem in problems]


def all_crawls(pages: list[Page], seed: int) -> list[Crawl]:
    """Every crawl of one site, the multi-type crawl last."""
    return [
        *one_class_crawls(pages, seed),
        *large_type_crawls(pages, seed),
        *large_type_crawls(pages, seed, MOST_SHARE, prefix="most"),
        *link_crawls(pages),
        *unheld_link_crawls(pages),
        *drop_crawls(pages, seed),
        *unheld_crawls(pages, seed),
        multi_type_crawl(pages, seed),
    ]


def server_problems(
    server: SiteServer, crawls: list[Crawl], outcomes: dict[str, Outcome]
) -> list[str]:
    """Requests the server saw for unknown paths, and more or fewer than the crawls make."""
    problems: list[str] = []
    if server.misses:
        problems.append(f"server: {sum(server.misses.values())} requests for unknown paths")
    expected = Counter(path for crawl in crawls if not crawl.follow for path in crawl.paths)
    for crawl in crawls:
        if crawl.follow:  # each page it reached, once (the dupe filter)
            expected.update({path for path, _ in outcomes[crawl.name].verdicts})
        # and each page the second look requested again, unless replayed from memory
        expected.update(
            path
            for path, item in outcomes[crawl.name].verdicts
            if item.get("again") and not item.get("replayed")
        )
        expected.update(path for paths in crawl.templates.values() for path in paths)
    if server.hits != expected:
        extra = sum((server.hits - expected).values())
        short = sum((expected - server.hits).values())
        problems.append(f"server: {extra} requests more and {short} fewer than expected")
    return problems


def displacements_of(crawls: list[Crawl], outcomes: dict[str, Outcome]) -> list[int]:
    """How far each page's verdict moved from its place in the requested order."""
    displacements = []
    for crawl in crawls:
        if crawl.follow or crawl.action == "drop":  # pages turned away have no place
            continue
        position = {path: index for index, path in enumerate(crawl.paths)}
        displacements.extend(
            abs(position[path] - index)
            for index, (path, _) in enumerate(outcomes[crawl.name].verdicts)
            if path in position
        )
    return displacements


@dataclass
class Tally:
    """The one-class figures of a site's crawls, added crawl by crawl."""

    truth: dict[str, str]
    verbose: bool = False
    counts: Counts = field(default_factory=Counts)
    large: Counts = field(default_factory=Counts)
    most: Counts = field(default_factory=Counts)
    linked: Counts = field(default_factory=Counts)
    linked_early: list[int] = field(default_factory=lambda: [0, 0])
    # held (default), nothing held
    linked_seconds: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    linked_reached: int = 0
    dropped: Counts = field(default_factory=Counts)
    dropped_unheld: Counts = field(default_factory=Counts)
    dropped_once: Counts = field(default_factory=Counts)
    unheld: Counts = field(default_factory=Counts)
    looked_again: int = 0
    early_errors: int = 0
    early_total: int = 0

    def add(self, crawl: Crawl, outcome: Outcome) -> None:
        """Count one one-class crawl into the figure its mode feeds."""
        if crawl.action == "drop":
            self._add_dropped(crawl, outcome)
        elif crawl.follow:
            self._add_linked(crawl, outcome)
        else:
            self._add_tagged(crawl, outcome)

    def _add_dropped(self, crawl: Crawl, outcome: Outcome) -> None:
        """What reached the spider with the label in drop mode."""
        (label,) = crawl.targets
        verdicts = outcome.by_path()
        if not crawl.second_look:
            chosen = self.dropped_once
        else:
            chosen = self.dropped if crawl.hold else self.dropped_unheld
        for path in crawl.paths:
            chosen.add(self.truth[path] == label, verdicts.get(path, {}).get("label") == label)
        if chosen is self.dropped:
            self.looked_again += sum(1 for _, item in outcome.verdicts if item.get("again"))

    def _add_linked(self, crawl: Crawl, outcome: Outcome) -> None:
        """A crawl that follows links: its time, and (held) its verdicts in the order met."""
        (label,) = crawl.targets
        seconds = outcome.stats.get("elapsed_time_seconds", 0.0)
        if not crawl.hold:
            self.linked_seconds[1].append(seconds)
            return
        self.linked_seconds[0].append(seconds)
        templates = set(crawl.templates[label])
        tested = [(path, item) for path, item in outcome.verdicts if path not in templates]
        self.linked_reached = max(self.linked_reached, len(outcome.verdicts))
        for rank, (path, item) in enumerate(tested):
            predicted = item.get("label") == label
            self.linked.add(self.truth[path] == label, predicted)
            if rank < EARLY:
                self.linked_early[0] += predicted != (self.truth[path] == label)
                self.linked_early[1] += 1

    def _add_tagged(self, crawl: Crawl, outcome: Outcome) -> None:
        """A tag-mode crawl of the requested pages (a page without a verdict has no label)."""
        (label,) = crawl.targets
        verdicts = outcome.by_path()
        type_counts = Counts()
        for path in crawl.paths:
            predicted = verdicts.get(path, {}).get("label") == label
            type_counts.add(self.truth[path] == label, predicted)
        for prefix, pooled in (
            ("large:", self.large),
            ("tag-unheld:", self.unheld),
            ("most:", self.most),
        ):
            if crawl.name.startswith(prefix):
                pooled.merge(type_counts)
                return
        self.counts.merge(type_counts)
        for path, item in outcome.verdicts[:EARLY]:
            self.early_total += 1
            self.early_errors += (item.get("label") == label) != (self.truth[path] == label)
        if self.verbose:
            print(f"    {label:28} {type_counts!s:28} {len(crawl.paths)} pages")


def multi_type_figures(multi: Crawl, outcome: Outcome, truth: dict[str, str]) -> tuple[int, int]:
    """Pages of the multi-type crawl given their type, and pages nearest it."""
    verdicts = outcome.by_path()
    accepted = nearest = 0
    for path in multi.paths:
        item = verdicts.get(path, {})
        accepted += item.get("label") == truth[path]
        scores = item.get("scores") or {}
        nearest += bool(scores) and max(scores, key=scores.__getitem__) == truth[path]
    return accepted, nearest


def evaluate_site(
    name: str, folder: Path, seed: int, method: str | None, tmp: Path, verbose: bool
) -> SiteResult:
    started = time.perf_counter()
    pages = load_site(folder)
    truth = {page.path: page.label for page in pages}
    server = SiteServer(site_bodies(folder, pages), {p.path: p.url for p in pages if p.url})
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    crawls = all_crawls(pages, seed)
    try:
        outcomes, stderr = crawl_site(server, crawls, method, tmp)
    finally:
        server.shutdown()
        server.server_close()
    problems: list[str] = []
    for crawl in crawls:
        problems.extend(problems_of(crawl, outcomes[crawl.name]))
    problems += server_problems(server, crawls, outcomes)
    log = Counter(line[:300] for line in stderr.splitlines() if line.strip())
    displacements = displacements_of(crawls, outcomes)
    tally = Tally(truth, verbose)
    for crawl in crawls[:-1]:
        tally.add(crawl, outcomes[crawl.name])
    multi = crawls[-1]
    accepted, nearest = multi_type_figures(multi, outcomes[multi.name], truth)
    return SiteResult(
        name,
        tally.counts,
        tally.early_errors,
        tally.early_total,
        accepted,
        nearest,
        len(multi.paths),
        time.perf_counter() - started,
        problems,
        log,
        tally.large,
        tally.most,
        tally.linked,
        (tally.linked_early[0], tally.linked_early[1]),
        tally.linked_reached,
        tally.linked_seconds,
        displacements,
        tally.dropped,
        tally.dropped_unheld,
        tally.dropped_once,
        tally.looked_again,
        tally.unheld,
    )


def _marked(name: str) -> str:
    """A site's name, starred when several of its labelled types share one template."""
    return name + " *" if name in SHARED_TEMPLATE_SITES else name


def _pooled(results: list[SiteResult], figure: str, distinct_only: bool = True) -> Counts:
    """One of the sites' ``Counts`` figures pooled, over the distinct-template sites or all."""
    pooled = Counts()
    for result in results:
        if not distinct_only or result.name not in SHARED_TEMPLATE_SITES:
            pooled.merge(getattr(result, figure))
    return pooled


def run_sites(
    names: list[str], root: Path, args: argparse.Namespace, method: str
) -> list[SiteResult]:
    """Crawl every site, printing its one-class line as it is done."""
    results: list[SiteResult] = []
    print(f"one-class (2 templates per type with >= 5 pages), a crawl per type, method {method}")
    print(
        f"{'site':24} {'crawl (shuffled)':28} {'first 10 err':>12} {'time':>8}  "
        "nothing held (each page decided as it arrives)"
    )
    with tempfile.TemporaryDirectory(prefix="site_crawl-") as tmp:
        for name in names:
            work = Path(tmp) / name
            work.mkdir()
            result = evaluate_site(name, root / name, args.seed, args.method, work, args.per_type)
            results.append(result)
            mark = " *" if name in SHARED_TEMPLATE_SITES else ""
            early = result.early_errors / result.early_total if result.early_total else 0.0
            print(
                f"{name + mark:24} {result.counts!s:28} {early:12.3f} {result.seconds:7.1f}s  "
                f"{result.unheld}"
            )
    return results


def print_pooled_one_class(results: list[SiteResult]) -> None:
    """The one-class figures pooled."""
    pooled, distinct = Counts(), Counts()
    pe = pt = de = dt = 0
    for result in results:
        pooled.merge(result.counts)
        pe += result.early_errors
        pt += result.early_total
        if result.name not in SHARED_TEMPLATE_SITES:
            distinct.merge(result.counts)
            de += result.early_errors
            dt += result.early_total
    if dt:
        print(
            f"{'pooled, distinct sites':24} {distinct!s:28} {de / dt:12.3f} {'':8}  "
            f"{_pooled(results, 'unheld')}"
        )
    print(
        f"{'pooled, all sites':24} {pooled!s:28} {pe / pt if pt else 0.0:12.3f} {'':8}  "
        f"{_pooled(results, 'unheld', distinct_only=False)}"
    )
    print("(* several labelled types share one template on this site: reported, not tuned to)")


def print_multi_type(results: list[SiteResult], method: str) -> None:
    """The multi-type crawl per site and pooled."""
    print(f"\nmulti-type (first page of each type with >= 3 pages), one crawl per site, {method}")
    for result in results:
        total = result.multi_total or 1
        print(
            f"{result.name:24} accepted {result.multi_accepted / total:.3f}  "
            f"nearest {result.multi_nearest / total:.3f}  ({result.multi_total} pages)"
        )
    for title, chosen in (
        ("pooled, distinct sites", [r for r in results if r.name not in SHARED_TEMPLATE_SITES]),
        ("pooled, all sites", results),
    ):
        total = sum(r.multi_total for r in chosen)
        if total:
            accepted = sum(r.multi_accepted for r in chosen) / total
            nearest = sum(r.multi_nearest for r in chosen) / total
            print(f"{title:24} accepted {accepted:.3f}  nearest {nearest:.3f}")


def print_large_type(results: list[SiteResult]) -> None:
    """The large-type and most-of-the-crawl figures."""
    large, most = Counts(), Counts()
    for result in results:
        if result.name not in SHARED_TEMPLATE_SITES:
            large.merge(result.large)
            most.merge(result.most)
    print(
        f"\nlarge type (the type is {LARGE_SHARE:.0%} of the crawl, a crawl per type with >= 20 "
        f"pages), distinct sites: {large}"
    )
    print(f"most of the crawl (the type is {MOST_SHARE:.0%} of it), distinct sites: {most}")


def print_linked(results: list[SiteResult]) -> None:
    """The crawls that follow links from the home page."""
    print(
        "\none-class, following links from the home page (a crawl per type with >= 5 pages, "
        "Scrapy's default order)"
    )
    print(
        f"{'site':24} {'crawl (links)':28} {'first 10 err':>12} {'reached':>8}  "
        "seconds per crawl, median: default / nothing held"
    )
    for result in results:
        errors, total = result.linked_early
        print(
            f"{_marked(result.name):24} {result.linked!s:28} {errors / (total or 1):12.3f} "
            f"{result.linked_reached:8d}  "
            + " / ".join(
                f"{statistics.median(times):.2f}" if times else "-"
                for times in result.linked_seconds
            )
        )
    print(f"{'pooled, distinct sites':24} {_pooled(results, 'linked')!s:28}")
    print(f"{'pooled, all sites':24} {_pooled(results, 'linked', distinct_only=False)!s:28}")


def print_dropped(results: list[SiteResult]) -> None:
    """The one-class crawls in drop mode."""
    print(
        "\none-class in drop mode (PAGESIM_ACTION = 'drop', the shuffled order): what reaches "
        "the spider with the label; a page turned away is lost unless the second look, when "
        "the crawl runs dry, requests it again"
    )
    print(
        f"{'site':24} {'default (held)':28} {'second look, none held':28} {'no second look':28} "
        f"{'again':>6}"
    )
    for result in results:
        print(
            f"{_marked(result.name):24} {result.dropped!s:28} {result.dropped_unheld!s:28} "
            f"{result.dropped_once!s:28} {result.looked_again:6d}"
        )
    print(
        f"{'pooled, distinct sites':24} {_pooled(results, 'dropped')!s:28} "
        f"{_pooled(results, 'dropped_unheld')!s:28} {_pooled(results, 'dropped_once')!s:28}"
    )


def print_problems(results: list[SiteResult]) -> None:
    """Problems, page order and the crawl log."""
    problems = [f"{r.name}: {p}" for r in results for p in r.problems]
    print("\nproblems: " + ("none (every page requested got a verdict)" if not problems else ""))
    for problem in problems:
        print("  " + problem)
    moves = [d for result in results for d in result.displacements]
    if moves:
        print(
            f"classified vs requested order (default concurrency): pages moved "
            f"{sum(moves) / len(moves):.1f} places on average, at most {max(moves)}"
        )
    log: Counter[str] = Counter()
    for result in results:
        log.update(result.log)
    print(f"crawl log (level WARNING), distinct lines: {len(log) or 'none'}")
    for line, count in log.most_common():
        print(f"  {count:4d} x {line}")


# --- every type configured, one crawl per site ------------------------------------------------


def every_type_crawl(pages: list[Page], seed: int) -> Crawl:
    """site_accuracy's every-type protocol as a crawl: every type with >= 3 pages configured
    (2 examples of the detail type, 1 of each other; every label a target), the other pages of
    the site requested in a shuffled order."""
    given = several_type_templates(pages)
    used = {page.path for chosen in given.values() for page in chosen}
    tests = [page for page in pages if page.path not in used]
    random.Random(f"{seed}:every").shuffle(tests)
    return Crawl(
        "every-type",
        {label: [page.path for page in chosen] for label, chosen in given.items()},
        [],
        [page.path for page in tests],
    )


@dataclass
class EveryType:
    """One site's every-type crawl: its configured types' pages given their own type, none or
    another; pages filled from their neighbours; pages whose label the batch gives too."""

    own: int = 0
    none: int = 0
    other: int = 0
    filled: int = 0
    filled_right: int = 0
    agree: int = 0
    compared: int = 0

    def merge(self, other: EveryType) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def __str__(self) -> str:
        n = max(1, self.own + self.none + self.other)
        return (
            f"own {self.own / n:.3f}  none {self.none / n:.3f}  other {self.other / n:.3f}  "
            f"filled {self.filled} ({self.filled_right} right)  "
            f"batch agrees {self.agree / max(1, self.compared):.3f}  ({n} pages)"
        )


def batch_labels(folder: Path, crawl: Crawl) -> dict[str, str | None]:
    """The crawl's pages decided by ``classify``'s batch (the same templates): label by path."""
    import site_accuracy

    from pagesim_scrapy.core.classify import build_classifier

    by_path = {page.path: page for page in site_accuracy.load_site(folder)}
    templates = {
        label: [by_path[path].summary for path in paths] for label, paths in crawl.templates.items()
    }
    clf = build_classifier(templates, method="site")
    verdicts = clf.classify_all([by_path[path].summary for path in crawl.paths])
    return {path: verdict.label for path, verdict in zip(crawl.paths, verdicts)}


def every_type_site(folder: Path, seed: int, method: str | None, tmp: Path) -> EveryType:
    """Crawl one site with every type configured; its figures against the truth and the
    batch."""
    pages = load_site(folder)
    truth = {page.path: page.label for page in pages}
    server = SiteServer(site_bodies(folder, pages), {p.path: p.url for p in pages if p.url})
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    crawl = every_type_crawl(pages, seed)
    try:
        outcomes, _ = crawl_site(server, [crawl], method, tmp)
    finally:
        server.shutdown()
        server.server_close()
    verdicts = outcomes[crawl.name].by_path()
    batch = batch_labels(folder, crawl)
    result = EveryType()
    for path in crawl.paths:
        item = verdicts.get(path, {})
        label, right = item.get("label"), truth[path]
        result.compared += 1
        result.agree += label == batch[path]
        if item.get("filled"):
            result.filled += 1
            result.filled_right += label == right
        if right not in crawl.templates:
            continue
        result.own += label == right
        result.none += label is None
        result.other += label is not None and label != right
    return result


def print_every_type(args: argparse.Namespace) -> None:
    """The every-type crawl per site and pooled, over the data sets asked for."""
    print(
        "every type configured (types with >= 3 pages; 2 examples of the largest type, 1 of "
        "each other), one crawl per site, tag mode, default hold and second look: the "
        "configured types' pages given; pages filled from their neighbours; share of the "
        "crawl's pages whose label is the batch's (classify over the same pages)"
    )
    pooled = EveryType()
    with tempfile.TemporaryDirectory(prefix="site_crawl-") as tmp:
        for data in args.data.split(","):
            root = shared(data)
            for folder in sorted(p for p in root.iterdir() if p.is_dir()):
                if args.sites and folder.name not in args.sites.split(","):
                    continue
                work = Path(tmp) / folder.name
                work.mkdir()
                result = every_type_site(folder, args.seed, args.method, work)
                pooled.merge(result)
                print(f"{folder.name:24} {result}", flush=True)
    print(f"{'pooled':24} {pooled}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", default="", help="comma-separated site folders (default all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--method", default=None, help="PAGESIM_METHOD (default: pagesim's)")
    parser.add_argument("--per-type", action="store_true", help="print one-class figures per type")
    parser.add_argument("--crawl", metavar="JOB", help=argparse.SUPPRESS)
    parser.add_argument(
        "--every-type",
        action="store_true",
        help="only the every-type crawl (one per site, every type configured) against the batch",
    )
    parser.add_argument(
        "--data",
        default="site_page_types,site_page_types_2",
        help="with --every-type: comma-separated data sets under ../shared/data",
    )
    parser.add_argument(
        "--site-policy",
        default="{}",
        help="PAGESIM_SITE_POLICY of every crawl, as JSON (e.g. '{\"crawl_neighbour_cover\": 2}')",
    )
    args = parser.parse_args()
    if args.crawl:
        run_crawls(args.crawl)
        return
    POLICY.update(json.loads(args.site_policy))
    if args.every_type:
        print_every_type(args)
        return

    from pagesim_scrapy.settings import PageSimConfig

    root = shared("site_page_types")
    available = sorted(p.name for p in root.iterdir() if p.is_dir())
    names = [n for n in args.sites.split(",") if n] or available
    unknown = [n for n in names if n not in available]
    if unknown:
        sys.exit(f"unknown site(s) {unknown}; the sites are {', '.join(available)}")
    method = args.method or f"{PageSimConfig().method} (the default)"
    started = time.perf_counter()
    results = run_sites(names, root, args, method)
    print_pooled_one_class(results)
    print_multi_type(results, method)
    print_large_type(results)
    print_linked(results)
    print_dropped(results)
    print_problems(results)
    print(f"wall time {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
