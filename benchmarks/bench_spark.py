"""Batch jobs on Spark local[2] against the local commands, over WARC input.

    python benchmarks/bench_spark.py [--classify-pages 2000,8000] [--repeats 3]
                                     [--classify-full 200000] [--cluster-sizes 20000,50000]
                                     [--skip-classify] [--skip-cluster]
                                     [--cluster-site all|host]

Pages: the 976 real pages of ../shared/data/site_page_types, written into gzipped WARC files
(one file per host) again and again under distinct hosts (``copy3.flink_site.example``), so the
same layouts recur on many sites; the copies are identical, which the clustering's condensing
folds (say so when reading its figures).

1. Seed 002's job: pages of the awesome WM wiki copies classified against 10 templates (one
   page of each of 10 of its types), method ``site``. The local ``classify`` command runs on
   each host's file in turn in this process (one core); the Spark job (``--site host``) on
   all files. Pages per second per core, the median of ``--repeats`` runs, at two sizes (the
   Spark job's rate past its fixed cost is the difference of the two), extrapolated to
   200,000 pages (seed 002: 19.7 s per 1,000 pages, 1.1 h; the goal: 4 minutes on 2 cores).
   The Spark job's lines must equal the local command's. ``--classify-full N`` then runs
   the Spark job once on N pages (200,000: seed 002's job itself; not run locally).
2. Clustering at each size: the Spark job (session started beforehand) and the local
   ``cluster`` command (a child process) on the same WARC files: seconds, peak resident
   memory (summed over the process tree: for Spark the driver, its JVM and Python workers),
   whether the lines are identical, the adjusted Rand index of each against the page types,
   and CPU growth against size growth. The Spark job logs the seconds of each of its stages.
   ``--cluster-site host``: each site's pages clustered in one task (the job's ``--site
   host``) against the local command run on each host's file in turn in this process (one
   core); the lines must be equal with the clusters named under their host, and the adjusted
   Rand index is taken against host and page type.
3. What a page costs in the shuffles (pickled features, band keys, summaries), for estimates
   (``--sizes-only``: this alone, without Spark).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from io import BytesIO
from pathlib import Path
from typing import Any

from _data import shared
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pagesim_scrapy.cli import main as local_main
from pagesim_scrapy.core.cluster import adjusted_rand_index

SITES = (
    "awesomewm_wiki",
    "android_stackexchange",
    "flink_site",
    "cc_opensource_blog",
    "cpython_docs",
)
SEED_002_SECONDS_PER_1000 = 19.7
TARGET_PAGES = 200_000
GOAL_SECONDS = 240.0


def site_pages(site: str) -> list[tuple[str, str, bytes]]:
    """(page type, URL path, HTML) of every page of a site folder."""
    folder = shared("site_page_types", site)
    out = []
    for row in csv.DictReader((folder / "labels.csv").open(encoding="utf-8")):
        url = row["url"]
        path = url.split("/", 3)[3] if url.count("/") >= 3 else ""
        out.append((row["page_type"], path, (folder / row["path"]).read_bytes()))
    return out


def write_warc(path: Path, host: str, pages: list[tuple[str, str, bytes]]) -> None:
    with path.open("wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for _, url_path, body in pages:
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
            )
            writer.write_record(
                writer.create_warc_record(
                    f"https://{host}/{url_path}",
                    "response",
                    payload=BytesIO(body),
                    length=len(body),
                    http_headers=headers,
                )
            )


def copies(folder: Path, sites: tuple[str, ...], total: int) -> tuple[list[Path], list[str]]:
    """WARC files of ``total`` pages: the sites' pages, copy after copy under new hosts.
    Returns the files (in the order given to the jobs) and every page's type, in order."""
    pages = {site: site_pages(site) for site in sites}
    files: list[Path] = []
    types: list[str] = []
    copy = 0
    while len(types) < total:
        for site in sites:
            chunk = pages[site][: total - len(types)]
            if not chunk:
                break
            host = f"copy{copy}.{site.replace('_', '-')}.example"
            path = folder / f"{copy:04d}-{site}.warc.gz"
            write_warc(path, host, chunk)
            files.append(path)
            types += [f"{site}/{kind}" for kind, _, _ in chunk]
        copy += 1
    return files, types


