"""How many pages a wrapper must learn before text that is the same on all of them is taken
for template text (issue 31, item 4): ``K`` (``Wrapper.const_pages``), chosen
leave-one-site-out.

For each site type of :mod:`eval_item_records` (the demo shop's products and nine types of
``site_page_types``/``site_page_types_2``, their first ``--pages`` pages) and each wrapper
size n = 2 … ``--max-n``: a wrapper is learned from n of the pages (a seeded sample, canonical
order), and each of those n pages' item record (the core record, then the induced fields: what
the pipeline gives when the label has only those n pages) is compared with the record the
wrapper of all the type's pages gives the same page. A record's *error* is the share of the
reference record's values (whitespace- and case-folded) it misses plus the share of its own
values the reference does not have (chrome taken for data). With K, a wrapper of n < K pages
keeps constant text as data; n >= K takes it for template (K = 1: seed 003's rule).

The LOSO figure: for each site, K is chosen on the other sites (lowest mean error, ties to the
smaller K) and the held-out site's mean error at that K is reported beside its error at K = 1.

Run: ``python benchmarks/eval_const_pages.py [--pages 20] [--max-n 10]``. Deterministic.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import eval_item_records as items  # noqa: E402

from pagesim_scrapy.core.induce import Wrapper, parse_html  # noqa: E402
from pagesim_scrapy.core.record import item_record, read_record  # noqa: E402
from pagesim_scrapy.core.record.rows import page_rows  # noqa: E402
from pagesim_scrapy.core.record.tidy import value_keys  # noqa: E402

KS = (1, 2, 3, 4, 5, 6, 8, 10, 12)
_MARKER = "pagesim_wrapper"


def record_values(wrapper: Wrapper, url: str, html: bytes) -> set[str]:
    root = parse_html(html, base_url=url)
    induced = {k: v for k, v in wrapper.extract(root, url=url).record.items() if k != _MARKER}
    record = item_record(read_record(html, url), induced, url, page_rows(root)).record
    out: set[str] = set()
    for value in record.values():
        out |= value_keys(value)
    return out


def error(got: set[str], ref: set[str]) -> float:
    missing = len(ref - got) / max(len(ref), 1)
    extra = len(got - ref) / max(len(got), 1)
    return missing + extra


def learned(pages: list[tuple[str, bytes]], const_pages: int) -> Wrapper:
    wrapper = Wrapper(label="type", const_pages=const_pages)
    wrapper.add_pages([parse_html(html, base_url=url) for url, html in pages])
    return wrapper


def site_errors(pages: list[tuple[str, bytes]], max_n: int) -> dict[int, tuple[float, float]]:
    """n -> (mean error when constant text is template, mean error when it is data)."""
    reference = learned(pages, 1)
    refs = {url: record_values(reference, url, html) for url, html in pages}
    out: dict[int, tuple[float, float]] = {}
    for n in range(2, min(max_n, len(pages) - 1) + 1):
        sample = random.Random(n).sample(pages, n)
        pair = []
        for const_pages in (1, n + 1):
            wrapper = learned(sample, const_pages)
            errs = [error(record_values(wrapper, u, h), refs[u]) for u, h in sample]
            pair.append(sum(errs) / len(errs))
        out[n] = (pair[0], pair[1])
    return out


def mean_error(errors: dict[int, tuple[float, float]], k: int) -> float:
    """Mean over n of the error with K = k: data below k pages, template from k on."""
    values = [data if n < k else template for n, (template, data) in errors.items()]
    return sum(values) / max(len(values), 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20, help="pages per site type (20)")
    parser.add_argument("--max-n", type=int, default=10, help="largest wrapper size (10)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    sets = [("demo_shop/product", items.demo_pages())]
    sets += [
        (f"{s}/{t}", items.type_pages(d, s, t))
        for d, s, t in items.TYPES
        if (items.DATA / d / s).is_dir()
    ]
    errors: dict[str, Any] = {}
    for name, pages in sets:
        errors[name] = site_errors(pages[: args.pages], args.max_n)
        row = " ".join(f"K{k}={mean_error(errors[name], k):.3f}" for k in KS)
        print(f"{name:<34} {row}")
    print("leave one site out (K chosen on the other sites):")
    held, base = [], []
    for name in errors:
        others = [e for other, e in errors.items() if other != name]
        k = min(KS, key=lambda k: (sum(mean_error(e, k) for e in others), k))
        held.append(mean_error(errors[name], k))
        base.append(mean_error(errors[name], 1))
        print(f"  {name:<34} K={k:<3} error {held[-1]:.3f} (K=1: {base[-1]:.3f})")
    all_k = min(KS, key=lambda k: (sum(mean_error(e, k) for e in errors.values()), k))
    print(
        f"LOSO mean error {sum(held) / len(held):.3f} (K=1: {sum(base) / len(base):.3f}); "
        f"K chosen on all sites: {all_k}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
