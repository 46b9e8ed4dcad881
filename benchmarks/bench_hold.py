"""Does induction slow a discovery crawl down? Wall time with and without it (issue 14, item 3).

    python benchmarks/bench_hold.py [--pages 300] [--rounds 3] [--latency MS] [-s NAME=VALUE ...]

A local HTTP server (its own process) on 127.0.0.1 serves ``--pages`` pages made from the real
pages of many sites in ../shared/data (``bench_crawl.py``'s server: variants of each base page
with their own links and ids). The same crawl, with the add-on, crawl-time discovery and page
items on and no templates, runs ``--rounds`` times in each of two configurations, alternating
A, B, A, B..., each in a fresh process that times its crawl (wall clock, start to finish; the
time of the last response; the process's CPU time):

* A: discovery, page items, no induction pipeline;
* B: the same with ``PAGESIM_INDUCTION_ENABLED``: wrappers learned per discovered type, page
  items of types that have not reached ``PAGESIM_INDUCTION_MIN_PAGES`` held.

Most discovered types never reach ``PAGESIM_INDUCTION_MIN_PAGES`` in such a crawl: their items
are held until the buffer, the byte budget, the wait or the end of the crawl releases them.
Held items must not stop the downloader: induction may slow the crawl by its own CPU, no more
(issue 14's goal: median wall time B / A <= 1.2). Printed: each run's wall time, last
response, CPU, responses, items, held items and how they were released; the medians, the ratio
B / A, B against A's wall time plus induction's CPU (B − A CPU: about 1.0 when induction costs
only its CPU, far above when held items stall the crawl), and the median of the per-round
ratios, and induction's CPU per page item (``pagesim/induction/time_ms``, the worker thread's
CPU). ``--latency MS`` makes the server answer each request that many milliseconds late (a
remote site's response time; the crawl keeps ``CONCURRENT_REQUESTS`` 16, no download delay):
with latency, fetching leaves the CPU idle part of the time and induction's CPU can overlap it.
``-s NAME=VALUE`` changes a setting of both crawls (JSON values).

    python benchmarks/bench_hold.py --follow [--rounds 3] [--entries all|home] [--sites a,b]
                                     [--census]

How long ``PAGESIM_DISCOVERY_HOLD`` keeps a link-following crawl's links waiting (issue 32).
Per visible site (../shared/data/site_page_types and site_page_types_2), a server (its own
process) serves the site's pages (the wiki's body class removed, as site_crawl.py does), and a
spider starts at the home page and yields the links of each page it gets to the site's other
pages, as a user's CrawlSpider does; with ``--entries all`` (default) it also starts at each
page no link from the earlier starts leads to (the data holds a sample of each site, whose links
reach part of it: from the home page alone some sites give a handful of pages). Discovery
without templates, Scrapy's default concurrency; the same crawl with nothing held (``once``)
and held (``held``), alternating, each in a fresh process. Printed per crawl and pooled: wall
time and the time of the last download; the pages that reached the spider; the links' wait (a
page's download to its callback, where its links are requested: for every page, and for the
held pages, also counted in other pages downloaded meanwhile, which the machine's load skews
less than seconds); peak held responses (and their bytes); the times the crawl ran dry (held
pages are released then, and the crawl goes on); the process's peak RSS; the ARI of the labels the
spider got against the page types, beside batch ``cluster`` (``site``) over the same pages.
``--census`` also prints, when each crawl runs dry with the most pages held, the process's
resident memory and what it holds: live responses, those still carrying a parsed tree, and
held pages' exceptions not yet collected (issue 32: what a held crawl keeps alive).
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urljoin, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import isolated_state, shared
from _server import crawl_result, page_server, serve_forever
from bench_crawl import base_pages, parse_settings, read_page, serve
from site_accuracy import link_key
from site_accuracy import load_site as load_summaries
from site_crawl import load_site, site_bodies

from pagesim_scrapy.core.cluster import adjusted_rand_index, cluster_pages


def _run_and_print(run: Any, result: dict[str, Any]) -> None:
    """Run the crawl coroutine ``run`` in the reactor, then print ``result`` as one JSON line
    (and what went wrong, on stderr, when the crawl did not finish); the reactor is the one
    the caller installed."""
    from scrapy.utils.defer import deferred_from_coro
    from twisted.internet import reactor

    def done(outcome: Any) -> None:
        if "wall" not in result:
            print(outcome, file=sys.stderr)
        print(json.dumps(result), flush=True)
        reactor.stop()  # type: ignore[attr-defined]

    deferred_from_coro(run()).addBoth(done)
    reactor.run()  # type: ignore[attr-defined]


def crawl(mode: str, port: int, count: int, extra: dict[str, Any], out_dir: str) -> None:
    """Crawl http://127.0.0.1:port/page/0..count-1 once; print wall and CPU seconds, stats."""
    import resource

    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    import scrapy
    from scrapy import signals
    from scrapy.crawler import AsyncCrawlerRunner

    from pagesim_scrapy import middlewares  # noqa: F401  (import cost outside the measurement)
    from pagesim_scrapy.pipelines import induction  # noqa: F401  (likewise)

    class BenchSpider(scrapy.Spider):
        name = "bench_hold"

        async def start(self):  # type: ignore[override]
            for i in range(count):
                yield scrapy.Request(f"http://127.0.0.1:{port}/page/{i}", callback=self.parse)

        def parse(self, response):  # type: ignore[override]
            return None

    settings: dict[str, Any] = {
        **isolated_state(),
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "ADDONS": {"pagesim_scrapy.Addon": 0},
        "PAGESIM_DISCOVERY_ENABLED": True,
        "PAGESIM_DISCOVERY_FILE": str(Path(out_dir) / f"discovery-{mode}.json"),
        "PAGESIM_PAGE_ITEMS": True,
        "PAGESIM_INDUCTION_ENABLED": mode == "induction",
        "PAGESIM_INDUCTION_DIR": str(Path(out_dir) / f"wrappers-{mode}"),
    }
    settings.update(extra)
    result: dict[str, Any] = {"items": 0}
    started = time.perf_counter()

    def scraped(item: Any) -> None:
        result["items"] += 1

    def received(response: Any, request: Any, spider: Any) -> None:
        result["fetch"] = time.perf_counter() - started

    async def run() -> None:
        runner = AsyncCrawlerRunner(settings)
        crawler = runner.create_crawler(BenchSpider)
        crawler.signals.connect(scraped, signal=signals.item_scraped)
        crawler.signals.connect(received, signal=signals.response_received)
        nonlocal started
        started = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_SELF)
        await crawler.crawl_async()
        result["wall"] = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_SELF)
        result["cpu"] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        stats = crawler.stats.get_stats()
        result["responses"] = stats.get("response_received_count", 0)
        result["stats"] = {
            k: v
            for k, v in stats.items()
            if k.startswith("pagesim/induction/") and "/learned/" not in k and "/extracted" not in k
        }
        result["page_items"] = stats.get("pagesim/induction/items", 0)
        result["types"] = stats.get("pagesim/discovery/clusters")

    _run_and_print(run, result)


