"""The record path's shortcuts give what the long way gives (issue 31: the CPU of a crawl
with induction): links resolved per folder, rows skipped before their segments, texts built
bottom-up, drift checks read once per round."""

from __future__ import annotations

import lxml.html
import pytest
from lxml import etree

from pagesim_scrapy.core.drift import DriftMonitor
from pagesim_scrapy.core.drift.looks import DriftBaseline
from pagesim_scrapy.core.drift.memo import remembered
from pagesim_scrapy.core.induce import dom, parse_html
from pagesim_scrapy.core.induce.labels import _read_rows, find_rows
from pagesim_scrapy.core.record import bodyfields, landmarks

BASES = [
    "http://shop.example/a/b/page.html",
    "http://shop.example/a/b/other.html?q=1",
    "http://shop.example/a/b/",
    "http://shop.example/a/b;params/c",
    "http://shop.example",
    "http://shop.example/",
    "file:///srv/site/item/x.html",
    "https://other.example/a/b/page.html",
]
VALUES = ["p2.html", "../c/shoes", "./x?y=1#z", "/abs", "//cdn.example/i.png", "?page=2", ";p"]


@pytest.mark.parametrize("base", BASES)
def test_links_resolved_as_urljoin_resolves_them(base: str) -> None:
    from urllib.parse import urljoin

    links = "".join(f'<a href="{v}">{i}</a>' for i, v in enumerate(VALUES))
    for _ in range(2):  # the second page reads the process's cache
        root = parse_html(f"<html><body>{links}</body></html>", base_url=base)
        assert [a.get("href") for a in root.iter("a")] == [urljoin(base, v) for v in VALUES]


@pytest.mark.parametrize("base", BASES)
def test_link_resolver_is_urljoin(base: str) -> None:
    from urllib.parse import urljoin

    values = [*VALUES, "", "#top", " /x", "http://a.example/p", "http:rel", "mailto:a@b.c"]
    assert [dom.LinkResolver("")(v) for v in values] == values
    for _ in range(2):  # the second resolver reads the process's cache
        absolute = dom.LinkResolver(base)
        assert [absolute(v) for v in values] == [urljoin(base, v) for v in values]


ROWS_PAGE = """<html><body>
<div><div><p>Brand: Acme</p></div></div>
<div>Serves <b>4</b><br>Time: 1 h</div>
<div><b>Colour:</b> red</div>
<div><span>Weight</span> 2 kg</div>
<ul><li>one</li><li>two: three</li></ul>
<p>text<!-- c -->SKU: 12</p>
<div><section><p>a</p></section><br>Size: L</div>
</body></html>"""


def test_rows_the_same_with_and_without_the_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    from pagesim_scrapy.core.induce import labels

    root = parse_html(ROWS_PAGE)
    fast = [(r.label, r.value) for r in _read_rows(root)]
    monkeypatch.setattr(labels, "_holds_no_row", lambda el: False)
    assert [(r.label, r.value) for r in _read_rows(root)] == fast
    assert ("Brand", "Acme") in fast and ("Colour", "red") in fast
    dom.forget_page()
    assert [(r.label, r.value) for r in find_rows(parse_html(ROWS_PAGE))] == fast


TEXTS_PAGE = b"""<html><body><div id="a"> x <b>y</b>z<!-- hidden -->w
<script>var s;</script><p>\xc2\xa0p\tq </p></div><span></span></body></html>"""


def test_texts_built_bottom_up_equal_each_elements_own_reading() -> None:
    root = lxml.html.fromstring(TEXTS_PAGE)
    texts = bodyfields.all_texts(root.find("body"))
    for el in root.find("body").iter():
        if isinstance(el.tag, str):
            assert texts[el] == bodyfields._text(el)
    top = root.find("body")
    for el, whole in landmarks._whole_texts(top):
        assert whole == "".join(el.itertext())


def _features(n: int, extra: str = "") -> frozenset[str]:
    return frozenset({"aa", "ab", f"c{n % 3}", *([extra] if extra else [])})


def test_drift_reports_the_same_inside_a_round_and_after_a_page() -> None:
    base = DriftBaseline()
    for i in range(12):
        base.add("s", "product", _features(i), f"b{i}")
        base.add("s", None, frozenset({"aa", "zz"}), f"u{i}")
    monitor = DriftMonitor(base)
    for i in range(12):
        monitor.now.add("s", "product", _features(i, "nn"), f"n{i}")
        monitor.now.add("s", None, frozenset({"aa", "zz"}), f"v{i}")
    plain = monitor.check("s", "product")
    with remembered():
        first = monitor.check("s", "product")
        monitor.now.add("s", "product", frozenset({"qq"}), "late")  # the look changed
        again = monitor.check("s", "product")
    assert vars(first) == vars(plain)
    assert vars(again) == vars(monitor.check("s", "product"))
    assert again.pages_now == plain.pages_now + 1


def test_an_entity_reads_as_itself_in_both_readings() -> None:
    parser = etree.XMLParser(resolve_entities=False)
    root = etree.fromstring('<!DOCTYPE x [<!ENTITY e "v">]><body>a<b>c</b>&e;d</body>', parser)
    assert bodyfields.all_texts(root)[root] == bodyfields._text(root)