class PeakMemory:
    """Peak resident memory of a process and all its descendants (sampled from /proc), and the
    CPU seconds they used meanwhile (``cpu``: on a shared machine, wall time says less)."""

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        self.pid = pid
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._cpu_start = self._tree()[1]
        self.cpu = 0.0
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.cpu = max(self.cpu, self._last_cpu - self._cpu_start)

    def _tree(self) -> tuple[int, float]:
        """(resident bytes, CPU seconds including reaped children) of the process tree."""
        children: dict[int, list[int]] = {}
        rss: dict[int, int] = {}
        cpu: dict[int, float] = {}
        tick = os.sysconf("SC_CLK_TCK")
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(entry)
            children.setdefault(int(fields[1]), []).append(pid)
            rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            cpu[pid] = sum(int(value) for value in fields[11:15]) / tick
        total, seconds, stack = 0, 0.0, [self.pid]
        while stack:
            pid = stack.pop()
            total += rss.get(pid, 0)
            seconds += cpu.get(pid, 0.0)
            stack += children.get(pid, [])
        return total, seconds

    _last_cpu = 0.0

    def _run(self) -> None:
        while not self._stop.is_set():
            rss, cpu = self._tree()
            # the largest seen: a process that ended (and was reaped) drops out of the tree
            self._last_cpu = max(self._last_cpu, cpu)
            self.peak = max(self.peak, rss)
            self._stop.wait(self.interval)


def start_spark() -> tuple[Any, float]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    started = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("pagesim bench")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark, time.perf_counter() - started


def spark_lines(spark: Any, args: list[str], output: Path) -> tuple[list[str], float]:
    from pagesim_scrapy.spark.__main__ import main

    started = time.perf_counter()
    if main([*args, "-o", str(output)], spark=spark) != 0:
        sys.exit(f"the Spark job failed: {args[0]}")
    seconds = time.perf_counter() - started
    lines = [
        line
        for part in sorted(output.glob("part-*"))
        for line in part.read_text(encoding="utf-8").splitlines()
    ]
    shutil.rmtree(output)
    return lines, seconds


def verdict(seconds: float) -> str:
    return "met" if seconds <= GOAL_SECONDS else "missed"


def load() -> str:
    """The machine's 1-minute load average (2 cores, shared): printed with every figure."""
    return f"load {os.getloadavg()[0]:.1f}"


def wiki_templates() -> list[str]:
    """``--template`` arguments: the first page of each of the wiki's 10 largest types."""
    wiki = shared("site_page_types", "awesomewm_wiki")
    rows = list(csv.DictReader((wiki / "labels.csv").open(encoding="utf-8")))
    by_type: dict[str, list[str]] = {}
    for row in rows:
        by_type.setdefault(row["page_type"], []).append(row["path"])
    kinds = sorted((k for k, v in by_type.items() if len(v) >= 20), key=lambda k: -len(by_type[k]))
    templates: list[str] = []
    for kind in sorted(kinds[:10]):
        templates += ["--template", f"{kind}={wiki / by_type[kind][0]}"]
    return templates


