"""Section headings are not record fields: a heading with its entry count names a section
("Customer reviews (7)"). Checked on the demo shop's real pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagesim_scrapy.core.induce import Wrapper, parse_html
from pagesim_scrapy.core.record import item_record, read_record
from pagesim_scrapy.core.record.rows import page_rows
from pagesim_scrapy.core.record.tidy import is_chrome, is_layout_name

DEMO = Path(__file__).resolve().parents[1] / "sample_project" / "demo_site"


@pytest.mark.parametrize(
    "text", ["Customer reviews (7)", "Comments (0)", "Answers ( 12 )", "Bewertungen (3)"]
)
def test_a_heading_with_its_count_is_chrome(text):
    assert is_chrome("subtitle", text)


@pytest.mark.parametrize("text", ["Size (2) XL", "12 (3)", "Pack of 4", "Ships in 2 days"])
def test_values_with_numbers_stay(text):
    assert not is_chrome("field", text)


def _products(count: int) -> list[tuple[str, bytes]]:
    labels = json.loads((DEMO / "labels.json").read_text(encoding="utf-8"))
    paths = sorted(p for p, label in labels.items() if label == "product")[:count]
    return [("https://shop.example/" + p, (DEMO / p).read_bytes()) for p in paths]


def test_demo_records_have_no_section_heading_nor_tag_names():
    pages = _products(8)
    wrapper = Wrapper(label="product")
    wrapper.add_pages([parse_html(html, base_url=url) for url, html in pages[:5]])
    for url, html in pages:
        root = parse_html(html, base_url=url)
        induced = wrapper.extract(root, url=url).record
        record = item_record(read_record(html, url), induced, url, page_rows(root)).record
        texts = [v for v in record.values() if isinstance(v, str)]
        assert not [t for t in texts if t.startswith("Customer reviews (")], record
        assert not [name for name in record if is_layout_name(name)], list(record)
