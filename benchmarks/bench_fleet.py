"""Cost of sharing pagesim's learned state through Redis (crawl fleets), and what it takes.

    python benchmarks/bench_fleet.py [--pages 2000] [--rounds 3]

Needs ``redis-server`` (Debian package) and the ``[redis]`` extra; the pages come from
../shared/data. Two parts:

1. **CPU per page of one worker, local vs shared state.** The crawl of
   ``benchmarks/bench_crawl.py`` (its server process, pages and templates: 10 Stack Overflow
   templates, the default method, tag mode), run ``--rounds`` times in each of two
   configurations, alternating: A with pagesim's state local (as without a fleet), B with
   ``PAGESIM_STATE_URL`` pointing at a real redis-server started here (each B crawl under a
   fresh key prefix, so every round starts from an empty fleet state like A). CPU time is the
   crawl process's own (user + system, all threads, so the sync thread is counted). Prints the
   medians per page, the ratio B / A (goal <= 1.10) and the median of per-round ratios, and
   Redis round trips per page from the ``pagesim/state/round_trips`` stat.
2. **Redis memory per site.** For each real site of ../shared/data/site_page_types, every page
   classified by a worker that pushes to Redis (templates: the first two pages of the site's
   largest type); then ``MEMORY USAGE`` of the site's keys and the pages and features counted.
   These are the figures the 100-machine estimate in docs/scale.md is computed from.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import bench_crawl  # noqa: E402  (the crawl, server and pages of the crawl benchmark)
from _server import page_server  # noqa: E402

from tests.redis_server import RedisNotAvailable, running_redis  # noqa: E402

SITES = REPO.parent / "shared" / "data" / "site_page_types"


def crawl_rounds(pages: int, rounds: int, url: str) -> None:
    bases = bench_crawl.base_pages()
    rng = random.Random(20240601)
    index = [(i % len(bases), i // len(bases)) for i in range(pages)]
    rng.shuffle(index)
    served = {"base": [str(p) for p in bases], "index": index}
    with (
        tempfile.TemporaryDirectory() as tmp,
        page_server(bench_crawl.__file__, Path(tmp), served) as (port, _),
    ):
        print(
            f"{pages} pages from {len(bases)} real pages in ../shared/data on 127.0.0.1:{port}"
            f"; load average {os.getloadavg()[0]:.1f}; {rounds} rounds of A (local state) "
            f"and B (state shared through {url})",
            flush=True,
        )
        runs: dict[str, list[dict[str, Any]]] = {"local": [], "shared": []}
        for number in range(1, rounds + 1):
            for mode in ("local", "shared"):
                extra = ["PAGESIM_STATE_URL=local"]
                if mode == "shared":
                    extra = [f"PAGESIM_STATE_URL={url}", f"PAGESIM_STATE_PREFIX=bench{number}"]
                result = bench_crawl.run_crawl("pagesim", port, pages, extra)
                runs[mode].append(result)
                print(
                    f"  round {number} {mode:6s} cpu {result['cpu']:6.2f} s  "
                    f"wall {result['wall']:6.2f} s  "
                    f"pagesim {result['pagesim_ms'] / pages:.2f} ms/page",
                    flush=True,
                )
    local = statistics.median(r["cpu"] for r in runs["local"])
    shared = statistics.median(r["cpu"] for r in runs["shared"])
    paired = statistics.median(b["cpu"] / a["cpu"] for a, b in zip(runs["local"], runs["shared"]))
    trips = statistics.median(
        r["state"].get("pagesim/state/round_trips", 0) for r in runs["shared"]
    )
    syncs = statistics.median(r["state"].get("pagesim/state/syncs", 0) for r in runs["shared"])
    errors = sum(r["state"].get("pagesim/state/errors", 0) for r in runs["shared"])
    print(f"A  local state : median CPU {local:.2f} s  ({local / pages * 1000:.2f} ms/page)")
    print(f"B  shared state: median CPU {shared:.2f} s  ({shared / pages * 1000:.2f} ms/page)")
    print(f"ratio B / A = {shared / local:.3f}  (goal <= 1.10)")
    print(f"median of the per-round ratios = {paired:.3f}")
    print(
        f"Redis round trips: {trips:.0f} per crawl, {trips / pages:.3f} per page "
        f"({syncs:.0f} syncs; {errors} failed syncs over all rounds)"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (other processes skew CPU times)")


def site_memory(url: str) -> None:
    import csv

    from pagesim_scrapy.core.siteaware import SiteAwareClassifier
    from pagesim_scrapy.core.state import open_shared_state
    from pagesim_scrapy.core.state.sync import FleetSync
    from pagesim_scrapy.core.summary import summarize

    if not SITES.is_dir():
        sys.exit(f"{SITES} not found")
    print("\nRedis memory per site (MEMORY USAGE of the site's keys after all its pages):")
    print(
        f"  {'site':24s} {'pages':>5s} {'features':>8s} {'kept':>4s} {'bytes':>9s} {'B/page':>7s}"
    )
    state = open_shared_state(url, prefix="sites")
    used_before = int(state.client.info("memory")["used_memory"])
    totals = []
    for site_dir in sorted(p for p in SITES.iterdir() if p.is_dir()):
        with (site_dir / "labels.csv").open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        by_type: dict[str, list[str]] = {}
        for row in rows:
            by_type.setdefault(row["page_type"], []).append(row["path"])
        html = {row["path"]: bench_crawl.read_page(site_dir / row["path"]) for row in rows}
        paths = [row["path"] for row in rows]
        random.Random(7).shuffle(paths)
        template_names = max(by_type.values(), key=len)[:2]
        classifier = SiteAwareClassifier({"t": [html[n] for n in template_names]})
        sync = FleetSync(state, keep_pages=classifier.keep_pages)
        sync.attach_classifier(classifier)
        for i, path in enumerate(paths):
            classifier.classify(summarize(html[path]), site=site_dir.name)
            if i % 50 == 49:
                sync.sync_once()
        sync.sync_once()
        counts = state.pull_sites([site_dir.name])[site_dir.name]
        size = state.memory_usage(state.keys_of_site(site_dir.name))
        totals.append((counts.pages, size))
        print(
            f"  {site_dir.name:24s} {counts.pages:5d} {len(counts.df):8d} {len(counts.kept):4d} "
            f"{size:9d} {size / counts.pages:7.0f}"
        )
    used = int(state.client.info("memory")["used_memory"]) - used_before
    commands = state.client.info("commandstats")
    server_usec = sum(float(v.get("usec", 0)) for v in commands.values())
    pushed = sum(pages for pages, _ in totals)
    print(
        f"  all {len(totals)} sites: {sum(s for _, s in totals) / 1024:.0f} KiB in their keys, "
        f"used_memory grew by {used / 1024:.0f} KiB; "
        f"median {statistics.median(s for _, s in totals) / 1024:.0f} KiB per site"
    )
    print(
        f"  Redis server CPU for all commands of this part (INFO commandstats): "
        f"{server_usec / 1000:.0f} ms, {server_usec / pushed:.0f} us per page pushed "
        f"(pushes every 50 pages, pulls, MEMORY USAGE)"
    )
    top = sorted(commands.items(), key=lambda item: -float(item[1].get("usec", 0)))[:4]
    print(
        "  of which: "
        + ", ".join(
            f"{name.removeprefix('cmdstat_')} {float(v['usec']) / pushed:.0f} us/page"
            for name, v in top
        )
    )
    state.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000, help="pages per crawl (default 2000)")
    parser.add_argument("--rounds", type=int, default=3, help="crawls per configuration")
    parser.add_argument("--skip-crawl", action="store_true", help="only the memory part")
    args = parser.parse_args()
    try:
        with running_redis() as server:
            if not args.skip_crawl:
                crawl_rounds(args.pages, args.rounds, server.url)
            site_memory(server.url)
    except RedisNotAvailable as exc:
        sys.exit(f"cannot start redis-server: {exc}")


if __name__ == "__main__":
    main()
