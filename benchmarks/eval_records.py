"""How often the core record holds the right value under its standard name, and how full it is.

Two parts:

* ``products``: the Zyte product extraction benchmark (annotated price, currency,
  availability, sku, brand, gtin, mpn). Per attribute: the share of annotated pages where the
  core record's value matches one of the annotated values, beside a plain extruct reading
  (the first top-level ``Product`` of extruct's JSON-LD, then microdata) and the benchmark's
  own shipped extruct baseline output. Values are compared normalised (see ``same``). Then
  the same share over the pages whose visible body text shows an annotated value (``shown``,
  the issue's "wherever the body shows the value"; a plain substring test, so a short price
  like "29" counts as shown on most pages, and availability's class names almost never are).
  Over those pages, the body reader alone (``body|shown``), and the page filled as a crawl
  fills a page without metadata (``site|shown``): from the body fields a naming learned from
  the same shop's other pages of the benchmark names (their metadata its labels, the judged
  page's own never seen), then by the body reader. A shop with one page gets the reader's.
* ``coverage``: pages of site_page_types, site_page_types_2 and recipe_scrapers_testdata that
  have structured data. Truth taken from a page's own structured data would be circular for a
  metadata reader, so these report coverage: the share of pages with each core field, fields
  per record, duplicated values, posts per thread page; and, for recipes, agreement with the
  recipe-scrapers project's hand-written scrapers (title, author, ingredients).

Run: ``python benchmarks/eval_records.py [--part products|coverage|all] [--limit N]``
(``--half even|odd``: one half of the product pages; ``--misses``: list what the core record
does not have right, and whether the page's visible text shows it; ``--site-misses``: list
what the ``site|shown`` column has wrong or lacks, and whether the naming or the reader set it).
Output is deterministic (sorted inputs, fixed formatting).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import logging
import re
import sys
from collections import Counter, defaultdict
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import extruct  # noqa: E402
import lxml.html  # noqa: E402

from pagesim_scrapy.core.record import read_record, read_structured  # noqa: E402
from pagesim_scrapy.core.record.bodyfields import body_fields  # noqa: E402
from pagesim_scrapy.core.record.bodyproduct import FILLED, body_product  # noqa: E402
from pagesim_scrapy.core.record.build import fill_from_body, read_page  # noqa: E402
from pagesim_scrapy.core.record.model import CoreRecord  # noqa: E402
from pagesim_scrapy.core.record.naming import BodyNaming  # noqa: E402
from pagesim_scrapy.core.record.normalise import as_currency, as_price, as_text  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
PRODUCTS = DATA / "zyte_product_extraction_benchmark" / "dataset"
RECIPES = DATA / "recipe_scrapers_testdata" / "tests" / "test_data"
SITE_SETS = ("site_page_types", "site_page_types_2")
ATTRIBUTES = ("price", "currency", "availability", "sku", "brand", "gtin", "mpn")

#: Signs that stand for several currencies: any of these codes counts as right.
AMBIGUOUS_SIGNS = {
    "$": {"USD", "CAD", "AUD", "NZD", "HKD", "SGD", "MXN", "ARS", "CLP", "COP", "TWD"},
    "kr": {"SEK", "NOK", "DKK", "ISK"},
    "kr.": {"SEK", "NOK", "DKK", "ISK"},
    "r": {"ZAR"},
    "rs": {"INR", "PKR", "LKR"},
}
#: Signs of one currency each that the record's normaliser does not know: without them an
#: annotated "Kn" or "ر.س" could match no system's value at all.
OTHER_SIGNS = {"kn": {"HRK"}, "тг.": {"KZT"}, "тг": {"KZT"}, "ر.س": {"SAR"}, "원": {"KRW"}}


# ---------------------------------------------------------------- comparison


def _decimal(value: Any) -> Decimal | None:
    text = as_price(value)
    try:
        return Decimal(text) if text is not None else None
    except InvalidOperation:
        return None


def _currencies(value: Any) -> set[str]:
    text = (as_text(value) or "").strip(" ~")  # "원~": the annotation kept a "from" tilde
    code = as_currency(text)
    if code:
        return {code}
    return AMBIGUOUS_SIGNS.get(text.lower()) or OTHER_SIGNS.get(text.lower(), set())


def _stock(value: Any) -> str:
    """The benchmark's two classes: sold out or discontinued is out of stock, the rest in."""
    short = str(value).rsplit("/", 1)[-1].casefold()
    return "OutOfStock" if short in ("outofstock", "soldout", "discontinued") else "InStock"


