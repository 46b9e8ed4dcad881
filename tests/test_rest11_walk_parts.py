"""The compiled title (``_walk.c``'s ``title_text``) reads exactly what lxml's
``root.find("head/title").text`` reads."""

from __future__ import annotations

import random

import pytest
from lxml import etree, html

from pagesim_scrapy.core import summary
from pagesim_scrapy.core.pageio import iter_page_paths, read_page_bytes
from pagesim_scrapy.core.summary import parse_html

from .conftest import FIXTURES, SHARED_DATA

needs_walk = pytest.mark.skipif(not summary.HAVE_COMPILED_WALK, reason="_walk not built")


def lxml_title(element) -> str | None:
    """The expression the compiled title replaces."""
    tree_root = element.getroottree().getroot()
    title = tree_root.find("head/title") if tree_root is not None else None
    return None if title is None else title.text


def real_roots(limit: int = 120):
    paths = list(iter_page_paths([FIXTURES]))
    if SHARED_DATA.is_dir():
        more = sorted(iter_page_paths([SHARED_DATA]))
        paths += random.Random(11).sample(more, min(limit, len(more)))
    for path in paths:
        raw = read_page_bytes(path)
        yield path, parse_html(raw)
        yield path, html.fromstring(raw)


@needs_walk
def test_title_of_real_pages():
    for path, root in real_roots():
        start = summary._start_element(root)
        assert summary._c_title_text(start) == lxml_title(start), path


TITLE_CASES = [
    "<html><head><title>  A \n title </title></head><body><p>x</p></body></html>",
    "<html><head></head><body><title>in body</title></body></html>",
    "<html><head><title></title></head><body/></html>",
    "<html><head><title>a &amp; b &eacute;</title></head><body/></html>",
    "<html><head><title>é ü 日本</title></head><body/></html>",
    "<html><head><title><!-- c -->after comment</title></head><body/></html>",
    "<p>no head at all</p>",
    "<html><body><p>body only</p></body></html>",
]


@needs_walk
@pytest.mark.parametrize("page", TITLE_CASES)
def test_title_cases(page: str):
    for root in (parse_html(page), html.fromstring(page), etree.HTML(page)):
        for element in (root, summary._start_element(root)):
            assert summary._c_title_text(element) == lxml_title(element)
            assert summary._find_title(element) == (
                " ".join((lxml_title(element) or "").split()) or None
            )


XML_CASES = [
    "<html><head><title>one</title></head><head><title>two</title></head><body/></html>",
    "<html><head/><head><title>second head</title></head><body/></html>",
    "<html><head><meta/><title>a<![CDATA[ b ]]>c<b>x</b>tail</title></head><body/></html>",
    '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>ns</title></head><body/></html>',
    '<html xmlns:h="urn:h"><h:head><title>ns head</title></h:head><body/></html>',
    '<html xmlns:h="urn:h"><head><h:title>ns title</h:title></head><body/></html>',
    "<html><head><title><x/>no leading text</title></head><body/></html>",
]


@needs_walk
@pytest.mark.parametrize("page", XML_CASES)
def test_title_of_xml_trees(page: str):
    root = etree.fromstring(page)
    for element in (root, *root):
        assert summary._c_title_text(element) == lxml_title(element)


@needs_walk
def test_title_needs_an_element():
    with pytest.raises(TypeError):
        summary._c_title_text("not an element")
