"""A product's price, currency and availability read from its own body where its metadata
gives none (``core/record/bodyproduct.py``)."""

from __future__ import annotations

import gzip
import json

from pagesim_scrapy.core.record import read_record
from pagesim_scrapy.core.record.bodyproduct import BodyProductOptions, body_product
from pagesim_scrapy.core.record.read import read_structured
from tests.conftest import shared_data

SHOP = """<html><head><title>Kettle</title></head><body>
<nav><span class="minicart-price">£12.00</span></nav>
<h1>Steel kettle</h1>
<script>var price = "£1.00";</script>
<div class="prices"><span class="price-old">£60.00</span>
<span class="product-price">£49.00</span></div>
<form action="/cart"><button class="btn add-to-cart"{disabled}>Add to basket</button></form>
</body></html>"""

JSON_LD = """<script type="application/ld+json">{"@type": "Product", "name": "Kettle",
"offers": {"price": "10.00", "priceCurrency": "EUR"}}</script>"""


def test_body_values_where_the_metadata_gives_none():
    record = read_record(
        SHOP.format(disabled=""), "https://shop.example/kettle", page_type="product"
    )
    assert record.get("price") == "49.00"
    assert record.get("currency") == "GBP"
    assert record.get("availability") == "InStock"
    sources = record.as_dict()["sources"]
    assert {sources[k] for k in ("price", "currency", "availability")} == {"body"}


def test_metadata_values_stay_and_keep_their_source():
    html = SHOP.format(disabled="").replace("<title>", JSON_LD + "<title>")
    record = read_record(html, "https://shop.example/kettle", page_type="product")
    assert record.fields["price"].value == "10.00"
    assert record.fields["price"].source == "json-ld"
    assert record.fields["currency"].value == "EUR"
    assert record.fields["availability"].source == "body"  # the metadata gave none
    names = list(record.fields)
    assert names.index("price") < names.index("currency") < names.index("availability")


def test_a_disabled_buy_control_is_out_of_stock():
    found = body_product(read_structured(SHOP.format(disabled=" disabled")).root)
    assert found["availability"] == "OutOfStock"


def test_old_prices_scripts_and_cart_totals_are_not_the_price():
    found = body_product(read_structured(SHOP.format(disabled="")).root)
    assert found["price"] == "49.00"
    narrow = BodyProductOptions(other_parts=())
    assert body_product(read_structured(SHOP.format(disabled="")).root, narrow)["price"] == "12.00"


def test_a_number_is_a_price_only_beside_a_sign_and_alone():
    def price(text: str) -> str | None:
        html = f'<html><body><span class="price">{text}</span></body></html>'
        return body_product(read_structured(html).root).get("price")

    assert price("Price: 3.340 $") == "3.340"
    assert price("270,00 Kn") == "270.00"
    assert price("1299") is None  # a bare number
    assert price("957 items sold") is None
    assert price("-20 %") is None
    assert price("€ 0,00") is None


def test_other_page_types_and_empty_pages_are_left_alone():
    html = SHOP.format(disabled="")
    assert "price" not in read_record(html, "", page_type="article").fields
    assert body_product(None) == {}
    assert body_product(read_structured("<html><body><p>no price</p></body></html>").root) == {}


def test_real_page_whose_price_only_the_body_shows():
    data = shared_data("zyte_product_extraction_benchmark", "dataset")
    truth = json.loads((data / "ground-truth.json").read_text())
    page = "1bb3781745f7c8411b13585d741195a0f94c70f9ec15162cbb16caa65f40f492"
    html = gzip.decompress((data / "html" / f"{page}.html.gz").read_bytes())
    record = read_record(html, truth[page]["url"], page_type="product")
    assert record.fields["price"].source == "body"
    assert float(record.get("price")) == float(truth[page]["price"][0])
    assert record.get("currency") == "GBP"
    assert record == read_record(html, truth[page]["url"], page_type="product")
