"""Summary build time vs lxml parse time, and one page against 10 templates with ``lcs``.

    python benchmarks/bench_summary.py [--limit N]

Ratio = (time to summarise an already parsed tree) / (time lxml takes to parse the same page),
per page, median over the pages in ../shared/data. Each timing is the median of several runs,
both measured back to back so machine noise hits them alike.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from _data import shared
from lxml import etree

from pagesim_scrapy.core.classify import TemplateClassifier
from pagesim_scrapy.core.pageio import PAGE_SUFFIXES, iter_page_paths, read_page_bytes
from pagesim_scrapy.core.summary import summarize, summarize_tree


def median_time(fn, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0, help="at most N pages per data set")
    args = parser.parse_args()
    data = shared()
    sets = sorted(p for p in data.iterdir() if p.is_dir())
    paths: list[Path] = []
    for folder in sets:
        found = list(iter_page_paths([folder], (*PAGE_SUFFIXES, ".testhtml")))
        paths.extend(found[: args.limit] if args.limit else found)
    ratios, parse_ms, build_ms, nodes = [], [], [], []
    for path in paths:
        raw = read_page_bytes(path)
        parser_ = etree.HTMLParser(huge_tree=True)
        try:
            root = etree.fromstring(raw, parser_)
        except etree.ParserError:
            continue
        if root is None:
            continue
        t_parse = median_time(
            lambda raw=raw: etree.fromstring(raw, etree.HTMLParser(huge_tree=True))
        )
        t_build = median_time(lambda root=root: summarize_tree(root))
        ratios.append(t_build / t_parse)
        parse_ms.append(t_parse * 1000)
        build_ms.append(t_build * 1000)
        nodes.append(summarize_tree(root).n_nodes)
    print(
        f"pages: {len(ratios)} from {len(sets)} data sets; "
        f"median elements {statistics.median(nodes):.0f}"
    )
    print(f"lxml parse      median {statistics.median(parse_ms):.3f} ms")
    print(f"summary build   median {statistics.median(build_ms):.3f} ms")
    print(f"build / parse   median ratio {statistics.median(ratios):.3f} (goal <= 1.0)")

    so = shared("stackoverflow_page_types")
    templates = sorted(so.glob("*/0[12].html"))[:10]
    clf = TemplateClassifier({f"t{i}": [p] for i, p in enumerate(templates)}, method="lcs")
    pages = [summarize(p) for p in sorted(so.glob("*/1[0-4].html"))]
    per_page = [median_time(lambda s=s: clf.scores(s), repeat=9) * 1000 for s in pages]
    print(
        f"lcs, one page vs 10 templates: median {statistics.median(per_page):.3f} ms (goal <= 1 ms)"
    )


if __name__ == "__main__":
    main()
