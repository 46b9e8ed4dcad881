"""The shop's own code where the page's address and its body give the same one
(``core/record/bodyproduct.py``)."""

from __future__ import annotations

import gzip
import json

import pytest

from pagesim_scrapy.core.record import read_record
from pagesim_scrapy.core.record.bodyproduct import BodyProductOptions, body_product
from pagesim_scrapy.core.record.read import read_structured
from tests.conftest import shared_data

CANONICAL = '<link rel="canonical" href="https://shop.example/deal/3454863898?pid=260591">'


def _found(body: str, head: str = CANONICAL, **options) -> dict[str, str]:
    html = f"<html><head>{head}</head><body>{body}</body></html>"
    return body_product(read_structured(html).root, BodyProductOptions(**options))


@pytest.mark.parametrize(
    ("body", "sku"),
    [
        ("<p>딜번호 : 3454863898</p>", "3454863898"),
        ('<a class="share" data-pid="260591">Share</a>', "260591"),
        ('<div data-product-id="3454863898"></div>', "3454863898"),
        ('<form><input type="hidden" name="ProductId" value="260591"></form>', "260591"),
    ],
)
def test_a_code_the_address_and_the_body_both_give(body, sku):
    assert _found(body)["sku"] == sku
    assert "sku" not in _found(body, id_attributes=())


def test_the_address_alone_or_the_body_alone_names_no_code():
    assert "sku" not in _found("<p>Deal 3454863898</p><p>Note: 999999</p>")
    assert "sku" not in _found('<div data-product-id="3454863898"></div>', head="")
    # a short number of the address (a page, a size) is no product code
    short = '<link rel="canonical" href="https://shop.example/p/123">'
    assert "sku" not in _found('<div data-product-id="123"></div>', head=short)


def test_a_real_page_whose_code_its_address_and_a_label_row_give():
    data = shared_data("zyte_product_extraction_benchmark", "dataset")
    truths = json.loads((data / "ground-truth.json").read_text())
    page = next(k for k in truths if k.startswith("fb989c442669"))
    html = gzip.decompress((data / "html" / f"{page}.html.gz").read_bytes())
    record = read_record(html, truths[page]["url"], page_type="product")
    assert record.fields["sku"].source == "body"
    assert record.get("sku") == "3454863898"
