"""The record steps share one walk of a page (issue 31/36): the element list and the spans
read from it give what each step's own walk gave."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from pagesim_scrapy.core.induce import dom
from pagesim_scrapy.core.induce.dom import body_elements, page_elements, subtree_end
from pagesim_scrapy.core.induce.labels import find_rows
from pagesim_scrapy.core.record import landmarks, posts
from pagesim_scrapy.core.record.landmarks import landmark_texts
from pagesim_scrapy.core.record.read import parse_html as record_parse

_DEMO = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site" / "item"

_PAGE = b"""<html><head><title>t</title>
<script type="application/ld+json">{"@type": "Product", "name": "Lamp"}</script></head>
<body><!-- c --><header><nav><a href="/">Home</a></nav><p>Free delivery</p></header>
<main><header><h1>Lamp</h1></header><dl><dt>Brand:</dt><dd>Acme</dd></dl>
<div class="post"><time datetime="2024-01-02">Jan 2</time> <a href="/user/ann">ann</a>
 <p>First post text with words.</p></div>
<div class="post">Posted Jan 5, 2024 by <a href="/user/bob">bob</a>
 <span>March 3, 2024</span><p>Second post text here.</p></div>
<form><span>2024-05-05</span></form></main>
<div role="contentinfo"><p>Shop footer &amp; more</p><footer>inner</footer></div>
</body></html>"""


def _trees() -> list[Any]:
    pages = [_PAGE, *(p.read_bytes() for p in sorted(_DEMO.glob("*.html"))[:8])]
    trees = []
    for page in pages:
        trees.append(dom.parse_html(page, base_url="https://shop.example/p"))
        trees.append(record_parse(page))
    return trees


def test_page_elements_are_the_elements_in_document_order_read_once() -> None:
    root = dom.parse_html(_PAGE)
    elements = page_elements(root)
    assert elements == [el for el in root.iter() if isinstance(el.tag, str)]
    assert page_elements(root) is elements
    dom.forget_page()
    assert page_elements(root) is not elements


@pytest.mark.parametrize("index", range(len(_trees())))
def test_subtree_spans_hold_each_element_and_its_descendants(index: int) -> None:
    root = _trees()[index]
    elements = page_elements(root)
    for k, el in enumerate(elements):
        assert elements[k : subtree_end(elements, k)] == list(el.iter(etree.Element))
    body, listed = body_elements(root)
    assert body is root.find("body")
    assert listed == [el for el in body.iter() if isinstance(el.tag, str)]
    dom.forget_page()


def test_body_elements_of_a_page_without_body_are_all_its_elements() -> None:
    fragment = record_parse(b"<p>only a <b>fragment</b></p>")
    assert body_elements(fragment) == (fragment, [fragment, fragment[0]])
    dom.forget_page()


def _old_landmark_texts(root: Any) -> landmarks.LandmarkTexts:
    """The landmarks as their own walks read them before the shared walk."""
    found: list[Any] = []
    for el in root.iter("header", "footer", "div", "section", "nav", "aside"):
        if landmarks._is_landmark(el) and not any(p in found for p in el.iterancestors()):
            found.append(el)
    if not found:
        return landmarks.LandmarkTexts()
    members: set[Any] = set()
    inside: set[str] = set()
    for landmark in found:
        texts = landmarks._subtree_texts(list(landmark.iter(etree.Element)))
        members.update(el for el, _ in texts)
        inside |= landmarks._texts_inside([el for el, _ in texts], set())
    outside = set()
    for el in root.iter():
        if el not in members and isinstance(el.tag, str):
            outside |= {landmarks._norm(el.text), landmarks._norm(el.tail)}
    return landmarks.LandmarkTexts(frozenset(inside - outside), frozenset(inside))


def test_landmarks_and_dates_read_from_the_shared_walk_are_unchanged() -> None:
    for root in _trees():
        dom.forget_page()
        assert landmark_texts(root) == _old_landmark_texts(root)
        body = root.find("body")
        shared = body_elements(root)[1]
        assert posts._dates(body, shared) == posts._dates(body)
    root = record_parse(_PAGE)
    assert "free delivery" in landmark_texts(root).only
    assert [el.tag for el in posts._dates(root.find("body"))] == ["time", "div"]
    dom.forget_page()


def test_rows_and_posts_read_after_each_other_share_the_walk() -> None:
    wrapper_tree = dom.parse_html(_PAGE)
    assert next((r.label, r.value) for r in find_rows(wrapper_tree)) == ("Brand", "Acme")
    root = record_parse(_PAGE)
    assert [p["author"] for p in posts.body_posts(root)] == ["ann"]  # as before the shared walk
    elements = page_elements(root)
    landmark_texts(root)
    assert page_elements(root) is elements
    dom.forget_page()