def run_crawl(mode: str, port: int, count: int, extra: list[str], out_dir: str) -> dict[str, Any]:
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            *("--crawl", mode, "--port", str(port), "--pages", str(count), "--out", out_dir),
            *(f"--set={item}" for item in extra),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    return crawl_result(out, mode, count)


# --- --follow: a link-following crawl of the visible sites, discovery held or not -------------

#: the visible sites' data sets (their pages and page types; the link crawl starts at the home)
FOLLOW_SETS = ("site_page_types", "site_page_types_2")


def follow_plan(folder: Path, pages: list[Any], entries: str) -> dict[str, Any]:
    """What the server and a crawl of one site need: its pages, each page's address on the
    real site and page type, and the start pages: the home page (the first page by path on a
    site without one, as site_crawl.py's link crawls), and with ``entries == "all"`` then
    each page no link from the earlier starts leads to (a sitemap's pages: the data holds a
    sample of each site, whose links reach part of it)."""
    home = next((page for page in pages if page.label == "home"), pages[0])
    starts = [home.path]
    if entries == "all":
        links = {page.path: page.links for page in pages}
        reached = _reached(links, home.path, set())
        for page in pages:
            if page.path not in reached:
                starts.append(page.path)
                reached = _reached(links, page.path, reached)
    return {
        "site": str(folder),
        "truth": {page.path: page.label for page in pages},
        "origins": {page.path: page.url for page in pages if page.url},
        "starts": starts,
    }


