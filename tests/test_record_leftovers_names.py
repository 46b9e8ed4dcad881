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


#: a demo product with one seller reply among its reviews (so the reply's label is shown
#: once on the page: only its place in a review says it is no row of the page)
ONE_REPLY = "item/orbit-aero-desk-shelf-lite-13123.html"


def _rows_of(path: str) -> tuple[list, dict]:
    from pagesim_scrapy.core.induce.labels import find_rows

    file = DEMO / path
    if not file.exists():
        pytest.skip("the demo site is not generated")
    root = parse_html(file.read_bytes(), base_url="https://shop.example/" + path)
    return find_rows(root), page_rows(root)


def test_a_heading_inside_one_review_of_a_list_is_no_row_of_the_page() -> None:
    found, rows = _rows_of(ONE_REPLY)
    replies = [r for r in found if r.label.startswith("Reply from")]
    assert len(replies) == 1
    assert replies[0].listed and not replies[0].explicit
    assert not any(name.startswith("reply_from") for name in rows)


def test_the_spec_table_rows_stay_rows_of_the_page() -> None:
    found, rows = _rows_of(ONE_REPLY)
    # the page's specification table: ten rows, none of them inside a review
    assert {"brand", "weight", "warranty", "material"} <= set(rows)
    assert len(rows) == 10
    for row in found:
        if row.listed:
            assert not row.explicit


def test_a_spec_list_item_that_is_the_row_alone_is_no_record() -> None:
    from pagesim_scrapy.core.induce.labels import find_rows

    html = (
        "<html><body><ul class='specs'><li><span><strong>Colour</strong> Red</span></li>"
        "<li><span><strong>Size</strong> Large</span></li></ul>"
        "<ol><li class='review'><h4>Great</h4><p>Bought it twice and it still works.</p>"
        "<div><strong>Reply from Shop</strong><p>Thank you for the kind words.</p></div>"
        "</li><li class='review'><h4>Fine</h4><p>Does what it says on the box.</p></li>"
        "</ol></body></html>"
    )
    root = parse_html(html.encode(), base_url="https://shop.example/x")
    by_label = {r.label: r for r in find_rows(root)}
    assert not by_label["Colour"].listed and by_label["Colour"].explicit
    assert by_label["Reply from Shop"].listed
    assert set(page_rows(root)) == {"colour", "size"}
