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
from _server import crawl_result, page_server
from bench_crawl import base_pages, parse_settings, read_page, serve


def crawl(mode: str, port: int, count: int, extra: dict[str, Any], out_dir: str) -> None:
    """Crawl http://127.0.0.1:port/page/0..count-1 once; print wall and CPU seconds, stats."""
    import resource

    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    import scrapy
    from scrapy import signals
    from scrapy.crawler import AsyncCrawlerRunner
    from scrapy.utils.defer import deferred_from_coro
    from twisted.internet import reactor

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

    def done(outcome: Any) -> None:
        if "wall" not in result:
            print(outcome, file=sys.stderr)
        print(json.dumps(result), flush=True)
        reactor.stop()  # type: ignore[attr-defined]

    deferred_from_coro(run()).addBoth(done)
    reactor.run()  # type: ignore[attr-defined]


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=300, help="pages per crawl (default 300)")
    parser.add_argument("--rounds", type=int, default=3, help="crawls per configuration")
    parser.add_argument(
        "--latency", type=float, default=0.0, help="milliseconds added to each response"
    )
    parser.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--crawl", choices=("plain", "induction"), help=argparse.SUPPRESS)
    parser.add_argument("--serve", metavar="INDEX", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.latency / 1000)
        return
    if args.crawl:
        crawl(args.crawl, args.port, args.pages, parse_settings(args.set), args.out)
        return

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
