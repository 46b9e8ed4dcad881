"""Crawl-time cost of pagesim: CPU time of the same crawl with and without it.

    python benchmarks/bench_crawl.py [--pages 2000] [--rounds 3]

A local HTTP server (its own process, so its CPU time is not counted) serves ``--pages`` pages
made from the real pages in ../shared/data: each base page in several variants whose links,
image sources and element ids differ (so no two served pages are byte-identical, as on a real
site). The same crawl then runs ``--rounds`` times in each of two configurations, alternating
A, B, A, B..., each crawl in a fresh process that measures its own CPU time
(``resource.getrusage``, user + system) from the start of the crawl to its end:

* A: no pagesim; the callback parses the page (``response.css("title::text")``);
* B: pagesim with 10 templates (2 pages of each of the 5 Stack Overflow page types), the default
  method and settings, tag mode; the same callback. ``-s NAME=VALUE`` changes a setting of B.

It prints the median CPU time of each configuration, per page, and the ratio B / A
(goal <= 1.25, stretch 1.10); the median of the per-round ratios (each B against the A run just
before it); and pagesim's own CPU time per page from its ``pagesim/time_ms`` stat (summary and
classification, not the parse the callback shares), which is the least noisy figure on a busy
machine. Each crawl also prints its peak RSS and its garbage collections (count and CPU time per
generation), and B's verdict counts are printed at the end, to check that a change kept them.
``-s PAGESIM_ACTION=drop`` makes B drop the pages it does not label (most of them): a dropped
page reaches the request's errback and counts as a page of the crawl.

    python benchmarks/bench_crawl.py --profile [--pages 2000] [-s NAME=VALUE ...]

runs crawl B once under cProfile and prints pagesim's per-page split from the profile (gate,
walk, features, decision, site re-estimates, drift watch, meta/stats/holding) next to its
``pagesim/time_ms`` stat: the stat covers all of the middleware's per-page work less the parse
the callback reuses, so it should match the profile's ``_classify`` less ``parsed_root``
(both include the profiler's own overhead).

``-s BENCH_SITES=64`` spreads any crawl's pages over 64 sites (hosts ``site<k>.test``, which the
one local server serves as their proxy): the per-site work of a crawl over many young sites.

    python benchmarks/bench_crawl.py --split [--pages 2000] [-s NAME=VALUE ...]

runs crawl B once with the functions behind each part of the per-page work (SPLIT_PARTS)
wrapped in thread-CPU timers, no profiler: the split as the crawl runs it, beside the
``pagesim/time_ms`` stat of the same run.

    python benchmarks/bench_crawl.py --features [--pages 2000] [--rounds 3]

times the feature path of crawl B in process, without the crawl: the served pages' features
(``structural_features``) and their counting into one site model (``SiteModel.add_once``).

    python benchmarks/bench_crawl.py --verdicts OUT.json [--pages 2000] [-s NAME=VALUE ...]

runs crawl B once and writes every response's ``meta["pagesim"]`` (by URL) and the crawl's
``pagesim/`` stats (less ``pagesim/time_ms``) to OUT.json, and prints a digest of each: to check
that a change to the per-page work kept the verdicts, meta and stats (``-s
CONCURRENT_REQUESTS=1`` and ``PYTHONHASHSEED`` fixed make the page order, hence the verdicts of
an order-dependent site model, repeatable).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _data import isolated_state
from _server import crawl_result, page_server, serve_forever

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
SO = SHARED_DATA / "stackoverflow_page_types"
PAGE_SUFFIXES = (".html", ".htm", ".html.gz", ".testhtml")
SO_TYPES = ("jobs", "newest_questions", "question", "tags", "users")


def base_pages() -> list[Path]:
    if not SHARED_DATA.is_dir():
        sys.exit(f"{SHARED_DATA} not found: the benchmark serves the pages in ../shared/data")
    return sorted(
        p for p in SHARED_DATA.rglob("*") if p.is_file() and p.name.lower().endswith(PAGE_SUFFIXES)
    )


def read_page(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.lower().endswith(".gz") else data


def templates() -> dict[str, list[str]]:
    return {kind: [str(SO / kind / "01.html"), str(SO / kind / "02.html")] for kind in SO_TYPES}


# --- the server process ------------------------------------------------------------------------

_LINK = re.compile(rb'((?:href|src)\s*=\s*["\'])')
_ID = re.compile(rb'(\sid\s*=\s*["\'])')


def variant(body: bytes, number: int) -> bytes:
    """The page with its links, image sources and element ids made unique to this variant.

    Pages of a real site differ in their URLs and in numbered ids (``post-123``); so must
    the served variants of one base page, or caches keyed on them would hit unrealistically.
    """
    mark = str(number).encode()
    body = _LINK.sub(rb"\1/v" + mark + b"/", body)
    return _ID.sub(rb"\1v" + mark + b"-", body)


def serve(pages_file: str, latency: float = 0.0) -> None:
    """Serve /page/<i> (i < len(index)) until killed, each response ``latency`` seconds late;
    print the port on stdout."""
    index: list[tuple[int, int]] = json.loads(Path(pages_file).read_text())["index"]
    paths = [Path(p) for p in json.loads(Path(pages_file).read_text())["base"]]
    bodies = [read_page(p) for p in paths]

    def body_of(path: str) -> bytes:
        base, number = index[int(path.rsplit("/", 1)[1])]
        return variant(bodies[base], number)

    serve_forever(body_of, latency)


# --- the crawl process -------------------------------------------------------------------------


#: the profile's functions behind each part of pagesim's per-page work: (file suffix, name)
PROFILE_PARTS: dict[str, tuple[str, str]] = {
    "process_response (after readiness)": ("middlewares/downloader.py", "_classify"),
    "  parse (the callback's, not ours)": ("middlewares/workarounds.py", "parsed_root"),
    "  walk (summarize_tree)": ("core/summary.py", "summarize_tree"),
    "  decision (PageDecider.decide)": ("core/decide.py", "decide"),
    "    features (structural_features)": ("core/site.py", "structural_features"),
    "    site model update (SiteModel.add)": ("core/site.py", "add"),
    "    scoring, every call (_scores_of)": ("core/siteaware.py", "_scores_of"),
    "    site re-estimates (_refresh)": ("core/siteaware.py", "_refresh"),
    "      kept pages scored (KeptScores.scores)": ("core/keptscores.py", "scores"),
    "      cuts placed (label_cut)": ("core/cutrules.py", "label_cut"),
    "        split spreads (separation_sorted)": ("core/cutrules.py", "separation_sorted"),
    "  drift watch (observe)": ("middlewares/drift.py", "observe"),
    "    tag skeleton (skeleton_features)": ("core/drift/looks.py", "skeleton_features"),
    "    looks kept and checked (DriftMonitor.observe)": ("core/drift/monitor.py", "observe"),
    "  meta, flag, stats (_publish)": ("middlewares/downloader.py", "_publish"),
    "  holding, drop, explore (_act)": ("middlewares/downloader.py", "_act"),
}


#: the functions timed by ``--split`` (no profiler): part -> (module, attribute); a part's time
#: includes its callees, indented parts are inside the part above them
SPLIT_PARTS: dict[str, tuple[str, str]] = {
    "walk (summarize_tree)": ("pagesim_scrapy.middlewares.downloader", "summarize_tree"),
    "decision (PageDecider.decide)": ("pagesim_scrapy.core.decide", "PageDecider.decide"),
    "  features (structural_features)": ("pagesim_scrapy.core.siteaware", "structural_features"),
    "  site model update (_add)": ("pagesim_scrapy.core.siteaware", "SiteAwareClassifier._add"),
    "  scoring, every call (_scores_of)": (
        "pagesim_scrapy.core.siteaware",
        "SiteAwareClassifier._scores_of",
    ),
    "  re-estimates (_maybe_refresh)": (
        "pagesim_scrapy.core.siteaware",
        "SiteAwareClassifier._maybe_refresh",
    ),
    "  site verdict (SiteAwareClassifier.decide)": (
        "pagesim_scrapy.core.siteaware",
        "SiteAwareClassifier.decide",
    ),
    "  neighbour fill (fill_from_kept)": (
        "pagesim_scrapy.core.siteaware",
        "SiteAwareClassifier.fill_from_kept",
    ),
    "drift watch (DriftWatch.observe)": ("pagesim_scrapy.middlewares.drift", "DriftWatch.observe"),
    "meta, flag, stats (_publish)": (
        "pagesim_scrapy.middlewares.downloader",
        "PageSimDownloaderMiddleware._publish",
    ),
    "holding, drop, explore (_act)": (
        "pagesim_scrapy.middlewares.downloader",
        "PageSimDownloaderMiddleware._act",
    ),
}


class SplitTimers:
    """Thread CPU time spent in each of SPLIT_PARTS during a crawl, without a profiler: each
    function is wrapped in place (a call inside an outer call of the same part, such as a
    re-scoring inside a re-estimate, is counted once, by the outer call)."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(SPLIT_PARTS, 0.0)
        self.calls = dict.fromkeys(SPLIT_PARTS, 0)

    def install(self) -> None:
        import importlib

        for part, (module_name, attribute) in SPLIT_PARTS.items():
            owner: Any = importlib.import_module(module_name)
            *path, name = attribute.split(".")
            for step in path:
                owner = getattr(owner, step)
            setattr(owner, name, self._timed(part, getattr(owner, name)))

    def _timed(self, part: str, function: Any) -> Any:
        import functools

        depth = [0]

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if depth[0]:
                return function(*args, **kwargs)
            depth[0] += 1
            began = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[part] += time.thread_time() - began
                self.calls[part] += 1
                depth[0] -= 1

        return timed