def _ident(value: Any) -> str:
    return re.sub(r"[\W_]+", "", str(value)).casefold()


def _brand(value: Any) -> str:
    return re.sub(r"\s+", " ", str(value)).strip().casefold()


def same(attribute: str, predicted: Any, truth: Any) -> bool:
    """Normalised comparison, the same for every system.

    Prices as decimals; currencies as ISO codes (an ambiguous sign like ``$`` accepts any
    currency it stands for; a sign the normaliser does not know is read from
    ``OTHER_SIGNS``); availability as in stock or not (sold out and discontinued are out of
    stock); identifiers without separators or case; GTINs without leading zeros; brands
    without case.
    """
    if predicted in (None, "", []):
        return False
    if attribute == "price":
        return _decimal(predicted) is not None and _decimal(predicted) == _decimal(truth)
    if attribute == "currency":
        return bool(_currencies(predicted) & _currencies(truth))
    if attribute == "availability":
        return _stock(predicted) == _stock(truth)
    if attribute == "gtin":
        return _ident(predicted).lstrip("0") == _ident(truth).lstrip("0")
    if attribute in ("sku", "mpn"):
        return _ident(predicted) == _ident(truth)
    return _brand(predicted) == _brand(truth)


# ---------------------------------------------------------------- plain extruct


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def plain_extruct(html: bytes, url: str) -> dict[str, Any]:
    """What a plain extruct reading gives: the first top-level Product, JSON-LD then microdata."""
    try:
        data = extruct.extract(
            html, base_url=url, syntaxes=["json-ld", "microdata"], uniform=True, errors="ignore"
        )
    except Exception:  # a plain reading fails where extruct fails
        return {}
    for syntax in ("json-ld", "microdata"):
        for item in data.get(syntax, []):
            types = item.get("@type")
            types = types if isinstance(types, list) else [types]
            if "Product" in types:
                return _plain_values(item)
    return {}


def _plain_values(item: dict) -> dict[str, Any]:
    offer = _first(item.get("offers")) or {}
    offer = offer if isinstance(offer, dict) else {}
    brand = _first(item.get("brand"))
    brand = brand.get("name") if isinstance(brand, dict) else brand
    return {
        "price": offer.get("price") or offer.get("lowPrice"),
        "currency": offer.get("priceCurrency"),
        "availability": offer.get("availability"),
        "sku": _first(item.get("sku")),
        "brand": _first(brand),
        "gtin": _first(item.get("gtin13") or item.get("gtin") or item.get("gtin12")),
        "mpn": _first(item.get("mpn")),
    }


# ---------------------------------------------------------------- products