def bench_classify(spark: Any, folder: Path, sizes: list[int], repeats: int) -> None:
    print(f"\n1. Seed 002's job: pages against 10 templates, method site, WARC input, {sizes}")
    templates = wiki_templates()
    measured = []
    for pages in sizes:
        work = folder / f"classify{pages}"
        work.mkdir()
        files, _ = copies(work, ("awesomewm_wiki",), pages)
        scratch = work / "local.jsonl"
        local_runs, spark_runs, local_cpu, spark_cpu = [], [], [], []
        local: list[str] = []
        loads = [load()]
        for _ in range(repeats):
            started, cpu = time.perf_counter(), time.process_time()
            local = []
            for path in files:  # one site at a time, as the job groups them
                args = ["classify", *templates, str(path), "-o", str(scratch), "--no-progress"]
                assert local_main(args) == 0
                local += scratch.read_text(encoding="utf-8").splitlines()
            local_runs.append(time.perf_counter() - started)
            local_cpu.append(time.process_time() - cpu)
        loads.append(load())
        same = True
        for _ in range(repeats):
            args = ["classify", *templates, *map(str, files)]
            with PeakMemory(os.getpid()) as tree:
                lines, seconds = spark_lines(spark, args, work / "out")
            spark_runs.append(seconds)
            spark_cpu.append(tree.cpu)
            same = same and lines == local
        loads.append(load())
        local_s, spark_s = statistics.median(local_runs), statistics.median(spark_runs)
        measured.append((pages, local_s, spark_s))
        print(
            f"   {pages:6d} pages: local classify, 1 core {local_s:6.1f} s "
            f"({statistics.median(local_cpu):5.1f} CPU s; {pages / local_s:5.1f} pages/s per "
            f"core) | Spark local[2] {spark_s:6.1f} s ({statistics.median(spark_cpu):5.1f} CPU s "
            f"over its processes; {pages / spark_s:5.1f} pages/s, {pages / spark_s / 2:5.1f} per "
            f"core) | medians of {repeats} | Spark lines identical to local: {same} | "
            f"{', '.join(loads)}"
        )
        shutil.rmtree(work)
    seed = TARGET_PAGES / 1000 * SEED_002_SECONDS_PER_1000
    (n0, _, s0), (n1, l1, s1) = measured[0], measured[-1]
    local_rate = n1 / l1
    estimates = [("local, 1 core", TARGET_PAGES / local_rate)]
    estimates.append(("local, 2 processes", TARGET_PAGES / local_rate / 2))
    if n1 > n0 and s1 > s0:
        # the job's fixed cost (stages, shuffles, Python workers) apart from its rate
        marginal = (n1 - n0) / (s1 - s0)
        fixed = s1 - n1 / marginal
        print(
            f"   Spark marginal rate {n0} -> {n1} pages: {marginal:.1f} pages/s "
            f"({marginal / 2:.1f} per core; local per core {local_rate:.1f}: "
            f"ratio {marginal / 2 / local_rate:.2f}), fixed cost {fixed:.1f} s"
        )
        estimates.append(("Spark local[2]", fixed + TARGET_PAGES / marginal))
    else:
        estimates.append(("Spark local[2]", TARGET_PAGES / (n1 / s1)))
    for name, eta in estimates:
        print(
            f"   200,000 pages, {name:20s} {eta / 60:6.1f} min  "
            f"(seed 002's 1.1 h / this: {seed / eta:5.1f}x; goal 4 min: {verdict(eta)})"
        )


def bench_classify_full(spark: Any, folder: Path, pages: int) -> None:
    """Seed 002's job itself, once, on Spark only (the local rate is measured above)."""
    work = folder / f"full{pages}"
    work.mkdir()
    files, _ = copies(work, ("awesomewm_wiki",), pages)
    args = ["classify", *wiki_templates(), *map(str, files)]
    before = load()
    with PeakMemory(os.getpid()) as tree:
        lines, seconds = spark_lines(spark, args, work / "out")
    print(
        f"   {pages:6d} pages on Spark local[2], once: {seconds:6.1f} s = {seconds / 60:.2f} min "
        f"({tree.cpu:.0f} CPU s over its processes, peak {tree.peak / 2**20:.0f} MB; "
        f"{pages / seconds:.1f} pages/s, {pages / seconds / 2:.1f} per core; {len(lines)} lines) "
        f"| goal 4 min: {verdict(seconds)} | {before} before, {load()} after"
    )
    shutil.rmtree(work)


