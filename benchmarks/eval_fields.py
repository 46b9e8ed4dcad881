"""Label–value fields on real detail pages (issue 11's figures).

Run: ``python benchmarks/eval_fields.py [--verbose]``. Needs ``../shared/data`` next to the
repository.

* recipe_scrapers_testdata, sites with >= 3 pages, leave one page out: total / prep / cook
  time and yields. Only *label fields* (fields read from a label–value row) are candidates:
  for each attribute the label field whose value matches on the most training pages is
  chosen (only if that is more than half of the training pages expecting a value), then
  judged on the held-out page. Matching is loose, as the data's SOURCE.txt asks (the
  expected values are normalised by the scrapers): times compared in minutes ("1 hr 5 mins"
  = 65), yields by their number ("Serves 4" = "4 servings"). A site *shows* an attribute
  when a label field was chosen for it on the training pages of its folds; the accuracy is
  over the held-out pages of those folds that expect a value. Reported too: on how many
  (site, attribute) pairs with expected values a field was chosen at all.
* zyte_product_extraction_benchmark, one page at a time (a wrapper from that single page):
  brand, SKU, MPN, GTIN, availability. A *name-and-value hit* is a label field whose value
  is the ground-truth value (loosely: case, spaces and punctuation ignored) and whose name
  names the attribute (a list of common names in several languages, below). Reported: the
  hit rate over the pages that annotate the attribute, and over the pages where the value
  is the value of some label field (whatever its name).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pagesim_scrapy.core.induce import induce, parse_html  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
RECIPES = DATA / "recipe_scrapers_testdata" / "tests" / "test_data"
PRODUCTS = DATA / "zyte_product_extraction_benchmark" / "dataset"

RECIPE_ATTRS = ("total_time", "prep_time", "cook_time", "yields")

# --- loose matching ------------------------------------------------------------------------

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_DURATION = re.compile(
    r"(\d+(?:[.,]\d+)?)\s*(h|hr|hrs|hour|hours|std|stunde|stunden|uur|u|t|timer|time|timar|"
    r"óra|hora|horas|heure|heures|ora|ore|godz|d|day|days|dag|dagen|"
    r"m|min|mins|minute|minutes|minuten|minutter|minuter|minutos|minuti|perc|mn)?\b",
    re.I,
)


def minutes(text: Any) -> float | None:
    """Minutes of a duration as pages show it ("1 hr 5 mins", "45 minutes", "1:20")."""
    if text is None:
        return None
    if isinstance(text, list):
        text = " ".join(str(x) for x in text)
    text = str(text)
    clock = re.search(r"\b(\d{1,2}):(\d{2})\b", text)
    if clock:
        return int(clock.group(1)) * 60 + int(clock.group(2))
    total = 0.0
    found = False
    for number, unit in _DURATION.findall(text):
        value = float(number.replace(",", "."))
        unit = unit.lower()
        if unit.startswith(("d",)) and unit not in ("",):
            total += value * 1440
        elif unit and unit[0] in "hsutóo" and unit not in ("m",):
            total += value * 60
        else:
            total += value
        found = True
    return total if found else None


def first_number(text: Any) -> float | None:
    if text is None:
        return None
    if isinstance(text, list):
        text = " ".join(str(x) for x in text)
    match = _NUMBER.search(str(text))
    return float(match.group(0).replace(",", ".")) if match else None


def recipe_match(attr: str, value: Any, expected: Any) -> bool:
    if value is None or expected in (None, "", 0):
        return False
    if attr == "yields":
        want = first_number(expected)
        return want is not None and first_number(value) == want
    got = minutes(value)
    return got is not None and abs(got - float(expected)) < 0.5


def squash(text: Any) -> str:
    text = unicodedata.normalize("NFKC", str(text)).casefold()
    return re.sub(r"[\W_]+", "", text)


# --- recipes -------------------------------------------------------------------------------


def recipe_sites(min_pages: int = 3) -> list[tuple[str, list[Path]]]:
    out = []
    for site in sorted(RECIPES.iterdir()):
        pages = sorted(site.glob("*.testhtml"))
        if len(pages) >= min_pages:
            out.append((site.name, pages))
    return out


def eval_recipes(verbose: bool) -> dict[str, Any]:
    hits = {a: 0 for a in RECIPE_ATTRS}
    judged = {a: 0 for a in RECIPE_ATTRS}
    site_acc: dict[str, list[float]] = {a: [] for a in RECIPE_ATTRS}
    chosen_pairs = 0
    pairs_with_values = 0
    for site, pages in recipe_sites():
        trees = [parse_html(p.read_bytes(), structured=False) for p in pages]
        expected = [json.loads(p.with_suffix(".json").read_text("utf-8")) for p in pages]
        per_attr: dict[str, list[int]] = {a: [0, 0] for a in RECIPE_ATTRS}
        any_chosen = {a: False for a in RECIPE_ATTRS}
        for k in range(len(pages)):
            train = [i for i in range(len(pages)) if i != k]
            wrapper = induce([trees[i] for i in train], label="recipe")
            # in the wrapper's order (ties go to the first field: the same choice every run)
            label_fields = [f.name for f in wrapper.fields if f.label is not None]
            records = [wrapper.extract(trees[i]).record for i in train]
            test = wrapper.extract(trees[k]).record
            for attr in RECIPE_ATTRS:
                scores: dict[str, int] = {}
                for i, rec in zip(train, records):
                    for name in label_fields:
                        if recipe_match(attr, rec.get(name), expected[i].get(attr)):
                            scores[name] = scores.get(name, 0) + 1
                best, score = max(scores.items(), key=lambda kv: kv[1], default=(None, 0))
                # chosen only when it matches on most training pages that expect a value
                expecting = sum(1 for i in train if expected[i].get(attr) not in (None, "", 0))
                if score * 2 <= expecting:
                    best = None
                want = expected[k].get(attr)
                if best is None or want in (None, "", 0):
                    continue
                any_chosen[attr] = True
                ok = recipe_match(attr, test.get(best), want)
                per_attr[attr][0] += ok
                per_attr[attr][1] += 1
                if verbose:
                    print(
                        f"  {site} page {k} {attr}[{best}]: {'ok' if ok else 'MISS'} "
                        f"{test.get(best)!r:.40} vs {want!r}"
                    )
        for attr in RECIPE_ATTRS:
            with_values = any(e.get(attr) not in (None, "", 0) for e in expected)
            pairs_with_values += with_values
            chosen_pairs += any_chosen[attr]
            h, n = per_attr[attr]
            hits[attr] += h
            judged[attr] += n
            if n:
                site_acc[attr].append(h / n)
        shown = ", ".join(
            f"{a}={per_attr[a][0]}/{per_attr[a][1]}" for a in RECIPE_ATTRS if per_attr[a][1]
        )
        print(f"{site:32s} pages={len(pages)} {shown or '(no label field chosen)'}")
    return {
        "hits": hits,
        "judged": judged,
        "site_acc": site_acc,
        "chosen_pairs": chosen_pairs,
        "pairs_with_values": pairs_with_values,
    }


# --- products ------------------------------------------------------------------------------

#: Field names that name each attribute (normalised label words, several languages).
PRODUCT_NAMES: dict[str, tuple[str, ...]] = {
    "brand": ("brand", "brands", "marke", "marque", "merk", "marca", "manufacturer", "hersteller",
              "fabricant", "fabricante", "vendor", "designer", "make", "ražotājs", "tootja",
              "producent", "valmistaja", "značka", "kaubamärk", "proizvajalec", "výrobca",
              "výrobce", "marka", "merkki", "varumärke", "mærke", "märke", "производитель",
              "бренд", "品牌", "브랜드", "מותג", "العلامة_التجارية", "gyártó", "producător",
              "brend"),
    "sku": ("sku", "item", "item_number", "item_no", "article", "artikel", "artikelnummer",
            "artikel_nr", "art_nr", "product_code", "product_id", "code", "reference", "ref",
            "asin", "model", "model_number", "style", "part_number", "produkta_kods",
            "item_code", "product_number", "catalog", "id", "stock_code", "numero", "codigo",
            "kood", "tootekood", "šifra", "kód", "kód_produktu", "cod", "cod_produs", "商品編號",
            "קוד_מוצר", "numer_referencyjny", "код", "артикул", "tuotenumero", "referência",
            "referencia", "référence", "produktnummer", "varenummer", "artikelnr",
            "número_de_artigo", "codice", "cikkszám", "品番", "상품번호", "isbn"),
    "mpn": ("mpn", "model", "model_number", "part_number", "manufacturer_part_number", "mfr",
            "mfg", "ražotāja_kods", "herstellernummer", "manufacturer_number", "modelo",
            "modellnummer", "numéro_du_modèle", "numero_modello", "produktové_číslo",
            "modèle", "modello", "модель", "kód"),
    "gtin": ("gtin", "ean", "upc", "isbn", "barcode", "ean_code", "gtin13", "ean13", "ean_kód",
             "čárový_kód", "штрихкод"),
    "availability": ("availability", "stock", "in_stock", "status", "verfügbarkeit",
                     "disponibilité", "disponibilidad", "disponibilidade", "lieferstatus",
                     "beschikbaarheid", "dostupnost", "dostępność", "saatavuus", "наличие",
                     "lagerstatus", "disponibilità", "pieejamība", "laoseis"),
}  # fmt: skip


def _name_matches(attr: str, name: str) -> bool:
    """The field's name holds one of the attribute's names as whole words."""
    base = "_" + re.sub(r"_\d+$", "", name) + "_"
    return any(f"_{word}_" in base for word in PRODUCT_NAMES[attr])


def _value_matches(attr: str, value: Any, wanted: list[str]) -> bool:
    values = value if isinstance(value, list) else [value]
    for v in values:
        if not isinstance(v, str):
            continue
        got = squash(v)
        if not got:
            continue
        for want in wanted:
            w = squash(want)
            if not w:
                continue
            if attr == "availability":
                if w == "instock" and _IN_STOCK.search(v):
                    return True
                if w == "outofstock" and _OUT_OF_STOCK.search(v):
                    return True
            elif got == w or (len(w) >= 4 and w in got and len(got) <= len(w) + 12):
                return True
    return False


_IN_STOCK = re.compile(r"\bin stock\b|\bavailable\b|auf lager|lieferbar|en stock|disponible", re.I)
_OUT_OF_STOCK = re.compile(
    r"out of stock|unavailable|sold out|nicht verfügbar|épuisé|agotado", re.I
)


def eval_products(verbose: bool, all_fields: bool = False) -> dict[str, Any]:
    truth = json.loads((PRODUCTS / "ground-truth.json").read_text("utf-8"))
    attrs = tuple(PRODUCT_NAMES)
    annotated = {a: 0 for a in attrs}
    shown = {a: 0 for a in attrs}
    hit = {a: 0 for a in attrs}
    fields_per_page: list[int] = []
    times: list[float] = []
    for path in sorted((PRODUCTS / "html").glob("*.html.gz")):
        key = path.name.split(".", 1)[0]
        gt = truth.get(key)
        if not gt:
            continue
        tree = parse_html(gzip.decompress(path.read_bytes()), structured=False)
        start = time.perf_counter()
        wrapper = induce([tree], label="product")
        record = wrapper.extract(tree).record
        times.append(time.perf_counter() - start)
        label_fields = [
            f.name
            for f in wrapper.fields
            if f.scope is None and (all_fields or getattr(f, "label", None) is not None)
        ]
        fields_per_page.append(len(label_fields))
        for attr in attrs:
            wanted = gt.get(attr)
            if not wanted:
                continue
            wanted = [str(x) for x in (wanted if isinstance(wanted, list) else [wanted])]
            annotated[attr] += 1
            matching = [n for n in label_fields if _value_matches(attr, record.get(n), wanted)]
            if matching:
                shown[attr] += 1
            good = [n for n in matching if _name_matches(attr, n)]
            if good:
                hit[attr] += 1
            if verbose and matching:
                print(
                    f"  {gt.get('url', key)[:60]} {attr}: {'HIT' if good else 'name?'} {matching}"
                )
    return {
        "annotated": annotated,
        "shown": shown,
        "hit": hit,
        "pages": len(fields_per_page),
        "median_fields": statistics.median(fields_per_page) if fields_per_page else 0,
        "median_seconds": statistics.median(times) if times else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--only", choices=("recipes", "products"))
    parser.add_argument(
        "--all-fields",
        action="store_true",
        help="products: every page-level field is a candidate, not only label fields "
        "(the figure for a wrapper without label fields)",
    )
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"shared data not found at {DATA}", file=sys.stderr)
        return 2
    rec = prod = None
    if args.only in (None, "recipes"):
        print("== recipe_scrapers_testdata: label fields, leave one page out ==")
        rec = eval_recipes(args.verbose)
    if args.only in (None, "products"):
        print("== zyte_product_extraction_benchmark: label fields from one page ==")
        prod = eval_products(args.verbose, args.all_fields)
    print()
    print("SUMMARY")
    if rec is not None:
        total_h = sum(rec["hits"].values())
        total_n = sum(rec["judged"].values())
        print(
            f"recipes: a label field chosen for {rec['chosen_pairs']} of "
            f"{rec['pairs_with_values']} (site, attribute) pairs with expected values"
        )
        for attr in RECIPE_ATTRS:
            n = rec["judged"][attr]
            sites = rec["site_acc"][attr]
            mean_sites = statistics.mean(sites) if sites else 0.0
            print(
                f"  {attr:11s} held-out accuracy {rec['hits'][attr]}/{n} = "
                f"{(rec['hits'][attr] / n if n else 0):.3f} over {len(sites)} sites "
                f"(mean over sites {mean_sites:.3f})"
            )
        print(
            f"  all labelled  held-out accuracy {total_h}/{total_n} = "
            f"{total_h / max(1, total_n):.3f}"
        )
    if prod is not None:
        print(
            f"products: {prod['pages']} pages, median {prod['median_fields']} candidate fields per "
            f"page, median {prod['median_seconds'] * 1000:.0f} ms to learn and extract"
        )
        for attr in PRODUCT_NAMES:
            a, s, h = prod["annotated"][attr], prod["shown"][attr], prod["hit"][attr]
            print(
                f"  {attr:12s} name-and-value hits {h}/{a} annotated pages = {h / max(1, a):.3f}; "
                f"{h}/{s} of the pages where it is a label field's value = {h / max(1, s):.3f}"
            )
        ta = sum(prod["annotated"].values())
        ts = sum(prod["shown"].values())
        th = sum(prod["hit"].values())
        print(
            f"  all          name-and-value hits {th}/{ta} = {th / max(1, ta):.3f}; "
            f"{th}/{ts} = {th / max(1, ts):.3f} where a label field holds the value"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
