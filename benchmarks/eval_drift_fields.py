"""Wrapper drift (issue 33): fields a learned wrapper stops finding, on real pages.

    python benchmarks/eval_drift_fields.py [--seeds 3] [--json]

For each (site, label) with >= 30 pages (the demo shop's product, category and search pages,
the Creative Commons blog's posts and author pages): a wrapper learned from 10 of its pages
(as a crawl's wrapper is), then the records it extracts (led by the page's core record, as
the crawl's items are) from the other pages cut into two random halves. The halves as they
are must say nothing (same layout, other content); the second half with one of the drift
benchmark's theme changes applied says which fields are gone or of another kind. Printed: the
same-layout pairs with a field drift (false alarms) and, per theme change, the pairs with one
(a theme change need not break a record: a gallery added above the content often does not).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_drift import THEME_CHANGES, changed_page, demo_site, real_sites

from pagesim_scrapy.cli.extract import extract_record
from pagesim_scrapy.core.drift import FieldCounts, FieldDrift, compare_fields
from pagesim_scrapy.core.induce import induce

LEARNED = 10
LABELS = {
    "demo_shop": ["product", "category", "search"],
    "cc_opensource_blog": ["blog_entry", "author_page"],
}


def _counts(wrapper: Any, pages: list[bytes]) -> FieldCounts:
    counts = FieldCounts()
    for page in pages:
        counts.add(extract_record(wrapper, "", page, None, core=True)["record"])
    return counts


def label_cases(site: str, label: str, paths: list[Path], seeds: int) -> list[dict[str, Any]]:
    """The same-layout and theme-change pairs of one (site, label)."""
    files = sorted(paths)[:70]
    wrapper = induce([p.read_bytes() for p in files[:LEARNED]], label=label)
    rest = files[LEARNED:]
    cases = []
    for seed in range(seeds):
        shuffled = rest[:]
        random.Random(f"{site}-{label}-{seed}").shuffle(shuffled)
        old, new = shuffled[: len(shuffled) // 2], shuffled[len(shuffled) // 2 :]
        before = _counts(wrapper, [p.read_bytes() for p in old])
        variants = {"same layout": [p.read_bytes() for p in new]}
        if seed == 0:  # the theme changes are not random: once is enough
            variants.update(
                {
                    name: [changed_page(p, change) for p in new]
                    for name, change in THEME_CHANGES.items()
                }
            )
        for kind, pages in variants.items():
            drifts = compare_fields(before, _counts(wrapper, pages))
            cases.append({"site": site, "label": label, "kind": kind, "fields": _named(drifts)})
    return cases


def _named(drifts: list[FieldDrift]) -> list[str]:
    return [drift.render() for drift in drifts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="random halves per label (3)")
    parser.add_argument("--json", action="store_true", help="print every pair as JSON")
    args = parser.parse_args(argv)
    sites = {"demo_shop": demo_site(), **real_sites()}
    cases = [
        case
        for site, labels in LABELS.items()
        for label in labels
        for case in label_cases(site, label, sites[site][label], args.seeds)
    ]
    if args.json:
        print(json.dumps(cases, indent=2, ensure_ascii=False))
        return 0
    for kind in ["same layout", *THEME_CHANGES]:
        group = [case for case in cases if case["kind"] == kind]
        said = sum(bool(case["fields"]) for case in group)
        print(f"{kind:>16}: {said}/{len(group)} pairs with a field drift")
    for case in cases:
        if case["fields"]:
            where = f"{case['site']} {case['label']} [{case['kind']}]"
            print(f"  {where}: {'; '.join(case['fields'][:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
