"""What a user gets in a page item's ``record``: before (the wrapper's own record) and after
(the core record first, then the induced fields that add to it).

Per site and page type, a wrapper is learned the way the induction pipeline's relearning
learns it (``Wrapper.add_pages``: canonical order) from the type's first ``--learn`` pages,
then every page of the type (at most ``--pages``) is extracted. ``before`` is the wrapper's
record as the pipeline gave it until now (the induction core is unchanged, so this is the
record of main before the change); ``after`` is
:func:`pagesim_scrapy.core.record.item_record` of the page's core record and that record.
The core record is typed as the pipeline types it once the label's naming is fixed: a plain
page of a type whose ``--learn`` pages' records are mostly threads is a thread when its body
shows one signed post (:func:`pagesim_scrapy.core.record.build.typed_by_label`).

Figures per record (means over the type's pages):

* ``fields``: top-level fields;
* ``repeats``: fields whose value repeats an earlier field's (whitespace- and case-folded
  text, a group list's texts joined, or the same price decimal);
* ``layout``: names that are a URL scheme, a value's text (``f_…``), a function word or
  hold a CSS layout word (``li``, ``span``, ``style``, ``hidden``, ``visually``, ``sr``,
  ``spacing``, ``wrapper``…) — :func:`pagesim_scrapy.core.record.tidy.is_layout_name`;
* ``numbered``: names ending in a slot number (``related_products_5``), counted apart;
* ``std``: share of pages with a non-empty value under each standard name of the type.

Run: ``python benchmarks/eval_item_records.py [--learn N] [--pages N]``. Deterministic.
"""

from __future__ import annotations

import argparse
import csv
import logging
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pagesim_scrapy.core.induce import Wrapper, parse_html  # noqa: E402
from pagesim_scrapy.core.record import item_record, read_record  # noqa: E402
from pagesim_scrapy.core.record.build import label_type  # noqa: E402
from pagesim_scrapy.core.record.rows import page_rows  # noqa: E402
from pagesim_scrapy.core.record.tidy import is_layout_name, value_keys  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
DEMO = ROOT / "sample_project" / "demo_site"

#: (data set, site, page type): the detail types of the site collections
TYPES = [
    ("site_page_types", "android_stackexchange", "question"),
    ("site_page_types", "awesomewm_wiki", "article"),
    ("site_page_types", "cc_opensource_blog", "blog_entry"),
    ("site_page_types", "cpython_docs", "library_module"),
    ("site_page_types", "flink_site", "blog_post"),
    ("site_page_types_2", "calcite_site", "javadoc_class"),
    ("site_page_types_2", "calcite_site", "news_post"),
    ("site_page_types_2", "oem_forum", "forum_topic"),
    ("site_page_types_2", "rust_blog", "blog_post"),
]

#: the standard names looked for, per core page type
STANDARD = {
    "product": ("name", "price", "currency", "brand", "sku", "images", "description"),
    "article": ("headline", "author", "date_published", "images", "description"),
    "thread": ("title", "posts"),
    "page": ("name", "description", "images"),
}
_NUMBERED = re.compile(r"_\d+$")
_MARKER = "pagesim_wrapper"


def demo_pages() -> list[tuple[str, bytes]]:
    import json

    labels = json.loads((DEMO / "labels.json").read_text(encoding="utf-8"))
    paths = sorted(path for path, label in labels.items() if label == "product")
    return [("https://shop.example/" + path, (DEMO / path).read_bytes()) for path in paths]


def type_pages(dataset: str, site: str, page_type: str) -> list[tuple[str, bytes]]:
    folder = DATA / dataset / site
    with (folder / "labels.csv").open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["page_type"] == page_type]
    rows.sort(key=lambda row: row["path"])
    return [(row["url"], (folder / row["path"]).read_bytes()) for row in rows]


def repeats(record: dict[str, Any]) -> int:
    seen: set[str] = set()
    count = 0
    for value in record.values():
        keys = value_keys(value)
        count += bool(keys & seen)
        seen |= keys
    return count


def measure(records: list[dict[str, Any]], names: tuple[str, ...]) -> dict[str, float]:
    n = max(len(records), 1)
    out = {
        "fields": sum(len(r) for r in records) / n,
        "repeats": sum(repeats(r) for r in records) / n,
        "layout": sum(sum(map(is_layout_name, r)) for r in records) / n,
        "numbered": sum(sum(bool(_NUMBERED.search(k)) for k in r) for r in records) / n,
    }
    for name in names:
        out[name] = sum(r.get(name) not in (None, "", [], {}) for r in records) / n
    return out


