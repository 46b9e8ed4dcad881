"""One list per repeated region: variants and related products with stable field names."""

from __future__ import annotations

import json
from pathlib import Path

from pagesim_scrapy.core.induce import Wrapper, parse_html
from pagesim_scrapy.core.record import item_record, read_record
from pagesim_scrapy.core.record.bodyvariants import body_variants
from pagesim_scrapy.core.record.cards import CARD_FIELDS, gather_cards
from pagesim_scrapy.core.record.read import parse_html as parse_page
from pagesim_scrapy.core.record.rows import page_rows

DEMO = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site"
PAGE = "item/brio-classic-cotton-tee-12816.html"


def _demo_products() -> list[str]:
    labels = json.loads((DEMO / "labels.json").read_text(encoding="utf-8"))
    return sorted(path for path, label in labels.items() if label == "product")


def test_body_variants_of_the_demo_product_form():
    record = read_record((DEMO / PAGE).read_bytes(), "https://shop.example/" + PAGE)
    variants = record.fields["variants"]
    assert variants.source == "body"
    assert variants.value[:2] == [{"option": "Size", "name": "XS"}, {"option": "Size", "name": "S"}]
    assert {"option": "Colour", "name": "Sand"} in variants.value
    assert list(record.fields).index("variants") > list(record.fields).index("description")


def test_only_the_cart_forms_choices_are_variants():
    html = """<html><body><header><form action="/search"><select name="cat">
    <option>All</option><option>Shoes</option></select></form></header>
    <div class="product"><label for="s1">Choose a size<span hidden>Choose a size</span></label>
    <select id="s1" name="size"><option value="">Choose an option</option><option>M</option>
    <option>L</option></select><form action="/cart/add"><select name="quantity">
    <option>1</option><option>2</option></select><button type="submit">Add</button></form>
    </div></body></html>"""
    assert body_variants(parse_page(html.encode())) == [
        {"option": "Choose a size", "name": "M"},
        {"option": "Choose a size", "name": "L"},
    ]


def test_structured_variants_win_over_the_body():
    html = """<html><head><script type="application/ld+json">{"@type": "Product",
    "name": "T", "hasVariant": [{"@type": "Product", "name": "T red", "sku": "A, 1"},
    {"@type": "Product", "name": "T blue", "sku": "B"}]}</script></head><body>
    <form action="/cart"><select name="colour"><option>Red</option><option>Blue</option>
    </select></form></body></html>"""
    record = read_record(html, "https://s.example/t")
    assert record.fields["variants"].source == "json-ld"
    assert record.get("variants")[0] == {"name": "T red", "sku": "A, 1"}  # never split


def test_related_products_one_list_with_stable_keys():
    paths = _demo_products()[:20]
    pages = [(f"https://shop.example/{p}", (DEMO / p).read_bytes()) for p in paths]
    wrapper = Wrapper(label="product")
    wrapper.add_pages([parse_html(h, base_url=u) for u, h in pages[:5]])
    url, html = f"https://shop.example/{PAGE}", (DEMO / PAGE).read_bytes()
    root = parse_html(html, base_url=url)
    induced = dict(wrapper.extract(root, url=url).record)
    record = item_record(read_record(html, url), induced, url, page_rows(root)).record
    related = record["related_products"]
    assert len(related) == 6
    assert all(tuple(card) == CARD_FIELDS for card in related)
    assert related[1] == {
        "name": "Orbit Prime Long Sleeve Tee",
        "url": "https://shop.example/item/orbit-prime-long-sleeve-tee-12851.html",
        "price": "98.04",
        "image": "https://shop.example/static/img/ph-3.svg",
    }
    texts = json.dumps(record)
    assert "Halden Classic Merino Tee $301.85" not in texts  # the cards' texts read again
    assert not any(name.startswith("related_products_") for name in record)


def test_cards_merge_copies_and_drop_button_text():
    card = {"title": "Mug", "url": "/p/1", "img": "/i/1.jpg", "price": "$5.00", "b": "Quick View"}
    other = {"title": "Cup", "url": "/p/2", "img": "/i/2.jpg", "price": "$6", "b": "Add to Cart"}
    record = {
        "related": [card, other],
        "quick_view": [dict(card, b="Quick View Add to Cart"), other],
        "tags": ["a", "b"],
    }
    out, held = gather_cards(record, "https://s.example/p/9")
    assert list(out) == ["related_products", "tags"]
    assert out["related_products"] == [
        {"name": "Mug", "url": "/p/1", "price": "5.00", "image": "/i/1.jpg"},
        {"name": "Cup", "url": "/p/2", "price": "6", "image": "/i/2.jpg"},
    ]
    assert "quick view" in held


def test_linked_pictures_without_prices_are_no_products():
    posts = [{"title": f"Post {i}", "url": f"/b/{i}", "img": f"/i/{i}.png"} for i in range(3)]
    out, held = gather_cards({"more": posts})
    assert out == {"more": posts} and not held