def _reached(links: dict[str, list[str]], start: str, reached: set[str]) -> set[str]:
    """``reached`` and the pages links lead to from ``start``."""
    found, todo = reached | {start}, [start]
    while todo:
        for target in links[todo.pop()]:
            if target not in found:
                found.add(target)
                todo.append(target)
    return found


def serve_site(plan: dict[str, Any], latency: float) -> None:
    """Serve one site's pages (the wiki's body class removed) until killed."""
    folder = Path(plan["site"])
    bodies = site_bodies(folder, load_site(folder))

    def body_of(path: str) -> bytes:
        found = bodies.get(unquote(urlsplit(path).path).lstrip("/"))
        if found is None:
            raise ValueError(path)
        return found

    serve_forever(body_of, latency)


@dataclass
class FollowWatch:
    """Times and holds seen by a link-following crawl (seconds from its start)."""

    started: float = field(default_factory=time.perf_counter)
    downloaded: dict[str, float] = field(default_factory=dict)
    reached: dict[str, float] = field(default_factory=dict)
    labels: dict[str, str | None] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    waiting: set[str] = field(default_factory=set)
    waiting_bytes: int = 0
    peak_held: int = 0
    peak_held_bytes: int = 0
    held_paths: set[str] = field(default_factory=set)
    idle_at: list[float] = field(default_factory=list)

    def now(self) -> float:
        return time.perf_counter() - self.started

    def download(self, path: str, size: int) -> None:
        self.downloaded.setdefault(path, self.now())
        self.sizes.setdefault(path, size)

    def hold(self, path: str) -> None:
        if path in self.waiting:
            return
        self.held_paths.add(path)
        self.waiting.add(path)
        self.waiting_bytes += self.sizes.get(path, 0)
        self.peak_held = max(self.peak_held, len(self.waiting))
        self.peak_held_bytes = max(self.peak_held_bytes, self.waiting_bytes)

    def reach(self, path: str, label: str | None) -> None:
        self.reached.setdefault(path, self.now())
        self.labels.setdefault(path, label)
        if path in self.waiting:
            self.waiting.discard(path)
            self.waiting_bytes -= self.sizes.get(path, 0)

    def result(self) -> dict[str, Any]:
        waits = {
            path: self.reached[path] - self.downloaded[path]
            for path in self.reached
            if path in self.downloaded
        }
        downloads = sorted(self.downloaded.values())
        behind = {
            path: bisect.bisect_right(downloads, self.reached[path])
            - bisect.bisect_right(downloads, self.downloaded[path])
            for path in waits
        }
        return {
            "labels": self.labels,
            "waits": waits,
            "behind": behind,
            "last_download": max(self.downloaded.values(), default=0.0),
            "held_paths": sorted(self.held_paths),
            "peak_held": self.peak_held,
            "peak_held_bytes": self.peak_held_bytes,
            "undelivered": len(self.waiting),
            "idle_at": self.idle_at,
            "idle": len(self.idle_at),
        }


def _local_path(url: str) -> str:
    return unquote(urlsplit(url).path).lstrip("/")


