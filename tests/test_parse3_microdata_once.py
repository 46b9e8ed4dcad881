"""The record's microdata reader searches the page for its items once (extruct's own
``extract_items`` searched twice: the items' ids, then the items) and reads the same items."""

from __future__ import annotations

from typing import Any

import pytest

from pagesim_scrapy.core.record.markup import _value_text_extractor
from pagesim_scrapy.core.record.read import as_utf8, parse_html
from tests.demo_items import item_pages

_NESTED = """<html><body>
<div itemscope itemtype="https://schema.org/Product" itemref="extra">
  <h1 itemprop="name">Desk lamp</h1>
  <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
    <span itemprop="price">19.90</span><meta itemprop="priceCurrency" content="EUR">
  </div>
  <div itemprop="review" itemscope itemtype="https://schema.org/Review">
    <span itemprop="author">Ann</span><p itemprop="reviewBody">Bright.</p>
  </div>
</div>
<p id="extra"><span itemprop="brand">Lumo</span></p>
<div itemscope itemtype="https://schema.org/Organization"><span itemprop="name">Shop</span></div>
</body></html>"""


def _pages() -> list[tuple[str, str]]:
    return [(_NESTED, "https://shop.example/lamp"), *item_pages(6, seed=1)]


@pytest.mark.parametrize(("html", "url"), _pages())
def test_microdata_items_as_extruct_reads_them(html: str, url: str) -> None:
    root = parse_html(as_utf8(html))
    extractor: Any = _value_text_extractor()()
    parent: Any = type(extractor).__mro__[1]
    ours = extractor.extract_items(root, base_url=url)
    assert ours
    assert ours == parent.extract_items(extractor, root, base_url=url)
    inner = root.find("body")
    assert extractor.extract_items(inner, url) == parent.extract_items(extractor, inner, url)
