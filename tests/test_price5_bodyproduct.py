"""Body product values (``core/record/bodyproduct.py``): a label row written as a sentence,
and the brand a link to the shop's listing of one brand names."""

from __future__ import annotations

import gzip
import json
from typing import Any

from pagesim_scrapy.core.record import read_record
from pagesim_scrapy.core.record.bodyproduct import BodyProductOptions, body_product
from pagesim_scrapy.core.record.read import read_structured
from tests.conftest import shared_data

#: every other way the body names a brand turned off: only its links are read
LINKS_ONLY = BodyProductOptions(brand_labels=(), brand_parts=(), byline_phrases=())


def _found(body: str, options: BodyProductOptions | None = None) -> dict[str, str]:
    return body_product(read_structured(f"<html><body>{body}</body></html>").root, options)


def _page(prefix: str) -> tuple[bytes, str]:
    data = shared_data("zyte_product_extraction_benchmark", "dataset")
    truths = json.loads((data / "ground-truth.json").read_text())
    page = next(k for k in truths if k.startswith(prefix))
    return gzip.decompress((data / "html" / f"{page}.html.gz").read_bytes()), truths[page]["url"]


def _root(prefix: str) -> Any:
    html, url = _page(prefix)
    return read_structured(html, url).root


def test_a_label_row_written_as_a_sentence_gives_its_code_without_the_full_stop():
    found = _found("<ul><li>Weight 200g.</li><li>EAN: 5018479061991.</li></ul>")
    assert found["gtin"] == "5018479061991"
    assert _found("<p>SKU: AB-1234;</p>")["sku"] == "AB-1234"
    # a brand's own dots stay: it is a name, not a code
    assert _found("<p>Brand: R.K.</p>")["brand"] == "R.K."


def test_a_real_page_whose_gtin_a_bullet_sentence_states():
    html, url = _page("442c155e306d")
    record = read_record(html, url, page_type="product")
    assert record.fields["gtin"].source == "body"
    assert record.get("gtin") == "5018479061991"


def test_a_brand_listing_link_names_the_brand_the_title_holds():
    page = (
        '<nav><a href="/brands">All brands</a><a href="/brands/acme">Acme</a></nav>'
        '<h1>Norton 360 Deluxe</h1><a href="/shop/brand/norton">Norton</a>'
    )
    assert _found(page, LINKS_ONLY)["brand"] == "Norton"
    assert _found(page.replace("/brand/", "/offers/"), LINKS_ONLY) == {}
    assert _found(page, BodyProductOptions(brand_address_words=())).get("brand") != "Norton"
    # a brand the title does not hold is another product's, or a menu's
    assert _found('<h1>Kettle</h1><a href="/marca/cic">CIC</a>', LINKS_ONLY) == {}


def test_real_pages_whose_brand_link_and_title_agree():
    for prefix, brand in (("b475627f8942", "Norton"), ("8cb33a3e85d7", "CIC")):
        found = body_product(_root(prefix), LINKS_ONLY, frozenset({"brand"}))
        assert found == {"brand": brand}


def test_cents_set_apart_from_the_whole_units_follow_a_decimal_point():
    assert _found('<div class="price">$229<span class="cents">99</span></div>')["price"] == "229.99"
    assert _found('<p class="price">173<sup>34</sup> Lei</p>')["price"] == "173.34"
    # units that already hold their decimals, or a third digit, are left as the page wrote
    assert _found('<p class="price">12,50 <span>€</span></p>')["price"] == "12.50"
    assert _found('<p class="price">$1<span>299</span></p>')["price"] == "1299"


def test_real_pages_whose_cents_sit_in_their_own_element():
    for prefix, price in (("2c42fb6035ff", "229.99"), ("2fa16d14a9e3", "173.34")):
        assert body_product(_root(prefix), None, frozenset({"price"})) == {"price": price}


def test_a_price_reads_only_the_text_the_page_shows():
    page = '<div class="price"><span>1,679</span><span style="display: none">1679</span> ₪</div>'
    assert _found(page)["price"] == "1679"
    page = '<div class="price"><span>$12</span><span hidden>$15</span></div>'
    assert _found(page)["price"] == "12"


def test_a_real_page_whose_price_repeats_hidden_beside_the_shown_one():
    assert body_product(_root("469894a59bfb"), None, frozenset({"price"})) == {"price": "1679"}


def test_a_price_in_a_list_of_other_products_is_theirs_but_its_currency_the_shops():
    cards = '<div class="related-products"><p class="price">€ 12,00</p></div>'
    assert _found(f'{cards}<p class="price">€ 30,00</p>') == {"price": "30.00", "currency": "EUR"}
    assert _found(cards) == {"currency": "EUR"}
    assert _found(cards, BodyProductOptions(others_parts=()))["price"] == "12.00"


def test_a_real_page_whose_recommendations_come_before_its_own_price():
    found = body_product(_root("359ca699f879"), None, frozenset({"price", "currency"}))
    assert found == {"price": "115.00", "currency": "GBP"}


def test_a_label_whose_colon_a_comment_sets_apart_is_still_a_label():
    page = "<div><span>Article number<!-- -->:</span> <span>VEI22G013-K11</span></div>"
    assert _found(page)["sku"] == "VEI22G013-K11"


def test_a_real_page_whose_label_a_comment_splits():
    found = body_product(_root("4f4a8f8ddd03"), None, frozenset({"sku"}))
    assert found == {"sku": "VEI22G013-K11"}


def test_product_code_labels_in_more_languages():
    assert _found("<p>Tootekood: 763127</p>")["sku"] == "763127"
    assert _found("<dl><dt>Tuotenumero</dt><dd>SU221U09P-E11</dd></dl>")["sku"] == "SU221U09P-E11"
    assert _found("<p>Артикул: 12-345</p>")["sku"] == "12-345"
    assert _found("<p>Vonalkód: 5999884034018</p>")["gtin"] == "5999884034018"
    # a postal code is no product's code: a bare "code" word names nothing
    assert "sku" not in _found("<p>Kod pocztowy: 00-950</p>")


def test_a_real_page_whose_product_code_an_estonian_label_names():
    found = body_product(_root("42b022ac447f"), None, frozenset({"sku"}))
    assert found == {"sku": "763127"}


def _titled(body: str, title: str) -> dict[str, str]:
    html = f"<html><head><title>{title}</title></head><body>{body}</body></html>"
    return body_product(read_structured(html).root, None, frozenset({"brand"}))


def test_the_line_before_the_title_that_the_page_name_repeats_is_the_brand():
    page = "<div><h3>Superdry</h3><h1>Spirit Sports Puffer</h1></div>"
    assert _titled(page, "Superdry Spirit Sports Puffer - Zalando") == {"brand": "Superdry"}
    # a heading the page's name does not hold is a section, not a maker
    assert _titled(page, "Spirit Sports Puffer - Zalando") == {}
    # a line with a number is a date or a count, and the title's own words are the title's
    assert _titled("<p>Sale 2020</p><h1>Puffer</h1>", "Sale 2020: Puffer") == {}
    assert _titled("<p>Puffer</p><h1>Puffer jacket</h1>", "Puffer jacket") == {}


def test_a_real_page_whose_brand_stands_above_its_title():
    found = body_product(_root("6f905464d48c"), None, frozenset({"brand"}))
    assert found == {"brand": "Superdry"}