def follow_spider(job: dict[str, Any], watch: FollowWatch) -> type:
    """A spider that starts at the site's home page and yields the links of each page it gets
    (to the pages of the data, on the local server), as a user's CrawlSpider does."""
    import scrapy

    from pagesim_scrapy import HeldForSecondLook

    links = {link_key(url): path for path, url in job["origins"].items()}

    class FollowSpider(scrapy.Spider):
        name = "bench_hold_follow"

        async def start(self):  # type: ignore[override]
            for path in job["starts"]:
                yield self.request(path)

        def request(self, path: str) -> Any:
            url = job["base"] + quote(path, safe="/")
            return scrapy.Request(url, callback=self.parse, errback=self.failed)

        def parse(self, response):  # type: ignore[override]
            path = _local_path(response.url)
            verdict = response.meta.get("pagesim") or {}
            watch.reach(path, verdict.get("label"))
            origin = job["origins"].get(path, response.url)
            for href in response.css("a::attr(href)").getall():
                local = links.get(link_key(urljoin(origin, href)))
                if local is not None:
                    yield self.request(local)

        def failed(self, failure: Any) -> None:
            if failure.check(HeldForSecondLook):
                watch.hold(_local_path(failure.request.url))

    return FollowSpider


def follow_crawl(job_file: str) -> None:
    """One link-following crawl of a site (a fresh process); print its figures as JSON."""
    import resource

    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    from scrapy import signals
    from scrapy.crawler import AsyncCrawlerRunner

    from pagesim_scrapy import middlewares  # noqa: F401  (import cost outside the measurement)

    job = json.loads(Path(job_file).read_text(encoding="utf-8"))
    settings: dict[str, Any] = {
        **isolated_state(),
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "ADDONS": {"pagesim_scrapy.Addon": 0},
        "PAGESIM_DISCOVERY_ENABLED": True,
        "PAGESIM_DISCOVERY_HOLD": job["hold"],
        "PAGESIM_SITE_MODELS_SAVE": False,
        **job["settings"],
    }
    watch = FollowWatch()
    result: dict[str, Any] = {}

    def downloaded(response: Any, request: Any, spider: Any) -> None:
        watch.download(_local_path(response.url), len(response.body))

    def idle(spider: Any) -> None:
        watch.idle_at.append(watch.now())
        if job.get("census") and len(watch.waiting) >= result.get("census", {}).get("held", 0):
            result["census"] = {**live_census(), "held": len(watch.waiting)}

    async def run() -> None:
        crawler = AsyncCrawlerRunner(settings).create_crawler(follow_spider(job, watch))
        crawler.signals.connect(downloaded, signal=signals.response_downloaded)
        crawler.signals.connect(idle, signal=signals.spider_idle)
        watch.started = time.perf_counter()
        await crawler.crawl_async()
        result.update(watch.result(), wall=watch.now())
        stats = crawler.stats.get_stats()
        result["stats"] = {k: v for k, v in stats.items() if k.startswith("pagesim/discovery/")}
        result["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    _run_and_print(run, result)


def live_census() -> dict[str, float]:
    """What the crawl process holds when it runs dry with the most pages held: live
    responses and their parsed trees, held pages' exceptions not yet collected, and the
    resident memory now (``--census``)."""
    import gc

    from scrapy.http import Response, TextResponse

    from pagesim_scrapy import HeldForSecondLook

    census = {"responses": 0, "parsed": 0, "held_exceptions": 0}
    for obj in gc.get_objects():
        if isinstance(obj, Response):
            census["responses"] += 1
            census["parsed"] += isinstance(obj, TextResponse) and obj._cached_selector is not None
        elif isinstance(obj, HeldForSecondLook):
            census["held_exceptions"] += 1
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    return {**census, "rss_mb": pages * os.sysconf("SC_PAGE_SIZE") / 2**20}


def run_follow(
    plan: dict[str, Any], port: int, hold: bool, args: argparse.Namespace, tmp: Path
) -> dict:
    """One crawl in a subprocess; its figures."""
    job = {
        "base": f"http://127.0.0.1:{port}/",
        "starts": plan["starts"],
        "origins": plan["origins"],
        "hold": hold,
        "settings": parse_settings(args.set),
        "census": args.census,
    }
    job_file = tmp / f"job-{'held' if hold else 'once'}.json"
    job_file.write_text(json.dumps(job), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, __file__, "--follow-crawl", str(job_file)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if out.returncode != 0 or not out.stdout.strip():
        sys.exit(f"the follow crawl failed (exit {out.returncode}):\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    if "wall" not in result:
        sys.exit(f"the follow crawl did not finish:\n{out.stderr[-3000:]}")
    return result


def _quantile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def follow_figures(result: dict[str, Any]) -> str:
    """One crawl's line: wall, pages, the links' wait, holds, memory, ARI."""
    waits = list(result["waits"].values())
    held_waits = [result["waits"][p] for p in result["held_paths"] if p in result["waits"]]
    behind = [result["behind"][p] for p in result["held_paths"] if p in result["behind"]]
    idle = " ".join(f"{at:.1f}" for at in result["idle_at"])
    return (
        f"wall {result['wall']:6.2f} s  last download {result['last_download']:6.2f} s  "
        f"pages {len(result['labels']):4d}  links' wait median {_ms(waits, 0.5)} "
        f"p90 {_ms(waits, 0.9)} max {_ms(waits, 1.0)}  held {len(held_waits):3d} "
        f"(wait median {_ms(held_waits, 0.5)} p90 {_ms(held_waits, 0.9)}; in pages downloaded "
        f"meanwhile median {_quantile(behind, 0.5):.0f} p90 {_quantile(behind, 0.9):.0f} "
        f"max {_quantile(behind, 1.0):.0f})  peak held {result['peak_held']:3d} "
        f"({result['peak_held_bytes'] / 2**20:.1f} MB)  ran dry at {idle} s  "
        f"rss {result['maxrss_mb']:.0f} MB  ARI {result['ari']:.3f} "
        f"(batch {result['batch']:.3f}){_census_figures(result)}"
    )


def _census_figures(result: dict[str, Any]) -> str:
    census = result.get("census")
    if not census:
        return ""
    return (
        f"  dry, {census['held']:.0f} held: rss {census['rss_mb']:.0f} MB, responses "
        f"{census['responses']:.0f} (parsed {census['parsed']:.0f}), held exceptions "
        f"{census['held_exceptions']:.0f}"
    )


def _ms(values: list[float], share: float) -> str:
    return f"{_quantile(values, share) * 1000:7.0f} ms"


def batch_ari(pages: dict[str, Any], paths: list[str]) -> float:
    """Batch ``cluster`` (``site``) over the pages a crawl reached, against their types."""
    if len(paths) < 2:
        return 1.0
    found = cluster_pages([pages[p].summary for p in paths], method="site").labels()
    return adjusted_rand_index([pages[p].label for p in paths], found)


def follow_site(folder: Path, args: argparse.Namespace, tmp: Path) -> dict[str, list[dict]]:
    """The crawls of one site, once (nothing held) and held, alternating; each one's line."""
    loaded = load_summaries(folder)
    plan = follow_plan(folder, loaded, args.entries)
    pages = {page.path: page for page in loaded}
    runs: dict[str, list[dict[str, Any]]] = {"once": [], "held": []}
    latency = ("--latency", str(args.latency))
    with page_server(__file__, tmp, plan, latency) as (port, _):
        for round_number in range(1, args.rounds + 1):
            for mode in ("once", "held"):
                result = run_follow(plan, port, mode == "held", args, tmp)
                paths = sorted(result["labels"])
                result["batch"] = batch_ari(pages, paths)
                result["ari"] = adjusted_rand_index(
                    [plan["truth"][p] for p in paths], [result["labels"][p] for p in paths]
                )
                runs[mode].append(result)
                line = follow_figures(result)
                print(
                    f"  {folder.name:20s} {round_number} {mode:4s} starts "
                    f"{len(plan['starts']):3d} {line}",
                    flush=True,
                )
    return runs


def follow_summary(runs: dict[str, list[dict[str, Any]]]) -> None:
    """Pooled over sites and rounds, per mode: wall, the links' wait, holds, memory, ARI."""
    for mode in ("once", "held"):
        done = runs[mode]
        waits = [w for r in done for w in r["waits"].values()]
        held = [r["waits"][p] for r in done for p in r["held_paths"] if p in r["waits"]]
        behind = [r["behind"][p] for r in done for p in r["held_paths"] if p in r["behind"]]
        print(
            f"{mode:4s}: wall total {sum(r['wall'] for r in done):7.2f} s  pages "
            f"{sum(len(r['labels']) for r in done)}  links' wait median {_ms(waits, 0.5)} "
            f"p90 {_ms(waits, 0.9)} max {_ms(waits, 1.0)}; held pages {len(held)} (median "
            f"{_ms(held, 0.5)} p90 {_ms(held, 0.9)} max {_ms(held, 1.0)}; pages downloaded "
            f"meanwhile median {_quantile(behind, 0.5):.0f} p90 {_quantile(behind, 0.9):.0f} "
            f"max {_quantile(behind, 1.0):.0f})  peak held "
            f"{max(r['peak_held'] for r in done)} "
            f"({max(r['peak_held_bytes'] for r in done) / 2**20:.1f} MB)  rss max "
            f"{max(r['maxrss_mb'] for r in done):.0f} MB  mean ARI "
            f"{statistics.mean(r['ari'] for r in done):.3f} (batch "
            f"{statistics.mean(r['batch'] for r in done):.3f})",
            flush=True,
        )
    ratios = [h["wall"] / o["wall"] for o, h in zip(runs["once"], runs["held"])]
    print(f"wall held / once: median of the paired ratios {statistics.median(ratios):.3f}")


def follow_main(args: argparse.Namespace) -> None:
    """``--follow``: every visible site (or ``--sites``), crawled by following links."""
    folders = [
        folder
        for name in FOLLOW_SETS
        for folder in sorted(shared(name).iterdir())
        if (folder / "labels.csv").exists()
        and (not args.sites or folder.name in args.sites.split(","))
    ]
    print(
        f"link-following crawls of {len(folders)} sites, discovery without templates, "
        f"nothing held (once) and PAGESIM_DISCOVERY_HOLD (held) alternating, {args.rounds} "
        f"rounds; starts: {args.entries}; latency {args.latency:g} ms; load average "
        f"{os.getloadavg()[0]:.1f}"
        f"{''.join(', ' + s for s in args.set)}",
        flush=True,
    )
    runs: dict[str, list[dict[str, Any]]] = {"once": [], "held": []}
    for folder in folders:
        with tempfile.TemporaryDirectory() as tmp:
            for mode, done in follow_site(folder, args, Path(tmp)).items():
                runs[mode].extend(done)
    follow_summary(runs)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=300, help="pages per crawl (default 300)")
    parser.add_argument("--rounds", type=int, default=3, help="crawls per configuration")
    parser.add_argument(
        "--latency", type=float, default=0.0, help="milliseconds added to each response"
    )
    parser.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument(
        "--follow", action="store_true", help="link-following crawls, discovery held or not"
    )
    parser.add_argument("--sites", default="", help="with --follow: these sites only (a,b)")
    parser.add_argument(
        "--entries",
        choices=("home", "all"),
        default="all",
        help="with --follow: start at the home page only, or also at each page no link reaches",
    )
    parser.add_argument(
        "--census",
        action="store_true",
        help="with --follow: live responses, parsed trees and RSS when most pages are held",
    )
    parser.add_argument("--crawl", choices=("plain", "induction"), help=argparse.SUPPRESS)
    parser.add_argument("--follow-crawl", metavar="JOB", help=argparse.SUPPRESS)
    parser.add_argument("--serve", metavar="INDEX", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        plan = json.loads(Path(args.serve).read_text(encoding="utf-8"))
        if "site" in plan:
            serve_site(plan, args.latency / 1000)
        else:
            serve(args.serve, args.latency / 1000)
        return
    if args.follow_crawl:
        follow_crawl(args.follow_crawl)
        return
    if args.follow:
        follow_main(args)
        return
    if args.crawl:
        crawl(args.crawl, args.port, args.pages, parse_settings(args.set), args.out)
        return

    induction_main(args)


def induction_main(args: argparse.Namespace) -> None:
    """The induction crawls (A: discovery, B: the same with induction), alternating."""
    bases = base_pages()
    rng = random.Random(20240614)
    index = [(i % len(bases), i // len(bases)) for i in range(max(args.pages, len(bases)))]
    rng.shuffle(index)
    index = index[: args.pages]
    sizes = [len(read_page(bases[b])) for b, _ in index]
    served = {"base": [str(p) for p in bases], "index": index}
    latency = ("--latency", str(args.latency))
    with (
        tempfile.TemporaryDirectory() as tmp,
        page_server(__file__, Path(tmp), served, latency) as (port, _),
    ):
        print(
            f"{args.pages} pages drawn from {len(bases)} real pages of many sites in "
            f"../shared/data (median {statistics.median(sizes) / 1024:.0f} KB, total "
            f"{sum(sizes) / 1e6:.1f} MB), server on 127.0.0.1:{port}; load average "
            f"{os.getloadavg()[0]:.1f}; latency {args.latency:g} ms; {args.rounds} rounds "
            "of A (discovery, page items) "
            f"and B (the same + induction){''.join(', ' + s for s in args.set)}",
            flush=True,
        )
        runs: dict[str, list[dict[str, Any]]] = {"plain": [], "induction": []}
        for round_number in range(1, args.rounds + 1):
            for mode in ("plain", "induction"):
                out_dir = Path(tmp) / f"{mode}-{round_number}"
                out_dir.mkdir()
                result = run_crawl(mode, port, args.pages, args.set, str(out_dir))
                runs[mode].append(result)
                stats = result["stats"]
                released = {
                    k.rsplit("/", 1)[1]: v
                    for k, v in stats.items()
                    if k.startswith("pagesim/induction/released/")
                }
                print(
                    f"  round {round_number} {mode:9s} wall {result['wall']:6.2f} s  "
                    f"fetch {result['fetch']:6.2f} s  cpu {result['cpu']:6.2f} s  "
                    f"responses {result['responses']}  items {result['items']}  "
                    f"types {result['types']}  held {stats.get('pagesim/induction/held', 0)}"
                    f"  released {released}",
                    flush=True,
                )

    plain = statistics.median(r["wall"] for r in runs["plain"])
    induction = statistics.median(r["wall"] for r in runs["induction"])
    paired = statistics.median(
        b["wall"] / a["wall"] for a, b in zip(runs["plain"], runs["induction"])
    )
    fetch_a = statistics.median(r["fetch"] for r in runs["plain"])
    fetch_b = statistics.median(r["fetch"] for r in runs["induction"])
    print(f"A  discovery            : median wall {plain:.2f} s, last response at {fetch_a:.2f} s")
    print(
        f"B  discovery + induction: median wall {induction:.2f} s, last response at {fetch_b:.2f} s"
    )
    cpu_a = statistics.median(r["cpu"] for r in runs["plain"])
    cpu_b = statistics.median(r["cpu"] for r in runs["induction"])
    print(
        f"CPU: A {cpu_a:.2f} s, B {cpu_b:.2f} s: induction's own CPU about {cpu_b - cpu_a:.2f} s; "
        f"A's wall + that CPU = {plain + cpu_b - cpu_a:.2f} s (what B takes if only induction's "
        "CPU slows it)"
    )
    induction_ms = statistics.median(
        r["stats"].get("pagesim/induction/time_ms", 0) / max(r["page_items"], 1)
        for r in runs["induction"]
    )
    print(
        f"induction CPU (its worker thread) per page item: median {induction_ms:.1f} ms; "
        f"page items per crawl {runs['induction'][0]['page_items']}"
    )
    print(f"ratio B / A = {induction / plain:.3f}  (goal <= 1.2)")
    print(f"ratio B / (A + induction's CPU) = {induction / (plain + cpu_b - cpu_a):.3f}")
    print(f"fetching (start to last response) B / A = {fetch_b / fetch_a:.3f}")
    print(f"median of the per-round ratios = {paired:.3f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (other processes skew the times)")


if __name__ == "__main__":
    main()