def products(
    limit: int, half: str = "all", misses: bool = False, site_misses: bool = False
) -> None:
    truth = json.loads((PRODUCTS / "ground-truth.json").read_text())
    shipped = json.loads((PRODUCTS / "output" / "extruct.json").read_text())
    ids = sorted(truth)[:limit] if limit else sorted(truth)
    if half != "all":  # even or odd positions: choose on one half, report the other
        ids = ids[half == "odd" :: 2]
    score: dict[str, Counter] = defaultdict(Counter)
    unstable = 0
    missed: list[str] = []
    site_missed: list[str] = []
    site_pages = _read_sites(truth, ids)
    for page_id in ids:
        html = gzip.decompress((PRODUCTS / "html" / f"{page_id}.html.gz").read_bytes())
        url = truth[page_id]["url"]
        record, root = read_page(html, url, page_type="product")
        named, site = site_filled(page_id, site_pages)
        unstable += record != read_record(html, url, page_type="product")
        plain = plain_extruct(html, url)
        visible = _visible_text(html)
        body = body_product(root, None, FILLED)  # the body reader alone, metadata aside
        for attribute in ATTRIBUTES:
            wanted = truth[page_id].get(attribute) or []
            if not wanted:
                continue
            row = score[attribute]
            row["support"] += 1
            core = record.get(attribute)
            row["core_found"] += core is not None
            right = any(same(attribute, core, t) for t in wanted)
            row["core_right"] += right
            shown = _shown(wanted, visible)
            row["shown"] += shown
            row["shown_right"] += shown and right
            body_right = any(same(attribute, body.get(attribute), t) for t in wanted)
            row["body_found"] += shown and attribute in body
            row["body_right"] += shown and body_right
            site_right = any(same(attribute, site.get(attribute), t) for t in wanted)
            row["site_found"] += shown and attribute in site.fields
            row["site_right"] += shown and site_right
            if site_misses and shown and not site_right:
                shop = site_pages[page_id][0]
                line = _site_miss(page_id, attribute, wanted, named, site)
                site_missed.append(f"{line} | {shop}")
            if misses and not right:
                missed.append(_miss(page_id, attribute, wanted, record, shown))
            row["plain_right"] += any(same(attribute, plain.get(attribute), t) for t in wanted)
            theirs = shipped.get(page_id, {}).get(attribute)
            row["shipped_right"] += any(same(attribute, theirs, t) for t in wanted)
    _print_products(score, len(ids), unstable)
    if misses:
        print("misses: page attribute in-body truth | core value (source)")
        print("\n".join(missed))
    if site_misses:
        print("site misses: page attribute truth | site value (naming, or reader) | shop")
        print("\n".join(site_missed))


#: a page of a shop read with its metadata: its record, and its body fields
SitePage = tuple[str, CoreRecord, dict[str, str], Any]


def _read_sites(truth: dict[str, Any], ids: list[str]) -> dict[str, SitePage]:
    """Every page of the shops the judged pages are from, read with their metadata: the
    site's own labelling of its body, which the judged page learns from."""
    shops = {urlsplit(truth[page_id]["url"]).netloc for page_id in ids}
    pages: dict[str, SitePage] = {}
    for page_id in sorted(truth):
        url = truth[page_id]["url"]
        if urlsplit(url).netloc in shops:
            html = gzip.decompress((PRODUCTS / "html" / f"{page_id}.html.gz").read_bytes())
            record, root = read_page(html, url, page_type="product")
            pages[page_id] = (urlsplit(url).netloc, record, body_fields(root, url), root)
    return pages


def site_filled(page_id: str, pages: dict[str, SitePage]) -> tuple[CoreRecord, CoreRecord]:
    """The page as a crawl fills it where its own metadata is missing: from the body fields
    the shop's metadata names on its other pages (a naming learned from them, the judged
    page's own metadata never seen), then from the body reader for what is left. Returned
    beside what the naming alone filled (to tell which of the two set a value)."""
    shop, _, body, root = pages[page_id]
    naming = BodyNaming(site=shop)
    for other, (other_shop, record, other_body, _) in pages.items():
        if other != page_id and other_shop == shop:
            naming.observe(record, other_body)
    empty = CoreRecord("product")
    return naming.fill(empty, body), fill_from_body(naming, empty, body, root)


def _shown(wanted: list, visible: str) -> bool:
    """Whether the page's visible text shows an annotated value at all (what a body reader
    could find)."""
    return any(str(t).strip().casefold() in visible for t in wanted)


