"""A long crawl of many sites with discovery and induction on: memory, lost items, wall time
(issue 14's soak).

    python benchmarks/bench_soak.py [--pages 20000] [--hosts 400] [--latency 0] [-s NAME=VALUE]

A local HTTP server (its own process) on 127.0.0.1 serves ``--pages`` pages made from the real
pages of ../shared/data (``bench_crawl.py``'s variants: each base page with its own links and
ids) under ``--hosts`` distinct host names: the crawl asks for ``http://<host>.test/page/<i>``
through the server as an HTTP proxy, so Scrapy, the site models and discovery see many sites
while nothing leaves the machine. The pages of one data folder (one real site or page type) are
spread over a few hosts; ``--latency`` milliseconds are added to every response.

Two crawls of the same pages run one after the other, each in a fresh process:

* ``plain``: Scrapy alone, no pagesim;
* ``pagesim``: the add-on with crawl-time discovery, page items and induction on (wrappers
  learned per discovered type).

Printed for the pagesim crawl: the process's RSS every 2,000 responses (and the pagesim
memory counters), page items in (``pagesim/induction/items``) and out (``item_scraped``), item
errors and drops (must be 0), and for both crawls wall time and CPU; then the wall-time ratio
pagesim / plain. ``--pages 2000`` is a one-minute smoke run.

To find what holds memory: ``--sizes`` prints at every sample the MB that each part of pagesim
and Scrapy's queues hold, the live responses and what refers to them, and what a full garbage
collection frees then; ``--trace-memory`` prints tracemalloc's largest lines, files and
tracebacks and what grew since the previous sample; ``--sample-every`` sets the step.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import isolated_state
from _server import crawl_result, page_server, serve_forever
from bench_crawl import SHARED_DATA, base_pages, parse_settings, read_page, variant

#: responses between two RSS samples (``--sample-every``)
SAMPLE_EVERY = 2000
#: hosts that one data folder's pages are spread over, at most
HOSTS_PER_FOLDER = 4


def rss_mb() -> float:
    """The process's resident set size now, in MB (Linux: /proc; elsewhere the peak)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError, IndexError):
        return peak_rss_mb()


