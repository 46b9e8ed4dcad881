"""Layout-change alarm (issue 33): changes detected and false alarms, per site, on real pages.

    python benchmarks/eval_drift.py [--seeds 5] [--json]
    python benchmarks/eval_drift.py --fields [--seeds 3] [--json]   # wrapper drift

Pairs of "before" and "now" pages of one site, each judged by
:func:`pagesim_scrapy.core.drift.compare_looks` with the crawl's summary options:

* same layout (must say unchanged or two looks, never changed): every label with >= 10 pages
  of every site in ../shared/data/site_page_types, site_page_types_2 and stackoverflow_page_types
  cut into two random halves (``--seeds`` cuts each), the other labels' pages cut likewise (the
  site's chrome); the Creative Commons blog's archived tech blog (2007-2014 posts) against its
  current blog, for the labels whose template did not change (see CC_ERAS); and a crawl that
  meets the types in other proportions (a random third of the other labels' pages now).
* controlled theme changes (must say changed): the demo shop (sample_project/demo_site) and
  the Creative Commons blog's real pages, changed the way a redesign changes a page type:
  classes renamed in the main content, a block moved to another parent, a new gallery added,
  the content wrapped in new layout containers. Half of the pages are the baseline, the other
  half changed.
* real template swaps (must say changed): a label's pages now look like another page type of
  the same site (its pages are another template of that site): the page type was redesigned
  into a layout the site already uses elsewhere.
* A/B (must say two looks): half of the new pages changed, the other half not.
* one site in two eras: the Creative Commons archived tech blog against its current blog,
  per label, scored against what the pages' HTML shows (CC_ERAS).

Printed per site: the share of changes detected and the false alarms on same-layout pairs.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from lxml import etree, html

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._data import REPO, shared
from pagesim_scrapy.core.drift import (
    CHANGED,
    TWO_LOOKS,
    UNCHANGED,
    UNLABELLED,
    DriftReport,
    SiteLooks,
    compare_looks,
    skeleton_features,
)
from pagesim_scrapy.core.explain import readable_codes
from pagesim_scrapy.core.site import Features, structural_features
from pagesim_scrapy.core.summary import SummaryOptions, summarize
from pagesim_scrapy.settings import DEFAULT_MAX_NODES

OPTIONS = SummaryOptions(max_nodes=DEFAULT_MAX_NODES)
DEMO_SITE = REPO / "sample_project" / "demo_site"

Page = tuple[str, Features]  # (page id, features)
Site = dict[str, list[Page]]  # label -> pages


# ----------------------------------------------------------------------------- pages


#: The tag skeleton of every page summarised here, by its features (the features hold each
#: node's tag, so pages with the same features have the same skeleton).
SKELETONS: dict[Features, Features] = {}


def features_of(data: bytes | str, page_id: str = "") -> Features:
    summary = summarize(data, OPTIONS, source=page_id or None)
    features = structural_features(summary)
    SKELETONS[features] = skeleton_features(summary)
    return features


def labelled_csv_site(folder: Path) -> dict[str, list[Path]]:
    """label -> page files of a site folder with a labels.csv."""
    out: dict[str, list[Path]] = defaultdict(list)
    with (folder / "labels.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            out[row["page_type"]].append(folder / row["path"])
    return dict(out)


def real_sites() -> dict[str, dict[str, list[Path]]]:
    sites = {}
    for collection in ("site_page_types", "site_page_types_2"):
        root = shared(collection)
        for folder in sorted(p for p in root.iterdir() if (p / "labels.csv").is_file()):
            sites[folder.name] = labelled_csv_site(folder)
    so = shared("stackoverflow_page_types")
    sites["stackoverflow"] = {
        d.name: sorted(d.glob("*.html")) for d in sorted(so.iterdir()) if d.is_dir()
    }
    return sites


def demo_site() -> dict[str, list[Path]]:
    labels = json.loads((DEMO_SITE / "labels.json").read_text(encoding="utf-8"))
    out: dict[str, list[Path]] = defaultdict(list)
    for path, label in sorted(labels.items()):
        out[label].append(DEMO_SITE / path)
    return dict(out)


def read_site(paths: dict[str, list[Path]]) -> Site:
    return {
        label: [(str(p), features_of(p.read_bytes(), str(p))) for p in files]
        for label, files in paths.items()
    }


# ----------------------------------------------------------------------------- theme changes


def _content_root(root: Any) -> Any:
    """The page's main content: <main>, else the body's largest child."""
    found = root.xpath("//main")
    if found:
        return found[0]
    body = root.find("body")
    if body is None:
        return root
    return max(body, key=lambda el: sum(1 for _ in el.iter()), default=body)


def rename_classes(root: Any) -> None:
    """A new theme build: every class of the main content renamed."""
    for element in _content_root(root).iter():
        if isinstance(element.tag, str) and element.get("class"):
            element.set("class", " ".join(f"v2-{token}" for token in element.get("class").split()))


def move_block(root: Any) -> None:
    """A block moved to another parent: the largest classed grandchild of the main content
    (the same block on every page of a type) lifted to be the main content's first child."""
    main = _content_root(root)
    grandchildren = [g for child in main for g in child if isinstance(g.tag, str)]
    classed = [g for g in grandchildren if g.get("class")] or grandchildren
    if not classed:
        return
    block = max(classed, key=lambda el: sum(1 for _ in el.iter()))
    block.getparent().remove(block)
    main.insert(0, block)