def bench_cluster(spark: Any, folder: Path, sizes: list[int]) -> None:
    print("\n2. Clustering (method site, snn), WARC input, Spark local[2] vs the local command")
    figures = []
    for size in sizes:
        work = folder / f"cluster{size}"
        work.mkdir()
        files, types = copies(work, SITES, size)
        args = ["cluster", *map(str, files)]
        loads = [load()]
        with PeakMemory(os.getpid()) as memory:
            lines, seconds = spark_lines(spark, args, work / "out")
        loads.append(load())
        spark_peak = memory.peak
        local_out = work / "local.jsonl"
        started = time.perf_counter()
        spark_cpu = memory.cpu
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pagesim_scrapy",
                "cluster",
                *args[1:],
                "-o",
                str(local_out),
                "--no-progress",
            ],
            stderr=subprocess.DEVNULL,
        )
        with PeakMemory(child.pid) as local_memory:
            child.wait()
        local_seconds = time.perf_counter() - started
        local = local_out.read_text(encoding="utf-8").splitlines()
        spark_labels = [line.rsplit('"cluster": ', 1)[1] for line in lines]
        local_labels = [line.rsplit('"cluster": ', 1)[1] for line in local]
        ari_spark = (
            adjusted_rand_index(types, spark_labels)
            if len(spark_labels) == len(types)
            else float("nan")
        )
        ari_local = adjusted_rand_index(types, local_labels)
        print(
            f"   {size:7d} pages: Spark {seconds:7.1f} s ({spark_cpu:6.0f} CPU s), "
            f"peak {spark_peak / 2**20:6.0f} MB | local {local_seconds:7.1f} s "
            f"({local_memory.cpu:6.0f} CPU s), peak {local_memory.peak / 2**20:6.0f} MB | "
            f"identical {lines == local} | "
            f"ARI vs types: Spark {ari_spark:.4f}, local {ari_local:.4f} | "
            f"{', '.join(loads)}, {load()}"
        )
        figures.append((size, spark_cpu, local_memory.cpu))
        shutil.rmtree(work)
    for (n0, s0, l0), (n1, s1, l1) in itertools.pairwise(figures):
        print(
            f"   {n0} -> {n1} pages (x{n1 / n0:.1f}): Spark CPU x{s1 / s0:.2f}, "
            f"local CPU x{l1 / l0:.2f} (linear x{n1 / n0:.1f}, quadratic x{(n1 / n0) ** 2:.1f})"
        )


def host_of(path: Path) -> str:
    """The host of a WARC file :func:`copies` wrote (its pages' site)."""
    copy, _, site = path.name.removesuffix(".warc.gz").partition("-")
    return f"copy{int(copy)}.{site.replace('_', '-')}.example"


def local_per_site(files: list[Path], scratch: Path) -> list[str]:
    """The local ``cluster`` command on each host's file in turn (one site a run), its
    clusters named under the host as the Spark job names them."""
    lines = []
    for path in files:
        args = ["cluster", str(path), "-o", str(scratch), "--no-progress"]
        assert local_main(args) == 0
        host = host_of(path)
        for line in scratch.read_text(encoding="utf-8").splitlines():
            head, sep, name = line.rpartition('"cluster": "')
            lines.append(f"{head}{sep}{host}/{name}" if sep else line)
    return lines


def bench_cluster_sites(spark: Any, folder: Path, sizes: list[int], site: str) -> None:
    print(
        f"\n2b. Clustering each site in one task (--site {site}; method site, snn): Spark "
        "local[2] vs the local command run on each host's file in turn (one core)"
    )
    figures = []
    for size in sizes:
        work = folder / f"sites{size}"
        work.mkdir()
        files, types = copies(work, SITES, size)
        hosts = [host_of(path) for path in files for _ in range(_pages_in(path))]
        truth = [f"{host} {kind}" for host, kind in zip(hosts, types)]
        loads = [load()]
        with PeakMemory(os.getpid()) as memory:
            lines, seconds = spark_lines(
                spark, ["cluster", "--site", site, *map(str, files)], work / "out"
            )
        loads.append(load())
        started, cpu = time.perf_counter(), time.process_time()
        local = local_per_site(files, work / "local.jsonl")
        local_seconds, local_cpu = time.perf_counter() - started, time.process_time() - cpu
        spark_labels = [line.rsplit('"cluster": ', 1)[1] for line in lines]
        local_labels = [line.rsplit('"cluster": ', 1)[1] for line in local]
        print(
            f"   {size:7d} pages, {len(files)} sites: Spark {seconds:7.1f} s "
            f"({memory.cpu:6.0f} CPU s), peak {memory.peak / 2**20:6.0f} MB | local, 1 core "
            f"{local_seconds:7.1f} s ({local_cpu:6.0f} CPU s) | Spark/local wall "
            f"{seconds / local_seconds:.2f} | identical {lines == local} | "
            f"ARI Spark vs local {adjusted_rand_index(local_labels, spark_labels):.4f} | "
            f"ARI vs host+type: Spark {adjusted_rand_index(truth, spark_labels):.4f}, "
            f"local {adjusted_rand_index(truth, local_labels):.4f} | "
            f"{', '.join(loads)}, {load()}"
        )
        figures.append((size, memory.cpu, local_cpu))
        shutil.rmtree(work)
    for (n0, s0, l0), (n1, s1, l1) in itertools.pairwise(figures):
        print(
            f"   {n0} -> {n1} pages (x{n1 / n0:.1f}): Spark CPU x{s1 / s0:.2f}, "
            f"local CPU x{l1 / l0:.2f}"
        )


