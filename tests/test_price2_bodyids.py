"""A product's sku, mpn, gtin and brand read from its body's label rows where its metadata
gives none (``core/record/bodyproduct.py``)."""

from __future__ import annotations

import gzip
import json

from pagesim_scrapy.core.record import read_record
from pagesim_scrapy.core.record.bodyproduct import BodyProductOptions, body_product
from pagesim_scrapy.core.record.read import read_structured
from tests.conftest import shared_data

SHOP = """<html><head><title>Speaker</title></head><body>
<h1>Smart speaker</h1>
<p class="code">Product code: 83810610</p>
<table><tr><th>Model number</th><td>GA00638-GB</td></tr>
<tr><th>Manufacturer recommended age</th><td>3 years and up</td></tr>
<tr><th>Brand</th><td>Google</td></tr></table>
<ul><li><span>EAN :</span> <span>0190198419941</span></li></ul>
<script>var sku = "SCRIPT-1";</script>
</body></html>"""

JSON_LD = """<script type="application/ld+json">{"@type": "Product", "name": "Speaker",
"sku": "META-7", "brand": {"@type": "Brand", "name": "Alphabet"}}</script>"""


def _found(html: str, options: BodyProductOptions | None = None) -> dict[str, str]:
    return body_product(read_structured(html).root, options)


def test_label_rows_name_the_identifiers_and_the_brand():
    record = read_record(SHOP, "https://shop.example/speaker", page_type="product")
    assert record.get("sku") == "83810610"
    assert record.get("mpn") == "GA00638-GB"
    assert record.get("gtin") == "0190198419941"
    assert record.get("brand") == "Google"  # not the age row that mentions the manufacturer
    sources = record.as_dict()["sources"]
    assert {sources[k] for k in ("sku", "mpn", "gtin", "brand")} == {"body"}


def test_metadata_values_stay_and_keep_their_source():
    html = SHOP.replace("<title>", JSON_LD + "<title>")
    record = read_record(html, "https://shop.example/speaker", page_type="product")
    assert record.fields["sku"].value == "META-7"
    assert record.fields["sku"].source == "json-ld"
    assert record.fields["brand"].value == "Alphabet"
    assert record.fields["mpn"].source == "body"  # the metadata gave none


def test_a_value_is_an_identifier_only_when_short_and_with_a_digit():
    def sku(text: str) -> str | None:
        return _found(f"<html><body><p>SKU: {text}</p></body></html>").get("sku")

    assert sku("AB-1234") == "AB-1234"
    assert sku("ask in store") is None
    assert sku("12 34 56 78 90") is None  # a sentence of numbers, not one code
    gtin = _found("<html><body><p>EAN: 12345</p></body></html>").get("gtin")
    assert gtin is None  # not 8, 12, 13 or 14 digits


def test_labels_are_options():
    html = "<html><body><dl><dt>Artnr</dt><dd>A-55</dd></dl></body></html>"
    assert "sku" not in _found(html)
    assert _found(html, BodyProductOptions(sku_labels=("artnr",)))["sku"] == "A-55"


def test_a_brand_is_a_short_name_not_an_address():
    html = "<html><body><p>Manufacturer: Street 75, 21266 Town</p></body></html>"
    assert "brand" not in _found(html)


def test_real_pages_whose_identifiers_only_the_body_shows():
    data = shared_data("zyte_product_extraction_benchmark", "dataset")
    truth = json.loads((data / "ground-truth.json").read_text())
    page = "27021c0c0aea00d016b29e7ae2c992252ec6aeec5cbd05cfd6615a0f6edbd0c5"  # a th/td table
    html = gzip.decompress((data / "html" / f"{page}.html.gz").read_bytes())
    record = read_record(html, truth[page]["url"], page_type="product")
    assert record.get("sku") == truth[page]["sku"][0]
    assert record.get("mpn") == truth[page]["mpn"][0]
    assert record.fields["mpn"].source == "body"
    page = "453f5cc079af4a70fea9a4cd7e71f0b6e7998becdd5f43f52f27580c3a2b3044"  # "EAN: ..." rows
    html = gzip.decompress((data / "html" / f"{page}.html.gz").read_bytes())
    record = read_record(html, truth[page]["url"], page_type="product")
    assert record.get("gtin") == truth[page]["gtin"][0]
    assert record == read_record(html, truth[page]["url"], page_type="product")