def add_gallery(root: Any) -> None:
    """A new gallery at the top of the main content."""
    gallery = html.fragment_fromstring(
        '<section class="media-gallery"><h2 class="gallery-title">Gallery</h2>'
        '<ul class="gallery-grid">'
        + "".join(
            f'<li class="gallery-item"><figure class="gallery-figure"><img src="g{i}.jpg" alt="">'
            f'<figcaption class="gallery-caption">Photo {i}</figcaption></figure></li>'
            for i in range(4)
        )
        + "</ul></section>"
    )
    _content_root(root).insert(0, gallery)


def wrap_layout(root: Any) -> None:
    """The content wrapped in new layout containers (a grid framework's rows and columns)."""
    main = _content_root(root)
    row = etree.SubElement(main, "div", {"class": "layout-row"})
    column = etree.SubElement(row, "div", {"class": "layout-col layout-col-main"})
    for child in list(main):
        if child is not row:
            main.remove(child)
            column.append(child)
    main.remove(row)
    main.insert(0, row)


THEME_CHANGES: dict[str, Callable[[Any], None]] = {
    "rename_classes": rename_classes,
    "move_block": move_block,
    "add_gallery": add_gallery,
    "wrap_layout": wrap_layout,
}


def changed_page(path: Path, change: Callable[[Any], None]) -> bytes:
    """The page at ``path`` with a theme change applied."""
    root = html.document_fromstring(path.read_bytes())
    change(root)
    return html.tostring(root, encoding="utf-8")


def readable_names(paths: list[Path], change: Callable[[Any], None]) -> dict[str, str]:
    """Readable node labels of pages before and after a theme change (for the evidence)."""
    roots = [html.document_fromstring(p.read_bytes()) for p in paths]
    roots += [html.document_fromstring(changed_page(p, change)) for p in paths]
    return readable_codes(roots, OPTIONS)


# ----------------------------------------------------------------------------- comparisons


def looks_of(site: Site) -> SiteLooks:
    looks = SiteLooks()
    for label, pages in site.items():
        for page_id, features in pages:
            looks.add(label, features, page_id, SKELETONS.get(features))
    return looks


def halves(pages: list[Any], rng: random.Random) -> tuple[list[Any], list[Any]]:
    shuffled = pages[:]
    rng.shuffle(shuffled)
    middle = len(shuffled) // 2
    return shuffled[:middle], shuffled[middle:]


def split_site(site: Site, rng: random.Random) -> tuple[Site, Site]:
    before: Site = {}
    now: Site = {}
    for label, pages in site.items():
        before[label], now[label] = halves(pages, rng)
    return before, now


def judge(site_name: str, label: str, before: Site, now: Site) -> DriftReport:
    return compare_looks(site_name, label, looks_of(before), looks_of(now))