def _pages_in(path: Path) -> int:
    from warcio.archiveiterator import ArchiveIterator

    with path.open("rb") as fh:
        return sum(record.rec_type == "response" for record in ArchiveIterator(fh))


def record_sizes() -> None:
    """What each page costs in the shuffles (pickled as the jobs move it), for estimates."""
    import pickle

    from pagesim_scrapy.core.cluster.sketch import Sketcher, band_keys, lsh_bands
    from pagesim_scrapy.core.site import pack_features, structural_features
    from pagesim_scrapy.core.summary import PageParseError, SummaryOptions, summarize
    from pagesim_scrapy.settings import DEFAULT_MAX_NODES

    options = SummaryOptions(max_nodes=DEFAULT_MAX_NODES)
    sketcher, bands = Sketcher(), lsh_bands()
    html, features, summaries, keys, counts = [], [], [], [], []
    distinct: set[str] = set()
    order, name = (12, 345678), "crawl-00012.warc.gz#345678"
    for site in SITES:
        for _, _, body in site_pages(site):
            html.append(len(body))
            try:
                summary = summarize(body, options, source=name)
            except PageParseError:
                continue
            page = structural_features(summary)
            distinct |= page
            counts.append(len(page))
            packed = pack_features(page)  # as the classify job groups them
            features.append(len(pickle.dumps(("host.example", (order, name, packed, None)))))
            summaries.append(len(pickle.dumps((order, (name, summary)))))
            keys.append(
                sum(
                    len(pickle.dumps((k, order)))
                    for k in band_keys(sketcher.sketch(summary), bands)
                )
            )
    mean = statistics.mean
    print(f"\n3. Per page, over the {len(html)} pages of the five sites (pickled as shuffled)")
    print(
        f"   HTML {mean(html) / 1024:.1f} KB mean; {statistics.median(counts):.0f} features "
        f"(median), {len(distinct)} distinct over all"
    )
    print(
        f"   classify (site): features {mean(features) / 1024:.2f} KB | cluster: band keys "
        f"({len(bands)}) {mean(keys) / 1024:.2f} KB, summary {mean(summaries) / 1024:.2f} KB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classify-pages", default="2000,8000", help="two sizes or more")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--classify-full", type=int, default=0, metavar="N", help="then N pages once on Spark"
    )
    parser.add_argument("--cluster-sizes", default="20000,50000")
    parser.add_argument("--skip-classify", action="store_true")
    parser.add_argument("--skip-cluster", action="store_true")
    parser.add_argument(
        "--cluster-site",
        choices=("all", "host"),
        default="all",
        help="all: every page as one set (against the local command on all files); host: each "
        "site in one task (against the local command on each host's file)",
    )
    parser.add_argument(
        "--sizes-only", action="store_true", help="only what a page costs in the shuffles"
    )
    args = parser.parse_args()
    if args.sizes_only:
        record_sizes()
        return
    spark, startup = start_spark()
    print(
        f"Spark {spark.version} local[2] session started in {startup:.1f} s "
        "(not counted in the jobs' times)"
    )
    with tempfile.TemporaryDirectory(prefix="bench_spark") as tmp:
        folder = Path(tmp)
        if not args.skip_classify:
            sizes = [int(n) for n in args.classify_pages.split(",")]
            bench_classify(spark, folder, sizes, args.repeats)
            if args.classify_full:
                bench_classify_full(spark, folder, args.classify_full)
        if not args.skip_cluster:
            sizes = [int(n) for n in args.cluster_sizes.split(",")]
            if args.cluster_site == "all":
                bench_cluster(spark, folder, sizes)
            else:
                bench_cluster_sites(spark, folder, sizes, args.cluster_site)
    spark.stop()
    record_sizes()


if __name__ == "__main__":
    main()