def evaluate(pages: list[tuple[str, bytes]], learn: int) -> tuple[str, dict, dict]:
    wrapper = Wrapper(label="type")
    wrapper.add_pages([parse_html(html, base_url=url) for url, html in pages[:learn]])
    learned = [read_record(html, url).page_type for url, html in pages[:learn]]
    label = label_type({kind: learned.count(kind) for kind in set(learned)})
    before, after, kinds = [], [], []
    for url, html in pages:
        root = parse_html(html, base_url=url)
        rows = page_rows(root)
        induced = {k: v for k, v in wrapper.extract(root, url=url).record.items() if k != _MARKER}
        core = read_record(html, url, label=label)
        kinds.append(core.page_type if core else "")
        before.append(induced)
        after.append(item_record(core, induced, url, rows).record)
    kind = max(set(kinds), key=lambda k: (kinds.count(k), k)) or "page"
    names = STANDARD.get(kind, STANDARD["page"])
    return kind, measure(before, names), measure(after, names)


class _NoStats:
    def inc_value(self, *args: Any, **kwargs: Any) -> None: ...
    def max_value(self, *args: Any, **kwargs: Any) -> None: ...
    def set_value(self, *args: Any, **kwargs: Any) -> None: ...


def pipeline_records(
    pages: list[tuple[str, bytes]], min_pages: int, max_pages: int = 50, naming: bool = False
) -> dict[str, dict]:
    """The records the induction pipeline's own learn/extract steps give, in this order:
    items held until the label is settled (it learns no more pages: full, or the crawl
    ends), then extracted with the wrapper learned afresh in canonical order; with
    ``naming``, the records' core values also filled from the body as the pipeline does."""
    from pagesim_scrapy.pipelines.induction.learning import Learner
    from pagesim_scrapy.settings import InductionConfig

    config = InductionConfig(min_pages=min_pages, max_pages=max_pages)
    learner = Learner(config, _NoStats(), None)  # type: ignore[arg-type]
    state = learner.label("product")
    assert state is not None
    held: list[tuple[str, str]] = []
    out: dict[str, dict] = {}
    for url, raw in pages:
        learner.take(state, raw.decode("utf-8"), url)  # the pipeline's step
        held.append((url, raw.decode("utf-8")))
        if learner.settled(state):
            _release(learner, state, held, out, naming)
    _release(learner, state, held, out, naming)  # the crawl ends: nothing more to learn
    return out


def _release(
    learner: Any,
    state: Any,
    held: list[tuple[str, str]],
    out: dict,
    naming: bool = False,
) -> None:
    """The pipeline's release of held items: relearn in canonical order, then extract (with
    ``naming``, the core record filled by the pipeline's own body naming of the label)."""
    from pagesim_scrapy.pipelines.induction.learning import Learner
    from pagesim_scrapy.pipelines.induction.records import (
        body_naming,
        compose_record,
        labelled_rows,
        page_tree,
    )

    learner.relearn_locked(state)
    for item_url, html in held:
        root = page_tree(html, item_url, state.wrapper.structured)
        result = Learner.extract(state, html if root is None else root, item_url)
        rows = labelled_rows(root, item_url)
        named = body_naming(state, item_url) if naming else None
        out[item_url] = compose_record(html, result.record, item_url, rows, named).record
    held.clear()


def stability(
    pages: list[tuple[str, bytes]], count: int, min_pages: int, max_pages: int, naming: bool = False
) -> str:
    """Share of pages with identical records in two shuffled crawl orders of the same pages."""
    import random

    sample = random.Random(31).sample(pages, min(count, len(pages)))
    first, second = sample[:], sample[:]
    random.Random(1).shuffle(first)
    random.Random(2).shuffle(second)
    one = pipeline_records(first, min_pages, max_pages, naming)
    two = pipeline_records(second, min_pages, max_pages, naming)
    both, same, differ = _compared(one, two)
    return (
        f"demo_shop product, {len(sample)} pages in two shuffled orders"
        f"{', body naming on' if naming else ''} "
        f"(min_pages={min_pages}, max_pages={max_pages}): identical records "
        f"{same}/{both}, fields differing per page {differ:.1f}"
    )