# ----------------------------------------------------------------------------- the cases


Case = tuple[str, str, str, str, DriftReport]  # (site, kind, label, expected, report)


def same_layout_cases(sites: dict[str, Site], seeds: int) -> Iterable[Case]:
    for name, site in sites.items():
        for seed in range(seeds):
            rng = random.Random(f"{name}-{seed}")
            before, now = split_site(site, rng)
            for label, pages in site.items():
                if len(pages) >= 10:
                    yield name, "random halves", label, UNCHANGED, judge(name, label, before, now)
            # other proportions: the largest label whole, the others a third of their pages
            big = max(site, key=lambda k: len(site[k]))
            thinned = {k: v if k == big else v[: len(v) // 3] for k, v in now.items()}
            report = judge(name, big, before, thinned)
            yield name, "other proportions", big, UNCHANGED, report


#: The archived tech blog against the current blog, per label, as the pages' HTML shows it:
#: the archive's entry lists carry an "archived" alert in their header (``div.alert-info``) and
#: no RSS link; a part of the current posts end with related posts and a closing aside
#: (``article.posts.related``, ``aside.closing``), which no archived post has; author and
#: category pages share one template in both (grep the pages for these classes).
CC_ERAS = {
    "entry_list": CHANGED,
    "blog_entry": TWO_LOOKS,
    "author_page": UNCHANGED,
    "category_page": UNCHANGED,
}


def cc_era_cases(site: Site) -> Iterable[Case]:
    """Archived tech blog (2007-2014) vs current blog: one site in two eras."""
    name = "cc_opensource_blog"
    for label, expected in CC_ERAS.items():
        pages = site.get(label, [])
        old = [p for p in pages if "old-tech-blog" in p[0]]
        new = [p for p in pages if "old-tech-blog" not in p[0]]
        if len(old) >= 5 and len(new) >= 5:
            others = {k: v for k, v in site.items() if k != label}
            before = {**others, label: old}
            now = {**others, label: new}
            yield name, "old tech blog vs blog", label, expected, judge(name, label, before, now)


#: Page types redesigned into another template of the same site (different templates).
SWAPS = {
    "cc_opensource_blog": [("blog_entry", "static_page"), ("author_page", "category_page")],
    "stackoverflow": [("question", "users"), ("tags", "jobs")],
    "android_stackexchange": [("question", "user_profile"), ("badge", "tag_info")],
    "calcite_site": [("news_post", "javadoc_class"), ("doc_page", "javadoc_package")],
    "oem_forum": [("forum_topic", "forum_list")],
    "flink_site": [("blog_list", "blog_post")],
    "awesomewm_wiki": [("article", "special_search"), ("user", "special_log")],
    "cpython_docs": [("genindex_letter", "library_module")],
}


def swap_cases(sites: dict[str, Site], rng: random.Random) -> Iterable[Case]:
    for name, swaps in SWAPS.items():
        site = sites.get(name)
        if not site:
            continue
        for old, new in swaps:
            before_other, now_other = split_site(
                {k: v for k, v in site.items() if k not in (old, new)}, rng
            )
            before = {**before_other, old: site[old]}
            now = {**now_other, old: site[new]}
            yield name, f"{old} now looks like {new}", old, CHANGED, judge(name, old, before, now)


def theme_cases(
    name: str, paths: dict[str, list[Path]], site: Site, labels: list[str], rng: random.Random
) -> Iterable[Case]:
    """Controlled theme changes on half of each label's pages (and an A/B mix)."""
    for label in labels:
        files = sorted(paths[label])[:80]
        old_files, new_files = halves(files, rng)
        others_before, others_now = split_site({k: v for k, v in site.items() if k != label}, rng)
        before = {**others_before, label: [(str(p), site_page(site, label, p)) for p in old_files]}
        for change_name, change in THEME_CHANGES.items():
            changed = [(str(p), features_of(changed_page(p, change))) for p in new_files]
            now = {**others_now, label: changed}
            yield name, change_name, label, CHANGED, judge(name, label, before, now)
            middle = len(changed) // 2
            mixed = changed[:middle] + [
                (str(p), site_page(site, label, p)) for p in new_files[middle:]
            ]
            yield (
                name,
                f"A/B {change_name}",
                label,
                TWO_LOOKS,
                judge(name, label, before, {**others_now, label: mixed}),
            )


#: Labels configured in the "collapse" cases (the largest ones; the others get no label).
CONFIGURED = 3


def configured(site: Site) -> list[str]:
    """The labels a user would configure: the site's largest ones with >= 10 pages."""
    big = sorted((k for k in site if len(site[k]) >= 10), key=lambda k: (-len(site[k]), k))
    return big[:CONFIGURED]


def unlabel(site: Site, labels: Iterable[str]) -> Site:
    """The site as a crawl configured with ``labels`` sees it: other pages get no label."""
    keep = set(labels)
    out: Site = {}
    for label, pages in site.items():
        out.setdefault(label if label in keep else UNLABELLED, []).extend(pages)
    return out


def collapse_same_layout_cases(sites: dict[str, Site], seeds: int) -> Iterable[Case]:
    """A configured label the crawl meets (almost) no page of, in the same layout: the crawl
    met the types in another order or proportion. Must never say changed."""
    for name, site in sites.items():
        labels = configured(site)
        others = [k for k in site if k not in labels and len(site[k]) >= 5]
        for seed in range(seeds):
            before, now = split_site(site, random.Random(f"{name}-collapse-{seed}"))
            for label in labels:
                kinds = {
                    "label not met": {k: v for k, v in now.items() if k != label},
                    "label met once": {**now, label: now[label][:1]},
                }
                if others:  # the baseline never met a type the crawl now meets
                    new_type = others[seed % len(others)]
                    kinds["label not met, a new type met"] = {
                        k: v for k, v in now.items() if k != label
                    }
                    before_without = {k: v for k, v in before.items() if k != new_type}
                else:
                    before_without = before
                for kind, pages in kinds.items():
                    base = before_without if "new type" in kind else before
                    report = judge_unlabelled(name, label, base, pages, labels)
                    yield name, f"collapse: {kind}", label, UNCHANGED, report


def collapse_change_cases(
    name: str, paths: dict[str, list[Path]], site: Site, labels: list[str], rng: random.Random
) -> Iterable[Case]:
    """A label redesigned so that its pages got no label: they are among the unlabelled."""
    for label in labels:
        files = sorted(paths[label])[:80]
        _, new_files = halves(files, rng)
        before, now = split_site(site, rng)
        now.pop(label)
        for change_name, change in THEME_CHANGES.items():
            changed = [(str(p), features_of(changed_page(p, change))) for p in new_files]
            crawl = unlabel(now, labels)
            crawl[UNLABELLED] = crawl.get(UNLABELLED, []) + changed
            report = compare_looks(name, label, looks_of(unlabel(before, labels)), looks_of(crawl))
            yield name, f"collapse: {change_name}, no label now", label, CHANGED, report


def judge_unlabelled(
    site_name: str, label: str, before: Site, now: Site, labels: list[str]
) -> DriftReport:
    return judge(site_name, label, unlabel(before, labels), unlabel(now, labels))


def site_page(site: Site, label: str, path: Path) -> Features:
    return dict(site[label])[str(path)]


# ----------------------------------------------------------------------------- report


def all_cases(seeds: int, collapse: bool = True) -> list[Case]:
    rng = random.Random(33)
    paths = real_sites()
    sites = {name: read_site(p) for name, p in paths.items()}
    demo_paths = demo_site()
    demo = read_site(demo_paths)
    cases = list(same_layout_cases({**sites, "demo_shop": demo}, seeds))
    cases += cc_era_cases(sites["cc_opensource_blog"])
    cases += swap_cases(sites, rng)
    cases += theme_cases("demo_shop", demo_paths, demo, ["product", "category", "search"], rng)
    cc = "cc_opensource_blog"
    cases += theme_cases(cc, paths[cc], sites[cc], ["blog_entry", "author_page"], rng)
    if collapse:
        cases += collapse_same_layout_cases({**sites, "demo_shop": demo}, seeds)
        cases += collapse_change_cases(
            "demo_shop", demo_paths, demo, ["product", "category", "search"], rng
        )
        cases += collapse_change_cases(cc, paths[cc], sites[cc], ["blog_entry", "author_page"], rng)
    return cases


def per_site(cases: list[Case]) -> list[dict[str, Any]]:
    rows = []
    for site in sorted({case[0] for case in cases}):
        mine = [case for case in cases if case[0] == site]
        row: dict[str, Any] = {"site": site}
        for expected, key in ((CHANGED, "changes"), (TWO_LOOKS, "ab"), (UNCHANGED, "same")):
            group = [case for case in mine if case[3] == expected]
            if not group:
                continue
            verdicts = [case[4].verdict for case in group]
            row[f"{key}_pairs"] = len(group)
            if expected == UNCHANGED:
                row["false_alarms"] = sum(v == CHANGED for v in verdicts) / len(group)
                row["two_looks_said"] = sum(v == TWO_LOOKS for v in verdicts) / len(group)
            else:
                row[f"{key}_detected"] = sum(v == expected for v in verdicts) / len(group)
                if expected == TWO_LOOKS:
                    row["ab_called_changed"] = sum(v == CHANGED for v in verdicts) / len(group)
        rows.append(row)
    return rows


def totals(cases: list[Case]) -> dict[str, Any]:
    def share(expected: str, said: str) -> float | None:
        group = [case for case in cases if case[3] == expected]
        return round(sum(c[4].verdict == said for c in group) / len(group), 3) if group else None

    return {
        "changes_detected": share(CHANGED, CHANGED),
        "two_looks_detected": share(TWO_LOOKS, TWO_LOOKS),
        "false_alarms": share(UNCHANGED, CHANGED),
        "same_layout_said_two_looks": share(UNCHANGED, TWO_LOOKS),
        "pairs": len(cases),
        # a label whose pages got no label: changes detected, and same-layout crawls not
        # called changed (no verdict counts as right there), per kind of pair
        "collapse_right": {
            kind: round(
                sum(_right(c[3], c[4].verdict) for c in cases if c[1] == kind)
                / sum(c[1] == kind for c in cases),
                3,
            )
            for kind in sorted({c[1] for c in cases if c[1].startswith("collapse: ")})
        },
    }


def _right(expected: str, said: str | None) -> bool:
    """A verdict as expected (for a same-layout pair, no verdict is right too)."""
    return said == expected or (expected == UNCHANGED and said is None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="random halves per site (5)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--misses", action="store_true", help="print every wrong verdict")
    parser.add_argument(
        "--no-collapse",
        action="store_true",
        help="leave out the cases of a label whose pages got no label (the earlier set)",
    )
    parser.add_argument(
        "--fields",
        action="store_true",
        help="wrapper drift instead: fields a learned wrapper stops finding (see _drift_fields)",
    )
    args = parser.parse_args(argv)
    if args.fields:
        from benchmarks._drift_fields import run

        sites = {"demo_shop": demo_site(), **real_sites()}
        run(sites, args.seeds, THEME_CHANGES, changed_page, args.json)
        return 0
    started = time.perf_counter()
    cases = all_cases(args.seeds, collapse=not args.no_collapse)
    rows = per_site(cases)
    summary = {**totals(cases), "seconds": round(time.perf_counter() - started, 1)}
    if args.json:
        print(json.dumps({"sites": rows, "total": summary}, indent=2))
        return 0
    columns = [
        "site",
        "changes_pairs",
        "changes_detected",
        "ab_pairs",
        "ab_detected",
        "same_pairs",
        "false_alarms",
        "two_looks_said",
    ]
    print("  ".join(f"{c:>16}" for c in columns))
    for row in rows:
        print("  ".join(f"{_cell(row.get(c)):>16}" for c in columns))
    print("total:", json.dumps(summary))
    if args.misses:
        for site, kind, label, expected, report in cases:
            if not _right(expected, report.verdict):
                print(f"MISS {site} [{kind}] {label}: expected {expected}; {report.summary()}")
    return 0


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


if __name__ == "__main__":
    sys.exit(main())