def profile_split(stats: Any, pages: int) -> dict[str, tuple[float, int]]:
    """{part: (ms per page, calls)} from a ``pstats.Stats``: cumulative time of each part."""
    found: dict[str, tuple[float, int]] = {}
    for (filename, _, name), (_, calls, _, cumulative, _) in stats.stats.items():
        for part, (suffix, function) in PROFILE_PARTS.items():
            if name == function and filename.endswith(suffix):
                ms, n = found.get(part, (0.0, 0))
                found[part] = (ms + cumulative * 1000.0 / pages, n + calls)
    return found


def kept_page_scorings() -> dict[str, int]:
    """How often the site re-estimates scored a kept page: first scorings, re-scorings and the
    most re-scorings of one page are bounded by the cache (``core/keptscores.py``)."""
    if "pagesim_scrapy.core.keptscores" not in sys.modules:
        return {}
    from pagesim_scrapy.core.keptscores import _BY_MODEL

    caches = list(_BY_MODEL.values())
    return {
        "first scorings": sum(cache.scored for cache in caches),
        "re-scorings": sum(cache.rescored for cache in caches),
        "most re-scorings of a page": max((cache.most_rescored for cache in caches), default=0),
    }


def verdict_counts(stats: dict[str, Any]) -> dict[str, int]:
    """The crawl's verdicts (pages per label, unmatched, dropped), to check that a change kept
    them."""
    keys = ("pagesim/unmatched", "pagesim/dropped", "pagesim/response_count")
    return {
        name.removeprefix("pagesim/"): value
        for name, value in sorted(stats.items())
        if name in keys or name.startswith("pagesim/label_count/")
    }


