"""Start-up cost of pagesim: memory and imports of a crawl before its first page.

    python benchmarks/bench_start.py [--rounds 3]

Starts the sample project's crawl (its settings: the add-on, six templates of the demo shop)
with a spider that requests nothing, so the crawl opens, starts pagesim and closes at once.
Each round runs two crawls, alternating, each in a fresh process under ``python -X importtime``:

* A: the sample project without pagesim (``ADDONS = {}``, ``PAGESIM_ENABLED = False``);
* B: the sample project as it is.

For each it prints the resident memory (``VmRSS``) at ``spider_opened`` and at
``spider_closed`` (pagesim's start-up, templates included, has run by then), the number of
modules loaded, the import time (the sum of ``-X importtime``'s self times) and, for B, the
heaviest imports pagesim brings that A does not. Memory and module counts do not depend on the
machine's load; import times do (figures are medians of the rounds, measured under load).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

#: Heavy optional packages whose presence at start is reported.
WATCHED = (
    "numpy",
    "scipy",
    "datasketch",
    "redis",
    "rapidfuzz",
    "extruct",
    "rdflib",
    "scrapy_poet",
    "web_poet",
    "pyspark",
)

CRAWL = """
import json, sys
import scrapy
from scrapy import signals
from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings

found = {}

def rss_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

class Empty(scrapy.Spider):
    name = "empty"

    async def start(self):
        return
        yield

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.opened, signal=signals.spider_opened)
        crawler.signals.connect(spider.closed_, signal=signals.spider_closed)
        return spider

    def opened(self, spider):
        found["rss_opened_kb"] = rss_kb()

    def closed_(self, spider, reason):
        found["rss_closed_kb"] = rss_kb()
        found["modules"] = sorted(sys.modules)

settings = get_project_settings()
settings.set("LOG_LEVEL", "ERROR", priority="cmdline")
if sys.argv[1] == "plain":
    settings.set("ADDONS", {}, priority="cmdline")
    settings.set("PAGESIM_ENABLED", False, priority="cmdline")
process = CrawlerProcess(settings)
process.crawl(Empty)
process.start()
print("RESULT " + json.dumps(found))
"""


def import_times(stderr: str) -> dict[str, tuple[int, int]]:
    """{module: (self µs, cumulative µs)} from ``-X importtime`` output."""
    times: dict[str, tuple[int, int]] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, name = line[len("import time:") :].split("|", 2)
        times[name.strip()] = (int(own), int(cumulative))
    return times


def run(mode: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path])}
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", CRAWL, mode],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
        check=False,
    )
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    if out.returncode != 0 or not lines:
        sys.exit(f"crawl {mode} failed:\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    times = import_times(out.stderr)
    result["import_s"] = sum(own for own, _ in times.values()) / 1e6
    result["times"] = times
    return result


def report(mode: str, runs: list[dict[str, Any]]) -> None:
    opened = statistics.median(r["rss_opened_kb"] for r in runs) / 1024
    closed = statistics.median(r["rss_closed_kb"] for r in runs) / 1024
    imports = statistics.median(r["import_s"] for r in runs)
    modules = runs[-1]["modules"]
    heavy = [name for name in WATCHED if name in modules]
    print(
        f"{mode:8s} RSS at spider_opened {opened:6.1f} MB, at spider_closed {closed:6.1f} MB; "
        f"{len(modules)} modules; import time {imports:.2f} s (measured under load)"
    )
    print(f"         heavy packages loaded: {', '.join(heavy) or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="crawls per configuration")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.rounds} rounds of A and B, alternating")
    runs: dict[str, list[dict[str, Any]]] = {"plain": [], "pagesim": []}
    for _ in range(args.rounds):
        for mode in runs:
            runs[mode].append(run(mode))
    for mode, results in runs.items():
        report(mode, results)
    plain, pagesim = runs["plain"][-1], runs["pagesim"][-1]
    extra = {
        name: cumulative
        for name, (_, cumulative) in pagesim["times"].items()
        if "." not in name and name not in plain["times"]
    }
    print("top-level packages B imports and A does not (cumulative import time, last round):")
    for name, cumulative in sorted(extra.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {name:24s} {cumulative / 1000:7.1f} ms")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