def _miss(page_id: str, attribute: str, wanted: list, record: Any, shown: bool) -> str:
    """One line per value the core record does not have right, saying whether the page's
    visible text shows the annotated value."""
    value = record.fields.get(attribute)
    got = f"{value.value!r} ({value.source})" if value is not None else "-"
    return f"{page_id[:12]} {attribute:<12} {'yes' if shown else 'no ':<3} {wanted!r} | {got}"


def _site_miss(
    page_id: str, attribute: str, wanted: list, named: CoreRecord, site: CoreRecord
) -> str:
    """One line per shown value the ``site|shown`` path has wrong or lacks: its value, and
    whether the shop's learned naming or the body reader set it."""
    value = site.fields.get(attribute)
    by = "naming" if attribute in named.fields else "reader"
    got = f"{value.value!r} ({by})" if value is not None else "-"
    return f"{page_id[:12]} {attribute:<12} {wanted!r} | {got}"


def _visible_text(html: bytes) -> str:
    root = lxml.html.document_fromstring(html)
    for hidden in root.xpath("//script|//style|//noscript|//template|//head"):
        hidden.drop_tree()
    return " ".join(root.text_content().split()).casefold()


def _print_products(score: dict[str, Counter], pages: int, unstable: int) -> None:
    print(f"products: zyte_product_extraction_benchmark, {pages} pages, page_type=product")
    print(
        f"{'attribute':<13}{'support':>8}{'core':>8}{'core prec':>11}{'extruct':>9}{'shipped':>9}"
        f"{'shown':>7}{'core|shown':>12}{'body|shown':>12}{'body prec':>11}"
        f"{'site|shown':>12}{'site prec':>11}"
    )
    pooled: Counter = Counter()
    for attribute in ATTRIBUTES:
        row = score[attribute]
        pooled.update(row)
        _print_row(attribute, row)
    _print_row("pooled", pooled)
    print(f"records differing between two reads of the same page: {unstable}")
    print("core = core record, share of annotated pages right; core prec = right / found;")
    print("extruct = plain extruct reading; shipped = the benchmark's own extruct baseline;")
    print("shown = annotated pages whose visible body text shows the value; core|shown = core")
    print("record's share right over those pages; body|shown = the body reader alone (metadata")
    print("aside), share right over the same pages; body prec = its right / found there;")
    print("site|shown = the page's metadata aside, filled as a crawl fills it: from the body")
    print("fields the shop's metadata names on its other pages, then by the body reader;")
    print("site prec = its right / found there")


def _print_row(name: str, row: Counter) -> None:
    support = row["support"] or 1
    precision = row["core_right"] / (row["core_found"] or 1)
    print(
        f"{name:<13}{row['support']:>8}{row['core_right'] / support:>8.3f}{precision:>11.3f}"
        f"{row['plain_right'] / support:>9.3f}{row['shipped_right'] / support:>9.3f}"
        f"{row['shown']:>7}{_share(row['shown_right'], row['shown']):>12}"
        f"{_share(row['body_right'], row['shown']):>12}"
        f"{_share(row['body_right'], row['body_found']):>11}"
        f"{_share(row['site_right'], row['shown']):>12}"
        f"{_share(row['site_right'], row['site_found']):>11}"
    )


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "-"


# ---------------------------------------------------------------- coverage


def _site_pages(limit: int) -> list[tuple[str, Path, str]]:
    pages = []
    for dataset in SITE_SETS:
        for site_dir in sorted((DATA / dataset).iterdir()):
            labels = site_dir / "labels.csv"
            if not labels.exists():
                continue
            rows = sorted(csv.DictReader(labels.open()), key=lambda r: r["path"])
            pages += [(f"{dataset}/{site_dir.name}", site_dir / r["path"], r["url"]) for r in rows]
    recipes = sorted(RECIPES.glob("*/*.testhtml"))
    pages += [("recipe_scrapers_testdata", p, "") for p in recipes]
    return pages[:limit] if limit else pages


def duplicates(values: dict[str, Any]) -> int:
    """Fields whose value repeats an earlier field's value in the same record."""
    seen: list[str] = []
    repeats = 0
    for value in values.values():
        key = json.dumps(value, sort_keys=True)
        repeats += key in seen
        seen.append(key)
    return repeats