class GcWatch:
    """The garbage collections of a crawl: how many of each generation, and their CPU time
    (``gc.callbacks``), so that crawls with and without pagesim can be compared."""

    def __init__(self) -> None:
        self.counts = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._began = 0.0

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.thread_time()
            return
        generation = info["generation"]
        self.counts[generation] += 1
        self.seconds[generation] += time.thread_time() - self._began

    def start(self) -> None:
        import gc

        gc.callbacks.append(self._callback)

    def stop(self) -> None:
        import gc

        gc.callbacks.remove(self._callback)

    def as_dict(self) -> dict[str, Any]:
        return {"counts": self.counts, "ms": [round(s * 1000.0, 1) for s in self.seconds]}


def crawl(mode: str, port: int, count: int, extra: dict[str, Any]) -> None:
    """Crawl http://127.0.0.1:port/page/0..count-1 once; print CPU seconds and stats as JSON."""
    import resource

    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    import scrapy
    from scrapy.crawler import AsyncCrawlerRunner
    from scrapy.utils.defer import deferred_from_coro
    from twisted.internet import reactor

    # the pages that reached the callback: a page the second look requests again
    # (PAGESIM_SECOND_LOOK) or a held one (PAGESIM_HOLD_UNSETTLED) is one page
    pages_seen: set[str] = set()

    class BenchSpider(scrapy.Spider):
        name = "bench"

        async def start(self):  # type: ignore[override]
            for i in range(count):
                if sites:
                    # another host per site, all served by the one server acting as their proxy
                    url, meta = f"http://site{i % sites}.test/page/{i}", {"proxy": server}
                else:
                    url, meta = f"{server}/page/{i}", {}
                yield scrapy.Request(url, callback=self.parse, errback=self.dropped, meta=meta)

        def dropped(self, failure):  # type: ignore[no-untyped-def]
            # a page that pagesim dropped (-s PAGESIM_ACTION=drop) is a page of the crawl too
            if failure.check(scrapy.exceptions.IgnoreRequest):
                pages_seen.add(failure.request.url)
            else:
                failure.raiseException()

        def parse(self, response):  # type: ignore[override]
            if verdicts is not None:
                # by path: the server's port differs from run to run
                verdicts[response.url.split("/", 3)[3]] = response.meta.get("pagesim")
            if plain_weak:
                from pagesim_scrapy.middlewares.workarounds import parsed_root

                parsed_root(response)
            response.css("title::text").get()
            pages_seen.add(response.url)
            return None

    settings: dict[str, Any] = {
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
    }
    profile_out = extra.pop("BENCH_PROFILE", None)
    # --split: the per-page parts timed in place, no profiler
    timers = SplitTimers() if extra.pop("BENCH_SPLIT", False) else None
    if timers is not None:
        timers.install()
    # -s BENCH_SITES=N: the pages spread over N sites (hosts) instead of one
    sites = int(extra.pop("BENCH_SITES", 0))
    server = f"http://127.0.0.1:{port}"
    # --verdicts: each response's meta verdict and the crawl's pagesim stats, written there
    verdicts_out = extra.pop("BENCH_VERDICTS", None)
    verdicts: dict[str, Any] | None = {} if verdicts_out else None
    # crawl A freeing each page as crawl B does (pagesim makes the selector's link back to the
    # response weak: see middlewares/workarounds.py), to tell that cost from pagesim's
    plain_weak = mode == "plain" and bool(extra.pop("BENCH_PLAIN_WEAK", False))
    if mode == "pagesim":
        import pagesim_scrapy.middlewares  # noqa: F401  (import cost outside the measurement)

        settings["ADDONS"] = {"pagesim_scrapy.Addon": 0}
        settings["PAGESIM_TEMPLATES"] = templates()
        settings["PAGESIM_ACTION"] = "tag"
        # every round meets the pages for the first time (a crawl saves its site models for
        # the next one)
        settings["PAGESIM_SITE_MODELS_SAVE"] = False
        settings.update(isolated_state())
        settings.update(extra)
        if str(extra.get("PAGESIM_STATE_URL", "")).startswith("redis"):
            import redis  # noqa: F401  (a fleet worker's client: imported outside too)
    result: dict[str, Any] = {}
    collections = GcWatch()

    async def run() -> None:
        import cProfile

        runner = AsyncCrawlerRunner(settings)
        crawler = runner.create_crawler(BenchSpider)
        # CPU time of this thread, as the stat: wall time would count the waits of a busy machine
        profiler = cProfile.Profile(time.thread_time) if profile_out else None
        before = resource.getrusage(resource.RUSAGE_SELF)
        started = time.perf_counter()
        collections.start()
        if profiler is not None:
            profiler.enable()
        await crawler.crawl_async()
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile_out)
        collections.stop()
        after = resource.getrusage(resource.RUSAGE_SELF)
        result["wall"] = time.perf_counter() - started
        result["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        stats = crawler.stats.get_stats()
        result["responses"] = len(pages_seen)
        result["requested_again"] = stats.get("pagesim/second_look/requested", 0)
        result["pagesim_ms"] = stats.get("pagesim/time_ms")
        result["classified"] = stats.get("pagesim/response_count")
        result["state"] = {k: v for k, v in stats.items() if k.startswith("pagesim/state/")}
        result["rescores"] = kept_page_scorings()
        result["gc"] = collections.as_dict()
        result["peak_rss_mb"] = round(after.ru_maxrss / 1024.0, 1)
        result["verdicts"] = verdict_counts(stats)
        if timers is not None:
            result["split"] = {"seconds": timers.seconds, "calls": timers.calls}
        if verdicts_out:
            write_verdicts(verdicts_out, verdicts or {}, stats)

    def done(outcome: Any) -> None:
        if not result:
            print(outcome, file=sys.stderr)
        print(json.dumps(result), flush=True)
        reactor.stop()  # type: ignore[attr-defined]

    deferred_from_coro(run()).addBoth(done)
    reactor.run()  # type: ignore[attr-defined]


def write_verdicts(path: str, verdicts: dict[str, Any], stats: dict[str, Any]) -> None:
    """Every response's meta verdict and the crawl's ``pagesim/`` stats (less the time) as
    JSON."""
    kept = {k: v for k, v in stats.items() if k.startswith("pagesim/") and k != "pagesim/time_ms"}
    data = {"verdicts": dict(sorted(verdicts.items())), "stats": dict(sorted(kept.items()))}
    Path(path).write_text(json.dumps(data, indent=1, default=repr))


# --- the driver --------------------------------------------------------------------------------


def run_crawl(mode: str, port: int, count: int, extra: list[str]) -> dict[str, Any]:
    options = [f"--set={item}" for item in extra]
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            *("--crawl", mode, "--port", str(port), "--pages", str(count)),
            *options,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return crawl_result(out, mode, count)


def parse_settings(items: list[str]) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            settings[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            settings[name.strip()] = value
    return settings


def served_pages(pages: int) -> tuple[dict[str, Any], list[int]]:
    """The served set (base pages and a shuffled variant index) and a sample of page sizes."""
    bases = base_pages()
    rng = random.Random(20240601)
    index = [(i % len(bases), i // len(bases)) for i in range(pages)]
    rng.shuffle(index)
    sizes = [len(read_page(bases[b])) for b, _ in index[:300]]
    return {"base": [str(p) for p in bases], "index": index}, sizes


def profile(pages: int, extra: list[str], keep: str | None = None) -> None:
    """Crawl B once under cProfile; print the split per page and the ``pagesim/time_ms`` stat
    (``keep``: also save the raw profile there, for ``pstats`` or snakeviz)."""
    import pstats
    import shutil

    served, _ = served_pages(pages)
    with (
        tempfile.TemporaryDirectory() as tmp,
        page_server(__file__, Path(tmp), served) as (port, _),
    ):
        out = Path(tmp) / "crawl.prof"
        load = os.getloadavg()[0]
        result = run_crawl("pagesim", port, pages, [*extra, f"BENCH_PROFILE={out}"])
        stats = pstats.Stats(str(out))
        if keep:
            shutil.copyfile(out, keep)
    split = profile_split(stats, pages)
    print(f"{pages} pages, crawl B under cProfile; load average {load:.1f} (measured under load)")
    for part in PROFILE_PARTS:
        ms, calls = split.get(part, (0.0, 0))
        print(f"  {part:40s} {ms:7.3f} ms/page  ({calls} calls)")
    process, _ = split.get(next(iter(PROFILE_PARTS)), (0.0, 0))
    parse, _ = split.get("  parse (the callback's, not ours)", (0.0, 0))
    print(f"  profile: process_response less the parse  {process - parse:7.3f} ms/page")
    print(
        f"  stat pagesim/time_ms (same run)           {result['pagesim_ms'] / pages:7.3f} ms/page"
    )
    for name, value in sorted(result.get("rescores", {}).items()):
        print(f"  kept pages {name:31s} {value:7d}")
    ours = f"{os.sep}pagesim_scrapy{os.sep}"
    own = [(ms, n, where) for where, (ms, n) in own_times(stats, pages).items()]
    print("  pagesim's functions by own time (what to make cheaper next):")
    files = {f"{Path(f).name}:{line}({name})": f for f, line, name in stats.stats}
    mine = [row for row in own if ours in files.get(row[2], "") or "core._walk" in row[2]]
    for ms, calls, where in sorted(mine, reverse=True)[:25]:
        print(f"    {where:60s} {ms:7.3f} ms/page  ({calls} calls)")


def split(pages: int, extra: list[str]) -> None:
    """Crawl B once with SPLIT_PARTS timed in place (thread CPU time, no profiler); print each
    part per page beside the ``pagesim/time_ms`` stat of the same run."""
    served, _ = served_pages(pages)
    with (
        tempfile.TemporaryDirectory() as tmp,
        page_server(__file__, Path(tmp), served) as (port, _),
    ):
        load = os.getloadavg()[0]
        result = run_crawl("pagesim", port, pages, [*extra, "BENCH_SPLIT=1"])
    load_after = os.getloadavg()[0]
    print(f"{pages} pages, crawl B timed in place; load average {load:.1f} -> {load_after:.1f}")
    seconds, calls = result["split"]["seconds"], result["split"]["calls"]
    for part in SPLIT_PARTS:
        print(f"  {part:45s} {seconds[part] * 1000.0 / pages:7.3f} ms/page  ({calls[part]} calls)")
    outer = sum(seconds[part] for part in SPLIT_PARTS if not part.startswith(" "))
    own = result["pagesim_ms"] / pages
    rest = own - outer * 1000.0 / pages
    print(f"  {'rest (gate, site key, watches, spider side)':45s} {rest:7.3f} ms/page")
    print(f"  {'stat pagesim/time_ms (same run)':45s} {own:7.3f} ms/page")
    cpu = result["cpu"] / pages * 1000.0
    print(f"  crawl B CPU {cpu:.2f} ms/page; verdicts {result['verdicts']}")


def features_in_process(pages: int, rounds: int) -> None:
    """The per-page feature path of crawl B without the crawl: the served pages' walks, then
    their features (``structural_features``) counted into one site model (``add_once``),
    timed in thread CPU time (median of ``rounds``; a fresh model each round)."""
    from lxml import html

    from pagesim_scrapy.core.site import SiteModel, structural_features
    from pagesim_scrapy.core.summary import SummaryOptions, summarize_tree

    served, _ = served_pages(pages)
    bases = [Path(p) for p in served["base"]]
    options = SummaryOptions(max_nodes=300)  # the crawl's default node budget
    roots = [html.fromstring(variant(read_page(bases[b]), n)) for b, n in served["index"]]
    summaries = []
    for number, root in enumerate(roots):
        summaries.append(summarize_tree(root, options, source=f"http://127.0.0.1/page/{number}"))
    times: dict[str, list[float]] = {"features": [], "count (add_once)": []}
    for _ in range(rounds):
        model = SiteModel()
        began = time.thread_time()
        features = [structural_features(summary) for summary in summaries]
        middle = time.thread_time()
        for page in features:
            model.add_once(page)
        ended = time.thread_time()
        times["features"].append((middle - began) * 1e6 / len(summaries))
        times["count (add_once)"].append((ended - middle) * 1e6 / len(summaries))
    print(f"{len(summaries)} served pages in process; load average {os.getloadavg()[0]:.1f}")
    for name, values in times.items():
        spent = ", ".join(f"{v:.1f}" for v in values)
        print(f"  {name:18s} {statistics.median(values):6.1f} us/page  ({spent})")


def verdicts_digest(pages: int, extra: list[str], out: str) -> None:
    """Crawl B once; write its verdicts and stats to ``out`` and print a digest of each."""
    import hashlib

    served, _ = served_pages(pages)
    with (
        tempfile.TemporaryDirectory() as tmp,
        page_server(__file__, Path(tmp), served) as (port, _),
    ):
        load = os.getloadavg()[0]
        result = run_crawl("pagesim", port, pages, [*extra, f"BENCH_VERDICTS={out}"])
    data = json.loads(Path(out).read_text())
    print(f"{pages} pages, crawl B once; load average {load:.1f}")
    for part in ("verdicts", "stats"):
        text = json.dumps(data[part], sort_keys=True)
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        print(f"  {part}: {len(data[part])} entries, digest {digest}")
    print(f"  verdict counts: {result['verdicts']}")


def own_times(stats: Any, pages: int) -> dict[str, tuple[float, int]]:
    """{function: (own, not cumulative, ms per page; calls)} of a ``pstats.Stats``."""
    out: dict[str, tuple[float, int]] = {}
    for (filename, line, name), (_, calls, own, _, _) in stats.stats.items():
        where = f"{Path(filename).name}:{line}({name})"
        ms, n = out.get(where, (0.0, 0))
        out[where] = (ms + own * 1000.0 / pages, n + calls)
    return out


def pagesim_entries(stats: Any, pages: int) -> dict[str, tuple[float, int]]:
    """{pagesim function called from outside pagesim: (its cumulative ms per page from those
    calls, calls)}: every way the crawl enters pagesim (middlewares, signals, pipelines)."""
    ours = f"{os.sep}pagesim_scrapy{os.sep}"
    out: dict[str, tuple[float, int]] = {}
    for (filename, line, name), (*_, callers) in stats.stats.items():
        if ours not in filename:
            continue
        for (caller_file, _, _), (_, calls, _, cumulative) in callers.items():
            if ours in caller_file:
                continue
            where = f"{filename.split(ours)[1]}:{line}({name})"
            ms, n = out.get(where, (0.0, 0))
            out[where] = (ms + cumulative * 1000.0 / pages, n + calls)
    return out


def profile_diff(pages: int, extra: list[str], top: int = 40) -> None:
    """Crawl A and B once each under cProfile (same pages, same process layout); print the
    functions whose own time differs most between them, per page, and each crawl's garbage
    collections: what crawl B costs outside pagesim's counter."""
    import pstats

    served, _ = served_pages(pages)
    profiles: dict[str, dict[str, tuple[float, int]]] = {}
    results: dict[str, dict[str, Any]] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        page_server(__file__, Path(tmp), served) as (port, _),
    ):
        load = os.getloadavg()[0]
        for mode in ("plain", "pagesim"):
            out = Path(tmp) / f"{mode}.prof"
            results[mode] = run_crawl(mode, port, pages, [*extra, f"BENCH_PROFILE={out}"])
            stats = pstats.Stats(str(out))
            profiles[mode] = own_times(stats, pages)
    entries = pagesim_entries(stats, pages)
    plain, with_pagesim = profiles["plain"], profiles["pagesim"]
    total = {mode: sum(ms for ms, _ in times.values()) for mode, times in profiles.items()}
    print(f"{pages} pages, crawls A and B under cProfile; load average {load:.1f}")
    print(f"  profiled total: A {total['plain']:.3f}, B {total['pagesim']:.3f} ms/page")
    for mode, result in results.items():
        gc_info = result.get("gc", {})
        print(
            f"  {mode:8s} cpu {result['cpu']:.2f} s; gc collections {gc_info.get('counts')}, "
            f"ms {gc_info.get('ms')}"
        )
    print(f"  pagesim/time_ms (B): {results['pagesim']['pagesim_ms'] / pages:.3f} ms/page")
    print("  where crawl B enters pagesim (cumulative ms/page; calls):")
    for name, (ms, calls) in sorted(entries.items(), key=lambda e: -e[1][0])[:15]:
        print(f"    {ms:8.4f}  ({calls})  {name}")
    names = set(plain) | set(with_pagesim)
    none = (0.0, 0)

    def change(name: str) -> float:
        return abs(with_pagesim.get(name, none)[0] - plain.get(name, none)[0])

    print(f"  functions whose own time differs most (B - A, ms/page; calls A/B), top {top}:")
    for name in sorted(names, key=change, reverse=True)[:top]:
        (a, calls_a), (b, calls_b) = plain.get(name, none), with_pagesim.get(name, none)
        print(f"    {b - a:+8.4f}  (A {a:7.4f}, B {b:7.4f}; {calls_a}/{calls_b})  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000, help="pages per crawl (default 2000)")
    parser.add_argument("--rounds", type=int, default=3, help="crawls per configuration")
    parser.add_argument(
        "-s",
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an extra PAGESIM_* setting for crawl B, e.g. PAGESIM_MAX_NODES=none (JSON value)",
    )
    parser.add_argument(
        "--profile", action="store_true", help="profile crawl B once and print pagesim's split"
    )
    parser.add_argument(
        "--keep-profile", metavar="PATH", help="with --profile: save crawl B's raw profile here"
    )
    parser.add_argument(
        "--profile-diff",
        action="store_true",
        help="profile crawls A and B once each and print where B spends more",
    )
    parser.add_argument(
        "--verdicts",
        metavar="OUT",
        help="crawl B once; write each response's meta verdict and the stats to OUT",
    )
    parser.add_argument(
        "--features",
        action="store_true",
        help="time the served pages' features and site counts in process (no crawl)",
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="crawl B once with its per-page parts timed in place (no profiler)",
    )
    parser.add_argument("--crawl", choices=("plain", "pagesim"), help=argparse.SUPPRESS)
    parser.add_argument("--serve", metavar="INDEX", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    if args.crawl:
        crawl(args.crawl, args.port, args.pages, parse_settings(args.set))
        return
    if args.verdicts:
        verdicts_digest(args.pages, args.set, args.verdicts)
        return
    if args.split:
        split(args.pages, args.set)
        return
    if args.features:
        features_in_process(args.pages, args.rounds)
        return
    if args.profile_diff:
        profile_diff(args.pages, args.set)
        return
    if args.profile:
        profile(args.pages, args.set, args.keep_profile)
        return

    served, sizes = served_pages(args.pages)
    bases = served["base"]
    with (
        tempfile.TemporaryDirectory() as tmp,
        page_server(__file__, Path(tmp), served) as (port, _),
    ):
        print(
            f"{args.pages} pages from {len(bases)} real pages in ../shared/data "
            f"(median size of a sample: {statistics.median(sizes) / 1024:.0f} KB), "
            f"server on 127.0.0.1:{port}; load average {os.getloadavg()[0]:.1f}; "
            f"{args.rounds} rounds of A (no pagesim) and "
            f"B (pagesim, 10 templates, default method, tag{''.join(', ' + s for s in args.set)})",
            flush=True,
        )
        runs: dict[str, list[dict[str, Any]]] = {"plain": [], "pagesim": []}
        for round_number in range(1, args.rounds + 1):
            for mode in ("plain", "pagesim"):
                result = run_crawl(mode, port, args.pages, args.set)
                runs[mode].append(result)
                print(
                    f"  round {round_number} {mode:8s} cpu {result['cpu']:6.2f} s  "
                    f"wall {result['wall']:6.2f} s  peak RSS {result['peak_rss_mb']:6.1f} MB  "
                    f"gc {result['gc']['counts']} ({result['gc']['ms']} ms)",
                    flush=True,
                )

    plain = statistics.median(r["cpu"] for r in runs["plain"])
    with_pagesim = statistics.median(r["cpu"] for r in runs["pagesim"])
    own = statistics.median(r["pagesim_ms"] for r in runs["pagesim"])
    n = args.pages
    print(f"A  no pagesim : median CPU {plain:.2f} s  ({plain / n * 1000:.2f} ms/page)")
    print(
        f"B  pagesim    : median CPU {with_pagesim:.2f} s  ({with_pagesim / n * 1000:.2f} ms/page)"
    )
    print(f"pagesim's own time (pagesim/time_ms): {own / n:.2f} ms/page")
    paired = statistics.median(b["cpu"] / a["cpu"] for a, b in zip(runs["plain"], runs["pagesim"]))
    print(f"ratio B / A = {with_pagesim / plain:.3f}  (goal <= 1.25, stretch <= 1.10)")
    print(f"median of the per-round ratios = {paired:.3f}")
    print(f"1 + pagesim's own time / A = {1 + own / 1000 / plain:.3f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (other processes skew CPU times)")
    for round_number, result in enumerate(runs["pagesim"], 1):
        print(f"B's verdicts, round {round_number}: {result['verdicts']}")


if __name__ == "__main__":
    main()
