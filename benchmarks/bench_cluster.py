"""Page-type discovery: quality on real pages, and time and memory at crawl scale.

    python benchmarks/bench_cluster.py [--quick] [--sizes 2000,5000,10000,20000] [--sweep]
                                       [--skip-scale | --scale-only] [--method site]
                                       [--repeat 3] [--keep-pages FILE]

1. Stack Overflow (../shared/data/stackoverflow_page_types): adjusted Rand index (ARI) against
   the 5 page types, every algorithm x {combined, lcs}, default thresholds.
2. Recipe sites (../shared/data/recipe_scrapers_testdata): ARI of the 150 pages against their
   55 sites, and against "platforms" (delish, goodhousekeeping and thepioneerwoman are one
   publisher's platform and share its templates).
3. Scale: 20,000 pages made by perturbing the 224 pages of both sets on lxml trees (drop,
   duplicate and reorder subtrees, change ids; seeded, deterministic), summarised once into a
   temporary file, then clustered at 2,000 / 5,000 / 10,000 / 20,000 pages, each size in a
   fresh process: clustering seconds (reading the input excluded), peak RSS, ARI against the
   base page's type/site, and how time and memory grow against linear and quadratic
   (``--repeat``: each size's least CPU time of several alternating runs, for a shared
   machine).
4. Crawl-time discovery: milliseconds per ``OnlineDiscovery.assign`` (median).

``--sweep`` adds threshold sweeps (how much the ARI depends on the defaults).

The scale table also counts what can grow faster than the pages: LSH hits per query (the
leaders a page's query meets), the largest LSH bucket, the seconds of each stage, and the
SNN's steps (items looked up and pairs compared) beside what keeping every pair of
neighbourhoods with an item in common would walk, and where the ARI goes: the types spread
over several clusters against the clusters holding several types.
``BENCH_BUCKET_CAP=none`` (or a number) in the environment runs the scale section with that
``ClusterOptions.bucket_cap`` instead of the default, to compare;
``BENCH_LAYOUT_LEADERS=0`` (or a number) does the same with ``ClusterOptions.layout_leaders``
(0: a layout's leaders unbounded, as before the bound).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from _data import shared

from pagesim_scrapy.core.cluster import (
    OnlineDiscovery,
    adjusted_rand_index,
    cluster_pages,
    measure_function,
)
from pagesim_scrapy.core.cluster.snn import collapse_steps
from pagesim_scrapy.core.cluster.synthetic import Perturber
from pagesim_scrapy.core.pageio import PAGE_SUFFIXES, iter_page_paths, read_page_bytes
from pagesim_scrapy.core.summary import parse_html, summarize

PLATFORM = {"delish.com", "goodhousekeeping.com", "thepioneerwoman.com"}
ALGORITHMS = ("snn", "agglomerative", "online")
METHODS = ("combined", "lcs")


def load(name: str) -> tuple[list[Path], list[str], list[Any]]:
    paths = list(iter_page_paths([shared(name)], (*PAGE_SUFFIXES, ".testhtml")))
    return paths, [p.parent.name for p in paths], [summarize(p, source=str(p)) for p in paths]


def platform(labels: list[str]) -> list[str]:
    return ["hearst-platform" if label in PLATFORM else label for label in labels]


def quality(so: tuple, recipes: tuple) -> None:
    print("== 1-2. quality with default thresholds (ARI; 1.0 = the known grouping exactly)")
    print(
        f"{'algorithm':<14}{'method':<10}{'SO types':>9}{'clusters':>9}"
        f"{'recipe sites':>13}{'platforms':>10}{'clusters':>9}{'seconds':>8}"
    )
    for algorithm in ALGORITHMS:
        for method in METHODS:
            started = time.perf_counter()
            so_result = cluster_pages(so[2], algorithm=algorithm, method=method)
            rc_result = cluster_pages(recipes[2], algorithm=algorithm, method=method)
            seconds = time.perf_counter() - started
            default = " (default)" if (algorithm, method) == ("snn", "combined") else ""
            print(
                f"{algorithm:<14}{method:<10}"
                f"{adjusted_rand_index(so[1], so_result.assignments):>9.3f}"
                f"{len(so_result.clusters):>9}"
                f"{adjusted_rand_index(recipes[1], rc_result.assignments):>13.3f}"
                f"{adjusted_rand_index(platform(recipes[1]), rc_result.assignments):>10.3f}"
                f"{len(rc_result.clusters):>9}{seconds:>8.1f}{default}"
            )
    print(
        f"(known groups: {len(set(so[1]))} SO types, {len(set(recipes[1]))} recipe sites, "
        f"{len(set(platform(recipes[1])))} platforms)"
    )


def sweep(so: tuple, recipes: tuple) -> None:
    print("\n== threshold sweeps (ARI SO types / recipe sites)")
    for method in METHODS:
        row = []
        for t_n in (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7):
            a = cluster_pages(so[2], algorithm="snn", method=method, t_n=t_n).assignments
            b = cluster_pages(recipes[2], algorithm="snn", method=method, t_n=t_n).assignments
            row.append(
                f"{t_n:.2f}: {adjusted_rand_index(so[1], a):.3f}/"
                f"{adjusted_rand_index(recipes[1], b):.3f}"
            )
        print(f"snn {method:<9} t_n " + "  ".join(row))
    for method in METHODS:
        for q_a in (0.5, 0.6, 0.7):
            row = []
            for q_c in (0.4, 0.45, 0.5, 0.55, 0.6):
                if q_c > q_a:
                    continue
                kw = {"algorithm": "agglomerative", "method": method, "q_a": q_a, "q_c": q_c}
                a = cluster_pages(so[2], **kw).assignments
                b = cluster_pages(recipes[2], **kw).assignments
                row.append(
                    f"q_c {q_c:.2f}: {adjusted_rand_index(so[1], a):.3f}/"
                    f"{adjusted_rand_index(recipes[1], b):.3f}"
                )
            print(f"agglomerative {method:<9} q_a {q_a:.2f}  " + "  ".join(row))


# --------------------------------------------------------------------------------------------
# scale


def generate(path: Path, count: int, seed: int) -> dict[str, float]:
    """Perturbed summaries of all shared pages, pickled one after the other into ``path``."""
    paths = list(iter_page_paths([shared("stackoverflow_page_types")]))
    paths += list(
        iter_page_paths([shared("recipe_scrapers_testdata")], (*PAGE_SUFFIXES, ".testhtml"))
    )
    labels = [p.parent.name for p in paths]
    roots = [parse_html(read_page_bytes(p)) for p in paths]
    perturber = Perturber(roots, labels)
    started = time.perf_counter()
    with path.open("wb") as fh:
        for done, (label, summary) in enumerate(perturber.variants(count, seed=seed), 1):
            pickle.dump((label, summary), fh, protocol=pickle.HIGHEST_PROTOCOL)
            if done % 2000 == 0:
                print(f"   generated {done}/{count}", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started
    return {"bases": len(paths), "seconds": seconds, "bytes": path.stat().st_size}


def memory_mb(field: str = "VmHWM") -> float:
    """This process's peak (VmHWM) or current (VmRSS) resident memory in MB.

    /proc is read because ``ru_maxrss`` survives exec on Linux: a child would report the
    parent's peak.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(stream: str, count: int, algorithm: str, method: str) -> None:
    """One clustering run in a fresh process; prints a JSON line with its measurements."""
    baseline_rss = memory_mb("VmRSS")
    labels: list[str] = []
    reading = [0.0, 0.0]  # wall, CPU

    def pages() -> Iterator[Any]:
        with open(stream, "rb") as fh:
            for _ in range(count):
                wall, cpu = time.perf_counter(), time.process_time()
                try:
                    label, summary = pickle.load(fh)
                except EOFError:
                    return
                reading[0] += time.perf_counter() - wall
                reading[1] += time.process_time() - cpu
                labels.append(label)
                yield summary

    cap = os.environ.get("BENCH_BUCKET_CAP")
    extra: dict[str, Any] = {}
    if cap:
        extra["bucket_cap"] = None if cap == "none" else int(cap)
    layout = os.environ.get("BENCH_LAYOUT_LEADERS")
    if layout:
        extra["layout_leaders"] = int(layout)
    wall, cpu = time.perf_counter(), time.process_time()
    result = cluster_pages(pages(), algorithm=algorithm, method=method, **extra)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    result.stats["snn_pair_work"] = snn_pair_work(result)
    params = result.options.grouping_params()
    result.stats["snn_steps"] = collapse_steps(result.graph, params.k, params.t_n, params.k_p)
    result.stats.update(purity(labels, result.assignments))
    print(
        json.dumps(
            {
                "pages": len(labels),
                "seconds": wall - reading[0],
                "cpu_seconds": cpu - reading[1],
                "reading": reading[0],
                "ari": adjusted_rand_index(labels, result.assignments),
                "stats": result.stats,
                "rss_mb": memory_mb("VmHWM"),
                "baseline_rss_mb": baseline_rss,
            }
        )
    )


