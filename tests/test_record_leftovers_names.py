"""Names a user recognises on the demo shop's records (issue 31): a specification row
labelled with a core name whose value differs from the core value is the page's
specification of it, ``spec_<name>``, beside the core value and its source."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagesim_scrapy.core.induce import parse_html
from pagesim_scrapy.core.record import item_record, read_record
from pagesim_scrapy.core.record.rows import page_rows

DEMO = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site"
#: a demo product whose specification table has a "Brand" row that is not its brand
PEN = "shop/office/kestrel-aero-fountain-pen.html"
URL = "https://shop.example/" + PEN


def _page() -> bytes:
    path = DEMO / PEN
    if not path.exists():
        pytest.skip("the demo site is not generated")
    return path.read_bytes()


def test_a_spec_row_that_disagrees_with_the_core_value_says_where_it_came_from() -> None:
    html = _page()
    root = parse_html(html, base_url=URL)
    rows = page_rows(root)
    assert "brand" in rows
    core = read_record(html, URL)
    result = item_record(core, {}, URL, rows)
    record = result.record
    assert record["brand"] == "Kestrel"
    assert result.sources["brand"] != "body-row"
    assert record["spec_brand"] == rows["brand"] != record["brand"]
    assert not any(name.startswith("labelled_") for name in record)


def test_a_spec_row_that_agrees_with_the_core_value_is_a_repeat() -> None:
    html = _page()
    core = read_record(html, URL)
    assert core is not None
    brand = core.fields["brand"].value
    result = item_record(core, {}, URL, {"brand": brand, "colour": "Red"})
    assert "spec_brand" not in result.record
    assert result.record["colour"] == "Red"
    assert result.dropped.get("repeat") == 1
