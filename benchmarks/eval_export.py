"""Round trip of exported page objects: on each site's pages of one type, learn the wrapper
with the core API, export it (selectors checked on the first --check pages), import the
generated module, run its page object on every page, and report per site the share of pages
where its output equals pagesim's own record for the exported fields, all pages and the pages
not used to check, plus the share of the record's fields exported.

    python benchmarks/eval_export.py [--check 5] [--pages 20] [--recipes 12]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import importlib.util
import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pagesim_scrapy.core.induce import induce  # noqa: E402
from pagesim_scrapy.poet.export import (  # noqa: E402
    ExamplePage,
    PageObjectSpec,
    export_label,
    exported_record,
    reference_record,
)
from pagesim_scrapy.poet.render import render_module  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
DEMO = ROOT / "sample_project" / "demo_site"
RECIPES = DATA / "recipe_scrapers_testdata" / "tests" / "test_data"
#: (site, page type): detail types of site_page_types
DETAIL_TYPES = [
    ("android_stackexchange", "question"),
    ("awesomewm_wiki", "article"),
    ("cc_opensource_blog", "blog_entry"),
    ("cpython_docs", "library_module"),
    ("flink_site", "blog_post"),
]


def demo_pages() -> list[ExamplePage]:
    labels = json.loads((DEMO / "labels.json").read_text(encoding="utf-8"))
    paths = sorted(path for path, label in labels.items() if label == "product")
    return [ExamplePage("https://shop.example/" + p, (DEMO / p).read_bytes()) for p in paths]


def type_pages(site: str, page_type: str) -> list[ExamplePage]:
    folder = DATA / "site_page_types" / site
    with (folder / "labels.csv").open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["page_type"] == page_type]
    return [ExamplePage(r["url"], (folder / r["path"]).read_bytes()) for r in rows]


def recipe_sets(limit: int) -> list[tuple[str, list[ExamplePage]]]:
    out = []
    for site in sorted(RECIPES.iterdir()):
        paths = sorted(site.glob("*.testhtml"))
        if len(paths) >= 3:
            pages = [ExamplePage(f"https://{site.name}/{p.stem}", p.read_bytes()) for p in paths]
            out.append((f"recipes/{site.name}", pages))
        if len(out) >= limit:
            break
    return out


def load_module(source: str, folder: Path, name: str) -> Any:
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_page(cls: type, page: ExamplePage) -> dict[str, Any]:
    from web_poet import HttpResponse

    response = HttpResponse(page.url, page.body, headers={"Content-Type": "text/html"})
    return asyncio.run(cls(response).to_item())


def evaluate(name: str, pages: list[ExamplePage], check: int, folder: Path) -> dict[str, Any]:
    wrapper = induce([p.body for p in pages], label="page")
    fitting = [p for p in pages if wrapper.extract(p.body).ok]
    spec: PageObjectSpec = export_label(wrapper, fitting[:check] if check else fitting)
    module = load_module(render_module([spec]), folder, "m_" + str(abs(hash(name))))
    cls = getattr(module, spec.class_name)
    equal = [
        run_page(cls, p) == exported_record(spec, reference_record(wrapper, p.body, p.url))
        for p in fitting
    ]
    held = equal[check:] if check else []
    total = len(spec.fields) + len(spec.skipped)
    return {
        "site": name,
        "pages": len(fitting),
        "equal": sum(equal) / len(equal) if equal else 0.0,
        "held_out": sum(held) / len(held) if held else None,
        "exported": len(spec.fields),
        "fields": total,
        "share": len(spec.fields) / total if total else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", type=int, default=5, help="pages the selectors are checked on")
    parser.add_argument("--pages", type=int, default=20, help="pages per site type (20)")
    parser.add_argument("--recipes", type=int, default=12, help="recipe sites (12)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    sets = [("demo_shop/product", demo_pages())]
    sets += [(f"{s}/{t}", type_pages(s, t)) for s, t in DETAIL_TYPES]
    sets += recipe_sets(args.recipes)
    print(f"{'site':<40} pages  equal  held-out  fields exported")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, pages in sets:
            row = evaluate(name, pages[: args.pages], args.check, Path(tmp))
            rows.append(row)
            held = "-" if row["held_out"] is None else f"{row['held_out']:.3f}"
            print(
                f"{name:<40} {row['pages']:>5}  {row['equal']:.3f}  {held:>8}  "
                f"{row['exported']}/{row['fields']} ({row['share']:.2f})"
            )
    mean = sum(r["equal"] for r in rows) / len(rows)
    above = sum(r["equal"] >= 0.95 for r in rows)
    print(f"mean equal {mean:.3f}; sites at or above 0.95: {above}/{len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
