"""Fit and check the confidence carried by site-aware verdicts (issue 10, point 6).

    python benchmarks/calibrate_confidence.py [--seed 1]

Every verdict of issue 10's protocols on ../shared/data/site_page_types (one-class with two
templates per type, multi-type with the first page of every type, and 2 or 3 of a site's types
configured, each as a batch and in a shuffled online order, as ``benchmarks/site_accuracy.py``
runs them) becomes one row: the
features of ``pagesim_scrapy.core.confidence.confidence_features`` and whether the verdict was
right (the page's type for an accepted page; "none of these" for a page of an unconfigured type).

Printed: the logistic weights fitted on all five sites (the values of
``SitePolicy.confidence_weights``), then leave-one-site-out — weights fitted on four sites,
confidences computed on the fifth — the reliability table (of the verdicts given a confidence
in a bin, how many were right), the expected calibration error per site, and the same for the
shipped weights.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import dataclass

import numpy as np
from _data import shared
from site_accuracy import Page, load_site

from pagesim_scrapy.core.classify import Verdict, build_classifier
from pagesim_scrapy.core.confidence import confidence_features, verdict_confidence
from pagesim_scrapy.core.sitepolicy import DEFAULT_POLICY

BINS = ((0.0, 0.5), (0.5, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 0.99), (0.99, 1.01))


@dataclass
class Row:
    site: str
    features: tuple[float, ...]
    accepted: bool
    right: bool


def row_of(site: str, verdict: Verdict, truth: str, labels: list[str]) -> Row:
    accepted = verdict.label is not None
    assert verdict.threshold is not None
    features = confidence_features(
        verdict.score,
        verdict.threshold,
        accepted=accepted,
        margin=verdict.margin,
        labels=len(verdict.scores),
        source=verdict.threshold_source or "given",
    )
    right = verdict.label == truth if truth in labels else verdict.label is None
    return Row(site, features, accepted, right)


def protocol_rows(
    site: str, templates: dict[str, list[Page]], tests: list[Page], key: str, seed: int
) -> list[Row]:
    """The rows of one configuration of templates: its test pages as a batch, then online in
    a shuffled order."""
    labels = list(templates)
    given = {label: [p.summary for p in chosen] for label, chosen in templates.items()}
    batch = build_classifier(given).classify_all([p.summary for p in tests])
    rows = [row_of(site, v, p.label, labels) for p, v in zip(tests, batch)]
    order = list(range(len(tests)))
    random.Random(f"{seed}:{key}").shuffle(order)
    online = build_classifier(given)
    for index in order:
        verdict = online.classify(tests[index].summary)
        rows.append(row_of(site, verdict, tests[index].label, labels))
    return rows


def some_type_configs(
    pages: list[Page], types: Counter[str], seed: int
) -> list[tuple[dict[str, list[Page]], list[Page], str]]:
    """Some of the types configured (6 pairs, 4 triples): a page of another type must get
    "none of these"."""
    some = sorted(t for t, c in types.items() if c >= 5)
    rng = random.Random(f"{seed}:some")
    configs = []
    for size, count in ((2, 6), (3, 4)):
        for n in range(count):
            combo = rng.sample(some, size)
            chosen = {label: [p for p in pages if p.label == label][:2] for label in combo}
            used = {id(p) for group in chosen.values() for p in group}
            configs.append((chosen, [p for p in pages if id(p) not in used], f"some{size}:{n}"))
    return configs


def site_rows(site: str, pages: list[Page], seed: int) -> list[Row]:
    rows: list[Row] = []
    types = Counter(page.label for page in pages)
    for label, count in sorted(types.items()):
        if count >= 5:
            templates = [page for page in pages if page.label == label][:2]
            tests = [p for p in pages if p not in templates]
            rows += protocol_rows(site, {label: templates}, tests, label, seed)
    for chosen, tests, key in some_type_configs(pages, types, seed):
        rows += protocol_rows(site, chosen, tests, key, seed)
    firsts: dict[str, Page] = {}
    for page in pages:
        if types[page.label] >= 3 and page.label not in firsts:
            firsts[page.label] = page
    multi = {label: [page] for label, page in firsts.items()}
    rows += protocol_rows(
        site, multi, [p for p in pages if p is not firsts.get(p.label)], "multi", seed
    )
    return rows


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Logistic regression by Newton's method (a small ridge keeps it finite)."""
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ w))
        gradient = x.T @ (p - y) + l2 * w
        hessian = (x.T * (p * (1 - p))) @ x + l2 * np.eye(len(w))
        w -= np.linalg.solve(hessian, gradient)
    return w


def ece(p: np.ndarray, y: np.ndarray) -> float:
    """Expected calibration error over ten equal-width bins."""
    total = 0.0
    for b in range(10):
        mask = (p >= b / 10) & ((p < (b + 1) / 10) | (b == 9))
        if mask.any():
            total += mask.sum() / len(p) * abs(p[mask].mean() - y[mask].mean())
    return total


def report(
    name: str, p: np.ndarray, y: np.ndarray, accepted: np.ndarray, sites: np.ndarray
) -> None:
    print(f"\n{name}: expected calibration error {ece(p, y):.4f}")
    print(
        "  per site: "
        + ", ".join(f"{s} {ece(p[sites == s], y[sites == s]):.3f}" for s in sorted(set(sites)))
    )
    for title, mask in (("accepted pages", accepted), ("turned-away pages", ~accepted)):
        print(f"  {title} ({mask.sum()}): confidence bin -> verdicts, mean confidence, right")
        for low, high in BINS:
            m = mask & (p >= low) & (p < high)
            if m.any():
                print(
                    f"    [{low:.2f}, {min(high, 1.0):.2f}) {m.sum():6d}  "
                    f"{p[m].mean():.3f}  {y[m].mean():.3f}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    root = shared("site_page_types")
    rows: list[Row] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        rows.extend(site_rows(folder.name, load_site(folder), args.seed))
    x = np.array([r.features for r in rows])
    y = np.array([float(r.right) for r in rows])
    accepted = np.array([r.accepted for r in rows])
    sites = np.array([r.site for r in rows])
    print(f"{len(rows)} verdicts, {y.mean():.3f} right")
    weights = fit(x, y)
    print("weights fitted on all sites: (" + ", ".join(f"{w:.3f}" for w in weights) + ")")
    held_out = np.zeros(len(y))
    for site in sorted(set(sites)):
        train = sites != site
        w = fit(x[train], y[train])
        held_out[~train] = 1 / (1 + np.exp(-x[~train] @ w))
    report("leave-one-site-out", held_out, y, accepted, sites)
    shipped = np.array([verdict_confidence(r.features) for r in rows])
    report(f"shipped weights {DEFAULT_POLICY.confidence_weights}", shipped, y, accepted, sites)


if __name__ == "__main__":
    main()