def purity(labels: list[str], assignments: list[int]) -> dict[str, int]:
    """Where the ARI goes: types spread over clusters (under 90 % of a type's pages in its
    largest cluster) against clusters holding several types."""
    by_type: dict[str, Counter[int]] = {}
    by_cluster: dict[int, set[str]] = {}
    for label, cluster in zip(labels, assignments):
        by_type.setdefault(label, Counter())[cluster] += 1
        by_cluster.setdefault(cluster, set()).add(label)
    spread = sum(
        1 for counts in by_type.values() if max(counts.values()) < 0.9 * sum(counts.values())
    )
    mixed = sum(1 for types in by_cluster.values() if len(types) > 1)
    return {"types": len(by_type), "types_spread": spread, "clusters_mixed": mixed}


def snn_pair_work(result: Any) -> int:
    """How many (item, holder, holder) steps keeping the overlap of every pair of
    neighbourhoods with an item in common took (the SNN before its prefix filter): the sum over
    the leaders of the square of how many neighbourhoods hold each (counted after the timing;
    ``snn_steps`` counts what the procedure now does, on the same graph)."""
    from pagesim_scrapy.core.cluster.snn import neighbourhoods

    params = result.options.grouping_params()
    held = [0] * len(result.graph)
    for hood in neighbourhoods(result.graph, params.k, params.t_n):
        for item in hood:
            held[item] += 1
    return sum(count * count for count in held)


