"""The structured-data reader without extruct's package import (issue 31: the CPU of a crawl
with induction): microdata and OpenGraph read as extruct reads them, on real pages, and
reading a page without RDFa loads neither extruct's package nor rdflib, mf2py or bs4."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from copy import deepcopy
from pathlib import Path
from typing import Any

import pytest
from extruct.opengraph import OpenGraphExtractor
from extruct.uniform import _umicrodata_microformat
from extruct.w3cmicrodata import MicrodataExtractor

from pagesim_scrapy.core.record.markup import read_microdata
from pagesim_scrapy.core.record.meta import Flat, read_opengraph
from pagesim_scrapy.core.record.read import as_utf8, parse_html
from tests.conftest import shared_data

REPO = Path(__file__).resolve().parent.parent
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


class _ExtructValueText(MicrodataExtractor):
    """The reader the record used before: extruct's, without a property's opening heading."""

    def _extract_textContent(self, node: Any) -> Any:
        first = node[0] if len(node) >= 2 else None
        body = {"articleBody", "text"} & set((node.get("itemprop") or "").split())
        tag = first.tag if first is not None and isinstance(first.tag, str) else ""
        opens = tag.lower() in _HEADINGS or (first is not None and first.get("role") == "heading")
        if (node.text or "").strip() or body or not opens:
            return super()._extract_textContent(node)
        copy = deepcopy(node)
        copy.remove(copy[0])
        text = super()._extract_textContent(copy)
        return text if text.strip() else super()._extract_textContent(node)


def _extruct_microdata(root: Any, url: str) -> list[dict]:
    items = _ExtructValueText().extract_items(root, base_url=url)
    return [e for e in _umicrodata_microformat(items, "http://schema.org") if e]


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


def test_microdata_as_extruct_reads_it(pages: list[tuple[str, bytes]]) -> None:
    with_items = 0
    for name, data in pages:
        root = parse_html(as_utf8(data))
        if root is None:
            continue
        url = f"http://shop.example/{name}"
        ours = read_microdata(root, url)
        assert json.dumps(ours, sort_keys=True) == json.dumps(
            _extruct_microdata(root, url), sort_keys=True
        ), name
        with_items += bool(ours)
    assert with_items >= 20


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


def test_a_page_without_rdfa_loads_no_heavy_reader() -> None:
    page = sorted((REPO / "sample_project" / "demo_site" / "item").glob("*.html"))[0]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path])}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(page)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=True,
    )
    read, modules = json.loads(out.stdout.strip().splitlines()[-1])
    assert read
    for heavy in ("extruct", "rdflib", "mf2py", "bs4", "pyRdfa"):
        assert not any(m == heavy or m.startswith(heavy + ".") for m in modules), heavy
