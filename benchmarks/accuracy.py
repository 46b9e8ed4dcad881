"""Classification accuracy on labelled real pages (issue 2's figures).

    python benchmarks/accuracy.py [--methods lcs,layers,...] [--quick]

1. Stack Overflow page types, page 01 of each type as the only template: nearest-label accuracy
   per measure.
2. Stack Overflow, one label at a time, templates = pages 01 and 02 of that type, test = every
   other page of every type, threshold "auto": precision / recall / F1 per type.
3. Recipe sites with >= 3 pages: two pages of a site as templates, every other page of all
   sites as test, threshold "auto": F1 per site, averaged; once with the first two pages as
   templates and once over every pair of the site's pages. Beside it, the F1 of the best
   threshold in hindsight: the ceiling of any threshold rule with that measure.
Auto thresholds see the test pages' scores (as a crawl sees the pages it has fetched), never
their labels.
"""

from __future__ import annotations

import argparse
import statistics
import time
from itertools import combinations

from _data import shared

from pagesim_scrapy.core.classify import TemplateClassifier
from pagesim_scrapy.core.evaluate import label_scores, labelled_folders
from pagesim_scrapy.core.summary import PageSummary, summarize

MEASURES = {
    "lcs": {},
    "lcs-rsn": {"relation": "rsn"},
    "lcs-rpsa": {"relation": "rpsa"},
    "layers": {},
    "layers-lcs": {"align": "lcs", "normalise": True},
    "style": {},
    "combined": {},
    "ted": {},
}


def method_of(name: str) -> tuple[str, dict]:
    return name.split("-")[0], MEASURES[name]


def one_class_f1(
    templates: list[PageSummary],
    tests: list[tuple[PageSummary, bool]],
    method: str,
    params: dict,
    oracle: list[float] | None = None,
) -> tuple[float, float, float]:
    """P/R/F1 of the auto threshold; ``oracle`` gets the F1 of the best threshold in hindsight."""
    clf = TemplateClassifier({"x": templates}, method=method, params=params)
    scores = [clf.scores(page) for page, _ in tests]
    clf.fit_distribution(scores)
    predicted = [clf.decide(s).label for s in scores]
    truth = ["x" if positive else None for _, positive in tests]
    result = label_scores(truth, predicted, ["x"])[0]
    if oracle is not None:
        oracle.append(best_threshold_f1([s["x"] for s in scores], [p for _, p in tests]))
    return result.precision, result.recall, result.f1


def best_threshold_f1(scores: list[float], positive: list[bool]) -> float:
    """F1 of the best cut "score >= t" over every observed score: what no threshold rule beats."""
    support = sum(positive)
    best = 0.0
    for cut in set(scores):
        chosen = [p for s, p in zip(scores, positive) if s >= cut]
        hits = sum(chosen)
        if hits:
            best = max(best, 2 * hits / (len(chosen) + support))
    return best


def stackoverflow(methods: list[str]) -> None:
    folders = labelled_folders(shared("stackoverflow_page_types"))
    pages = {label: [summarize(p) for p in paths] for label, paths in folders.items()}
    print("## Stack Overflow: nearest label, template = page 01 of each type")
    for name in methods:
        method, params = method_of(name)
        clf = TemplateClassifier(
            {label: [ps[0]] for label, ps in pages.items()}, method=method, params=params
        )
        t0 = time.perf_counter()
        hits = total = 0
        for label, ps in pages.items():
            for page in ps[1:]:
                scores = clf.scores(page)
                hits += max(scores, key=scores.__getitem__) == label
                total += 1
        print(
            f"  {name:12s} accuracy {hits / total:.3f} ({hits}/{total}) "
            f"{(time.perf_counter() - t0) / total * 1000:.1f} ms/page"
        )
    print("## Stack Overflow: one class, templates = pages 01+02, auto threshold")
    for name in methods:
        method, params = method_of(name)
        f1s = []
        parts = []
        for label, ps in pages.items():
            tests = [
                (p, other == label)
                for other, qs in pages.items()
                for p in qs
                if not (other == label and qs.index(p) < 2)
            ]
            p, r, f = one_class_f1(ps[:2], tests, method, params)
            f1s.append(f)
            parts.append(f"{label} P={p:.2f} R={r:.2f} F1={f:.2f}")
        print(f"  {name:12s} min F1 {min(f1s):.3f}  | " + "; ".join(parts))


def recipes(methods: list[str], all_pairs: bool) -> None:
    root = shared("recipe_scrapers_testdata", "tests", "test_data")
    sites = {
        d.name: [summarize(p) for p in sorted(d.glob("*.testhtml"))]
        for d in sorted(root.iterdir())
        if d.is_dir()
    }
    everything = [(site, i, s) for site, ss in sites.items() for i, s in enumerate(ss)]
    big = [site for site, ss in sites.items() if len(ss) >= 3]
    mode = "every pair of a site's pages" if all_pairs else "the first two pages"
    print(f"## Recipes: {len(big)} sites with >= 3 pages, templates = {mode}, auto threshold")
    for name in methods:
        method, params = method_of(name)
        site_f1 = []
        site_oracle = []
        worst = []
        for site in big:
            pairs = list(combinations(range(len(sites[site])), 2)) if all_pairs else [(0, 1)]
            f1s: list[float] = []
            oracle: list[float] = []
            for i, j in pairs:
                tests = [
                    (s, other == site)
                    for other, k, s in everything
                    if not (other == site and k in (i, j))
                ]
                templates = [sites[site][i], sites[site][j]]
                f1s.append(one_class_f1(templates, tests, method, params, oracle)[2])
            site_f1.append(statistics.mean(f1s))
            site_oracle.append(statistics.mean(oracle))
            if site_f1[-1] < 0.95:
                worst.append(f"{site}={site_f1[-1]:.2f} (best threshold {site_oracle[-1]:.2f})")
        print(
            f"  {name:12s} mean F1 {statistics.mean(site_f1):.3f}  "
            f"(with the best threshold in hindsight per site: {statistics.mean(site_oracle):.3f})"
            f"  below 0.95: {', '.join(worst) or 'none'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--methods", default=",".join(MEASURES))
    parser.add_argument("--recipe-methods", default="lcs,combined")
    parser.add_argument("--skip-recipes", action="store_true")
    args = parser.parse_args()
    stackoverflow(args.methods.split(","))
    if not args.skip_recipes:
        for all_pairs in (False, True):
            recipes(args.recipe_methods.split(","), all_pairs)


if __name__ == "__main__":
    main()