def run_child(stream: Path, size: int, algorithm: str, method: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(stream), str(size), algorithm, method],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fastest_runs(
    stream: Path, sizes: list[int], algorithm: str, method: str, repeat: int
) -> list[dict[str, Any]]:
    """Each size's run with the least CPU time of ``repeat`` (sizes alternating, so that a
    busy spell of the shared machine falls on all sizes alike)."""
    best: dict[int, dict[str, Any]] = {}
    for _ in range(repeat):
        for size in sizes:
            row = run_child(stream, size, algorithm, method)
            if size not in best or row["cpu_seconds"] < best[size]["cpu_seconds"]:
                best[size] = row
    return [best[size] for size in sizes]


def scale(
    sizes: list[int], algorithm: str, method: str, seed: int, keep: str | None, repeat: int = 1
) -> None:
    print(f"\n== 3. scale: perturbed pages, {algorithm} + {method}, one process per size")
    with tempfile.TemporaryDirectory(prefix="pagesim-bench-") as tmp:
        stream = Path(keep) if keep else Path(tmp) / "pages.pickle"
        if keep and stream.exists():
            print(f"reusing the perturbed pages in {stream}")
        else:
            made = generate(stream, max(sizes), seed)
            print(
                f"generated {max(sizes)} perturbed pages from {made['bases']:.0f} real pages in "
                f"{made['seconds']:.0f} s ({1000 * made['seconds'] / max(sizes):.1f} ms per "
                f"page: edit + summarise; not counted below), "
                f"{made['bytes'] / 2**20:.0f} MB of summaries"
            )
        print(
            "(seconds: wall clock; CPU: this process's CPU time, which other work on the shared"
            " machine does not inflate)"
        )
        print(
            f"{'pages':>7}{'seconds':>9}{'CPU s':>7}{'CPU ms/page':>12}{'leaders':>9}"
            f"{'clusters':>9}{'exact sims':>11}{'ARI':>7}{'peak RSS MB':>12}{'(imports)':>10}"
            f"{'hits/query':>11}{'top bucket':>11}"
        )
        if repeat > 1:
            print(f"(each size's least CPU time of {repeat} runs, sizes alternating)")
        rows = fastest_runs(stream, sizes, algorithm, method, repeat)
        for row in rows:
            stats = row["stats"]
            print(
                f"{row['pages']:>7}{row['seconds']:>9.1f}{row['cpu_seconds']:>7.1f}"
                f"{1000 * row['cpu_seconds'] / row['pages']:>12.2f}{stats['leaders']:>9}"
                f"{stats['clusters']:>9}{stats['comparisons']:>11}{row['ari']:>7.3f}"
                f"{row['rss_mb']:>12.0f}{row['baseline_rss_mb']:>10.0f}"
                f"{stats.get('lsh_hits', 0) / max(1, stats.get('lsh_queries', 0)):>11.1f}"
                f"{stats.get('largest_bucket', 0):>11}",
                flush=True,
            )
        for row in rows:
            stats = row["stats"]
            print(
                f"  {row['pages']} pages: condense {stats['seconds_condense']:.1f} s, compare "
                f"{stats['seconds_compare']:.1f} s, group {stats['seconds_cluster']:.1f} s (wall); "
                f"exact similarities condensing {stats['comparisons'] - stats['leader_edges']}, "
                f"leader-graph edges {stats['leader_edges']}, SNN overlap steps "
                f"{stats.get('snn_steps', 0)} (every pair sharing an item: "
                f"{stats.get('snn_pair_work', 0)}); types spread over clusters "
                f"{stats.get('types_spread', 0)}/{stats.get('types', 0)}, clusters holding "
                f"several types {stats.get('clusters_mixed', 0)}; pages folded into a full "
                f"layout {stats.get('layout_folds', 0)}"
            )
        first, last = rows[0], rows[-1]
        grow_pages = last["pages"] / first["pages"]
        grow_wall = last["seconds"] / first["seconds"]
        grow_cpu = last["cpu_seconds"] / first["cpu_seconds"]
        grow_rss = (last["rss_mb"] - last["baseline_rss_mb"]) / max(
            1.0, first["rss_mb"] - first["baseline_rss_mb"]
        )
        print(
            f"{first['pages']} -> {last['pages']} pages (x{grow_pages:.0f}): CPU time "
            f"x{grow_cpu:.1f}, wall x{grow_wall:.1f} (linear would be x{grow_pages:.0f}, "
            f"quadratic x{grow_pages**2:.0f}); peak RSS x{last['rss_mb'] / first['rss_mb']:.1f}"
            f", above the imports x{grow_rss:.1f}; load average {os.getloadavg()[0]:.1f}"
        )
        pairs = last["pages"] * (last["pages"] - 1) // 2
        per_sim = all_pairs_cost(stream)
        print(
            f"all pairs at {last['pages']} pages: {pairs:,} exact comparisons, about "
            f"{pairs * per_sim / 3600:.1f} h at the measured {1e6 * per_sim:.0f} µs each "
            f"(this run: {last['stats']['comparisons']:,})"
        )


