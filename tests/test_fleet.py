"""Crawl fleets: real ``scrapy crawl`` processes sharing one scrapy-redis queue and dupefilter,
and pagesim's learned state, in a real redis-server, against one local HTTP server.

The site is the bundled demo shop (sample_project/demo_site, 266 pages of 8 types). Every
worker appends one JSON line per response to its own verdicts file (flushed, so a killed worker
leaves whole lines), and a small extension writes its stats at the end. Compared with one
process crawling the same pages: the verdicts (within the bound stated in the test), the
crawled pages, the site model in Redis, the shared wrapper and the discovered types.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("redis", reason="the redis package is not installed (extra [redis])")
pytest.importorskip("scrapy_redis", reason="scrapy-redis is not installed (extra [redis])")

from pagesim_scrapy.core.record.signatures import parse_memory
from pagesim_scrapy.core.site import SavedSite, site_key, unpack_features
from pagesim_scrapy.core.siteaware import SAVED_SITE_WEIGHT, SiteAwareClassifier
from pagesim_scrapy.core.state import open_shared_state
from pagesim_scrapy.core.summary import SummaryOptions
from pagesim_scrapy.fleet import SIGNATURES_DOCUMENT
from pagesim_scrapy.templates import summarize_html
from sample_project.demo_shop import DEMO_SITE_DIR
from tests.redis_server import (
    RedisServer,
    free_port,
    redis_or_skip,
)

REPO = Path(__file__).resolve().parent.parent
CRAWL_TIMEOUT = 240
TEMPLATES = {
    "product": ["p/13391.html", "item/brio-prime-wooden-puzzle-ii-13646.html"],
    "category": ["shop/apparel/shirts/index.html", "shop/kitchen/index.html"],
    "search": ["search/backpack.html"],
    "help": ["help/shipping.html"],
}

PROJECT_SETTINGS = """
BOT_NAME = "fleetproj"
SPIDER_MODULES = ["fleetproj.spiders"]
ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False
LOG_LEVEL = "INFO"
ADDONS = {{"pagesim_scrapy.Addon": 0}}
EXTENSIONS = {{"fleetproj.StatsToFile": 0}}
PAGESIM_ENABLED = True
PAGESIM_TEMPLATES = {templates}
PAGESIM_TARGETS = ["product"]
PAGESIM_PAGE_ITEMS = True
PAGESIM_INDUCTION_ENABLED = True
PAGESIM_DISCOVERY_ENABLED = True
CONCURRENT_REQUESTS = 4
"""

PROJECT_INIT = '''
import json
from scrapy import signals


class StatsToFile:
    """Write the crawl's stats to FLEET_STATS_FILE once the engine has stopped."""

    def __init__(self, crawler):
        self.crawler = crawler
        self.path = crawler.settings.get("FLEET_STATS_FILE")
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def engine_stopped(self):
        if self.path:
            stats = {k: v for k, v in self.crawler.stats.get_stats().items()
                     if isinstance(v, (int, float, str))}
            with open(self.path, "w", encoding="utf-8") as f:
                json.dump(stats, f)
'''

SPIDER = '''
import json
import os

import scrapy


class FleetShopSpider(scrapy.Spider):
    """Every page of the shop, its pagesim verdict appended to a file (one JSON line)."""

    name = "fleetshop"

    def __init__(self, start_url, verdicts, **kwargs):
        super().__init__(**kwargs)
        self.start_url = start_url
        self.root = start_url.rsplit("/", 1)[0] + "/"
        self.out = open(verdicts, "a", encoding="utf-8")

    async def start(self):
        yield scrapy.Request(self.start_url)

    def parse(self, response):
        verdict = response.meta.get("pagesim") or {}
        line = {"url": response.url, "label": verdict.get("label"),
                "cluster": verdict.get("cluster"), "pid": os.getpid()}
        self.out.write(json.dumps(line) + "\\n")
        self.out.flush()
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href).split("#", 1)[0]
            if url.startswith(self.root) and url.endswith(".html"):
                yield scrapy.Request(url)

    def closed(self, reason):
        self.out.close()