def _compared(one: dict[str, dict], two: dict[str, dict]) -> tuple[int, int, float]:
    """Pages in both, pages with identical records, fields differing per page."""
    both = [url for url in one if url in two]
    same = sum(one[url] == two[url] for url in both)
    differ = sum(
        len({k for k in set(one[u]) | set(two[u]) if one[u].get(k) != two[u].get(k)}) for u in both
    )
    return len(both), same, differ / max(len(both), 1)


def is_sale_page(html: bytes) -> bool:
    """A demo product page on sale (it shows a compare-at price)."""
    return b'class="old-price"' in html


def adversarial_stability(pages: list[tuple[str, bytes]], min_pages: int = 5) -> str:
    """Records with body naming on when the sale pages all come last, against all first
    (each group in reverse): a naming learned as pages come settles on the non-sale pages
    in the first order and on the sale pages in the second."""
    sale = [page for page in pages if is_sale_page(page[1])]
    plain = [page for page in pages if not is_sale_page(page[1])]
    one = pipeline_records(plain + sale, min_pages, 50, naming=True)
    two = pipeline_records(sale[::-1] + plain[::-1], min_pages, 50, naming=True)
    both, same, differ = _compared(one, two)
    return (
        f"demo_shop product, {len(pages)} pages ({len(sale)} on sale), body naming on, sale "
        f"pages last vs first (min_pages={min_pages}, max_pages=50): identical records "
        f"{same}/{both}, fields differing per page {differ:.1f}"
    )


def bare_stability(pages: list[tuple[str, bytes]], min_pages: int = 5) -> str:
    """Records with body naming on when every fourth page has no metadata (stripped as
    ``eval_body_names.py`` strips it: its core record can only come from the body), those
    pages first against last: a naming learned as pages come has learned nothing yet for
    them in the first order."""
    from eval_body_names import stripped

    bare = [(url, stripped(html)) for url, html in pages[::4]]
    rest = [page for k, page in enumerate(pages) if k % 4]
    one = pipeline_records(bare + rest, min_pages, 50, naming=True)
    two = pipeline_records(rest + bare, min_pages, 50, naming=True)
    both, same, differ = _compared(one, two)
    priced = sum(bool(one[url].get("price")) for url, _ in bare)
    return (
        f"demo_shop product, {len(pages)} pages ({len(bare)} without metadata), body naming "
        f"on, those pages first vs last (min_pages={min_pages}, max_pages=50): identical "
        f"records {same}/{both}, fields differing per page {differ:.1f}; pages without "
        f"metadata with a price (first) {priced}/{len(bare)}"
    )


def line(label: str, figures: dict[str, float]) -> str:
    head = " ".join(
        f"{key}={figures[key]:.1f}" for key in ("fields", "repeats", "layout", "numbered")
    )
    rest = " ".join(
        f"{k}={v:.2f}"
        for k, v in figures.items()
        if k not in ("fields", "repeats", "layout", "numbered")
    )
    return f"  {label:<6} {head}  {rest}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learn", type=int, default=5, help="pages learned per type (5)")
    parser.add_argument("--pages", type=int, default=20, help="pages extracted per type (20)")
    parser.add_argument(
        "--stability", action="store_true", help="records in two shuffled crawl orders only"
    )
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    if args.stability:
        # the default PAGESIM_INDUCTION_MAX_PAGES (the label learns every page), then a label
        # that fills up (learns the first 10 pages it gets: which ones depends on the order)
        for max_pages in (50, 10):
            print(stability(demo_pages(), 25, 5, max_pages))
        # and as a crawl gives them: every product page, core values filled from the body
        # by the names the site's metadata taught
        print(stability(demo_pages(), 1000, 5, 50, naming=True))
        # the order that hurts a naming learned as pages come: the sale pages last, or first
        print(adversarial_stability(demo_pages()))
        print(bare_stability(demo_pages()))
        return 0
    sets = [("demo_shop", "product", demo_pages())]
    sets += [(f"{d}/{s}", t, type_pages(d, s, t)) for d, s, t in TYPES if (DATA / d / s).is_dir()]
    totals: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for site, page_type, pages in sets:
        pages = pages[: args.pages]
        kind, before, after = evaluate(pages, min(args.learn, len(pages)))
        print(f"{site} {page_type}: {len(pages)} pages, core page type {kind}")
        print(line("before", before))
        print(line("after", after))
        totals["before"].append(before)
        totals["after"].append(after)
    print("mean over the site types (each type counts once):")
    for which, rows in totals.items():
        keys = ("fields", "repeats", "layout", "numbered")
        print(line(which, {k: sum(r[k] for r in rows) / len(rows) for k in keys}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