def all_pairs_cost(stream: Path, samples: int = 200) -> float:
    """Median seconds of one exact ``combined`` comparison between perturbed pages."""
    summaries = []
    with stream.open("rb") as fh:
        for _ in range(samples):
            summaries.append(pickle.load(fh)[1])
    sim = measure_function("combined")
    times = []
    for a, b in itertools.pairwise(summaries):
        started = time.perf_counter()
        sim(a, b)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def online_cost(so: tuple) -> None:
    print("\n== 4. crawl-time discovery: OnlineDiscovery.assign per page (SO pages)")
    discovery = OnlineDiscovery()
    for summary in so[2]:  # first pass founds the types
        discovery.assign(summary)
    times = []
    for _ in range(3):
        for summary in so[2]:
            started = time.perf_counter()
            discovery.assign(summary)
            times.append(time.perf_counter() - started)
    print(
        f"median {1000 * statistics.median(times):.2f} ms, 90th percentile "
        f"{1000 * sorted(times)[int(0.9 * len(times))]:.2f} ms per page "
        f"({len(discovery)} types kept)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="2000,5000,10000,20000")
    parser.add_argument("--quick", action="store_true", help="sizes 1000,2000,4000")
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--sweep", action="store_true", help="threshold sweeps too")
    parser.add_argument("--algorithm", default="snn", choices=ALGORITHMS)
    parser.add_argument("--method", default="combined", choices=(*METHODS, "site"))
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument(
        "--repeat", type=int, default=1, help="scale: runs per size, the least CPU kept"
    )
    parser.add_argument("--scale-only", action="store_true", help="only the scale section (3)")
    parser.add_argument(
        "--keep-pages", metavar="FILE", help="keep the perturbed pages here and reuse them"
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        stream, count, algorithm, method = args.child
        child(stream, int(count), algorithm, method)
        return
    if not args.scale_only:
        so = load("stackoverflow_page_types")
        recipes = load("recipe_scrapers_testdata")
        quality(so, recipes)
        if args.sweep:
            sweep(so, recipes)
        online_cost(so)
    if not args.skip_scale:
        sizes = [1000, 2000, 4000] if args.quick else [int(s) for s in args.sizes.split(",")]
        scale(sizes, args.algorithm, args.method, args.seed, args.keep_pages, args.repeat)


if __name__ == "__main__":
    main()
