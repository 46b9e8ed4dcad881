"""The item record reads each value's texts once (:class:`pagesim_scrapy.core.record.item.Reading`)
and shares them between its checks: on real pages, every value a record is built from (the
wrapper's fields, the core record's values, the page's labelled rows) gives through its
reading exactly the keys, texts and folded text the per-check functions of
:mod:`pagesim_scrapy.core.record.tidy` give, and the same value names; so the shared path
keeps every verdict, and the records, of the path that read each value again per check."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pagesim_scrapy.core.induce import Wrapper, parse_html
from pagesim_scrapy.core.record import read_record
from pagesim_scrapy.core.record.item import Reading, _Readings, _value_names, item_record
from pagesim_scrapy.core.record.rows import page_rows
from pagesim_scrapy.core.record.tidy import _texts, text_of, value_keys, value_names
from tests.conftest import shared_data

REPO = Path(__file__).resolve().parent.parent
DEMO_ITEMS = REPO / "sample_project" / "demo_site" / "item"

#: site_page_types sites of varied kinds: a shop-like wiki, docs, a forum, a blog
SITES = ("awesomewm_wiki", "cpython_docs", "android_stackexchange", "cc_opensource_blog")


def _demo_pages() -> list[tuple[str, bytes]]:
    files = sorted(DEMO_ITEMS.glob("*.html"))[:12]
    if len(files) < 12:
        pytest.skip("the demo site is not generated")
    return [("https://shop.example/item/" + f.name, f.read_bytes()) for f in files]


def _site_pages(name: str, count: int) -> list[tuple[str, bytes]]:
    folder = shared_data("site_page_types", name)
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if (folder / row["path"]).is_file()]
    by_type: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_type.setdefault(row["page_type"], []).append(row)
    largest = max(by_type.values(), key=len)[:count]
    return [(row["url"], (folder / row["path"]).read_bytes()) for row in largest]


def _inputs(pages: list[tuple[str, bytes]]) -> Iterator[tuple[Any, dict[str, Any], str, dict]]:
    """Each page's core record, wrapper record (a wrapper learned from the pages) and rows."""
    wrapper = Wrapper(label="type")
    wrapper.add_pages([parse_html(html, base_url=url) for url, html in pages])
    for url, html in pages:
        induced = wrapper.extract(html, url=url).record
        rows = page_rows(parse_html(html, base_url=url))
        yield read_record(html, url), induced, url, rows


def _values(value: Any) -> Iterator[Any]:
    """A value and, for a list or a dict, each of its members at any depth."""
    yield value
    members = value.values() if isinstance(value, dict) else value
    if isinstance(value, (dict, list, tuple)):
        for member in members:
            yield from _values(member)


@pytest.fixture(scope="module")
def inputs() -> list[tuple[Any, dict[str, Any], str, dict]]:
    """The demo shop's product pages and pages of four site_page_types sites, read."""
    pages = [_demo_pages(), *(_site_pages(name, 6) for name in SITES)]
    return [item for group in pages for item in _inputs(group)]


def test_a_reading_gives_what_each_check_read_alone(inputs) -> None:
    checked = 0
    kinds: set[type] = set()
    for core, induced, _, rows in inputs:
        values = [*induced.values(), *rows.values()]
        values += [v.value for v in (*core.fields.values(), *core.extra.values())]
        for value in (v for top in values for v in _values(top)):
            reading = Reading(value)
            assert reading.keys() == value_keys(value), value
            assert reading.texts == _texts(value), value
            assert reading.folded == text_of(value), value
            checked += 1
            kinds.add(type(value))
    # lists of groups, groups, texts and empty slots were all met
    assert checked > 2000 and {list, dict, str, type(None)} <= kinds


def test_value_names_from_the_readings_are_the_records_value_names(inputs) -> None:
    for _, induced, _, _ in inputs:
        assert _value_names(_Readings(), induced.values()) == value_names(induced)


def test_a_value_merged_anew_gets_a_reading_of_its_own() -> None:
    readings = _Readings()
    first = [{"text": "Blue desk lamp"}, {"text": "Oak shelf"}]
    assert readings.of(first).folded == "blue desk lamp oak shelf"
    assert readings.of(first) is readings.of(first)  # read once
    merged = [*first, {"text": "Steel chair"}]
    assert readings.of(merged).folded == "blue desk lamp oak shelf steel chair"


def test_shared_readings_give_the_records_of_reading_each_value_per_check(
    inputs, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the shared path, then the path where every check reads its value afresh (a new
    # reading per call, as each check read it before readings were shared)
    shared = [item_record(core, dict(induced), url, rows) for core, induced, url, rows in inputs]
    monkeypatch.setattr(_Readings, "of", lambda self, value: Reading(value))
    fresh = [item_record(core, dict(induced), url, rows) for core, induced, url, rows in inputs]
    assert shared == fresh
    assert sum(item.dropped.get("repeat", 0) for item in shared) > 100  # drops were made
