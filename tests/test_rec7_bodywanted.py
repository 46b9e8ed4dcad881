"""Reading only the wanted body keys gives what reading them all gives, for those keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.read import as_utf8, parse_html

DEMO = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site" / "item"

NESTED = """<html><body class="b"><div id="main" class="page x-12">
<p class="a">one</p><p class="a">two</p><noscript><p>hidden</p></noscript>
<div class="card"><span class="price">£3</span><img src="/i.jpg" srcset="/l.jpg 800w"></div>
<div class="card"><span class="price">£4</span><time datetime="2024-01-02">Jan 2</time></div>
</div><footer><a href="/x">x</a></footer></body></html>"""


def _pages() -> list[tuple[str, str]]:
    pages = [(NESTED, "https://shop.example/p/1")]
    for path in sorted(DEMO.glob("*.html"))[:4]:
        pages.append((path.read_text(encoding="utf-8"), path.as_uri()))
    return pages


@pytest.mark.parametrize("step", [1, 2, 3, 7])
def test_wanted_keys_read_as_the_full_read_gives_them(step: int) -> None:
    for html, url in _pages():
        root = parse_html(as_utf8(html))
        full = body_fields(root, url)
        assert full
        for offset in range(step):
            wanted = frozenset(sorted(full)[offset::step])
            got = body_fields(root, url, wanted)
            assert got == {k: v for k, v in full.items() if k in wanted}
            assert list(got) == [k for k in full if k in wanted]


def test_keys_the_page_lacks_read_nothing() -> None:
    root = parse_html(as_utf8(NESTED))
    wanted = frozenset({"body.b/div#main.page.x/p.a[5]", "~body/div#nope[0]", "^div/span[0]", "x"})
    assert body_fields(root, "", wanted) == {}
