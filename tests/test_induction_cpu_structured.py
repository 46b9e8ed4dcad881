"""The structured-data reader without extruct's package import where a page does not need it
(issue 31: the CPU of a crawl with induction): OpenGraph read as extruct reads it, on real
pages, and reading a page without microdata or RDFa loads neither extruct's package nor
rdflib, mf2py or bs4 (a page with them does, as the record needs their readers)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

import pytest
from extruct.opengraph import OpenGraphExtractor

from pagesim_scrapy.core.record.meta import Flat, read_opengraph
from pagesim_scrapy.core.record.read import as_utf8, parse_html
from tests.conftest import imported, last_json_line, shared_data

REPO = Path(__file__).resolve().parent.parent


def _extruct_opengraph(root: Any) -> Flat:
    flat: Flat = {}
    try:
        for item in OpenGraphExtractor().extract_items(root):
            for prop, value in item["properties"]:
                value = value.strip()
                if value:
                    flat.setdefault(prop.strip().lower(), []).append(value)
    except (AttributeError, IndexError, KeyError, TypeError):
        pass
    return flat


def _pages(limit: int) -> list[tuple[str, bytes]]:
    """Pages with microdata or OpenGraph from three collections, and the demo shop's."""
    folders = [
        shared_data("zyte_product_extraction_benchmark"),
        shared_data("site_page_types"),
        shared_data("recipe_scrapers_testdata"),
    ]
    pages: list[tuple[str, bytes]] = []
    for folder in folders:
        found = 0
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or not path.name.endswith((".html", ".html.gz", ".testhtml")):
                continue
            data = path.read_bytes()
            data = gzip.decompress(data) if path.suffix == ".gz" else data
            if b"itemscope" in data or b"og:" in data:
                pages.append((path.name, data))
                found += 1
            if found >= limit:
                break
    shop = REPO / "sample_project" / "demo_site" / "item"
    pages += [(p.name, p.read_bytes()) for p in sorted(shop.glob("*.html"))[:10]]
    return pages


@pytest.fixture(scope="module")
def pages() -> list[tuple[str, bytes]]:
    return _pages(40)


def test_opengraph_as_extruct_reads_it(pages: list[tuple[str, bytes]]) -> None:
    with_og = 0
    for name, data in pages:
        root = parse_html(as_utf8(data))
        if root is None:
            continue
        ours = read_opengraph(root)
        assert ours == _extruct_opengraph(root), name
        with_og += bool(ours)
    assert with_og >= 20


def test_opengraph_prefixes_declared_by_the_page() -> None:
    html = (
        b'<html prefix="shop: http://shop.example/ns#"><head prefix="x: http://x.example/#">'
        b'<meta property="shop:brand" content="Acme"><meta property="x:y" content="1">'
        b'<meta property="og:title" content=" T "><meta property="fb:app_id" content="9">'
        b"</head><body></body></html>"
    )
    root = parse_html(html)
    assert read_opengraph(root) == {"shop:brand": ["Acme"], "x:y": ["1"], "og:title": ["T"]}
    assert read_opengraph(root) == _extruct_opengraph(root)
    assert read_opengraph(parse_html(b"<p>no head</p>")) == _extruct_opengraph(
        parse_html(b"<p>no head</p>")
    )


SCRIPT = """
import json, sys
from pagesim_scrapy.core.record.build import read_page
page = open(sys.argv[1], "rb").read()
core, _ = read_page(page, "http://shop.example/item.html")
print(json.dumps([bool(core), sorted(sys.modules)]))
"""


def _modules_after_reading(page: bytes, tmp_path: Path) -> tuple[bool, list[str]]:
    """Read ``page`` in a fresh interpreter: whether it gave a record, and what it imported."""
    path = tmp_path / "page.html"
    path.write_bytes(page)
    read, modules = last_json_line(SCRIPT, str(path))
    return read, modules


def test_a_page_without_microdata_or_rdfa_loads_no_heavy_reader(tmp_path: Path) -> None:
    page = sorted((REPO / "sample_project" / "demo_site" / "item").glob("*.html"))[0]
    data = page.read_bytes()
    assert b"itemscope" in data
    plain = re.sub(rb"\s(itemscope|itemprop|itemtype)(=\"[^\"]*\")?", b"", data)
    read, modules = _modules_after_reading(plain, tmp_path)
    assert read
    for heavy in ("extruct", "rdflib", "mf2py", "bs4", "pyRdfa"):
        assert not imported(modules, heavy), heavy
    read, modules = _modules_after_reading(data, tmp_path)
    assert read and imported(modules, "extruct")
