"""A shop's code named by the site's own metadata (``core/record/bodyvalues.py``): the body
text the naming learned holds the code inside the site's template words, and a page without
metadata is filled with the code alone, never with a text that holds no digit."""

from __future__ import annotations

import gzip
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.bodyvalues import read_as
from pagesim_scrapy.core.record.build import fill_from_body, read_page
from pagesim_scrapy.core.record.model import CoreRecord
from pagesim_scrapy.core.record.naming import BodyNaming
from tests.conftest import shared_data


def _shop(netloc: str) -> list[tuple[dict[str, Any], CoreRecord, dict[str, str], Any]]:
    """The benchmark's pages of one shop: annotation, record read with metadata, body, tree."""
    data = shared_data("zyte_product_extraction_benchmark", "dataset")
    truths = json.loads((data / "ground-truth.json").read_text())
    pages = []
    for page_id in sorted(truths):
        url = truths[page_id]["url"]
        if urlsplit(url).netloc == netloc:
            html = gzip.decompress((data / "html" / f"{page_id}.html.gz").read_bytes())
            record, root = read_page(html, url, page_type="product")
            pages.append((truths[page_id], record, body_fields(root, url), root))
    return pages


def _filled_without_metadata(netloc: str) -> list[tuple[list[str], Any]]:
    """Each page filled as a crawl fills a page without metadata, from a naming learned on
    the shop's other pages: (annotated skus, filled sku)."""
    pages = _shop(netloc)
    out = []
    for i, (truth, _, body, root) in enumerate(pages):
        naming = BodyNaming(site=netloc)
        for record, other_body in [(p[1], p[2]) for j, p in enumerate(pages) if j != i]:
            naming.observe(record, other_body)
        filled = fill_from_body(naming, CoreRecord("product"), body, root)
        out.append((truth["sku"], filled.get("sku")))
    return out


@pytest.mark.parametrize("netloc", ["www.olx.com.pk", "www.mobly.com.br"])
def test_the_code_inside_the_sites_template_words_is_filled_alone(netloc: str) -> None:
    filled = _filled_without_metadata(netloc)
    assert len(filled) >= 2
    for wanted, got in filled:
        assert got in wanted


def test_a_text_without_a_digit_is_no_code() -> None:
    # zalando.fi's naming trusts a key for the sku from its other page; on this page that
    # key holds a feature line ("Kevyesti vuorattu"), which must not be filled as the sku
    for wanted, got in _filled_without_metadata("www.zalando.fi"):
        assert got is None or got in wanted
    assert read_as("id", "Model:") is None
    assert read_as("id", "AD ID 1021493409 Report this ad") == "1021493409"
    assert read_as("id", "Item #418295") == "418295"
    assert read_as("id", "SU221U09P-E11") == "SU221U09P-E11"
    # two codes in one text: which one is the sku, the text does not say
    assert read_as("id", "B0123 or B0456") is None
