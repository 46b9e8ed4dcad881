"""Background similarity per measure: how alike two pages of unrelated sites are.

    python benchmarks/calibrate.py [--pairs 300] [--seed 1]

Takes the first page of every site in ../shared/data/recipe_scrapers_testdata, draws random
cross-site pairs and prints the median, 90th and 95th percentile of each measure (default
parameters). The 90th percentiles are ``BACKGROUND_SIMILARITY`` in
``pagesim_scrapy/core/classify.py``: the level a one-label classifier treats as "unrelated".
"""

from __future__ import annotations

import argparse
import random
import statistics

from _data import shared

from pagesim_scrapy.core.classify import BACKGROUND_SIMILARITY
from pagesim_scrapy.core.similarity import similarity
from pagesim_scrapy.core.summary import summarize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    root = shared("recipe_scrapers_testdata", "tests", "test_data")
    pages = [
        summarize(sorted(site.glob("*.testhtml"))[0])
        for site in sorted(root.iterdir())
        if site.is_dir() and any(site.glob("*.testhtml"))
    ]
    pairs = [(a, b) for i, a in enumerate(pages) for b in pages[i + 1 :]]
    pairs = random.Random(args.seed).sample(pairs, min(args.pairs, len(pairs)))
    print(f"{len(pages)} sites, {len(pairs)} cross-site pairs")
    for method in sorted(BACKGROUND_SIMILARITY):
        values = [similarity(a, b, method) for a, b in pairs]
        q = statistics.quantiles(values, n=20)
        print(
            f"{method:9s} median {statistics.median(values):.3f}  p90 {q[17]:.3f}  "
            f"p95 {q[18]:.3f}  (in use: {BACKGROUND_SIMILARITY[method]:.2f})"
        )


if __name__ == "__main__":
    main()
