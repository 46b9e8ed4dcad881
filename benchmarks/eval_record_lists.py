"""Repeated regions in a product page item's record: variants, related products, and
values split into lists where the page shows one value.

Per product page (the demo shop's, with a wrapper learned from its first 5 product pages;
zyte_product_extraction_benchmark's, one page per shop, so a one-page wrapper):

* ``variants``: pages whose structured data lists variants (``hasVariant`` or several
  offers) and pages whose record has them, by source; for the body's, the choices found;
* ``related``: pages whose record has ``related_products``, the products per such page,
  and the share of them with both a name and a URL; left-over numbered or button-text
  fields (``related_products_2``, a name holding "Quick View" or "Add to Cart");
* ``split``: list fields of strings whose members, joined with ", ", are one text of the
  page (a value split at a comma inside it: a SKU, "1,5 kg", "Smith, John").

Run: ``python benchmarks/eval_record_lists.py [--limit N]``. Deterministic.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pagesim_scrapy.core.induce import Wrapper, parse_html  # noqa: E402
from pagesim_scrapy.core.record import item_record  # noqa: E402
from pagesim_scrapy.core.record.build import read_page  # noqa: E402
from pagesim_scrapy.core.record.rows import page_rows  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
PRODUCTS = DATA / "zyte_product_extraction_benchmark" / "dataset"
DEMO = ROOT / "sample_project" / "demo_site"
_BUTTON = re.compile(r"quick ?view|add to (?:cart|bag|basket)", re.I)
_MARKER = "pagesim_wrapper"


def demo_pages() -> list[tuple[str, bytes]]:
    labels = json.loads((DEMO / "labels.json").read_text(encoding="utf-8"))
    paths = sorted(path for path, label in labels.items() if label == "product")
    return [("https://shop.example/" + path, (DEMO / path).read_bytes()) for path in paths]


def zyte_pages(limit: int) -> list[tuple[str, bytes]]:
    truth = json.loads((PRODUCTS / "ground-truth.json").read_text())
    ids = sorted(truth)[:limit] if limit else sorted(truth)
    return [
        (truth[i]["url"], gzip.decompress((PRODUCTS / "html" / f"{i}.html.gz").read_bytes()))
        for i in ids
    ]


def page_texts(root: Any) -> set[str]:
    """Every text node of the page, whitespace-folded."""
    out = set()
    for el in root.iter():
        for text in (el.text, el.tail):
            if text and text.strip():
                out.add(" ".join(text.split()))
    return out


def split_values(record: dict[str, Any], texts: set[str]) -> int:
    """List fields of strings that are one text of the page split at its commas."""
    count = 0
    for value in record.values():
        if isinstance(value, list) and len(value) > 1 and all(isinstance(v, str) for v in value):
            joined = ", ".join(" ".join(v.split()) for v in value)
            count += any(joined in text for text in texts)
    return count


def tally(
    record: dict[str, Any], sources: dict[str, str], root: Any, core: Any, row: Counter
) -> None:
    row["pages"] += 1
    stated = core.fields.get("variants")
    row["variants_stated"] += stated is not None and stated.source != "body"
    variants = record.get("variants") or []
    source = sources.get("variants", "")
    row[f"variants_{source or 'none'}"] += bool(variants)
    if source == "body":
        row["body_choices"] += len(variants)
    related = record.get("related_products") or []
    row["related_pages"] += bool(related)
    row["related_items"] += len(related)
    row["related_named"] += sum(bool(r.get("name") and r.get("url")) for r in related)
    row["related_button"] += sum(bool(_BUTTON.search(r.get("name") or "")) for r in related)
    row["related_numbered"] += sum(k.startswith("related_products_") for k in record)
    row["split"] += split_values(record, page_texts(root))


def evaluate(name: str, pages: list[tuple[str, bytes]], learn: int) -> Counter:
    row: Counter = Counter()
    shared = None
    if learn:
        shared = Wrapper(label="product")
        shared.add_pages([parse_html(html, base_url=url) for url, html in pages[:learn]])
    for url, html in pages:
        core, _ = read_page(html, url, page_type="product")
        try:
            root = parse_html(html, base_url=url)
        except Exception:
            continue
        wrapper = shared
        if wrapper is None:
            wrapper = Wrapper(label="product")
            wrapper.add_pages([root])
        induced = {k: v for k, v in wrapper.extract(root, url=url).record.items() if k != _MARKER}
        item = item_record(core, induced, url, page_rows(root))
        tally(item.record, item.sources, root, core, row)
    return row


def report(name: str, row: Counter) -> str:
    pages = max(row["pages"], 1)
    items = max(row["related_items"], 1)
    structured = sum(
        v
        for k, v in row.items()
        if k.startswith("variants_")
        and k not in ("variants_stated", "variants_none", "variants_body")
    )
    return (
        f"{name}: {row['pages']} product pages\n"
        f"  variants: stated in structured data {row['variants_stated']}, in the record from "
        f"structured data {structured}, from the body {row['variants_body']} "
        f"({row['body_choices'] / max(row['variants_body'], 1):.1f} choices/page)\n"
        f"  related products: pages {row['related_pages']}/{pages}, "
        f"{row['related_items'] / max(row['related_pages'], 1):.1f} per page, "
        f"with name and url {row['related_named'] / items:.2f}, "
        f"button text {row['related_button']}, "
        f"numbered slots {row['related_numbered']}\n"
        f"  values split at a comma inside one text: {row['split']} "
        f"({row['split'] / pages:.2f}/page)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="zyte pages (all)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    print(report("demo_shop", evaluate("demo_shop", demo_pages()[:20], 5)))
    if PRODUCTS.is_dir():
        print(
            report("zyte_product_extraction_benchmark", evaluate("zyte", zyte_pages(args.limit), 0))
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