'''


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    """The demo shop on a local HTTP server; its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(DEMO_SITE_DIR))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}/"
    server.shutdown()
    server.server_close()
    thread.join(5)


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    yield from redis_or_skip()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Scrapy project folder with the fleet spider (templates from the bundled site)."""
    root = tmp_path_factory.mktemp("fleetproject")
    package = root / "fleetproj"
    (package / "spiders").mkdir(parents=True)
    (root / "scrapy.cfg").write_text("[settings]\ndefault = fleetproj.settings\n")
    (package / "__init__.py").write_text(PROJECT_INIT)
    templates = {
        label: [str(DEMO_SITE_DIR / path) for path in paths] for label, paths in TEMPLATES.items()
    }
    (package / "settings.py").write_text(PROJECT_SETTINGS.format(templates=repr(templates)))
    (package / "spiders" / "__init__.py").write_text("")
    (package / "spiders" / "fleetshop.py").write_text(textwrap.dedent(SPIDER))
    return root


class Worker:
    """One ``scrapy crawl fleetshop`` process and its output files."""

    def __init__(self, project: Path, out: Path, name: str, shop: str, settings: dict[str, Any]):
        self.verdicts = out / f"{name}.verdicts.jsonl"
        self.stats_file = out / f"{name}.stats.json"
        self.log = out / f"{name}.log"
        every = {
            "FLEET_STATS_FILE": str(self.stats_file),
            "PAGESIM_INDUCTION_DIR": str(out / f"{name}-wrappers"),
            "PAGESIM_DISCOVERY_FILE": str(out / f"{name}-discovery.json"),
            **settings,
        }
        command = [sys.executable, "-m", "scrapy", "crawl", "fleetshop"]
        command += ["-a", f"start_url={shop}index.html", "-a", f"verdicts={self.verdicts}"]
        for key, value in every.items():
            command += ["-s", f"{key}={value}"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project), str(REPO)])}
        self._log_file = self.log.open("wb")
        self.process = subprocess.Popen(
            command, cwd=project, env=env, stdout=self._log_file, stderr=subprocess.STDOUT
        )

    def wait(self) -> int:
        try:
            return self.process.wait(CRAWL_TIMEOUT)
        finally:
            self._log_file.close()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)
        self._log_file.close()

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def results(self) -> dict[str, dict[str, Any]]:
        lines = (
            self.verdicts.read_text(encoding="utf-8").splitlines() if self.verdicts.exists() else []
        )
        return {row["url"]: row for row in map(json.loads, lines)}

    def stats(self) -> dict[str, Any]:
        return json.loads(self.stats_file.read_text(encoding="utf-8"))


def fleet_settings(redis: RedisServer, **extra: Any) -> dict[str, Any]:
    """scrapy-redis's scheduler and dupefilter; pagesim finds the state through REDIS_URL."""
    return {
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        # the queue and the seen requests outlive a worker (the default flushes both when any
        # worker closes, under the others' feet)
        "SCHEDULER_PERSIST": True,
        "REDIS_URL": redis.url,
        "PAGESIM_STATE_SYNC_INTERVAL": 0.5,
        **extra,
    }


def run_fleet(
    project: Path, out: Path, shop: str, settings: dict[str, Any], n: int
) -> list[Worker]:
    """Start ``n`` workers (the first one alone until its start page is crawled)."""
    import redis

    client = redis.Redis.from_url(settings["REDIS_URL"])
    queue = settings.get("SCHEDULER_QUEUE_KEY", "fleetshop:requests")
    workers = [Worker(project, out, "w0", shop, settings)]
    deadline = time.monotonic() + 60
    while not client.exists(queue) and time.monotonic() < deadline:
        if workers[0].process.poll() is not None:
            break
        time.sleep(0.1)
    client.close()
    workers += [Worker(project, out, f"w{i}", shop, settings) for i in range(1, n)]
    return workers


def disagreement(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> int:
    return sum(a[url]["label"] != b[url]["label"] for url in a.keys() & b.keys())


def test_a_fleet_shares_what_it_learns_and_decides_like_one_process(
    project: Path, shop: str, redis_server: RedisServer, tmp_path: Path
):
    """Three workers with scrapy-redis and shared pagesim state, one process alone, three
    workers with scrapy-redis but pagesim's state kept local, and a fourth worker joining
    after the fleet.

    Every online decision depends on the pages seen before it, and the order of the pages
    differs between any two crawls (concurrency, which worker fetches what), so the verdicts
    of two crawls differ on some pages however the state is kept. What does not depend on the
    order is what was learned: the fleet's site model in Redis is asserted equal to the one
    process's, count for count. Measured on the 266 pages: with the first cut rule the shared
    fleet's verdicts differed from the one process's on 19-20 pages, the unshared fleet's on
    58-72; with the own cut's two candidates (steadier when products are most of the site)
    0-1 and 0-43. The late worker differed on 0-5 from a process continuing from the fleet's
    state (its first page is decided before its first sync). Asserted: the shared fleet
    differs on at most 12 % of the pages, and on at most half as many as the unshared fleet
    or 2 % of the pages; the late worker on at most 5 %.
    """
    site = site_key(shop)  # the local server's host and port
    # one process with the same scheduler (so the same queue order policy), its learned
    # state kept under another prefix of the same Redis so that it can be compared
    (tmp_path / "single").mkdir()
    single = Worker(
        project,
        tmp_path / "single",
        "single",
        shop,
        fleet_settings(
            redis_server,
            PAGESIM_STATE_PREFIX="single",
            SCHEDULER_QUEUE_KEY="single:requests",
            SCHEDULER_DUPEFILTER_KEY="single:dupefilter",
        ),
    )
    assert single.wait() == 0, single.log_text()[-3000:]
    alone = single.results()
    assert len(alone) > 200

    out = tmp_path / "fleet"
    out.mkdir()
    workers = run_fleet(project, out, shop, fleet_settings(redis_server), 3)
    codes = [worker.wait() for worker in workers]
    assert codes == [0, 0, 0], [w.log_text()[-3000:] for w in workers]
    results = [worker.results() for worker in workers]
    stats = [worker.stats() for worker in workers]

    # scrapy-redis shared the queue: every page crawled once, by one worker
    crawled = [url for result in results for url in result]
    assert len(crawled) == len(set(crawled))
    assert set(crawled) == set(alone)
    assert all(len(result) > 0 for result in results), [len(r) for r in results]
    fleet = {url: row for result in results for url, row in result.items()}

    # the site model in Redis counts every classified page once
    state = open_shared_state(redis_server.url)
    pushed = [s.get("pagesim/state/pushed_pages", 0) for s in stats]
    classified = [s.get("pagesim/response_count", 0) for s in stats]
    assert pushed == classified
    assert state.site_pages([site]) == {site: len(fleet)}
    # ... and holds exactly what one process learns from the same pages, whatever the order
    by_one = open_shared_state(redis_server.url, prefix="single")
    fleet_counts, single_counts = state.pull_sites([site])[site], by_one.pull_sites([site])[site]
    assert fleet_counts.pages == single_counts.pages == len(alone)
    assert fleet_counts.df == single_counts.df
    by_one.close()
    assert all(s.get("pagesim/state/errors", 0) == 0 for s in stats)
    # each worker adopted the others' counts
    assert all(s.get("pagesim/state/pulled_sites", 0) >= 1 for s in stats)

    # wrappers: every worker that learned product pages saved into one shared wrapper
    savers = sum(s.get("pagesim/induction/wrappers_saved", 0) for s in stats)
    assert savers >= 2
    wrapper, version = state.load_wrapper("product")
    assert wrapper is not None and version == savers
    learned = [s.get("pagesim/induction/learned/product", 0) for s in stats]
    assert wrapper.pages >= max(learned) > 0

    # the records' signature memory: what the workers' sites agreed on, pooled in one document
    saved = [s.get("pagesim/induction/signatures/saved", 0) for s in stats]
    stored_memory = state.load_document(SIGNATURES_DOCUMENT)
    assert stored_memory is not None and len(parse_memory(stored_memory)) >= max(saved) > 0

    # discovered types: one label each, published, and used by the other workers
    published = sum(s.get("pagesim/state/types_published", 0) for s in stats)
    types = state.pull_types(crawl_options(), [])
    assert len(types) == published > 0
    assert len({rep.label for rep in types}) == len(types)
    assert sum(s.get("pagesim/state/types_pulled", 0) for s in stats) > 0

    # verdicts: the fleet decides like one process, within the bound
    differ = disagreement(alone, fleet)

    control_out = tmp_path / "unshared"
    control_out.mkdir()
    control = run_fleet(
        project,
        control_out,
        shop,
        fleet_settings(
            redis_server,
            PAGESIM_STATE_URL="local",
            SCHEDULER_QUEUE_KEY="control:requests",
            SCHEDULER_DUPEFILTER_KEY="control:dupefilter",
        ),
        3,
    )
    assert [w.wait() for w in control] == [0, 0, 0]
    unshared = {url: row for w in control for url, row in w.results().items()}
    differ_unshared = disagreement(alone, unshared)
    print("verdicts differing from one process: shared", differ, "unshared", differ_unshared)
    assert differ <= 0.12 * len(alone), (differ, differ_unshared)
    # sharing halves the disagreement, unless both are down to a handful of pages
    assert differ <= max(differ_unshared / 2, 0.02 * len(alone)), (differ, differ_unshared)

    # a worker that starts after the fleet has stopped begins a new crawl of the fleet: it
    # starts from what the fleet learned, the counts aged as a recurring crawl weighs the site
    # models of the last one (its own pushes come on top)
    fleet_final = state.pull_sites([site])[site]
    joined_at = SavedSite(site, fleet_final.pages, fleet_final.df, fleet_final.kept).scaled(
        SAVED_SITE_WEIGHT
    )
    late_out = tmp_path / "late"
    late_out.mkdir()
    late = Worker(
        project,
        late_out,
        "late",
        shop,
        fleet_settings(
            redis_server,
            SCHEDULER_QUEUE_KEY="late:requests",
            SCHEDULER_DUPEFILTER_KEY="late:dupefilter",
        ),
    )
    assert late.wait() == 0, late.log_text()[-3000:]
    late_stats = late.stats()
    assert late_stats.get("pagesim/state/aged_sites", 0) >= 1
    assert "a new crawl of the fleet" in late.log_text()
    assert late_stats.get("pagesim/induction/wrappers_loaded") == 1
    assert late_stats.get("pagesim/induction/signatures/loaded") == len(parse_memory(stored_memory))
    # every type of the fleet; a pulled type that the worker's own regrouping merges into
    # another is no longer known to it, and is pulled again at its next sync
    assert late_stats.get("pagesim/state/types_pulled", 0) >= len(types)
    # it decides like one process that continues from the fleet's state: emulated here, the
    # single process's final counts adopted by a fresh classifier that then learns the late
    # worker's pages in the late worker's order
    continuing = crawl_classifier()
    continuing.adopt_site(site, joined_at.pages, joined_at.df, joined_at.kept)
    options = crawl_options()
    expected = {}
    for url in late.results():  # in the order the late worker met them
        body = (DEMO_SITE_DIR / url.split("/", 3)[3]).read_bytes()
        summary = summarize_html(body, url, options)
        expected[url] = {"label": continuing.classify(summary, site=site).label}
    late_differ = disagreement(expected, late.results())
    print("late worker differing from a process continuing the fleet:", late_differ)
    assert late_differ <= 0.05 * len(alone), late_differ
    assert "reusing the stored wrapper of 'product'" in late.log_text()
    state.close()


def crawl_classifier() -> SiteAwareClassifier:
    """The crawl's classifier, built from the same template files."""
    options = crawl_options()
    return SiteAwareClassifier(
        {
            label: [
                summarize_html(
                    (DEMO_SITE_DIR / path).read_bytes(), (DEMO_SITE_DIR / path).as_uri(), options
                )
                for path in paths
            ]
            for label, paths in TEMPLATES.items()
        },
        summary_options=options,
    )


def crawl_options() -> SummaryOptions:
    """The summary options of the crawl (PAGESIM_MAX_NODES etc. at their defaults)."""
    from scrapy.settings import Settings

    from pagesim_scrapy.settings import PageSimConfig

    return PageSimConfig.from_settings(Settings()).summary_options()


def test_a_worker_killed_mid_crawl_loses_nothing_the_others_need(
    project: Path, shop: str, redis_server: RedisServer, tmp_path: Path
):
    """SIGKILL one of three workers once the fleet has pushed pages: the others finish, and
    the state in Redis is whole (every page the survivors classified is counted, every kept
    page and every type can be read back, the wrapper loads)."""
    site = site_key(shop)  # the local server's host and port
    import redis

    settings = fleet_settings(redis_server, DOWNLOAD_DELAY=0.03, CONCURRENT_REQUESTS=2)
    workers = run_fleet(project, tmp_path, shop, settings, 3)
    client = redis.Redis.from_url(redis_server.url)
    victim = workers[2]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        pages = int(client.get(f"pagesim:site:{site}:pages") or 0)
        if pages >= 40 and victim.results():
            break
        assert victim.process.poll() is None, victim.log_text()[-3000:]
        time.sleep(0.05)
    victim.kill()
    killed_pages = len(victim.results())
    assert killed_pages > 0
    survivors = workers[:2]
    assert [w.wait() for w in survivors] == [0, 0], [w.log_text()[-3000:] for w in survivors]

    state = open_shared_state(redis_server.url)
    counts = state.pull_sites([site])[site]
    survivor_pages = sum(w.stats()["pagesim/state/pushed_pages"] for w in survivors)
    # the survivors' pages are all there; of the killed worker's, those it pushed (a page is
    # classified before its callback writes the verdict line: up to CONCURRENT_REQUESTS more)
    assert survivor_pages <= counts.pages <= survivor_pages + killed_pages + 2
    assert counts.pages == int(client.get(f"pagesim:site:{site}:pages") or 0)
    for packed in counts.kept:
        assert unpack_features(packed)
    assert all(n >= 1 for n in counts.df.values())
    assert state.pull_types(crawl_options(), []) is not None
    assert not state.corrupt_types
    wrapper, version = state.load_wrapper("product")
    assert wrapper is not None and version >= 1
    wrapper.compiled()
    state.close()
    client.close()


def test_an_unreachable_state_is_one_error_and_the_crawl_goes_on(
    project: Path, shop: str, tmp_path: Path
):
    """No Redis where PAGESIM_STATE_URL points: the worker logs that once, counts the failed
    syncs, and classifies every page with its own state."""
    port = free_port()
    worker = Worker(
        project,
        tmp_path,
        "alone",
        shop,
        {"PAGESIM_STATE_URL": f"redis://127.0.0.1:{port}/0", "PAGESIM_STATE_TIMEOUT": 0.5},
    )
    assert worker.wait() == 0, worker.log_text()[-3000:]
    log = worker.log_text()
    assert log.count("cannot be reached; going on with this worker's local state") == 1
    assert "Traceback" not in log
    stats = worker.stats()
    assert stats["pagesim/state/errors"] >= 1
    assert stats["pagesim/response_count"] == len(worker.results()) > 200
    # the wrapper store failed too, said so, and the crawl still finished
    assert "cannot load the stored wrapper of 'product'" in log