def peak_rss_mb() -> float:
    """The process's peak resident set size so far, in MB (Linux counts it in KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def plan(count: int, hosts: int) -> tuple[list[Path], list[tuple[int, int, str]]]:
    """The base pages and, per served page, (base page, variant number, host name)."""
    bases = base_pages()
    folders = sorted({p.parent for p in bases})
    folder_of = [folders.index(p.parent) for p in bases]
    rng = random.Random(20261124)
    index = [(i % len(bases), i // len(bases)) for i in range(max(count, len(bases)))]
    rng.shuffle(index)
    pages = []
    for base, number in index[:count]:
        folder = folder_of[base]
        # a folder's pages on up to HOSTS_PER_FOLDER hosts, the hosts shared out among folders
        host = (folder * HOSTS_PER_FOLDER + number % HOSTS_PER_FOLDER) % max(hosts, 1)
        pages.append((base, number, f"site{host}.test"))
    return bases, pages


# --- the server process ------------------------------------------------------------------------


def serve(pages_file: str, latency: float) -> None:
    """Serve ``http://<host>/page/<i>`` (as a proxy: the request line holds the whole URL)
    until killed; print the port on stdout."""
    spec = json.loads(Path(pages_file).read_text())
    index: list[list[Any]] = spec["pages"]
    bodies = [read_page(Path(p)) for p in spec["base"]]

    def body_of(path: str) -> bytes:
        base, number, host = index[int(path.rsplit("/", 1)[1])]
        if f"//{host}/" not in path:
            raise ValueError(path)
        return variant(bodies[base], number)

    serve_forever(body_of, latency)


# --- the crawl process -------------------------------------------------------------------------


def deep_size(root: Any, seen: set[int]) -> int:
    """Bytes of the objects reachable from ``root`` (sys.getsizeof, C buffers outside Python's
    objects not counted) that no earlier call with the same ``seen`` counted; modules, classes
    and functions are not followed."""
    import gc
    import types

    from scrapy import Spider
    from scrapy.crawler import Crawler

    # a request's callback leads to the spider and from there to the whole crawler
    skip = (
        type,
        types.ModuleType,
        types.FunctionType,
        types.BuiltinFunctionType,
        types.CodeType,
        types.MethodType,
        Spider,
        Crawler,
    )
    total = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


def component_sizes(crawler: Any) -> dict[str, float]:
    """MB held by pagesim's parts and by Scrapy's queues (see :func:`deep_size`), each part
    counted without what an earlier part holds."""
    parts: dict[str, Any] = {}
    engine = crawler.engine
    for mw in engine.downloader.middleware.middlewares:
        if type(mw).__name__ == "PageSimDownloaderMiddleware":
            discovery = mw.discovery
            if discovery is not None:
                parts["discovery: site models"] = discovery._sites
                parts["discovery: leaders"] = discovery._leaders
                parts["discovery: leader features"] = discovery._features
                parts["discovery: types"] = discovery._info
    for pipe in engine.scraper.itemproc.middlewares:
        if type(pipe).__name__ == "TemplateInductionPipeline":
            parts["induction: wrappers"] = [state.wrapper for state in pipe.labels.values()]
            parts["induction: kept pages"] = [state.sources for state in pipe.labels.values()]
            parts["induction: held items"] = pipe.held
    scheduler = engine._slot.scheduler if engine._slot else None
    parts["scrapy: scheduler queues"] = [scheduler.mqs, scheduler.dqs, scheduler.df]
    parts["scrapy: scraper slot"] = engine.scraper.slot
    parts["scrapy: stats"] = crawler.stats._stats
    seen: set[int] = set()
    sizes = {name: round(deep_size(obj, seen) / 1e6, 1) for name, obj in parts.items()}
    sizes.update(live_responses())
    # what the cyclic garbage collector frees now: pages left in reference cycles
    import gc

    started = time.perf_counter()
    gc.collect()
    sizes["full gc seconds"] = round(time.perf_counter() - started, 2)
    sizes["responses after gc"] = live_responses()["responses"]
    sizes["rss after gc"] = round(rss_mb(), 1)
    return sizes


def live_responses() -> dict[str, Any]:
    """The responses alive now (bodies and decoded texts, MB) and, for a few of them, what
    holds them: the types on a chain of referrers."""
    import gc

    from scrapy.http import Response

    responses = [o for o in gc.get_objects() if isinstance(o, Response)]
    texts = [o._cached_ubody for o in responses if getattr(o, "_cached_ubody", None)]
    holders: dict[str, int] = {}
    sample = responses[:: max(1, len(responses) // 8)]
    mine = {id(responses), id(sample)}
    for response in sample:
        chain = []
        obj: Any = response
        for _ in range(5):
            referrers = [
                r
                for r in gc.get_referrers(obj)
                if id(r) not in mine and type(r).__name__ not in ("frame", "list_iterator")
            ]
            if not referrers:
                break
            obj = referrers[0]
            chain.append(type(obj).__qualname__)
        key = " <- ".join(chain)
        holders[key] = holders.get(key, 0) + 1
    return {
        "responses": len(responses),
        "response bodies": round(sum(len(o.body) for o in responses) / 1e6, 1),
        "response texts": round(sum(sys.getsizeof(t) for t in texts) / 1e6, 1),
        "held by": holders,
    }


def memory_report(responses: int, row: dict[str, Any], snapshots: list[Any]) -> list[str]:
    """What Python holds now (tracemalloc), by line and by file, and what grew since the
    previous sample: lines to print at the end of a ``--trace-memory`` run."""
    import tracemalloc

    ignore = [tracemalloc.Filter(False, tracemalloc.__file__)]
    snapshot = tracemalloc.take_snapshot().filter_traces(ignore)
    lines = [f"--- {responses} responses: RSS {row['rss_mb']:.0f} MB, traced {row['traced_mb']} MB"]
    lines.append("  largest lines:")
    lines += [f"    {s}" for s in snapshot.statistics("lineno")[:12]]
    lines.append("  largest files:")
    lines += [f"    {s}" for s in snapshot.statistics("filename")[:8]]
    lines.append("  largest tracebacks:")
    for stat in snapshot.statistics("traceback")[:4]:
        lines.append(f"    {stat.size / 1e6:.1f} MB in {stat.count} blocks:")
        lines += [f"      {frame}" for frame in stat.traceback.format(limit=8)]
    if snapshots:
        lines.append("  grown since the previous sample:")
        grown = snapshot.compare_to(snapshots[0], "lineno")
        lines += [f"    {s}" for s in grown[:12]]
    snapshots[:] = [snapshot]
    return lines


def crawl(
    mode: str,
    port: int,
    pages_file: str,
    extra: dict[str, Any],
    out_dir: str,
    sample_every: int = SAMPLE_EVERY,
    sizes: bool = False,
) -> None:
    """Crawl every planned page once through the proxy; print one JSON line of results."""
    import resource
    import tracemalloc

    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    import scrapy
    from scrapy import signals
    from scrapy.crawler import AsyncCrawlerRunner
    from scrapy.utils.defer import deferred_from_coro
    from twisted.internet import reactor

    from pagesim_scrapy import middlewares  # noqa: F401  (import cost outside the measurement)
    from pagesim_scrapy.items import PageItem
    from pagesim_scrapy.pipelines import induction  # noqa: F401  (likewise)

    hosts = [host for _, _, host in json.loads(Path(pages_file).read_text())["pages"]]
    proxy = f"http://127.0.0.1:{port}"

    class SoakSpider(scrapy.Spider):
        name = "bench_soak"

        async def start(self):  # type: ignore[override]
            for i, host in enumerate(hosts):
                yield scrapy.Request(
                    f"http://{host}/page/{i}", callback=self.parse, meta={"proxy": proxy}
                )

        def parse(self, response):  # type: ignore[override]
            return None

    settings: dict[str, Any] = {
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
    }
    if mode == "pagesim":
        settings.update(isolated_state())
        settings.update(
            {
                "ADDONS": {"pagesim_scrapy.Addon": 0},
                "PAGESIM_DISCOVERY_ENABLED": True,
                "PAGESIM_DISCOVERY_FILE": str(Path(out_dir) / "discovery.json"),
                "PAGESIM_PAGE_ITEMS": True,
                "PAGESIM_INDUCTION_ENABLED": True,
                "PAGESIM_INDUCTION_DIR": str(Path(out_dir) / "wrappers"),
            }
        )
    settings.update(extra)
    result: dict[str, Any] = {"items_out": 0, "errors": 0, "dropped": 0, "rss": []}
    seen = {"responses": 0}
    started = time.perf_counter()
    crawler_ref: dict[str, Any] = {}

    def scraped(item: Any) -> None:
        if isinstance(item, PageItem):
            result["items_out"] += 1

    def item_error(item: Any) -> None:
        result["errors"] += 1

    def dropped(item: Any) -> None:
        result["dropped"] += 1

    progress = Path(out_dir) / "progress.jsonl"
    snapshots: list[Any] = []  # the previous tracemalloc snapshot, when tracing
    trace_lines: list[str] = []

    def received(response: Any, request: Any, spider: Any) -> None:
        seen["responses"] += 1
        if seen["responses"] % sample_every == 0:
            stats = crawler_ref["crawler"].stats
            row = {
                "responses": seen["responses"],
                "seconds": round(time.perf_counter() - started, 1),
                "rss_mb": round(rss_mb(), 1),
                "peak_mb": round(peak_rss_mb(), 1),
                "labels": stats.get_value("pagesim/discovery/new"),  # types founded so far
                "items_in": stats.get_value("pagesim/induction/items", 0),
                "items_out": result["items_out"],
            }
            if sizes:
                row["sizes_mb"] = component_sizes(crawler_ref["crawler"])
            if tracemalloc.is_tracing():
                row["traced_mb"] = round(tracemalloc.get_traced_memory()[0] / 1e6, 1)
                trace_lines.extend(memory_report(seen["responses"], row, snapshots))
            result["rss"].append(row)
            # as they come, for a long run: print(..., file=sys.stderr) shows them live
            print(f"{mode}: {json.dumps(row)}", file=sys.stderr, flush=True)
            with progress.open("a") as f:
                f.write(json.dumps(row) + "\n")

    async def run() -> None:
        runner = AsyncCrawlerRunner(settings)
        crawler = runner.create_crawler(SoakSpider)
        crawler_ref["crawler"] = crawler
        crawler.signals.connect(scraped, signal=signals.item_scraped)
        crawler.signals.connect(item_error, signal=signals.item_error)
        crawler.signals.connect(dropped, signal=signals.item_dropped)
        crawler.signals.connect(received, signal=signals.response_received)
        nonlocal started
        started = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_SELF)
        await crawler.crawl_async()
        result["wall"] = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_SELF)
        result["cpu"] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        result["rss_end_mb"] = round(rss_mb(), 1)
        result["rss_peak_mb"] = round(peak_rss_mb(), 1)
        stats = crawler.stats.get_stats()
        result["responses"] = stats.get("response_received_count", 0)
        result["items_in"] = stats.get("pagesim/induction/items", 0)
        result["stats"] = {
            k: v
            for k, v in stats.items()
            if k.startswith(("pagesim/induction/", "pagesim/discovery/", "pagesim/time_ms"))
            and "/learned/" not in k
            and "/duplicates/" not in k
        }
        result["finish_reason"] = stats.get("finish_reason")
        if tracemalloc.is_tracing():
            snapshot = tracemalloc.take_snapshot()
            result["traced_mb"] = round(tracemalloc.get_traced_memory()[0] / 1e6, 1)
            result["top"] = [str(s) for s in snapshot.statistics("lineno")[:25]]
            result["trace"] = trace_lines

    def done(outcome: Any) -> None:
        if "wall" not in result:
            print(outcome, file=sys.stderr)
        print(json.dumps(result, default=str), flush=True)
        reactor.stop()  # type: ignore[attr-defined]

    deferred_from_coro(run()).addBoth(done)
    reactor.run()  # type: ignore[attr-defined]


def run_crawl(
    mode: str,
    port: int,
    pages_file: Path,
    count: int,
    extra: list[str],
    out_dir: Path,
    trace: bool = False,
    sample_every: int = SAMPLE_EVERY,
    sizes: bool = False,
) -> dict[str, Any]:
    # frames per traceback: PYTHONTRACEMALLOC if set (more frames, slower), else 4
    frames = os.environ.get("PYTHONTRACEMALLOC") or "4"
    env = {**os.environ, **({"PYTHONTRACEMALLOC": frames} if trace else {})}
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            *("--crawl", mode, "--port", str(port), "--plan", str(pages_file)),
            *("--out", str(out_dir), "--sample-every", str(sample_every)),
            *(["--sizes"] if sizes else []),
            *(f"--set={item}" for item in extra),
        ],
        stdout=subprocess.PIPE,  # the result; stderr (progress, errors) shows as it comes
        text=True,
        timeout=6 * 3600,
        check=False,
        env=env,
    )
    return crawl_result(out, mode, count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20_000, help="pages (default 20000)")
    parser.add_argument("--hosts", type=int, default=400, help="host names (default 400)")
    parser.add_argument(
        "--latency", type=float, default=0.0, help="milliseconds added to each response"
    )
    parser.add_argument("--only", choices=("plain", "pagesim"), help="run one of the crawls")
    parser.add_argument(
        "--trace-memory",
        action="store_true",
        help="trace Python allocations (slow): at every RSS sample, the largest lines, files and "
        "tracebacks and what grew since the previous sample, printed at the end",
    )
    parser.add_argument(
        "--sample-every",
        type=int,
        default=SAMPLE_EVERY,
        help=f"responses between two RSS samples (default {SAMPLE_EVERY})",
    )
    parser.add_argument(
        "--sizes",
        action="store_true",
        help="at every RSS sample, the MB that pagesim's parts and Scrapy's queues hold",
    )
    parser.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--crawl", choices=("plain", "pagesim"), help=argparse.SUPPRESS)
    parser.add_argument("--serve", metavar="PLAN", help=argparse.SUPPRESS)
    parser.add_argument("--plan", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.latency / 1000)
        return
    if args.crawl:
        crawl(
            args.crawl,
            args.port,
            args.plan,
            parse_settings(args.set),
            args.out,
            args.sample_every,
            args.sizes,
        )
        return

    bases, pages = plan(args.pages, args.hosts)
    sizes = [len(read_page(bases[b])) for b in sorted({b for b, _, _ in pages})]
    served = {"base": [str(p) for p in bases], "pages": pages}
    latency = ("--latency", str(args.latency))
    with (
        tempfile.TemporaryDirectory() as tmp,
        page_server(__file__, Path(tmp), served, latency) as (port, pages_file),
    ):
        print(
            f"{args.pages} pages from {len(bases)} real pages in "
            f"{SHARED_DATA.parent.name}/{SHARED_DATA.name} (median "
            f"{statistics.median(sizes) / 1024:.0f} KB) on "
            f"{len({h for _, _, h in pages})} hosts, proxy 127.0.0.1:{port}, latency "
            f"{args.latency:g} ms; load average {os.getloadavg()[0]:.1f}"
            f"{''.join(', ' + s for s in args.set)}",
            flush=True,
        )
        results: dict[str, dict[str, Any]] = {}
        for mode in ("plain", "pagesim"):
            if args.only and mode != args.only:
                continue
            out_dir = Path(tmp) / mode
            out_dir.mkdir()
            result = run_crawl(
                mode,
                port,
                pages_file,
                args.pages,
                args.set,
                out_dir,
                args.trace_memory,
                args.sample_every,
                args.sizes,
            )
            results[mode] = result
            print(
                f"{mode:8s} wall {result['wall']:7.1f} s  cpu {result['cpu']:7.1f} s  "
                f"responses {result['responses']}  RSS end {result['rss_end_mb']:.0f} MB, "
                f"peak {result['rss_peak_mb']:.0f} MB",
                flush=True,
            )
            if mode == "pagesim":
                report(result)
    if "plain" in results and "pagesim" in results:
        ratio = results["pagesim"]["wall"] / results["plain"]["wall"]
        print(f"wall-time ratio pagesim / plain = {ratio:.2f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (other processes skew the times)")


def report(result: dict[str, Any]) -> None:
    print("  responses   seconds   RSS MB   peak MB   types   items in   items out")
    for row in result["rss"]:
        print(
            f"  {row['responses']:9d} {row['seconds']:9.1f} {row['rss_mb']:8.0f} "
            f"{row.get('peak_mb', 0):9.0f} "
            f"{row['labels'] or 0:7d} {row['items_in']:10d} {row['items_out']:11d}"
        )
        if "sizes_mb" in row:
            print("            " + ", ".join(f"{k} {v}" for k, v in row["sizes_mb"].items()))
    stats = result["stats"]
    lost = result["items_in"] - result["items_out"]
    print(
        f"  page items in {result['items_in']}, out {result['items_out']} (lost {lost}), "
        f"item errors {result['errors']}, dropped {result['dropped']}; "
        f"finish reason {result['finish_reason']}"
    )
    induction_ms = stats.get("pagesim/induction/time_ms", 0)
    print(
        f"  pagesim CPU (classify) {stats.get('pagesim/time_ms', 0) / 1000:.1f} s, induction "
        f"CPU {induction_ms / 1000:.1f} s = {induction_ms / max(result['items_in'], 1):.1f} ms "
        "per page item"
    )
    if "top" in result:
        print(f"  traced Python allocations at the end: {result['traced_mb']} MB; largest sites:")
        for line in result["top"]:
            print("    " + line)
        for line in result.get("trace", []):
            print("  " + line)
    keys = sorted(k for k in stats if k.startswith("pagesim/induction/") and k.count("/") <= 3)
    print("  " + ", ".join(f"{k.removeprefix('pagesim/induction/')}={stats[k]}" for k in keys))


if __name__ == "__main__":
    main()
