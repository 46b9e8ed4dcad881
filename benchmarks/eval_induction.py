"""Accuracy of template induction on real pages (issue 4's figures).

Run: ``python benchmarks/eval_induction.py [--verbose]``. Needs ``../shared/data`` next to
the repository. The protocol for unsupervised wrappers: for each attribute, the field is
chosen on the pages the wrapper was learned from, then judged on a page it was not learned
from.

* recipe_scrapers_testdata, sites with >= 3 pages, leave one page out: title accuracy
  (normalised whitespace and case) and ingredient lines as the records of one region
  (token-overlap matching, line-level precision and recall);
* scrapely_samples: the two icone.co.uk pages, do name / designer / price come out as fields;
* pydepta_records: records of one list region vs the expected records (record-level F1).

By default pages are parsed with their embedded JSON-LD offered as fields (what the wrapper
does in a crawl); ``--no-structured`` measures the visible HTML alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pagesim_scrapy.core.induce import induce, parse_html  # noqa: E402
from pagesim_scrapy.core.induce.evaluation import (  # noqa: E402
    LineScore,
    candidate_lists,
    candidate_values,
    choose,
    match_lines,
    normalise,
)

DATA = ROOT.parent / "shared" / "data"
RECIPES = DATA / "recipe_scrapers_testdata" / "tests" / "test_data"
SCRAPELY = DATA / "scrapely_samples" / "tests" / "samples"
DEPTA = DATA / "pydepta_records" / "pydepta" / "tests" / "resources"


def recipe_sites(min_pages: int = 3) -> list[tuple[str, list[Path]]]:
    sites = []
    for site in sorted(RECIPES.iterdir()):
        pages = sorted(site.glob("*.testhtml"))
        if len(pages) >= min_pages:
            sites.append((site.name, pages))
    return sites


def expected_of(page: Path) -> dict:
    return json.loads(page.with_suffix(".json").read_text(encoding="utf-8"))


def eval_recipes(verbose: bool, structured: bool = True) -> dict:
    site_title: list[float] = []
    site_ing: list[LineScore] = []
    total_ing = LineScore(0, 0, 0)
    folds = correct = fits = 0
    learn_times: list[float] = []
    for site, pages in recipe_sites():
        # parsed once per page (induction and extraction do not modify the trees)
        data = [parse_html(p.read_bytes(), structured=structured) for p in pages]
        expected = [expected_of(p) for p in pages]
        hits = 0
        ing_site = LineScore(0, 0, 0)
        for k in range(len(pages)):
            train = [i for i in range(len(pages)) if i != k]
            start = time.perf_counter()
            wrapper = induce([data[i] for i in train], label="recipe")
            learn_times.append(time.perf_counter() - start)
            train_records = [wrapper.extract(data[i]).record for i in train]
            # title: the scalar field equal to the title on most training pages
            scores: dict[str, float] = {}
            for i, rec in zip(train, train_records):
                want = normalise(expected[i].get("title"))
                for name, value in candidate_values(rec).items():
                    if want and normalise(value) == want:
                        scores[name] = scores.get(name, 0.0) + 1
            # ties: a visible field before the page's <head> (titles there carry suffixes)
            in_head = {f.name for f in wrapper.fields if f.path.startswith("html > head")}
            title_field, _ = choose(
                sorted(scores.items(), key=lambda kv: (kv[0] in in_head, -kv[1]))
            )
            test_result = wrapper.extract(data[k])
            fits += test_result.ok
            test_record = test_result.record
            got = test_record.get(title_field) if title_field else None
            ok = bool(got) and normalise(got) == normalise(expected[k].get("title"))
            hits += ok
            # ingredients: the region whose records match the lines best on training pages
            # (a region absent from a training page misses that page's lines: it is scored
            # on every training page, not only on those that have it)
            per_page = [candidate_lists(rec) for rec in train_records]
            names = list(dict.fromkeys(name for lists in per_page for name in lists))
            line_scores: dict[str, LineScore] = {}
            for i, lists in zip(train, per_page):
                want_lines = expected[i].get("ingredients") or []
                for name in names:
                    score = match_lines(lists.get(name, []), want_lines)
                    line_scores[name] = line_scores.get(name, LineScore(0, 0, 0)) + score
            ing_field, _ = choose((n, s.f1) for n, s in line_scores.items())
            lines = candidate_lists(test_record).get(ing_field, []) if ing_field else []
            fold_ing = match_lines(lines, expected[k].get("ingredients") or [])
            ing_site = ing_site + fold_ing
            if verbose:
                print(
                    f"  {site} page {k}: title[{title_field}]={'ok' if ok else 'MISS'} "
                    f"({got!r:.60} vs {expected[k].get('title')!r:.60}); "
                    f"ingredients[{ing_field}] P={fold_ing.precision:.2f} R={fold_ing.recall:.2f}"
                )
        folds += len(pages)
        correct += hits
        site_title.append(hits / len(pages))
        site_ing.append(ing_site)
        total_ing = total_ing + ing_site
        print(
            f"{site:32s} pages={len(pages)} title={hits}/{len(pages)} "
            f"ingredients P={ing_site.precision:.2f} R={ing_site.recall:.2f}"
        )
    result = {
        "sites": len(site_title),
        "folds": folds,
        "title_accuracy_over_sites": statistics.mean(site_title),
        "title_accuracy_over_pages": correct / folds,
        "ingredients_precision_lines": total_ing.precision,
        "ingredients_recall_lines": total_ing.recall,
        "ingredients_precision_over_sites": statistics.mean(s.precision for s in site_ing),
        "ingredients_recall_over_sites": statistics.mean(s.recall for s in site_ing),
        "median_learn_seconds": statistics.median(learn_times),
        "held_out_fit": fits,
    }
    return result


def eval_scrapely() -> dict:
    pages = [SCRAPELY / f"samples_scraper_loadstore_{i}.html" for i in (0, 1)]
    expected = [json.loads(p.with_suffix(".json").read_text()) for p in pages]
    wrapper = induce([p.read_bytes() for p in pages], label="product")
    records = [wrapper.extract(p.read_bytes()).record for p in pages]
    found: dict[str, list[str]] = {}
    for attr in ("name", "designer", "price"):
        names = []
        for field in candidate_values(records[0]):
            values = [rec.get(field) or "" for rec in records]
            if all(_loose_equal(v, exp[attr]) for v, exp in zip(values, expected)):
                names.append(field)
        found[attr] = names
        print(
            f"scrapely icone.co.uk {attr:8s} -> fields {names} "
            f"values {[rec.get(names[0]) for rec in records] if names else None}"
        )
    return found


def _loose_equal(value: str, want: str) -> bool:
    if normalise(value) == normalise(want):
        return True
    # a price field holds "£340.00 (inc VAT)" for "340"
    number = want.replace(",", "")
    return (
        any(ch.isdigit() for ch in want)
        and number.split(".")[0] in value.replace(",", "")
        and (normalise(value).startswith(("£", "$", "€")) or normalise(value)[0].isdigit())
    )


def _expected_records(page: Path) -> list[str]:
    text = page.with_suffix(".txt").read_text(encoding="utf-8")
    return [" ".join(line.split("\t")) for line in text.splitlines() if line.strip()]


def _record_f1(records: list[str], expected: list[str]) -> LineScore:
    return match_lines(records, expected, threshold=0.8)


def eval_depta(verbose: bool) -> dict:
    out: dict[str, float] = {}
    setups = [("1+3", [1, 3]), ("2 alone", [2])]
    total = LineScore(0, 0, 0)
    for name, ids in setups:
        pages = [DEPTA / f"{i}.html" for i in ids]
        wrapper = induce([p.read_bytes() for p in pages], label="reviews")
        for page in pages:
            ext = wrapper.extract(page.read_bytes())
            got = [r.get("text", "") for r in ext.records]
            want = _expected_records(page)
            score = _record_f1(got, want)
            total = total + score
            print(
                f"pydepta {page.name} (wrapper from {name}, region {wrapper.main_region!r}, "
                f"kind {wrapper.kind}): {len(got)} records, {len(want)} expected, "
                f"P={score.precision:.2f} R={score.recall:.2f} F1={score.f1:.2f}"
            )
            out[page.name] = score.f1
            if verbose:
                for r in got[:8]:
                    print("   ", r[:110])
    out["pooled_f1"] = total.f1
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument(
        "--no-structured",
        action="store_true",
        help="recipes: ignore the pages' embedded JSON-LD (the visible HTML alone)",
    )
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"shared data not found at {DATA}", file=sys.stderr)
        return 2
    print("== recipe_scrapers_testdata, leave one page out ==")
    rec = eval_recipes(args.verbose, structured=not args.no_structured)
    print("== scrapely_samples ==")
    scr = eval_scrapely()
    print("== pydepta_records ==")
    dep = eval_depta(args.verbose)
    print()
    print("SUMMARY")
    source = "visible HTML only" if args.no_structured else "HTML and embedded JSON-LD"
    print(f"recipes: {rec['sites']} sites, {rec['folds']} held-out pages ({source})")
    print(f"  title accuracy over sites          {rec['title_accuracy_over_sites']:.3f}")
    print(f"  title accuracy over pages          {rec['title_accuracy_over_pages']:.3f}")
    print(
        f"  ingredient lines precision/recall  {rec['ingredients_precision_lines']:.3f} / "
        f"{rec['ingredients_recall_lines']:.3f} (pooled lines)"
    )
    print(
        f"  ingredient lines precision/recall  {rec['ingredients_precision_over_sites']:.3f} / "
        f"{rec['ingredients_recall_over_sites']:.3f} (mean over sites)"
    )
    print(f"  held-out pages that fit the wrapper {rec['held_out_fit']}/{rec['folds']}")
    print(
        f"  median induction time per fold     {rec['median_learn_seconds'] * 1000:.0f} ms "
        "(parsing excluded)"
    )
    print(
        "scrapely icone.co.uk: "
        + ", ".join(f"{attr}={'yes' if names else 'NO'}" for attr, names in scr.items())
    )
    print("pydepta: " + ", ".join(f"{k} F1={v:.2f}" for k, v in dep.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
