"""Shops of the product benchmark with few pages: what the body naming must not read from
one other page (a specs list's position under another label, a brand menu's link), and
which body texts read as a currency."""

from __future__ import annotations

import gzip
import json
from typing import Any

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.bodyvalues import ISO_4217, read_as
from pagesim_scrapy.core.record.build import read_page
from pagesim_scrapy.core.record.model import CoreRecord
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions

from .conftest import shared_data


def _shop(host: str) -> list[tuple[str, CoreRecord, dict[str, Any], Any]]:
    """The benchmark's pages of one shop: id, record read with its metadata, body fields."""
    dataset = shared_data("zyte_product_extraction_benchmark", "dataset")
    truth = json.loads((dataset / "ground-truth.json").read_text())
    pages = []
    for page_id in sorted(truth):
        url = truth[page_id]["url"]
        if f"//{host}/" in url:
            html = gzip.decompress((dataset / "html" / f"{page_id}.html.gz").read_bytes())
            record, root = read_page(html, url, page_type="product")
            pages.append((truth[page_id], record, body_fields(root, url), root))
    return pages


def _named_from_other(host: str, options: NamingOptions) -> tuple[dict, CoreRecord]:
    """The shop's first page filled (metadata aside) by a naming its second page taught."""
    (truth, _, body, _), (_, other, other_body, _) = _shop(host)[:2]
    naming = BodyNaming(options, site=host)
    naming.observe(other, other_body)
    return truth, naming.fill(CoreRecord("product"), body)


def test_a_specs_position_under_another_label_is_not_the_brand():
    # the other page's "Marca: Nike" sits where this page shows "Tipo: Sintético/Fútbol 5"
    options = NamingOptions()
    _, unlabelled = _named_from_other("www.stockcenter.com.ar", NamingOptions(labelled_slots=False))
    _, filled = _named_from_other("www.stockcenter.com.ar", options)
    assert unlabelled.get("brand") == "Sintético/Fútbol 5"  # what the label check prevents
    assert filled.get("brand") != "Sintético/Fútbol 5"


def test_a_menu_link_that_shows_the_learned_brand_again_is_not_read():
    # the brand select lists every brand on every page: its option agreed on the other page
    truth, chrome = _named_from_other(
        "www.strumentimusicali.net", NamingOptions(thin_constant=False)
    )
    _, filled = _named_from_other("www.strumentimusicali.net", NamingOptions(thin_constant=True))
    assert chrome.get("brand") is not None
    assert chrome.get("brand") not in truth["brand"]
    assert filled.get("brand") is None


def test_three_letter_words_read_as_a_currency_only_when_iso_4217_has_them():
    pages = _shop("www.k-rauta.ee") + _shop("www.zalando.fi")
    texts = {text for _, _, body, _ in pages for text in body.values() if isinstance(text, str)}
    assert {"CID", "GAP"} <= texts  # a page's id attribute text and a brand name
    read = {text: read_as("currency", text) for text in texts}
    assert read["CID"] is None and read["GAP"] is None
    assert {code for code in read.values() if code} <= ISO_4217
    assert "EUR" in read.values()