def coverage(limit: int) -> None:
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    recipe_truth: Counter = Counter()
    for group, path, url in _site_pages(limit):
        html = path.read_bytes()
        if not read_structured(html, url):
            continue
        record = read_record(html, url)
        values = {k: v for k, v in record.as_dict().items() if k not in ("sources", "extra")}
        stats = groups.setdefault(
            (group, record.page_type),
            {"n": 0, "fields": Counter(), "count": 0, "dups": 0, "posts": 0},
        )
        stats["n"] += 1
        stats["fields"].update(list(values))
        stats["count"] += len(values)
        stats["dups"] += duplicates(values)
        stats["posts"] += len(values.get("posts") or [])
        if group == "recipe_scrapers_testdata":
            _recipe_agreement(path, record.as_dict(), recipe_truth)
    _print_coverage(groups)
    _print_recipes(recipe_truth)


def _norm(text: Any) -> str:
    return re.sub(r"\s+", " ", as_text(text) or "").strip().casefold()


def _recipe_agreement(path: Path, record: dict, tally: Counter) -> None:
    expected = json.loads(path.with_suffix(".json").read_text())
    tally["pages"] += 1
    for name, theirs in (("name", "title"), ("author", "author")):
        if expected.get(theirs):
            tally[f"{name}/support"] += 1
            tally[f"{name}/right"] += _norm(record.get(name)) == _norm(expected[theirs])
    wanted = [_norm(i) for i in expected.get("ingredients") or []]
    got = {_norm(i) for i in record.get("recipe_ingredient") or []}
    tally["ingredients/support"] += len(wanted)
    tally["ingredients/right"] += sum(i in got for i in wanted)


def _print_coverage(groups: dict[tuple[str, str], dict[str, Any]]) -> None:
    print("coverage: pages with structured data, per site and guessed page type")
    for (group, page_type), stats in sorted(groups.items()):
        n = stats["n"]
        shares = " ".join(f"{f}={c / n:.2f}" for f, c in sorted(stats["fields"].items()))
        line = (
            f"{group} {page_type}: pages={n} fields/record={stats['count'] / n:.1f} "
            f"duplicates/record={stats['dups'] / n:.2f}"
        )
        if page_type == "thread":
            line += f" posts/page={stats['posts'] / n:.1f}"
        print(line)
        print(f"    {shares}")
    total = sum(s["n"] for s in groups.values()) or 1
    print(
        f"pooled: pages={total} "
        f"fields/record={sum(s['count'] for s in groups.values()) / total:.1f} "
        f"duplicates/record={sum(s['dups'] for s in groups.values()) / total:.2f}"
    )


def _print_recipes(tally: Counter) -> None:
    if not tally["pages"]:
        return
    print(
        f"recipes against recipe-scrapers' hand-written scrapers ({tally['pages']} pages with "
        "structured data; exact match after whitespace and case folding):"
    )
    for name in ("name", "author", "ingredients"):
        support = tally[f"{name}/support"] or 1
        print(f"  {name}: {tally[f'{name}/right'] / support:.3f} of {tally[f'{name}/support']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=("products", "coverage", "all"), default="all")
    parser.add_argument("--limit", type=int, default=0, help="only the first N pages per part")
    parser.add_argument(
        "--half",
        choices=("all", "even", "odd"),
        default="all",
        help="products: only the pages at even or odd positions (sorted by id)",
    )
    parser.add_argument(
        "--misses",
        action="store_true",
        help="products: list each annotated value the core record does not have right",
    )
    parser.add_argument(
        "--site-misses",
        action="store_true",
        help="products: list each shown value the site|shown column has wrong or lacks",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    if args.part in ("products", "all"):
        products(args.limit, args.half, args.misses, args.site_misses)
    if args.part in ("coverage", "all"):
        coverage(args.limit)


if __name__ == "__main__":
    main()
