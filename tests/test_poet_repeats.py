"""An exported page object leaves out what pagesim's record leaves out as a repeat (issue 31):
a value an earlier field of the record holds, a picture the page shows as a linked card or
in its metadata. Checked on the demo shop's pages the selectors were not checked on.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("web_poet")

from web_poet import HttpResponse

from pagesim_scrapy.core.induce import induce
from pagesim_scrapy.poet.export import (
    ExamplePage,
    export_label,
    exported_record,
    record_order,
    reference_record,
)
from pagesim_scrapy.poet.render import render_module
from pagesim_scrapy.poet.selectors import read_value
from sample_project.demo_shop import DEMO_LABELS_FILE, DEMO_SITE_DIR

_PAGE = b"""<html><head><meta property="og:image" content="/img/og.png"></head><body>
<h1 class="title">Lamp</h1><p class="alt-title">lamp</p>
<div class="main"><img src="/img/a.png"></div><div class="og"><img src="/img/og.png"></div>
<ul><li><a href="/p/2"><img src="/img/a.png"></a></li></ul>
<div class="plain"><img src="/img/b.png"></div>
</body></html>"""


def _response() -> HttpResponse:
    return HttpResponse("https://shop.example/p/1", _PAGE, headers={"Content-Type": "text/html"})


def test_a_value_an_earlier_field_reads_is_left_out() -> None:
    page = _response()
    earlier = (("//h1", "words"),)
    assert read_value(page, "//p[@class='alt-title']", "words") == "lamp"
    assert read_value(page, "//p[@class='alt-title']", "words", earlier) is None
    assert read_value(page, "//h1", "words", (("//p", "words"),)) is None
    assert read_value(page, "//h1", "words", (("//div", "words"),)) == "Lamp"


def test_a_picture_held_by_a_card_or_the_metadata_is_left_out() -> None:
    page = _response()
    main, og, plain = (f"//div[@class='{c}']/img/@src" for c in ("main", "og", "plain"))
    assert read_value(page, main, "link") == "https://shop.example/img/a.png"
    assert read_value(page, main, "link", (), True) is None  # a linked card's picture
    assert read_value(page, og, "link", (), True) is None  # the page's og:image
    assert read_value(page, plain, "link", (), True) == "https://shop.example/img/b.png"


def test_record_order_agrees_with_every_record() -> None:
    records: list[dict[str, Any]] = [
        {"name": 1, "b": 1, "d": 1},
        {"name": 1, "a": 1, "b": 1, "c": 1, "d": 1},
    ]
    assert record_order(records) == ["name", "a", "b", "c", "d"]


def _load(source: str, folder: Path) -> Any:
    path = folder / "demo_pages.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("demo_pages", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not DEMO_LABELS_FILE.is_file(), reason="the demo site is not generated")
def test_the_demo_page_object_gives_the_record_on_pages_it_was_not_checked_on(tmp_path: Path):
    labels = json.loads(DEMO_LABELS_FILE.read_text(encoding="utf-8"))
    paths = sorted(p for p, label in labels.items() if label == "product")[:20]
    pages = [
        ExamplePage("https://shop.example/" + p, (DEMO_SITE_DIR / p).read_bytes()) for p in paths
    ]
    wrapper = induce([p.body for p in pages], label="product")
    fitting = [p for p in pages if wrapper.extract(p.body).ok]
    spec = export_label(wrapper, fitting[:5])
    cls = getattr(_load(render_module([spec]), tmp_path), spec.class_name)
    held_out = fitting[5:]
    equal = 0
    for page in held_out:
        response = HttpResponse(page.url, page.body, headers={"Content-Type": "text/html"})
        item = asyncio.run(cls(response).to_item())
        equal += item == exported_record(spec, reference_record(wrapper, page.body, page.url))
    # the record's repeat drops mirrored: most held-out pages give the record exactly (half
    # of them did without the repeat checks)
    assert equal >= 0.8 * len(held_out)
