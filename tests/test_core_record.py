"""The core record on real pages: standard names, normalised values, each with its source."""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

import pytest

from pagesim_scrapy.core.record import CoreRecord, RecordOptions, read_record, read_structured
from pagesim_scrapy.core.record.normalise import (
    as_availability,
    as_currency,
    as_identifier,
    as_name,
    as_price,
    as_urls,
)

FIXTURES = Path(__file__).parent / "fixtures" / "records"
PRODUCT_URL = "https://www.smartprix.com/nf/pd/pd1hjfqnc2j"
THREAD_URL = "http://android.stackexchange.com/q/106751"


def page(name: str) -> bytes:
    return gzip.decompress((FIXTURES / f"{name}.html.gz").read_bytes())


def test_product_page_gives_standard_fields_with_sources():
    record = read_record(page("product_smartprix"), PRODUCT_URL)
    assert record.page_type == "product"
    assert record.get("name") == "Usha Bloom Promise 1250 mm 3 Blade Ceiling Fan"
    assert record.get("price") == "2433"
    assert record.get("currency") == "INR"
    assert record.get("sku") == "pd1hjfqnc2j"
    assert record.get("availability") == "InStock"
    assert record.get("brand") == "Usha"
    for name in ("name", "price", "currency", "sku"):
        assert record.fields[name].source == "json-ld"
    images = record.get("images")
    assert images and all(u.startswith("https://") for u in images)
    crumbs = record.get("breadcrumbs")
    assert crumbs[0] == {"name": "Home", "url": "https://www.smartprix.com/"}


def test_article_page_gives_headline_author_date():
    record = read_record(page("article_wccftech"))
    assert record.page_type == "article"
    assert record.get("headline").startswith("Stadia Falls Short of 4K at Launch")
    assert record.get("author") == "Nathan Birch"
    assert record.get("date_published") == "2019-11-18T16:21:03-05:00"
    assert record.fields["author"].source == "json-ld"


def test_thread_page_gives_posts_as_one_list():
    record = read_record(page("thread_android_stackexchange"), THREAD_URL)
    assert record.page_type == "thread"
    assert record.get("title").startswith("Does anyone have a real solution")
    posts = record.get("posts")
    assert len(posts) == 2  # the question and its one answer
    for post in posts:
        assert set(post) == {"author", "date", "body"}
        assert post["body"]
    assert posts[0]["body"].startswith("I have had a Samsung Note 3")
    assert record.fields["posts"].source == "microdata"
    assert not any(name.startswith("posts_") for name in record.as_dict())


def test_page_without_structured_data_gives_empty_record():
    html = page("plain_cpython_search")
    assert not read_structured(html)
    record = read_record(html)
    assert record.page_type == "page"
    assert not record
    assert record.as_dict() == {"sources": {}}


@pytest.mark.parametrize("html", [b"", "   ", b"\x00\x01 not html", "<html></html>"])
def test_empty_or_odd_input_gives_empty_record(html):
    assert not read_record(html)


def _with_block(block: str) -> bytes:
    """The real product page with one more JSON-LD block before its own."""
    html = page("product_smartprix")
    script = f'<script type="application/ld+json">{block}</script>'.encode()
    return html.replace(b"<head>", b"<head>" + script, 1)


def _assert_skipped_but_product_kept(html: bytes, caplog, words: str) -> None:
    with caplog.at_level(logging.WARNING, logger="pagesim_scrapy.core.record"):
        record = read_record(html, PRODUCT_URL)
    assert any(words in r.getMessage() for r in caplog.records), caplog.text
    assert record.get("price") == "2433"
    assert record.fields["price"].source == "json-ld"


def test_broken_jsonld_block_is_skipped_with_a_log_line(caplog):
    html = _with_block('{"@type": "Product", "name": "broken", "offers": {')
    _assert_skipped_but_product_kept(html, caplog, "not JSON")


def test_huge_jsonld_block_is_skipped_with_a_log_line(caplog):
    block = json.dumps({"@type": "Product", "name": "x" * 2_100_000})
    _assert_skipped_but_product_kept(_with_block(block), caplog, "characters")


def test_jsonld_nested_5000_deep_is_skipped_not_raised(caplog):
    block = '{"@type": "Product", "name": ' + "[" * 5000 + "]" * 5000 + "}"
    _assert_skipped_but_product_kept(_with_block(block), caplog, "deep")


