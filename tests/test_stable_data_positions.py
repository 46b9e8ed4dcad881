"""Data is data even when it does not vary (issue 31, item 4): a value the page marks as data
(a schema.org ``itemprop``, an explicit label row) stays a field when it is the same on every
page; unmarked constant text (the site's chrome) is still template."""

from __future__ import annotations

from pagesim_scrapy.core.induce import induce


def _page(name: str, price: str) -> bytes:
    return f"""<html><head><title>{name}</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
<div itemscope itemtype="https://schema.org/Product">
  <h1 itemprop="name">{name}</h1>
  <span itemprop="brand">Northwind</span>
  <span itemprop="price">{price}</span>
  <p class="promo">Free shipping on every order</p>
  <dl><dt>Material:</dt><dd>{name} cotton</dd><dt>Warranty:</dt><dd>2 years</dd></dl>
  <img itemprop="image" src="/logo.png">
</div></body></html>""".encode()


def test_constant_values_in_data_positions_stay_fields() -> None:
    pages = [_page(f"Shirt {k}", f"{10 + k}.00") for k in range(4)]
    wrapper = induce(pages, label="product")
    record = wrapper.extract(_page("Shirt 9", "19.00")).record
    values = {str(v) for v in record.values()}
    assert "Northwind" in values  # itemprop, the same on every page
    assert "2 years" in values  # an explicit label row, the same on every page
    assert "Shirt 9" in values and "19.00" in values
    assert not any("Free shipping" in v for v in values)  # unmarked constant text: template
    assert not any("logo.png" in v for v in values)  # a constant address: the site's
