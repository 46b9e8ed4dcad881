"""The body reader's buy words, labels without a colon, sku and brand elements the markup
names, and a title's byline (``core/record/bodyproduct.py``)."""

from __future__ import annotations

import gzip
import json

import pytest

from pagesim_scrapy.core.record import read_record
from pagesim_scrapy.core.record.bodyproduct import BodyProductOptions, body_product
from pagesim_scrapy.core.record.read import read_structured
from tests.conftest import shared_data


def _found(body: str, options: BodyProductOptions | None = None) -> dict[str, str]:
    return body_product(read_structured(f"<html><body>{body}</body></html>").root, options)


@pytest.mark.parametrize(
    ("control", "stock"),
    [
        ('<a class="btn">Aggiungi al carrello</a>', "InStock"),
        ('<button class="btn">Do košíka</button>', "InStock"),
        ('<input type="submit" value="In den Warenkorb">', "InStock"),
        ('<button class="btn" disabled>Add to cart</button>', "OutOfStock"),
        ('<a class="btn buy-btn">Comprar entrada</a>', "InStock"),
    ],
)
def test_a_buy_control_by_its_own_words(control, stock):
    assert _found(f"<h1>Kettle</h1>{control}")["availability"] == stock


def test_words_that_only_mention_buying_are_no_buy_control():
    assert "availability" not in _found("<a>Cart</a><a>Buying guide for kettles</a>")
    # a form's words are its button's: the disabled button decides, not the form
    found = _found("<form><button disabled>Add to cart</button></form>")
    assert found["availability"] == "OutOfStock"
    assert "availability" not in _found("<a>Add to cart</a>", BodyProductOptions(buy_texts=()))


def test_labels_without_a_colon():
    found = _found("<div><span>Item #</span> 418295</div><p>Výrobca</p><p>ANPIX</p>")
    assert found["sku"] == "418295"
    assert found["brand"] == "ANPIX"
    found = _found("<table><tr><td>Kaubamärk</td><td>Bosch</td></tr></table>")
    assert found["brand"] == "Bosch"


def test_a_sentence_that_mentions_a_label_word_is_no_label():
    found = _found("<p>Our brand</p><p>Loved by everyone</p><p>Model</p><p>Ann</p>")
    assert "brand" not in found and "mpn" not in found


def test_sku_and_brand_elements_the_markup_names():
    found = _found(
        '<a class="navbar-brand">Shop Name</a><a class="brand-filter">All Brands</a>'
        '<h1>Cardigan</h1><h3 class="product-brand">JACK &amp; JONES</h3>'
        '<div id="itemNumber">Item no.: 12185160</div>'
    )
    assert found["brand"] == "JACK & JONES"
    assert found["sku"] == "12185160"


def test_a_markup_named_sku_is_one_code_and_a_brand_no_price():
    found = _found('<span class="sku-note">Ships in 2 days</span><b class="brand">1 529 ₽</b>')
    assert "sku" not in found and "brand" not in found


def test_a_title_byline_names_the_brand():
    page = '<h1>Banner</h1><h1>Pan set</h1><div><a href="/stores/t">Visit the Tefal Store</a></div>'
    assert _found(page)["brand"] == "Tefal"
    assert "brand" not in _found(page, BodyProductOptions(byline_phrases=()))
    assert "brand" not in _found("<h1>Pan set</h1><a>Visit the store</a>")


def test_values_lose_the_brackets_around_them():
    assert _found("<td>商品編號：〈M14876706〉</td>")["sku"] == "M14876706"


def test_metadata_values_stay():
    html = (
        '<html><head><script type="application/ld+json">{"@type": "Product", "name": "Pan",'
        ' "brand": {"@type": "Brand", "name": "Meta"}}</script></head><body><h1>Pan</h1>'
        "<a>Visit the Tefal Store</a><button>Add to cart</button></body></html>"
    )
    record = read_record(html, "https://shop.example/pan", page_type="product")
    assert record.fields["brand"].value == "Meta"
    assert record.fields["brand"].source == "json-ld"
    assert record.fields["availability"].source == "body"


@pytest.mark.parametrize(
    ("page", "field"),
    [
        ("42b022ac447f572815bd9510042a8801c9f7c4b4027cf88a9f9db08e29e4402c", "brand"),  # td row
        ("64915d8c2251307c4c8d4c9f3e506a26d4740e2a806b13e33622b3c889b2b037", "brand"),  # byline
        ("be99f1975380b02a3066840b86c3f42513c231fcb5c7aff38125b5381e2061e8", "sku"),  # "Item #"
        ("b331d47650530c9d01c637f6f62242896860a2dd36467de1ca572f037843657f", "brand"),  # markup
        ("2dfce31e999e92ef6bb61e521e655a1a366b0f0507ae2e057f7fd8162a2e785b", "availability"),
    ],
)
def test_real_pages_whose_values_only_the_body_shows(page, field):
    data = shared_data("zyte_product_extraction_benchmark", "dataset")
    truth = json.loads((data / "ground-truth.json").read_text())[page]
    html = gzip.decompress((data / "html" / f"{page}.html.gz").read_bytes())
    record = read_record(html, truth["url"], page_type="product")
    assert record.fields[field].source == "body"
    wanted = {str(v).rsplit("/", 1)[-1].casefold() for v in truth[field]}
    assert str(record.get(field)).casefold() in wanted
    assert record == read_record(html, truth["url"], page_type="product")
