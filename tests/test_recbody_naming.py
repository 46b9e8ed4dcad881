"""Body fields named by the site's own metadata, on real pages: learned from some of a
site's pages, they give a page whose metadata is gone its core values back from its body."""

from __future__ import annotations

import json
import re
from pathlib import Path

import lxml.html
import pytest

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.bodyvalues import read_as, same
from pagesim_scrapy.core.record.build import read_page
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions
from pagesim_scrapy.pipelines.induction.records import body_naming, compose_record

DEMO = Path(__file__).resolve().parents[1] / "sample_project" / "demo_site"
_META_ATTRS = ("itemprop", "itemscope", "itemtype", "property", "typeof", "content", "rel")


def _products(count: int) -> list[tuple[str, bytes]]:
    labels = json.loads((DEMO / "labels.json").read_text(encoding="utf-8"))
    paths = sorted(p for p, label in labels.items() if label == "product")[:count]
    return [("https://shop.example/" + p, (DEMO / p).read_bytes()) for p in paths]


def _stripped(html: bytes) -> bytes:
    root = lxml.html.fromstring(html)
    for el in root.xpath("//script | //meta | //link"):
        el.drop_tree()
    for el in root.iter():
        for name in _META_ATTRS:
            el.attrib.pop(name, None)
    return lxml.html.tostring(root, encoding="utf-8")


def _learned(pages: list[tuple[str, bytes]]) -> BodyNaming:
    naming = BodyNaming()
    for url, html in pages:
        core, root = read_page(html, url)
        naming.observe(core, body_fields(root, url))
    return naming


def test_a_page_without_metadata_gets_its_product_fields_from_the_body():
    pages = _products(6)
    naming = _learned(pages[1:])
    url, html = pages[0]
    truth, _ = read_page(html, url)
    bare, root = read_page(_stripped(html), url)
    assert "price" not in bare.fields
    filled = naming.fill(bare, body_fields(root, url))
    assert filled.page_type == "product"
    for name in ("name", "price", "brand", "sku", "description"):
        assert filled.fields[name].source == "body", name
        kind = "price" if name == "price" else "text"
        assert same(kind, filled.get(name), truth.get(name)), name


def test_names_need_agreement_on_enough_pages():
    pages = _products(2)
    one = _learned(pages[:1])
    # one page could agree by chance: only a specific value (a long text, or a value few
    # elements show) is trusted from it, and what it names reads right on the next page
    assert set(one.names()) <= {"name", "description", "brand", "price", "sku"}
    url, html = pages[1]
    truth, _ = read_page(html, url)
    bare, root = read_page(_stripped(html), url)
    filled = one.fill(bare, body_fields(root, url))
    for name in one.names():
        kind = "price" if name == "price" else "text"
        assert same(kind, filled.get(name), truth.get(name)), name
    assert "price" in _learned(pages).names()
    strict = BodyNaming(NamingOptions(min_specific_chars=10_000, max_plain_elements=0))
    url, html = pages[0]
    core, root = read_page(html, url)
    strict.observe(core, body_fields(root, url))
    assert strict.names() == {}
    assert BodyNaming(NamingOptions(min_pages=1)).names() == {}
    with pytest.raises(ValueError):
        NamingOptions(min_share=0)
    with pytest.raises(ValueError):
        NamingOptions(min_specific_chars=0)


def test_a_page_with_its_metadata_keeps_it():
    pages = _products(4)
    naming = _learned(pages[1:])
    url, html = pages[0]
    core, root = read_page(html, url)
    assert naming.fill(core, body_fields(root, url)) == core


def test_body_texts_read_as_core_values():
    assert read_as("price", "$1,299.00") == "1299.00"
    assert read_as("authors", "By Jane Doe") == "Jane Doe"
    assert read_as("id", "SKU: NW-12") == "NW-12"
    assert read_as("date", "March 5, 2015") == "2015-03-05"
    assert read_as("price", "x" * 200) is None
    assert same("date", "2015-03-05T10:00:00+01:00", "2015-03-05")
    assert same(
        "text",
        "A long description that the head cut short…",
        "A long description that the head cut short, and the body shows whole.",
    )
    assert not same("text", "short", "short text")


def test_the_pipeline_record_takes_body_values_where_metadata_is_missing():
    pages = _products(5)
    state = object.__new__(type("State", (), {}))
    for url, html in pages[1:]:
        compose_record(html, {}, url, {}, body_naming(state, url))
    url, html = pages[0]
    item = compose_record(_stripped(html), {}, url, {}, body_naming(state, url))
    assert item.page_type == "product"
    assert item.sources["price"] == "body"
    assert re.fullmatch(r"\d+\.\d+", item.record["price"])
    assert body_naming(state, url) is body_naming(state, url)


def test_reviews_are_one_list_of_groups_with_stable_names():
    url, html = _products(1)[0]
    core, _ = read_page(html, url)
    reviews = core.get("reviews")
    assert core.fields["reviews"].source == "body"
    assert len(reviews) >= 2
    assert all(set(r) == {"author", "date", "body", "rating"} for r in reviews)
    assert all(r["body"] and r["body"] != "Verified purchase" for r in reviews)
    item = compose_record(html, {"review_list": [{"text": reviews[0]["body"] + " Olga"}]}, url)
    assert "review_list" not in item.record
    assert not any(name.startswith("reviews_") for name in item.record)


def test_a_sale_page_met_after_the_names_settled_keeps_its_own_price():
    # learning stops once the names settle; a sale layout met only afterwards must not
    # have its badge ("Save 30%") read in the price's slot and put over the page's price
    pages = _products(80)
    plain = [page for page in pages if b'class="old-price"' not in page[1]]
    sales = [page for page in pages if b'class="old-price"' in page[1]]
    naming = _learned(plain[:20])
    assert not naming.learning and "price" in naming.names()
    assert sales
    for url, html in sales:
        core, root = read_page(html, url)
        filled = naming.fill(core, body_fields(root, url))
        assert filled.get("price") == core.get("price"), url
