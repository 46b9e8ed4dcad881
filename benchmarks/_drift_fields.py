"""Wrapper drift (issue 33): fields a learned wrapper stops finding, on real pages.

    python benchmarks/eval_drift.py --fields [--seeds 3] [--json]

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

import json
import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

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


def label_cases(
    site: str,
    label: str,
    paths: list[Path],
    seeds: int,
    changes: Mapping[str, Callable[[Any], None]],
    changed_page: Callable[[Path, Callable[[Any], None]], bytes],
) -> list[dict[str, Any]]:
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
            for name, change in changes.items():
                variants[name] = [changed_page(p, change) for p in new]
        for kind, pages in variants.items():
            drifts = compare_fields(before, _counts(wrapper, pages))
            cases.append({"site": site, "label": label, "kind": kind, "fields": _named(drifts)})
    return cases


def _named(drifts: list[FieldDrift]) -> list[str]:
    return [drift.render() for drift in drifts]


def run(
    sites: Mapping[str, Mapping[str, list[Path]]],
    seeds: int,
    changes: Mapping[str, Callable[[Any], None]],
    changed_page: Callable[[Path, Callable[[Any], None]], bytes],
    as_json: bool,
) -> None:
    """Print the pairs with a field drift per kind (or every pair as JSON)."""
    cases = [
        case
        for site, labels in LABELS.items()
        for label in labels
        for case in label_cases(site, label, list(sites[site][label]), seeds, changes, changed_page)
    ]
    if as_json:
        print(json.dumps(cases, indent=2, ensure_ascii=False))
        return
    for kind in ["same layout", *changes]:
        group = [case for case in cases if case["kind"] == kind]
        said = sum(bool(case["fields"]) for case in group)
        print(f"{kind:>16}: {said}/{len(group)} pairs with a field drift")
    for case in cases:
        if case["fields"]:
            where = f"{case['site']} {case['label']} [{case['kind']}]"
            print(f"  {where}: {'; '.join(case['fields'][:3])}")
