"""The record path's cheaper reading gives what the plain reading gave: the same tree from
one parse, the same dates, body texts and card lists (issues 31 and 36, CPU with induction)."""

from __future__ import annotations

import re
from pathlib import Path

import lxml.html
import pytest
from lxml import etree

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.build import read_page
from pagesim_scrapy.core.record.cards import body_cards
from pagesim_scrapy.core.record.landmarks import landmark_texts
from pagesim_scrapy.core.record.posts import _dates, _is_date, body_posts
from pagesim_scrapy.core.record.read import parse_html, read_structured

_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
_FORUM = _DATA / "site_page_types_2" / "oem_forum" / "pages" / "node"
_SPACE = re.compile(r"\s+")
_SKIP = frozenset({"script", "style", "noscript", "template", "form", "nav", "header", "footer"})

_PAGE = b"""<!DOCTYPE html><html><head><title>T</title></head><body>
<header><a href="/">Shop</a></header>
<form><select name="size"><option>S</option></select><input name="q"></form>
<ul class="cards">
 <li><a href="/a">Alpha lamp</a> <span>$10.00</span></li>
 <li><a href="/b">Beta lamp</a> <span>$12.00</span></li>
 <li><a href="/c">Gamma lamp</a> <span>$14.00</span></li>
</ul>
<div class="post"><time datetime="2024-01-02">Jan 2</time> <a href="/user/ann">ann</a>
 <p>First post text with words.</p></div>
<div class="post">Posted Jan 5, 2024 by <a href="/user/bob">bob</a>
 <span>March 3, 2024</span><p>Second post text here.</p></div>
<nav><span>2024-05-05</span></nav>
<footer>Footer text</footer></body></html>"""


def _old_dates(body: etree._Element) -> list[etree._Element]:
    """The body's dates as they were read before the pruned walk (every element, each
    checked against its ancestors)."""
    out: list[etree._Element] = []
    seen: set[etree._Element] = set()
    for el in body.iter():
        if not isinstance(el.tag, str) or el.tag in _SKIP:
            continue
        if any(a.tag in _SKIP for a in el.iterancestors()):
            continue
        if _is_date(el) and not any(_is_date(a) for a in el.iterancestors() if a in seen):
            out.append(el)
            seen.add(el)
    return out


def test_the_record_tree_is_lxml_html_s_tree_without_its_python_class_lookup():
    root = parse_html(_PAGE)
    plain = lxml.html.fromstring(_PAGE, parser=lxml.html.HTMLParser(encoding="UTF-8"))
    assert etree.tostring(root) == etree.tostring(plain)
    assert all(type(el) is lxml.html.HtmlElement for el in root.iter("form", "select", "input"))
    fragment = parse_html(b"<p>only a <b>fragment</b></p>")
    assert fragment is not None and fragment.tag == "p"


def test_rdfa_is_read_only_where_the_page_has_rdfa_markers():
    without = read_structured(_PAGE, "https://shop.example/p")
    assert without.entities["rdfa"] == []
    marked = _PAGE.replace(
        b"<body>",
        b'<body><div vocab="https://schema.org/" typeof="Product">'
        b'<span property="name">Lamp</span></div>',
    )
    found = read_structured(marked, "https://shop.example/p").entities["rdfa"]
    assert [e.get("name") for e in found] == ["Lamp"]


def test_dates_are_the_outermost_ones_outside_skipped_parts():
    body = parse_html(_PAGE).find("body")
    assert _dates(body) == _old_dates(body)
    assert [el.tag for el in _dates(body)] == ["time", "div"]


@pytest.mark.skipif(not _FORUM.is_dir(), reason="shared page data not present")
def test_dates_and_posts_of_real_forum_pages_are_unchanged():
    for path in sorted(_FORUM.glob("*.html"))[:6]:
        root = parse_html(path.read_bytes())
        body = root.find("body")
        assert _dates(body) == _old_dates(body), path.name
        assert body_posts(root) == body_posts(lxml.html.fromstring(path.read_bytes()))


def test_body_texts_fold_as_the_filtered_join_did():
    root = parse_html(_PAGE)
    fields = body_fields(root, "https://shop.example/p")
    for el in root.find("body").iter():
        if not isinstance(el.tag, str):
            continue
        old = _SPACE.sub(" ", " ".join(t for t in el.itertext() if t)).strip()
        new = _SPACE.sub(" ", " ".join(el.itertext())).strip()
        assert old == new
    assert "Second post text here." in fields.values()


def test_landmark_texts_leave_blank_text_nodes_out():
    texts = landmark_texts(parse_html(_PAGE))
    assert "" not in texts.shown
    assert "footer text" in texts.only


def test_card_list_completed_from_the_page_s_links_resolved_once():
    root = parse_html(_PAGE)
    seed = [{"name": "Alpha lamp", "url": "https://shop.example/a", "price": "10.00"}]
    cards, texts = body_cards(root, seed, "https://shop.example/p")
    assert [c["url"] for c in cards] == [f"https://shop.example/{k}" for k in "abc"]
    assert texts


def test_the_core_record_reads_the_same_page_the_same_way_twice():
    first = read_page(_PAGE, "https://shop.example/p")
    second = read_page(_PAGE, "https://shop.example/p")
    assert first[0] == second[0]
