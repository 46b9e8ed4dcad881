"""A body price's currency where its sign is one the normaliser does not know or stands for
several countries' currencies (``core/record/bodyproduct.py``)."""

from __future__ import annotations

import gzip
import json

import pytest

from pagesim_scrapy.core.record import read_record
from pagesim_scrapy.core.record.bodyproduct import body_product
from pagesim_scrapy.core.record.read import read_structured
from tests.conftest import shared_data


def _found(body: str, head: str = "", lang: str = "") -> dict[str, str]:
    html = f'<html lang="{lang}"><head>{head}</head><body>{body}</body></html>'
    return body_product(read_structured(html).root)


@pytest.mark.parametrize(
    ("price", "lang", "head", "currency"),
    [
        ("$9.49", "en-US", "", "USD"),
        ("$3.340", "es", '<meta property="og:locale" content="es_CL">', "CLP"),
        ("$129", "zh-Hant-TW", "", "TWD"),
        ("$40", "en", '<link rel="canonical" href="https://shop.example.ca/kettle">', "CAD"),
        ("129 kr", "sv", "", "SEK"),
        ("Rs 23,450", "en-PK", "", "PKR"),
        ("270,00 Kn", "hr", "", "HRK"),
        ("1 200 тг.", "ru", "", "KZT"),
        ("99 ر.س", "ar", "", "SAR"),
    ],
)
def test_a_sign_is_read_with_the_page(price, lang, head, currency):
    found = _found(f'<h1>Kettle</h1><span class="price">{price}</span>', head, lang)
    assert found["currency"] == currency
    assert found["price"]


def test_a_dollar_of_no_known_country_names_no_currency():
    found = _found('<span class="price">$3.340</span>', lang="es")
    assert found["price"] == "3.340"
    assert "currency" not in found
    found = _found('<span class="price">$5</span>', '<link rel="canonical" href="https://a.com/">')
    assert "currency" not in found


def test_words_beside_a_number_are_still_no_price():
    assert "price" not in _found('<span class="price">12 items left</span>', lang="en-US")


@pytest.mark.parametrize(
    "page",
    [
        "36dbaefc4b2a",  # "270,00 Kn"
        "b03d8c978c41",  # "$9.49" on an en-us page
    ],
)
def test_real_pages_whose_currency_only_the_body_shows(page):
    data = shared_data("zyte_product_extraction_benchmark", "dataset")
    truths = json.loads((data / "ground-truth.json").read_text())
    page = next(k for k in truths if k.startswith(page))
    html = gzip.decompress((data / "html" / f"{page}.html.gz").read_bytes())
    record = read_record(html, truths[page]["url"], page_type="product")
    assert record.fields["currency"].source == "body"
    assert record.get("currency") == {"36dbaefc4b2a": "HRK"}.get(page[:12], "USD")