def test_jsonld_deeper_than_the_limit_is_skipped(caplog):
    block = '{"@type": "Product", "name": ' + '{"a": ' * 100 + "1" + "}" * 100 + "}"
    _assert_skipped_but_product_kept(_with_block(block), caplog, "deeper than")


def test_same_html_gives_identical_records():
    for name in ("product_smartprix", "article_wccftech", "thread_android_stackexchange"):
        html = page(name)
        first, second = read_record(html, PRODUCT_URL), read_record(html, PRODUCT_URL)
        assert first == second
        assert json.dumps(first.as_dict()) == json.dumps(second.as_dict())


def test_page_type_can_be_overridden():
    record = read_record(page("article_wccftech"), page_type="page")
    assert record.page_type == "page"
    assert set(record.fields) <= {"name", "description", "images", "url"}
    with pytest.raises(ValueError, match="unknown page type"):
        read_record(page("article_wccftech"), page_type="nonsense")


TWITTER_PAGE = """<html><head>
<meta property="og:type" content="product">
<meta property="og:title" content="Blue Mug">
<meta property="og:image" content="/img/mug.jpg">
<meta name="twitter:label1" content="Price"><meta name="twitter:data1" content="$12.50">
<meta name="twitter:label2" content="Vendor"><meta name="twitter:data2" content="Acme">
<meta name="twitter:label3" content="Est. reading time"><meta name="twitter:data3" content="3 min">
</head><body><p>Blue Mug</p></body></html>"""


def test_twitter_label_pairs_are_named_by_their_label():
    record = read_record(TWITTER_PAGE, "https://shop.example/mug")
    assert record.page_type == "product"
    assert record.get("price") == "12.50"
    assert record.fields["price"].source == "twitter"
    assert record.get("brand") == "Acme"
    assert record.get("images") == ["https://shop.example/img/mug.jpg"]
    assert record.extra == {"est_reading_time": record.extra["est_reading_time"]}
    assert record.as_dict()["extra"] == {"est_reading_time": "3 min"}


def test_normalisers_give_the_contract_types():
    assert as_price('<span class="money">$1,234.50</span>') == "1234.50"
    assert as_price("1.234,50 €") == "1234.50"
    assert as_price(19.9) == "19.9"
    assert as_identifier("AB-1, AB-2") == "AB-1, AB-2"
    assert as_identifier(12345.0) == "12345"
    assert as_availability("http://schema.org/OutOfStock") == "OutOfStock"
    assert as_availability("in stock") == "InStock"
    assert as_currency("€") == "EUR" and as_currency("usd") == "USD"
    assert as_currency("$") is None
    assert as_name({"@type": "Brand", "name": "Acme"}) == "Acme"
    assert as_urls([{"url": "/a.jpg"}, "/a.jpg", "data:x"], "https://s.example/p") == [
        "https://s.example/a.jpg"
    ]


def test_options_are_checked():
    with pytest.raises(ValueError):
        RecordOptions(rdfa="sometimes")
    assert isinstance(read_record("<p>x</p>", options=RecordOptions(rdfa="never")), CoreRecord)


_OEM = Path(__file__).resolve().parents[2] / "shared" / "data" / "site_page_types_2" / "oem_forum"


@pytest.mark.skipif(not _OEM.is_dir(), reason="shared page data not present")
def test_forum_without_markup_gives_posts_from_its_body():
    html = (_OEM / "pages" / "node" / "1000.html").read_bytes()
    record = read_record(html, "https://openenergymonitor.org/forum-archive/node/1000.html")
    assert record.page_type == "thread"
    posts = record.get("posts")
    assert [p["author"] for p in posts] == ["Guest", "Robert Wall"]
    assert posts[1]["date"].startswith("31/08/2012")
    assert posts[0]["body"].startswith("Hiya all")
    assert record.fields["posts"].source == "body"


def test_numbered_group_lists_merge_into_one_list():
    from pagesim_scrapy.core.record.tidy import merge_numbered_regions

    merged = merge_numbered_regions(
        {"comments": [{"a": "1"}], "x": "y", "comments_2": [{"a": "2"}], "s": "1", "s_2": "2"}
    )
    assert merged == {"comments": [{"a": "1"}, {"a": "2"}], "x": "y", "s": "1", "s_2": "2"}
