"""The record's leftovers on the demo shop (issue 31): a microdata description without the
section heading that opens it, and an entry count under a name made of a CSS class.

General checks, not words of one shop: a heading that opens an ``itemprop`` element labels
the value; "N <word>" under ``<class>_<tag>`` is a count of entries the page lists.
"""

from __future__ import annotations

from lxml import etree

from pagesim_scrapy.core.record import read_record
from pagesim_scrapy.core.record.markup import read_microdata
from pagesim_scrapy.core.record.tidy import is_chrome
from sample_project.demo_shop import DEMO_SITE_DIR

_PAGE = """<html><body><div itemscope itemtype="https://schema.org/Product">
<h1 itemprop="name">Lamp</h1>
<section itemprop="description"><h2>Description</h2><p>A warm light.</p><p>Two bulbs.</p>
</section>
<div itemprop="review" itemscope itemtype="https://schema.org/Review">
<p itemprop="reviewBody">Bright <b>enough</b></p></div>
<div itemprop="disambiguatingDescription"><h3>Only a heading</h3></div>
</div>
<div itemscope itemtype="https://schema.org/Article"><div itemprop="articleBody">
<h2>Intro</h2><p>First words.</p></div></div></body></html>"""


def _product() -> dict:
    root = etree.fromstring(_PAGE, etree.HTMLParser())
    product, _ = read_microdata(root, "https://shop.example/lamp")
    return product


def test_a_microdata_text_leaves_out_the_heading_that_opens_its_element() -> None:
    product = _product()
    assert product["description"].startswith("A warm light.")
    assert "Description" not in product["description"]
    assert "Two bulbs." in product["description"]


def test_a_microdata_text_without_an_opening_heading_is_read_whole() -> None:
    product = _product()
    assert product["name"] == "Lamp"
    assert product["review"]["reviewBody"] == "Bright enough"
    # an element that holds nothing but a heading keeps it: the heading is its text
    assert product["disambiguatingDescription"] == "Only a heading"
    # a whole body keeps its headings
    root = etree.fromstring(_PAGE, etree.HTMLParser())
    _, article = read_microdata(root, "https://shop.example/lamp")
    assert article["articleBody"].startswith("Intro")


def test_the_demo_description_does_not_begin_with_its_section_heading() -> None:
    path = DEMO_SITE_DIR / "item" / "mira-nordic-usb-c-charger-10482.html"
    record = read_record(path.read_bytes(), "https://shop.example/item/x.html")
    assert record is not None
    description = record.fields["description"]
    assert description.source == "microdata"
    assert description.value.startswith("Weight handle smooth")


def test_an_entry_count_under_a_class_name_is_chrome() -> None:
    assert is_chrome("rating_summary_a", "7 reviews")
    assert is_chrome("comment_count_span", "12 comments")


def test_counts_under_a_label_or_other_values_stay() -> None:
    # a label's name, not a class and a tag: the value is the page's data
    assert not is_chrome("warranty", "2 years")
    assert not is_chrome("reviews", "7 reviews")
    # a class-derived name with a value that is not a bare count
    assert not is_chrome("rating_summary_a", "Rated 4.5 by 7 customers")
    assert not is_chrome("size_span", "XL")


def test_a_rating_count_is_named_as_the_page_metadata_names_it() -> None:
    page = b"""<html><head><script type="application/ld+json">{"@context": "https://schema.org",
    "@type": "Product", "name": "Lamp", "aggregateRating": {"@type": "AggregateRating",
    "ratingValue": "4.5", "reviewCount": "7", "ratingCount": "1,204"}}</script></head>
    <body><h1>Lamp</h1><div class="rating-summary"><a href="#reviews">7 reviews</a></div>
    </body></html>"""
    record = read_record(page, "https://shop.example/lamp")
    assert record is not None and record.page_type == "product"
    values = {name: value.value for name, value in record.fields.items()}
    assert values["rating_value"] == "4.5"
    assert values["review_count"] == "7"
    assert values["rating_count"] == "1204"


def test_demo_records_hold_neither_leftover() -> None:
    """The records the core API gives on demo product pages (a wrapper learned from them):
    no class-named review count, no description opening with its section heading."""
    import json

    from pagesim_scrapy.core.induce import Wrapper, parse_html
    from pagesim_scrapy.core.record import item_record
    from pagesim_scrapy.core.record.rows import page_rows
    from sample_project.demo_shop import DEMO_LABELS_FILE

    labels = json.loads(DEMO_LABELS_FILE.read_text(encoding="utf-8"))
    paths = sorted(p for p, label in labels.items() if label == "product")[:12]
    pages = [("https://shop.example/" + p, (DEMO_SITE_DIR / p).read_bytes()) for p in paths]
    wrapper = Wrapper(label="product")
    wrapper.add_pages([parse_html(html, base_url=url) for url, html in pages])
    counted = 0
    for url, html in pages:
        root = parse_html(html, base_url=url)
        induced = wrapper.extract(root, url=url).record
        counted += any(str(v).endswith("reviews") for v in induced.values() if v)
        record = item_record(read_record(html, url), induced, url, page_rows(root)).record
        assert not any(str(v).endswith(" reviews") for v in record.values()), url
        assert not record["description"].startswith("Description"), url
    assert counted  # the wrapper did read the count: the record left it out
