"""Kept-page scorings of the site re-estimates, re-scoring all of them against the cache.

    python benchmarks/bench_rescores.py [--pages 2000]

Decides the pages ``bench_crawl.py`` serves, in its order, as one site, twice in one process:
once re-scoring every kept page at every re-estimate (as before the cache), once with the
cached scores (``pagesim_scrapy/core/keptscores.py``). Prints the scorings per page, the most
re-scorings of one page, the CPU time of the decisions per page, and how many verdicts differ.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

import bench_crawl

from pagesim_scrapy.core.keptscores import RescoreLimits, kept_scores, shared_features
from pagesim_scrapy.core.site import Features
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.summary import PageParseError, parse_html, summarize_tree

#: every cached page re-scored at every re-estimate: what the classifier did before the cache
EXACT = RescoreLimits(tolerance=0.0, min_growth=1.0, max_growth=1.0)


def served_features(pages: int, classifier: SiteAwareClassifier) -> list[Features]:
    """The structural features of the pages bench_crawl.py serves, in its order."""
    served, _ = bench_crawl.served_pages(pages)
    bases = [bench_crawl.read_page(Path(p)) for p in served["base"]]
    features = []
    for base, number in served["index"]:
        body = bench_crawl.variant(bases[base], number) if number else bases[base]
        try:
            features.append(classifier.features(summarize_tree(parse_html(body))))
        except PageParseError:
            continue
    return features


def run(features: list[Features], limits: RescoreLimits | None) -> tuple[list[Any], str, float]:
    classifier = SiteAwareClassifier(bench_crawl.templates())
    if limits is not None:
        classifier.rescore_limits = limits
    began = time.process_time()
    verdicts = [classifier.classify(page, site="s") for page in features]
    seconds = time.process_time() - began
    templates = {label: classifier.template_features(label) for label in classifier.labels}
    cache = kept_scores(
        classifier.site_model("s"), classifier.rescore_limits, shared_features(templates)
    )
    n = len(features)
    line = (
        f"first scorings {cache.scored}, re-scorings {cache.rescored} "
        f"({(cache.scored + cache.rescored) / n:.2f} scorings per page), most re-scorings of "
        f"a page {cache.most_rescored}"
    )
    return [(v.label, v.score) for v in verdicts], line, seconds * 1000 / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs of each")
    args = parser.parse_args()
    features = served_features(args.pages, SiteAwareClassifier(bench_crawl.templates()))
    print(f"{len(features)} pages of one site, 10 templates; load average {os.getloadavg()[0]:.1f}")
    times: dict[str, list[float]] = {"re-scoring all": [], "cached scores": []}
    for _ in range(args.rounds):
        exact, exact_line, ms = run(features, EXACT)
        times["re-scoring all"].append(ms)
        cached, cached_line, ms = run(features, None)
        times["cached scores"].append(ms)
    for (name, ms_list), line in zip(times.items(), (exact_line, cached_line)):
        median = statistics.median(ms_list)
        print(f"  {name:15s} {line}; decisions {median:.3f} ms/page (median of {args.rounds})")
    labels = sum(a[0] != b[0] for a, b in zip(exact, cached))
    moved = max((abs(a[1] - b[1]) for a, b in zip(exact, cached)), default=0.0)
    print(f"  verdicts that differ: {labels}; largest score difference {moved:.4f}")


if __name__ == "__main__":
    main()
